"""Counts per source line: the frame walk that finds the kernel's line, and the tally that keeps a row per line.

``lines=True`` on a launch makes its tally a *line tally* (:func:`line_tally`): every record call of the
engine's tally (every public method but those that freeze or merge) first finds the user's line — the
innermost frame that is the kernel's own code, a function defined in the kernel's file, or a
``@triton.jit`` helper — and then adds to that line's own plain tally. The launch's totals are the sum of
the rows, so any counter a tally method records, today's or tomorrow's, is attributed to a line.
Counts a launch records outside the kernel (``programs``) stay launch-level, in no row.

The rows live in the tally of the step that records them: a vectorised step that is undone and rerun
program by program drops its tally, rows included, so the rows follow the counts of the run that completes.
"""

from __future__ import annotations

import copy
import functools
import inspect
import linecache
import os
import re
import sys
import weakref
from collections.abc import Mapping
from dataclasses import replace

from .i18n import _

#: The key of a row: ``(file name, line number)``.
Key = tuple


def _function(kernel):
    """The Python function behind a kernel (a function, a ``@triton.jit`` kernel, a partial, a method, a
    callable object), or None."""
    seen = []  # the wrappers met (kept, so that no id is reused): one met again wraps itself, through others
    while not any(kernel is w for w in seen):
        if inspect.isfunction(kernel):
            return kernel
        seen.append(kernel)
        inner = (getattr(kernel, "fn", None) or getattr(kernel, "func", None) or getattr(kernel, "__func__", None))
        if inner is None and callable(kernel) and not inspect.isroutine(kernel):
            inner = type(kernel).__dict__.get("__call__")
        if inner is None:
            return None
        kernel = inner
    return None


# the line inspect.findsource (Python 3.11, 3.12) looks back to from a code object's first line: a def, a lambda
# or a decorator
_DEF_LINE = re.compile(r'^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)')


def _read(code) -> tuple[list[str], int] | None:
    """``inspect.getsourcelines(code)``, or None where it raises ``OSError`` or ``TypeError``; read from
    :mod:`linecache` without inspect's search of ``sys.modules`` for the code's module where that search changes
    nothing, when line ``co_firstlineno`` opens the function (its ``def`` or first decorator: the line inspect
    would stop at): a ``.py`` file on disk (linecache reads the file itself, whatever the module), or a name
    ``<…>`` (exec'd code, a doctest's example, a notebook cell), which inspect reads from ``linecache.getlines``
    alone (no module is found for it, and linecache reads no file of such a name): no lines there, no source."""
    file, at = code.co_filename, code.co_firstlineno - 1
    named = file.startswith("<") and file.endswith(">")
    if named or file.endswith(".py") and os.path.exists(file):
        linecache.checkcache(file)
        lines = linecache.getlines(file)
        if named and not lines:
            return None  # (inspect: OSError, could not get source code)
        if 0 <= at < len(lines) and _DEF_LINE.match(lines[at]):
            return inspect.getblock(lines[at:]), at + 1
    try:
        return inspect.getsourcelines(code)
    except (OSError, TypeError):
        return None


#: What :func:`source_lines` read: ``id(code) → (weak reference to code, lines)``, an entry dropped when its code
#: object goes. Keyed by identity: two code objects compare (and hash) equal when their bytecode, names, constants
#: and first line do, whatever their files — a dict keyed by the code itself would give one file's text for another.
_READ: dict = {}


def source_lines(code) -> tuple[list[str], int] | None:
    """The source of the function whose code object is ``code``, as ``inspect.getsourcelines(code)`` gives it (its
    lines from its first decorator, and the file's line they start on), or None where it cannot be read; read once
    per code object, and kept while it lives: the text of the code that runs (a file rewritten after a kernel's first
    launch, its module not reloaded, keeps the kernel's first text), for every closure a factory makes of one code.
    The one reader of a kernel's source: per-line rows (:class:`LineFinder`) and mini-Triton's compile-time checks
    (``kernellab.triton.compiler.limits``) both read through it.

    >>> def twice(x):
    ...     return 2 * x
    >>> lines, start = source_lines(twice.__code__)
    >>> [line.strip() for line in lines], start == twice.__code__.co_firstlineno
    (['def twice(x):', 'return 2 * x'], True)
    """
    key = id(code)
    hit = _READ.get(key)
    if hit is not None and hit[0]() is code:
        return hit[1]
    got = _read(code)
    _READ[key] = (weakref.ref(code, lambda _ref, key=key: _READ.pop(key, None)), got)
    return got


def _source_lines(fn) -> dict | None:
    """``(file, line) → text`` of ``fn``'s source, or None when it cannot be read (:func:`source_lines`). A function
    that wraps another (``__wrapped__``, as ``functools.wraps`` sets it) is read as inspect reads it: the function it
    wraps."""
    if hasattr(fn, "__wrapped__"):
        inner = inspect.unwrap(fn)
        if not inspect.isfunction(inner):  # (not a function: inspect's own answer)
            try:
                lines, start = inspect.getsourcelines(fn)
            except (OSError, TypeError):
                return None
            return {(fn.__code__.co_filename, start + i): text for i, text in enumerate(lines)}
        fn = inner
    read = source_lines(fn.__code__)
    if read is None:
        return None
    lines, start = read
    return {(fn.__code__.co_filename, start + i): text for i, text in enumerate(lines)}


