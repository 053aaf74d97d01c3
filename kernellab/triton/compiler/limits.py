"""What Triton 3.9 refuses to compile, refused in ``@triton.jit`` kernels too: every such check is here.

A kernel that runs here must compile there. While a ``@triton.jit`` launch runs (:func:`enforced`),
the language calls these checks where Triton's front end makes the same decision, and a kernel line
Triton 3.9 would reject raises :class:`~kernellab.triton.compiler.errors.CompilationError` naming the
kernel and the line (file and line, and the line within the kernel's source, as Triton's ``at 2:8:``),
with the exception Triton's own code raises there, of the same type and with the same message, as its
``__cause__``:

- **block shapes** (:func:`block_shape`, checked whenever a block value is made, as Triton checks every
  ``block_type``): every dimension a power of two, at most ``TRITON_MAX_TENSOR_NUMEL`` = 2^20 elements —
  ``tl.arange``, ``tl.zeros``/``tl.full``, broadcasting (``a[:, None] + b[None, :]``), ``tl.reshape``,
  ``tl.join``, ``tl.histogram``'s bins, loads of such pointer blocks;
- **constexpr arguments** (:func:`arange`, :func:`shape`, :func:`static_range`, :func:`static_assert`): the
  bounds of ``tl.arange``, the shapes of ``zeros``/``full``/``reshape``/``view``/``broadcast_to``,
  ``tl.static_range``'s bounds and ``tl.static_assert``'s condition must be known when Triton compiles
  (``tl.constexpr`` parameters, Python ints), not run-time values (a scalar argument);
- **``tl.dot``** (:func:`dot`): equal ranks of 2 (or 3), equal reduction dimensions, operands of one dtype
  among int8, fp16, bf16, fp32, fp64 (any two fp8 types), K at least 16 (32 for 8-bit, 8 for fp32, 4 for
  fp64), no bf16 ``out_dtype``, an accumulator of the result's shape and of ``out_dtype``; not both
  ``input_precision`` and ``allow_tf32`` (:func:`dot_arguments`), and an ``input_precision`` (or
  ``TRITON_F32_DEFAULT``) the NVIDIA backend allows (:func:`dot_input_precision`);
- **loop bounds** (:func:`loop_bounds`): a ``range``/``tl.range`` loop's start, end and step are integer
  scalars (a float bound is Triton's ``TypeError``, not a truncated Python ``int()``);
- **names Triton 3.9 lacks** (:func:`missing_name`): ``tl.math.tanh`` and the other libdevice functions
  ``tl.math`` no longer holds since Triton 3.0 (use ``tl.extra.libdevice``);
- **control flow** (:func:`control_flow`, read from the kernel's source when it is launched, as Triton reads
  it when it compiles): ``break`` and ``continue`` in any loop, ``tl.static_range``'s included
  (``UnsupportedLanguageConstruct``, "unsupported AST node type: Break"), and ``return`` inside a
  ``for``/``while`` loop that is not a ``tl.static_range`` (under a run-time ``if``: "Cannot have `return`
  statements inside `while` or `for` statements in triton."; unconditional: Triton's assertion that the
  loop body has one block); a function defined inside a kernel ("nested function definitions are not
  allowed inside a @triton.jit kernel. …", at its ``def``). An ``if`` on ``tl.constexpr`` parameters only
  is decided by the launch's values, as Triton compiles only the branch taken; a ``@triton.jit`` helper's
  own such line is reported at the kernel's call of it, with the helper's error as its ``__cause__``.

Outside a ``@triton.jit`` launch (a language function called on its own, in a test or at the prompt) the
same checks raise Triton's exception itself; the lecture form ``kernel(tl, ...)`` (``triton_launch``) is
not checked: its scripts are the course's specification. Block pointers (``tl.make_block_ptr``,
``tl.advance``), which Triton 3.9 removed, are kept: their first use warns once
(:class:`~kernellab.errors.BlockPointerWarning`, :func:`block_pointer`).

The checks run where the line runs: a line on a path the launch does not take is not checked, where
Triton compiles every path (the control-flow checks excepted: they read every line).
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
import sys
import textwrap
import warnings
from contextlib import contextmanager
from contextvars import ContextVar
from types import SimpleNamespace

import numpy as np

from ...errors import BlockPointerWarning
from ...i18n import _
from ...lines import source_lines
from ...tracebacks import _library, user_stacklevel
from .. import knobs
from ..executor.numerics import DOT_INPUT_PRECISIONS, TRITON_MAX_TENSOR_NUMEL
from ..executor.program import _CURRENT
from .errors import CompilationError, CompileTimeAssertionFailure, UnsupportedLanguageConstruct

_ENFORCED: ContextVar[bool] = ContextVar("kernellab_triton_limits", default=False)
# Inside kernellab's own implementation of a builtin (a scan's partial slices): blocks no Triton program sees
_INTERNAL: ContextVar[bool] = ContextVar("kernellab_triton_internal_shapes", default=False)
#: Block shapes already found legal (checked once each).
_LEGAL: set = {()}
_WARNED: set = set()


@contextmanager
def enforced():
    """The checks of this module raise ``CompilationError`` in the block (a ``@triton.jit`` launch)."""
    token = _ENFORCED.set(True)
    try:
        yield
    finally:
        _ENFORCED.reset(token)


@contextmanager
def internal_shapes():
    """Blocks made in the block are kernellab's own intermediates (a scan's shifted slices, a reduction's
    halves), not values of the Triton program: their shapes are not checked."""
    token = _INTERNAL.set(True)
    try:
        yield
    finally:
        _INTERNAL.reset(token)


def active() -> bool:
    """Whether a ``@triton.jit`` launch is running in this thread or task (:func:`enforced`)."""
    return _ENFORCED.get()


def _source(code) -> tuple[str | None, int]:
    """The source of the function of ``code`` from its ``def`` (decorators left out, dedented, as Triton shows
    it) and the file's line that ``def`` is on (None when it cannot be read: :func:`kernellab.lines.source_lines`)."""
    read = source_lines(code)
    if read is None:
        return None, 0
    lines, start = read
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("def ", "async def ")):
            lines, start = lines[i:], start + i
            break
    return textwrap.dedent("".join(lines)), start


