"""A pytest plugin for tools/mutants.py's coverage run (which tests execute each line): before each test, the
``functools`` caches of kernellab's functions are emptied, so that a cached function's lines are credited to
every test that calls it, not only to the first one in its process. Without it a mutant of such a line runs
only the tests that happened to fill the cache, and can survive a test of the fast suite that would kill it."""

from __future__ import annotations

import sys


def caches() -> list:
    """Every ``functools.lru_cache``/``cache`` of a function (or of a class's method or static method) of an
    imported kernellab module."""
    found, seen = [], set()
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "kernellab" or name.startswith("kernellab.")):
            continue
        for value in list(vars(module).values()):
            inner = list(vars(value).values()) if isinstance(value, type) else []
            for f in (value, *inner):
                f = getattr(f, "__func__", f)  # a static or class method's function
                if callable(getattr(f, "cache_clear", None)) and hasattr(f, "cache_info") and id(f) not in seen:
                    seen.add(id(f))
                    found.append(f)
    return found


def pytest_runtest_setup(item) -> None:
    for f in caches():
        f.cache_clear()
