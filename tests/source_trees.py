"""Syntax trees of the repository's Python files, each parsed once per test process.

Three tests walk every module of kernellab/: the import graph (test_layers), the public docstrings
(test_vocab_errors) and every ``_()`` string (test_i18n, through tools/po_tools.py). Parsing and walking
the package takes about 0.4 CPU s, of which a walk of trees already made is a third; under ``-n 2`` at least
two of the three share a worker, which then parses once. A tree is keyed by the file's resolved path,
modification time and size, and is only read, never changed, by its callers.

Kept trees (some 200,000 objects for kernellab/) would otherwise be walked by every later full
collection of the cyclic garbage collector (0.14 CPU s each, about twenty in a worker's run): they are
made with the collector paused (a tree holds no reference cycle) and then frozen out of its sight, as the
root conftest freezes the collected tests (``gc.freeze()``).
"""

import ast
import functools
import gc
from pathlib import Path


def tree(path) -> ast.Module:
    """The syntax tree of the Python file at ``path`` (parsed on the first call for this version of it)."""
    path = Path(path).resolve()
    stat = path.stat()
    return _parsed(path, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _parsed(path: Path, _mtime_ns: int, _size: int) -> ast.Module:
    text = path.read_text(encoding="utf-8")
    enabled = gc.isenabled()
    gc.disable()
    try:
        out = ast.parse(text, str(path))
    finally:
        if enabled:
            gc.enable()
    gc.freeze()
    return out