def _indent(code) -> int:
    """How far the ``def`` of ``code``'s function is indented in its file (a kernel defined in a function)."""
    lines = (source_lines(code) or ([], 0))[0]
    line = next((x for x in lines if x.lstrip().startswith(("def ", "async def "))), lines[0] if lines else "")
    return len(line) - len(line.lstrip())


def _kernel_frame():
    """The innermost frame of the kernel's own code (the first outside kernellab and numpy)."""
    frame = sys._getframe(2)
    while frame is not None and _library(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def refuse(cause: BaseException, *, as_repr: bool = False, cls=CompilationError) -> BaseException:
    """What to raise for ``cause`` (the exception Triton's own code raises): inside a ``@triton.jit`` launch a
    ``cls`` (``CompilationError``) naming the kernel and its line, with ``cause`` as its ``__cause__``;
    outside one, ``cause`` itself. ``as_repr``: the message shows ``repr(cause)``, as Triton's code
    generator words errors it meets outside a builtin."""
    if not _ENFORCED.get():
        return cause
    prog = _CURRENT.get()
    frame = _kernel_frame()
    src, start, node = None, 0, SimpleNamespace(lineno=0, col_offset=0, kernel=None, file_line=None)
    if frame is not None:
        src, start = _source(frame.f_code)
        col = 0
        positions = getattr(inspect.getframeinfo(frame, context=0), "positions", None)
        if positions is not None and positions.col_offset is not None:
            col = positions.col_offset - _indent(frame.f_code)  # in the dedented source Triton shows
        node = SimpleNamespace(lineno=frame.f_lineno - start + 1 if src is not None else frame.f_lineno,
                               col_offset=max(col, 0), file_line=f"{frame.f_code.co_filename}:{frame.f_lineno}",
                               kernel=prog.kernel if prog is not None else frame.f_code.co_name)
    err = cls(src, node, repr(cause) if as_repr else str(cause))
    err.__cause__ = cause
    err.__suppress_context__ = True
    return err


# --- block shapes ------------------------------------------------------------------------------------------
def block_shape(shape: tuple) -> None:
    """Every dimension a power of two, at most 2^20 elements: Triton's ``validate_block_shape``, run for every
    block value a ``@triton.jit`` kernel makes (``tensor`` calls it for shapes not yet seen)."""
    if shape in _LEGAL or not _ENFORCED.get() or _INTERNAL.get():
        return
    numel = 1
    for i, d in enumerate(shape):
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise refuse(TypeError(f"Shape element {i} must have type `constexpr[int]`, got "
                                   f"`constexpr[{_triton_type(d)}]"))
        if d < 1 or d & (d - 1):
            raise refuse(ValueError(f"Shape element {i} must be a power of 2"))
        numel *= int(d)
    if numel > TRITON_MAX_TENSOR_NUMEL:
        raise refuse(ValueError(f"numel ({numel}) exceeds triton maximum tensor numel ({TRITON_MAX_TENSOR_NUMEL})"))
    _LEGAL.add(shape)


def _triton_type(value) -> str:
    """How Triton's messages name the type of ``value`` (a block is ``triton.language.core.tensor``)."""
    if _is_block(value):
        return "<class 'triton.language.core.tensor'>"
    return str(type(value))


def _constexpr(value):
    """The value of a compile-time constant (a ``tl.constexpr`` unwrapped); a block stays a block."""
    return getattr(value, "value", value) if type(value).__name__ == "constexpr" else value


#: The class of a block value, :class:`kernellab.triton.executor.tensor.tensor`, which adds itself here as it is
#: defined (it imports this module to check its shapes, so this module cannot import it).
BLOCK_TYPES: list = []


def _is_block(value) -> bool:
    return isinstance(value, tuple(BLOCK_TYPES))


# --- constexpr arguments ---------------------------------------------------------------------------------
def arange(start, end) -> None:
    """``tl.arange(start, end)``: Triton's checks, in its order (``semantic.arange``, then the block shape)."""
    if not _ENFORCED.get():
        return
    start, end = _constexpr(start), _constexpr(end)
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (start, end)):
        raise refuse(ValueError("arange's arguments must be of type tl.constexpr"))
    if int(start) >> 32 or int(end) >> 32:
        raise refuse(ValueError("arange must fit in int32"))
    if end <= start:
        raise refuse(ValueError("arange's end argument must be greater than the start argument"))
    n = int(end) - int(start)
    if n & (n - 1):
        raise refuse(ValueError("arange's range must be a power of 2"))
    block_shape((n,))