@functools.lru_cache(maxsize=256)
def _last_line(code) -> int:
    """The last line of ``code``'s function in its file (its first when it has no line of its own)."""
    return max([code.co_firstlineno] + [n for *_, n in code.co_lines() if n])


class LineFinder:
    """Finds the source line a record call comes from, for one kernel.

    The walk goes up the stack from the record call to the kernel's frame (found by its code object).
    The line is the innermost frame on the way that is the kernel's own, a function defined in the
    kernel's file, or a frame called from one of ``helper_callers`` (the code of ``JITFunction.__call__``:
    the frame it calls is a ``@triton.jit`` helper's). When that frame is not the kernel's, the kernel's
    line that led to it is the *call site*. A kernel whose source cannot be read (a lambda, ``exec``'d
    code, a callable without Python code) gets one row for the whole function, and ``note`` says why.

    Examples
    --------
    >>> def kernel(blk):
    ...     return finder.where()
    >>> finder = LineFinder(kernel)
    >>> (file, line), site = kernel(None)
    >>> line - kernel.__code__.co_firstlineno, site    # the kernel's second line, no call site
    (1, None)
    >>> LineFinder(lambda blk: None).note
    'a lambda has no lines of its own: one row for the whole function'
    """

    def __init__(self, kernel, helper_callers=(), name: str | None = None):
        fn = _function(kernel)
        self.name = name or getattr(kernel, "__name__", None) or getattr(fn, "__name__", "kernel")
        self.root = getattr(fn, "__code__", None)
        self.file = self.root.co_filename if self.root else "<unknown>"
        self.first = self.root.co_firstlineno if self.root else 0
        self.last = _last_line(self.root) if self.root else 0
        self.callers = frozenset(helper_callers)
        self._own: dict = {}  # code object → whether it lies in the kernel's file
        self.note: str | None = None
        self.text: dict = {}  # (file, line) → the kernel's source lines, read now (a doctest's go when it ends)
        if self.root is None:
            self.note = _("no Python source: one row for the whole kernel")
        elif fn.__name__ == "<lambda>":
            self.note = _("a lambda has no lines of its own: one row for the whole function")
        else:
            lines = _source_lines(fn)
            if lines is None:
                self.note = _("its source cannot be read (exec'd or generated code): one row for the whole function")
            else:
                self.text = lines
        self.whole: Key | None = (self.file, self.first) if self.note else None

    def where(self) -> tuple[Key | None, Key | None]:
        """``(key, call site)`` of the record being made now: ``key`` None outside the kernel."""
        if self.whole is not None:
            return self.whole, None
        f = sys._getframe(1)
        root, file, callers, own = self.root, self.file, self.callers, self._own
        inner = None
        while f is not None:
            code = f.f_code
            if code is root:
                here = (file, f.f_lineno)
                return (here, None) if inner is None else (inner, here)
            if inner is None:
                mine = own.get(code)
                if mine is None:  # whether the code is in the kernel's file: once per code object
                    mine = own[code] = code.co_filename == file
                if mine or (callers and f.f_back is not None and f.f_back.f_code in callers):
                    inner = (code.co_filename, f.f_lineno)
            f = f.f_back
        return None, None


class ByLine(Mapping):
    """A launch's counts per source line: ``(file, line) → counts`` of the launch's counts type.

    Rows are in source order. ``sites`` maps a row inside a called helper to the kernel lines that
    called it; ``note`` says why there is one row for the whole function, when there is.
    ``sum(by_line.values(), start)`` equals the launch's counts on every field a line records
    (``programs`` is launch-level; a line's ``dram_sectors`` are those it touched first in the launch).
    """

    def __init__(self, rows: dict, sites: dict, finder: LineFinder):
        self._rows = dict(sorted(rows.items(), key=lambda kv: (kv[0][0] != finder.file, kv[0])))
        self.sites = {k: tuple(sorted(v)) for k, v in sites.items()}
        self.note = finder.note
        self.kernel = finder.name
        self.file = finder.file
        self.first, self.last = finder.first, finder.last  # the kernel's first and last line in its file
        self._text = {**finder.text, **{k: linecache.getline(*k) for k in rows if k not in finder.text}}

    def __getitem__(self, key):
        if isinstance(key, int):  # a line of the kernel's own file
            key = (self.file, key)
        return self._rows[key]

    def __iter__(self):
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"<ByLine {self.kernel}: {len(self)} lines>"

    def line(self, key: Key) -> str:
        """The text of a source line (stripped), or '' when it cannot be read."""
        return self.text(key).strip()

    def text(self, key: Key) -> str:
        """The text of a source line as written (read when the launch returned), or ''."""
        if key not in self._text:
            self._text[key] = linecache.getline(*key)
        return self._text[key]

    def replaced(self, rows: dict) -> ByLine:
        """A copy holding ``rows`` (key → counts, the same keys) instead of these rows: same sites and text."""
        out = copy.copy(self)
        out._rows = {k: rows[k] for k in self._rows}
        return out

    def total(self, start):
        """The sum of the rows, starting from ``start`` (an empty counts of the launch's type)."""
        out = start
        for row in self._rows.values():
            out = out + row
        return out


