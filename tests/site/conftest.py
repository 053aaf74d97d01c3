"""The built-site checks import their shared names from ``site_common``, tools/ (site_publish, check_downloads)
and docs/_ext (zh_search); like the build, they run with fewer full garbage collections (docs/_ext/build_gc.py):
they keep every page they parse, which each full collection walked again (1.3 of 14 s of CPU)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "tools"), str(HERE.parents[1] / "docs" / "_ext")]

import build_gc  # noqa: E402  (docs/_ext, on the path from here on)

build_gc.fewer_full_collections()