def shape(dims) -> None:
    """A shape argument (``zeros``, ``full``, ``reshape``, ``view``, ``broadcast_to``): compile-time ints, each a
    power of two, at most 2^20 elements together."""
    if not _ENFORCED.get():
        return
    dims = _constexpr(dims)
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    block_shape(tuple(_constexpr(d) for d in dims))


def static_range(*bounds) -> None:
    """``tl.static_range``'s bounds must be compile-time ints (Triton unrolls the loop)."""
    if not _ENFORCED.get():
        return
    for what, value in zip(("start", "end", "step"), bounds):
        if _is_block(value):
            raise refuse(AssertionError(f"{value.dtype.name}[] used as tl.static_range {what} value is not a "
                                        "constexpr"), as_repr=True)


def loop_bounds(types: list, shapes: list) -> None:
    """A ``for`` loop's start, end and step (``range``, ``tl.range``; ``types`` as ``to_tensor`` types them,
    ``shapes`` their block shapes): integers, and scalars (Triton's ``visit_For``, which words these errors
    outside a builtin). Checked everywhere: a loop over floats is no loop Python's ``range`` runs either."""
    if not all(t.is_int() for t in types):
        raise refuse(TypeError("For loop bounds and step must all be ints, are ({}, {}, {})".format(
            *(t.name for t in types))), as_repr=True)
    for what, shape, t in zip(("lower bound", "upper bound", "step"), shapes, types):
        if shape:
            raise refuse(TypeError(f"For {what} must be a scalar, got <{list(shape)}, {t.name}>"), as_repr=True)