_FREEZE = ("counts", "result", "merge", "flush")  # tally methods that read or merge, never record


@functools.cache
def _line_class(base: type) -> type:
    """The line-tally class of ``base``: every public method of ``base`` that records is wrapped.

    ``base`` has ``merge(other)`` and one freezing method (``counts`` or ``result``) besides
    ``_row_counts``, which freezes a row with the freezing method's arguments.
    """

    def recorder(name, method):
        def record(self, *args, **kwargs):
            key, site = self._finder.where()
            if key is None:
                return method(self, *args, **kwargs)
            row = self._rows.get(key)
            if row is None:
                row = self._rows[key] = base()
            if site is not None:
                self._sites.setdefault(key, set()).add(site)
            return method(row, *args, **kwargs)

        record.__name__, record.__doc__ = name, method.__doc__
        return record

    def merge(self, other):
        base.merge(self, other)
        if hasattr(other, "_rows"):
            merge_lines(self, other)

    def freezer(method):
        def freeze(self, *args, **kwargs):
            total = base()
            base.merge(total, self)  # the launch-level counts, then every row
            rows = {}
            for key, row in self._rows.items():
                total.merge(row)
                rows[key] = row._row_counts(*args, **kwargs)
            out = method(total, *args, **kwargs)
            return replace(out, by_line=ByLine(rows, self._sites, self._finder))

        freeze.__name__, freeze.__doc__ = method.__name__, method.__doc__
        return freeze

    ns = {name: recorder(name, m) for name, m in vars(base).items()
          if inspect.isfunction(m) and not name.startswith("_") and name not in _FREEZE}
    ns.update({name: freezer(m) for name, m in vars(base).items() if name in ("counts", "result")})
    ns["merge"] = merge
    ns["__slots__"] = ("_finder", "_rows", "_sites")
    ns["__doc__"] = f"A {base.__name__} that keeps a row per source line (see :mod:`kernellab.lines`)."
    return type("Line" + base.__name__, (base,), ns)


def line_tally(base: type, finder: LineFinder):
    """A new tally of class ``base`` whose records go to rows per source line (found by ``finder``).

    Examples
    --------
    >>> from kernellab.simt.tally import Tally
    >>> def kernel(t):
    ...     t.instr("fma", 1, 32)
    ...     t.instr("fma", 2, 40)
    >>> t = line_tally(Tally, LineFinder(kernel)); kernel(t)
    >>> c = t.counts()
    >>> [(line - kernel.__code__.co_firstlineno, row.warp_instr) for (_f, line), row in c.by_line.items()]
    [(1, 1), (2, 2)]
    >>> c.warp_instr, c.thread_instr
    (3, 72)
    """
    t = _line_class(base)()
    t._finder, t._rows, t._sites = finder, {}, {}
    return t


def tally_factory(base: type, finder: LineFinder | None):
    """A function making the launch's tallies: plain ``base`` ones, or line tallies when ``finder`` is given."""
    return base if finder is None else functools.partial(line_tally, base, finder)


def here(tally):
    """The row key (file, line) a record made now would go to, or None (not a line tally, or outside the
    kernel): kept by a record that a later line may take back (``take_back``)."""
    finder = getattr(tally, "_finder", None)
    return None if finder is None else finder.where()[0]


def take_back(tally, key, name: str, *args) -> bool:
    """Record ``name(*args)`` on the row ``key`` of line tally ``tally`` (a correction of what that line
    recorded, made later from another line); False, recording nothing, when the row is not there.

    >>> from kernellab.simt.tally import Tally
    >>> def kernel(t):
    ...     t.instr("fma", 2, 64); key = here(t)    # the line that recorded
    ...     t.instr("fma", 1, 32)
    ...     return key
    >>> t = line_tally(Tally, LineFinder(kernel)); key = kernel(t)
    >>> take_back(t, key, "instr", "fma", -1, -32), take_back(Tally(), key, "instr", "fma", -1, -32)
    (True, False)
    >>> [row.warp_instr for row in t.counts().by_line.values()]   # one of the first line's taken back
    [1, 1]
    """
    row = getattr(tally, "_rows", {}).get(key)
    if row is None:
        return False
    getattr(row, name)(*args)
    return True


def merge_lines(into, other) -> None:
    """Add the rows (and call sites) of line tally ``other`` into line tally ``into``."""
    for key, row in other._rows.items():
        mine = into._rows.get(key)
        if mine is None:
            into._rows[key] = row
        else:
            mine.merge(row)
    for key, sites in other._sites.items():
        into._sites.setdefault(key, set()).update(sites)
    other._rows, other._sites = {}, {}
