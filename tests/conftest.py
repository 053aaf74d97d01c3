"""Shared test settings: English runtime strings, a headless matplotlib, the site checks only after a build."""

import os

import matplotlib

matplotlib.use("Agg")
os.environ["KERNELLAB_LANG"] = "en"

# The built-site checks need `nox -s docs` first, which runs them itself with KERNELLAB_SITE set.
collect_ignore = [] if os.environ.get("KERNELLAB_SITE") else ["site"]