def static_assert(cond, msg: str = "") -> None:
    """``tl.static_assert``: its condition must be known at compile time, and hold."""
    if _is_block(cond):
        raise refuse(NotImplementedError("Assertion condition could not be determined at compile-time. Make sure "
                                         "that it depends only on `constexpr` values"), as_repr=True)
    if not _constexpr(cond):
        raise refuse(AssertionError(f"Static assert failed: {msg}" if msg else "Static assert failed"),
                     cls=CompileTimeAssertionFailure)


# --- tl.dot ----------------------------------------------------------------------------------------------
_DOT_DTYPES = ("int8", "uint8", "fp16", "bf16", "fp32", "fp64")


def _min_dot_size(bits: int) -> tuple[int, int, int]:
    """``(M, N, K)`` minimums of Triton 3.9's NVIDIA backend (``min_dot_size``) for operands of ``bits``."""
    return {8: (1, 1, 32), 64: (1, 1, 4), 32: (1, 1, 8)}.get(bits, (1, 1, 16))


def dot(a, b, acc=None, out_dtype=None) -> None:
    """``tl.dot(a, b, acc, out_dtype=...)``: Triton's checks, in its order (``core.dot``, ``semantic.dot``)."""
    if not _ENFORCED.get():
        return
    a_shape, b_shape = tuple(a._shape), tuple(b._shape)
    if not (len(a_shape) == len(b_shape) >= 2):
        raise refuse(AssertionError("input and other must have equal ranks >= 2"))
    if a_shape[:-2] != b_shape[:-2]:
        raise refuse(AssertionError("input and other must have equal batch shapes"))
    if a_shape[-1] != b_shape[-2]:
        raise refuse(AssertionError("input and other must have equal reduction dimensions"))
    da, db = a.dtype, b.dtype
    if not (da.is_fp8() and db.is_fp8()):
        if da.name not in _DOT_DTYPES:
            raise refuse(AssertionError(f"Unsupported lhs dtype {da.name}"))
        if db.name not in _DOT_DTYPES:
            raise refuse(AssertionError(f"Unsupported rhs dtype {db.name}"))
        if da.name != db.name:
            raise refuse(AssertionError(f"Both operands must be same dtype. Got {da.name} and {db.name}"))
    out_dtype = _constexpr(out_dtype)
    if out_dtype is None:
        out_dtype = None if acc is None else acc.dtype
    if len(a_shape) not in (2, 3):
        raise refuse(AssertionError(f"Both inputs must be either 2D or 3D; (lhs: {list(a_shape)} vs rhs: "
                                    f"{list(b_shape)})"))
    m, n, k = _min_dot_size(da.primitive_bitwidth)
    if a_shape[-2] < m or a_shape[-1] < k or b_shape[-1] < n:
        raise refuse(AssertionError(f"Input shapes should have M >= {m}, N >= {n} and K >= {k}"))
    if da.is_int():
        if da.name != "int8":
            raise refuse(AssertionError("only int8 supported!"))
    elif out_dtype is not None and out_dtype.name == "bf16":
        raise refuse(ValueError("out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and cast "
                                "with `.to(tl.bfloat16)`"))
    if acc is not None:
        want = (*a_shape[:-1], b_shape[-1])
        if tuple(acc._shape) != want:
            raise refuse(AssertionError(f"expected accumulator shape {list(want)}, got {list(acc._shape)}"))
        if out_dtype is not None and acc.dtype.name != out_dtype.name:
            raise refuse(AssertionError(f"expected accumulator dtype {out_dtype.name}, got {acc.dtype.name}; pass "
                                        f"out_dtype={acc.dtype.name} to use this accumulator dtype"))


def dot_arguments(input_precision, allow_tf32) -> None:
    """``tl.dot``'s first check (``core.dot``): ``input_precision`` and ``allow_tf32`` are not both given."""
    if _constexpr(input_precision) is not None and _constexpr(allow_tf32) is not None:
        raise refuse(AssertionError("Only one of input_precision and allow_tf32 can be specified"))


