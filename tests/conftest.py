"""Shared test settings: English runtime strings, a headless matplotlib, the site checks only after a build."""

import os
import sys

# Agg without importing matplotlib here: pytest-xdist's controller never draws, and a worker imports it
# only when a test does (matplotlib reads MPLBACKEND when it is imported)
if "matplotlib" in sys.modules:
    sys.modules["matplotlib"].use("Agg")
else:
    os.environ["MPLBACKEND"] = "Agg"
os.environ["KERNELLAB_LANG"] = "en"

# The built-site checks need `nox -s docs` first, which runs them itself with KERNELLAB_SITE set.
collect_ignore = [] if os.environ.get("KERNELLAB_SITE") else ["site"]
