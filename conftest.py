"""pytest, before it collects anything: kernellab imported the normal way; after it collected: the heap frozen.

The docstring examples are collected with ``--import-mode=importlib``, which imports a module's file
under its name. Run before the package itself was imported, that made a second copy of the module
(``kernellab.triton.executor.sampling`` beside the one ``kernellab.triton.executor.engine`` holds), whose state the engine
never reads: ``sampled()`` then did nothing, in whichever worker collected that file first. Imported
here, every module is already in ``sys.modules`` and pytest uses it.

Only a process that collects imports it: pytest-xdist's controller (its ``dsession`` plugin) collects
nothing and runs no test, so it skips the import (about half a CPU second).

Once collected, the objects alive then (modules, test functions, their parameters: most of the heap) are
moved out of the cyclic garbage collector's sight (``gc.freeze()``): a full collection no longer walks them,
which each worker otherwise does some twenty times during the tests and five times more at the end
(pytest's unraisable-exception check). While collecting, the collector is off: the heap only grows then, and
its passes over it (four full ones and some fifty younger ones, about 0.25 CPU s of a worker's 1.9) find
little to free; one full collection at the end frees what did become unreachable (about 50,000 objects: their
finalizers run there, as they would have run in one of those passes) before the rest is frozen. Counts and
results do not depend on it; what is frozen is never freed, which a test process does not need.

During the tests a full collection comes after 100 collections of the middle generation instead of 10, as in the site's
build (docs/_ext/build_gc.py, ``fewer_full_collections``). A full collection walks every unfrozen object the tests keep
alive (kernels, their launch caches and records, module-level tables): 30–60 ms a time in a worker, eight or nine times
a worker's run with Python's default. Python's own brake on full collections (one only once the objects waiting for it
are a quarter of the old ones) counts, after the first, only the old objects that are not frozen, which are few, so it
no longer holds them back. Younger garbage is collected as before; cycles that have reached the oldest generation wait
for a full collection (one of the rare automatic ones, or a test's own ``gc.collect()``).
"""

import gc
import importlib.util
from pathlib import Path

import pytest


def _build_gc():
    """docs/_ext/build_gc.py (the site build's collector settings), loaded by its path."""
    spec = importlib.util.spec_from_file_location("build_gc", Path(__file__).parent / "docs" / "_ext" / "build_gc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    if not session.config.pluginmanager.has_plugin("dsession"):
        gc.disable()
        import kernellab.triton  # noqa: F401  (kernellab.triton imports kernellab)


def pytest_collection_finish(session: pytest.Session) -> None:
    # called however the collection ended (pytest calls it in a finally)
    gc.collect()
    gc.freeze()
    _build_gc().fewer_full_collections()
    gc.enable()