def dot_input_precision(input_precision, allow_tf32) -> str:
    """The ``input_precision`` of a ``tl.dot`` as Triton 3.9 resolves it, lower-case. ``core.dot``: given none,
    ``knobs.language.fp32_default`` (``TRITON_F32_DEFAULT``), else ``"tf32"`` unless ``allow_tf32`` is false
    (``"ieee"``) — the NVIDIA backend allows TF32 on every target. ``semantic.dot``: the name, compared
    lower-case, must be one of the backend's ``allowed_dot_input_precisions``, or ``AssertionError``. Checked
    after :func:`dot`'s checks (Triton checks it before the rank and minimum size: a kernel with two such
    mistakes is told of the other first) and in any context, inside a ``@triton.jit`` launch or not."""
    input_precision, allow_tf32 = _constexpr(input_precision), _constexpr(allow_tf32)
    if input_precision is None:
        input_precision = knobs.language.fp32_default or ("tf32" if allow_tf32 is None or allow_tf32 else "ieee")
    if not isinstance(input_precision, str) or input_precision.lower() not in DOT_INPUT_PRECISIONS:
        raise refuse(AssertionError(f"input_precision must be one of {DOT_INPUT_PRECISIONS}. Got {input_precision}"))
    return input_precision.lower()


# --- names -----------------------------------------------------------------------------------------------
def missing_name(module: str, name: str) -> BaseException:
    """The error for ``module.name`` that Triton 3.9's module does not have: ``AttributeError`` as Python
    words it, inside a kernel the ``CompilationError`` Triton raises for it."""
    return refuse(AttributeError(f"module {module!r} has no attribute {name!r}"), as_repr=True)


# --- control flow ----------------------------------------------------------------------------------------
_RETURN_IN_LOOP = "Cannot have `return` statements inside `while` or `for` statements in triton."
_NESTED_DEF = ("nested function definitions are not allowed inside a @triton.jit kernel. Move the helper function to "
               "module level and decorate it with @triton.jit.")


def _is_static_range(node: ast.For) -> bool:
    """``for ... in tl.static_range(...)`` (or ``static_range`` imported): the loop Triton unrolls."""
    func = node.iter.func if isinstance(node.iter, ast.Call) else None
    return isinstance(func, ast.Name) and func.id == "static_range" or \
        isinstance(func, ast.Attribute) and func.attr == "static_range"


def _constexpr_test(test: ast.expr, constexprs: frozenset) -> bool:
    """Whether an ``if``'s condition reads only ``tl.constexpr`` parameters and literals (no calls): Triton
    knows its value when it compiles and compiles only the branch it takes."""
    for n in ast.walk(test):
        if isinstance(n, (ast.Call, ast.Attribute, ast.Subscript, ast.NamedExpr, ast.Lambda)) or \
                isinstance(n, ast.Name) and n.id not in constexprs:
            return False
    return any(isinstance(n, ast.Name) for n in ast.walk(test))


