"""The built-site checks import their shared names from ``site_common``, tools/ (site_publish, check_downloads)
and docs/_ext (zh_search)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "tools"), str(HERE.parents[1] / "docs" / "_ext")]
