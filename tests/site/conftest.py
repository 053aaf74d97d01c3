"""The built-site checks import their shared names from ``site_common`` and tools/ (site_publish, check_downloads)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1] / "tools")]