class _Flow(ast.NodeVisitor):
    """The ``break``/``continue``/``return`` lines and nested ``def``s of one function that Triton 3.9's code
    generator refuses, each as ``(node, message, error class, guards)``: ``guards``, the ``(test, branch)`` of
    the ``if``s on constexpr parameters around it (the line is refused only where each holds). Calls of
    ``@triton.jit`` helpers are kept as ``(call, helper, guards)``."""

    def __init__(self, scope: dict, constexprs: frozenset):
        self.scope, self.constexprs = scope, constexprs
        self.found, self.calls = [], []
        self.loops: list = []  # the enclosing loops: (node, unrolled)
        self.guards: list = []
        self.dynamic_if = None  # the first run-time ``if`` inside a compiled loop, around the line visited
        self.entered = False

    def _stmts(self, body) -> None:
        for s in body:
            self.visit(s)

    def visit_FunctionDef(self, node) -> None:
        if self.entered:  # a nested def: Triton 3.9 refuses it where its code generator reads it (not its body)
            self._refuse(node, _NESTED_DEF)
            return
        self.entered = True
        self._stmts(node.body)

    def visit_Lambda(self, node) -> None:
        return

    def _loop(self, node, unrolled: bool) -> None:
        self.visit(node.iter if isinstance(node, ast.For) else node.test)
        self.loops.append((node, unrolled))
        outer_if = self.dynamic_if
        self._stmts(node.body)
        self.dynamic_if = outer_if
        self.loops.pop()
        self._stmts(node.orelse)

    def visit_For(self, node) -> None:
        self._loop(node, _is_static_range(node))

    def visit_While(self, node) -> None:
        self._loop(node, False)

    def visit_If(self, node) -> None:
        self.visit(node.test)
        if _constexpr_test(node.test, self.constexprs):
            for branch, body in ((True, node.body), (False, node.orelse)):
                self.guards.append((node.test, branch))
                self._stmts(body)
                self.guards.pop()
            return
        outer_if = self.dynamic_if
        if outer_if is None and any(not unrolled for _n, unrolled in self.loops):
            self.dynamic_if = node
        self._stmts(node.body)
        self._stmts(node.orelse)
        self.dynamic_if = outer_if

    def _refuse(self, node, message: str, cls=UnsupportedLanguageConstruct) -> None:
        self.found.append((node, message, cls, tuple(self.guards)))

    def visit_Break(self, node) -> None:
        self._refuse(node, "unsupported AST node type: Break")

    def visit_Continue(self, node) -> None:
        self._refuse(node, "unsupported AST node type: Continue")

    def visit_Return(self, node) -> None:
        if node.value is not None:
            self.visit(node.value)
        compiled = [n for n, unrolled in self.loops if not unrolled]
        if not compiled:
            return
        if self.dynamic_if is not None:
            self._refuse(self.dynamic_if, _RETURN_IN_LOOP)
        elif isinstance(compiled[-1], ast.For):
            self._refuse(compiled[-1], "AssertionError('We use SCF, so the loop body should only have one block')",
                         CompilationError)
        else:
            self._refuse(compiled[-1], "AssertionError()", CompilationError)

    def visit_Call(self, node) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else None
        helper = self.scope.get(name) if name else None
        if helper is not None and hasattr(helper, "fn") and hasattr(helper, "_constexpr_names"):
            self.calls.append((node, helper, tuple(self.guards)))
        self.generic_visit(node)


@functools.lru_cache(maxsize=256)
def _flow(code, scope_id: int, constexprs: frozenset):
    """The refused lines and the helper calls of the function of ``code`` (see :class:`_Flow`)."""
    src, start = _source(code)
    if src is None:
        return None, 0, (), ()
    scope = _SCOPES.get(scope_id, {})
    if not _may_flow(src, scope):  # (what the visitor would find: nothing)
        return src, start, (), ()
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return src, start, (), ()
    visitor = _Flow(scope, constexprs)
    visitor.visit(tree)
    return src, start, tuple(visitor.found), tuple(visitor.calls)


_SCOPES: dict = {}

# every name in a source, and whether ``def`` comes before it (a function's own name, not a use)
_NAMES = re.compile(r"(?<![A-Za-z0-9_])(def\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def _may_flow(src: str, scope: dict) -> bool:
    """Whether :class:`_Flow` may find something in ``src``, read as text (an optimisation: the parse is skipped
    where it cannot): a ``break``, ``continue`` or ``return`` is its keyword written out, a nested function a
    second ``def``, and a call of a ``@triton.jit`` helper of ``scope`` its name, other than after ``def``. A
    source with a character past ASCII is always parsed (Python reads a name NFKC-normalised: a fullwidth letter
    as its ASCII letter)."""
    if not src.isascii() or "break" in src or "continue" in src or "return" in src:
        return True
    names = _NAMES.findall(src)
    if sum(1 for is_def, _name in names if is_def) > 1:
        return True
    for is_def, name in set(names):
        helper = scope.get(name)
        if not is_def and hasattr(helper, "fn") and hasattr(helper, "_constexpr_names"):
            return True
    return False


def _holds(guards, values: dict) -> bool:
    """Whether each ``(test, branch)`` holds for the launch's constexpr ``values`` (unknown: it may hold)."""
    for test, branch in guards:
        try:
            value = eval(compile(ast.Expression(test), "<constexpr>", "eval"), {"__builtins__": {}}, values)
        except Exception:  # a value the launch does not give (a helper's parameter): Triton may take this branch
            continue
        if bool(value) != branch:
            return False
    return True


def _flow_error(fn, kernel: str, values: dict | None, seen: set):
    """The error Triton 3.9 raises for the first refused ``break``/``continue``/``return`` of ``fn`` (a
    ``@triton.jit`` function) or of a helper it calls, or None."""
    code = fn.fn.__code__
    if code in seen:
        return None
    seen.add(code)
    scope = getattr(fn.fn, "__globals__", {})
    _SCOPES[id(scope)] = scope
    src, start, found, calls = _flow(code, id(scope), fn._constexpr_names)
    where = lambda node: SimpleNamespace(lineno=node.lineno, col_offset=node.col_offset, kernel=kernel,  # noqa: E731
                                         file_line=f"{code.co_filename}:{start + node.lineno - 1}")
    for node, message, cls, guards in found:
        if values is None or _holds(guards, values):
            return cls(src, where(node), message)
    for node, helper, guards in calls:
        if values is not None and not _holds(guards, values):
            continue
        inner = _flow_error(helper, kernel, None, seen)
        if inner is not None:
            err = CompilationError(src, where(node), None)
            err.__cause__ = inner
            return err
    return None


def control_flow(fn, args: tuple, kwargs: dict) -> None:
    """Raise what Triton 3.9 raises when it compiles ``fn`` (a ``@triton.jit`` kernel, launched with ``args`` and
    ``kwargs``) for a ``break`` or ``continue`` in a loop, or a ``return`` in a loop it does not unroll
    (Triton's ``CodeGenerator.generic_visit`` and ``visit_If``). An ``if`` on constexpr parameters only is
    decided by the launch's values; in a helper it may go either way (both branches are read).

    >>> from kernellab import triton
    >>> import kernellab.triton.language as tl
    >>> @triton.jit
    ... def first_neg(x, n):
    ...     for i in range(n):
    ...         if tl.load(x + i) < 0:
    ...             break
    >>> control_flow(first_neg, (None, 4), {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kernellab.triton.compiler.errors.UnsupportedLanguageConstruct: kernel first_neg, ...:
    at 4:12:
    def first_neg(x, n):
        for i in range(n):
            if tl.load(x + i) < 0:
                break
                ^
    unsupported AST node type: Break
    """
    code = fn.fn.__code__
    scope = getattr(fn.fn, "__globals__", {})
    _SCOPES[id(scope)] = scope
    _src, _start, found, calls = _flow(code, id(scope), fn._constexpr_names)
    if not found and not calls:
        return
    values = None
    if any(g for *_x, g in found) or any(g for *_x, g in calls):
        try:
            bound = fn.signature.bind_partial(*args, **kwargs)
            bound.apply_defaults()
            values = {n: _constexpr(v) for n, v in bound.arguments.items() if n in fn._constexpr_names}
        except TypeError:
            values = {}
    err = _flow_error(fn, fn.__name__, values if values is not None else {}, set())
    if err is not None:
        raise err


# --- kept beyond Triton 3.9 ------------------------------------------------------------------------------
def block_pointer(function: str) -> None:
    """Block pointers: Triton 3.9 removed them ("Block pointers have been removed in favor of the tensor
    descriptor API"); kernellab keeps them for the course's assignments, and warns once per process."""
    if function in _WARNED:
        return
    _WARNED.add(function)
    warnings.warn(_("tl.{function}: Triton 3.9 removed block pointers (it raises CompilationError 'Block pointers "
                    "have been removed in favor of the tensor descriptor API'); kernellab keeps them. On a GPU "
                    "with Triton 3.9 use tl.make_tensor_descriptor").format(function=function),
                  BlockPointerWarning, stacklevel=user_stacklevel())


__all__ = ["active", "arange", "control_flow", "internal_shapes", "block_pointer", "block_shape", "dot", "enforced", "missing_name", "refuse", "shape",
           "loop_bounds", "static_assert", "static_range"]
