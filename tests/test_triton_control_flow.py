"""``break``, ``continue`` and ``return`` in loops, refused in @triton.jit kernels where Triton 3.9 refuses them.

Every message and position below is what real Triton 3.9 gave when compiling the same kernel for sm_90 on a
machine with no GPU (``triton.compile(ASTSource(fn, {"x": "*i32", "n": "i32"}, constexprs),
target=GPUTarget("cuda", 90, 32))``; /work/scratch/limits/probe.py, probe2.py): ``break``/``continue`` are
``UnsupportedLanguageConstruct`` ("unsupported AST node type: Break") in ``range``, ``tl.range``,
``tl.static_range`` and ``while`` loops alike; a ``return`` under a run-time ``if`` in a ``range``/``while``
loop is refused at that ``if``; a ``return`` in a ``tl.static_range`` loop (unrolled) compiles, as does one in
a branch that a ``tl.constexpr`` condition leaves out."""

import inspect

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.compiler import limits
from kernellab.triton.compiler.errors import UnsupportedLanguageConstruct

HERE = __file__


def refused(kernel, *args, **meta):
    """The CompilationError a one-program launch of ``kernel`` on a 16-int32 array and ``args`` raises."""
    x = np.zeros(16, np.int32)
    with pytest.raises(triton.CompilationError) as info:
        kernel[(1,)](x, *args, **meta)
    return info.value


def ran(kernel, *args, **meta):
    """The array a one-program launch of ``kernel`` leaves (16 int32, -1 where the kernel stores nothing)."""
    x = np.full(16, -1, np.int32)
    kernel[(1,)](x, *args, **meta)
    return x.tolist()


def line_of(kernel, text: str) -> int:
    """The line of this file where a statement of ``kernel`` starts with ``text``."""
    lines, start = inspect.getsourcelines(kernel.fn)
    return start + next(i for i, s in enumerate(lines) if s.strip().startswith(text))


@triton.jit
def for_break(x, n):
    for i in range(n):
        if i == 3:
            break
        tl.store(x + i, i)


@triton.jit
def for_continue(x, n):
    for i in range(n):
        if i == 3:
            continue
        tl.store(x + i, i)


@triton.jit
def trange_break(x, n):
    for i in tl.range(0, n):
        if i == 3:
            break
        tl.store(x + i, i)


@triton.jit
def static_continue(x, n):
    for i in tl.static_range(8):
        if i == 3:
            continue
        tl.store(x + i, i)


@triton.jit
def static_break_last(x, n):
    for i in tl.static_range(8):
        tl.store(x + i, i)
        break


@triton.jit
def while_continue(x, n):
    i = 0
    while i < n:
        i += 1
        if i == 3:
            continue
        tl.store(x + i, i)


# (kernel, the construct's line text, Triton's "at L:C", Triton's message): Triton 3.9's own outputs
REFUSED = [
    (for_break, "break", "at 4:12:", "unsupported AST node type: Break"),
    (for_continue, "continue", "at 4:12:", "unsupported AST node type: Continue"),
    (trange_break, "break", "at 4:12:", "unsupported AST node type: Break"),
    (static_continue, "continue", "at 4:12:", "unsupported AST node type: Continue"),  # unrolled, still refused
    (static_break_last, "break", "at 4:8:", "unsupported AST node type: Break"),
    (while_continue, "continue", "at 6:12:", "unsupported AST node type: Continue"),
]


@pytest.mark.parametrize("kernel, text, at, message", REFUSED, ids=[k.__name__ for k, *_ in REFUSED])
def test_break_and_continue_are_refused_as_triton_refuses_them(kernel, text, at, message):
    err = refused(kernel, 8)
    assert type(err) is UnsupportedLanguageConstruct
    lines = str(err).splitlines()
    # kernellab names the kernel and the file's line first, then Triton's own message
    assert lines[0] == f"kernel {kernel.__name__}, {HERE}:{line_of(kernel, text)}:"
    assert lines[1] == at and lines[-1] == message
    assert lines[-3].strip() == text and lines[-2].strip() == "^"
    assert lines[-2].index("^") == lines[-3].index(text)  # the caret under the statement


@triton.jit
def for_return(x, n):
    for i in range(n):
        if i == 3:
            return
        tl.store(x + i, i)


@triton.jit
def while_return_nested(x, n):
    i = 0
    while i < n:
        if i > 1:
            if i == 3:
                return
        tl.store(x + i, i)
        i += 1


@triton.jit
def static_in_range_return(x, n):
    for j in range(n):
        for i in tl.static_range(4):
            if i + j == 3:
                return
            tl.store(x + i, i)


@pytest.mark.parametrize("kernel, text, at", [
    (for_return, "if i == 3:", "at 3:8:"),
    (while_return_nested, "if i > 1:", "at 4:8:"),  # the outer if: Triton refuses the first it meets
    (static_in_range_return, "if i + j == 3:", "at 4:12:"),  # static_range inside range: still a compiled loop
], ids=["for", "while_nested_if", "static_in_range"])
def test_a_return_under_a_runtime_if_in_a_loop_is_refused_at_that_if(kernel, text, at):
    err = refused(kernel, 8)
    assert type(err) is UnsupportedLanguageConstruct
    lines = str(err).splitlines()
    assert lines[0] == f"kernel {kernel.__name__}, {HERE}:{line_of(kernel, text)}:"
    assert lines[1] == at
    assert lines[-1] == "Cannot have `return` statements inside `while` or `for` statements in triton."


@triton.jit
def for_return_last(x, n):
    for i in range(n):
        tl.store(x + i, i)
        return


def test_an_unconditional_return_in_a_loop_is_tritons_one_block_assertion():
    err = refused(for_return_last, 8)
    assert type(err) is triton.CompilationError
    lines = str(err).splitlines()
    assert lines[1] == "at 2:4:" and lines[-2].strip() == "^"  # at the for, as Triton 3.9 puts it
    assert lines[-1] == "AssertionError('We use SCF, so the loop body should only have one block')"


# --- what Triton 3.9 compiles still runs -----------------------------------------------------------------
@triton.jit
def static_return(x, n):
    for i in tl.static_range(8):
        if i == 3:
            return
        tl.store(x + i, i)


@triton.jit
def if_return(x, n):
    if n == 3:
        return
    tl.store(x, n)


@triton.jit
def dead_break(x, n, C: tl.constexpr):
    for i in range(n):
        if C:
            break
        tl.store(x + i, i)


@triton.jit
def const_if_return(x, n, C: tl.constexpr):
    for i in range(n):
        if not C:
            tl.store(x + i, i)
        else:
            return


def test_what_triton_compiles_still_runs():
    # static_range unrolls: programs store i = 0, 1, 2 and return at i == 3
    assert ran(static_return, 8) == [0, 1, 2] + [-1] * 13
    # a return under an if outside any loop: n == 3 returns before the store, n == 5 stores 5 at x[0]
    assert ran(if_return, 3) == [-1] * 16
    assert ran(if_return, 5) == [5] + [-1] * 15
    # an if on a constexpr that is false: Triton compiles only the other branch (probe2: accepted); 4 stores
    assert ran(dead_break, 4, C=False) == [0, 1, 2, 3] + [-1] * 12
    assert ran(const_if_return, 4, C=False) == [0, 1, 2, 3] + [-1] * 12


def test_a_constexpr_if_that_takes_the_branch_is_refused():
    err = refused(dead_break, 4, C=True)
    assert type(err) is UnsupportedLanguageConstruct and str(err).endswith("unsupported AST node type: Break")
    err = refused(const_if_return, 4, C=True)  # the return is then directly in the loop's body
    assert str(err).endswith("AssertionError('We use SCF, so the loop body should only have one block')")


@triton.jit
def helper_break(a):
    for _i in range(a):
        break
    return a


@triton.jit
def calls_helper_break(x, n):
    tl.store(x, helper_break(n))


def test_a_helpers_break_is_refused_at_the_kernels_call_with_the_helpers_error_as_cause():
    err = refused(calls_helper_break, 8)
    lines = str(err).splitlines()
    assert lines[0] == f"kernel calls_helper_break, {HERE}:{line_of(calls_helper_break, 'tl.store(x, helper_break(n))')}:"
    assert lines[1] == "at 2:16:"  # Triton 3.9's position: the call helper_break(n)
    assert type(err.__cause__) is UnsupportedLanguageConstruct
    assert str(err.__cause__).splitlines()[1:2] == ["at 3:8:"] and str(err.__cause__).endswith("Break")


@triton.jit
def helper_plain(a):
    return a + 1


@triton.jit
def dead_helper_break(x, n, C: tl.constexpr):
    if C:
        tl.store(x, helper_break(n))
    tl.store(x + 1, helper_plain(n))


def test_a_helpers_break_under_a_false_constexpr_if_beside_another_call_runs():
    # Triton 3.9 (s8/probe/probe.py in the mutants engineer's scratch): C False compiles (the branch is not
    # generated); C True refuses at the guarded call, "at 3:20:". The unguarded call beside it must not hide the
    # guard: x[1] = helper_plain(8) = 9, x[0] untouched (-1)
    assert ran(dead_helper_break, 8, C=False) == [-1, 9] + [-1] * 14
    err = refused(dead_helper_break, 8, C=True)
    assert str(err).splitlines()[1] == "at 3:20:" and type(err.__cause__) is UnsupportedLanguageConstruct


def test_warmup_refuses_too():
    with pytest.raises(UnsupportedLanguageConstruct):
        for_break.warmup(np.zeros(16, np.int32), 8, grid=(1,))


def test_without_the_check_the_break_runs(monkeypatch):
    """The check is what refuses: with it removed, kernellab runs the loop to its break (x[0..2] = 0, 1, 2)."""
    monkeypatch.setattr(limits, "control_flow", lambda *a: None)
    assert ran(for_break, 8) == [0, 1, 2] + [-1] * 13


@triton.jit
def nested_def(x, n):
    def first_at_least(v):
        for i in range(n):
            if i >= v:
                break
        return i
    tl.store(x, n)


@triton.jit
def nested_def_left_out(x, n, C: tl.constexpr):
    if C:
        def store_twice(v):  # no loop exit in this source: the text check must see the second def itself
            tl.store(x, 2 * v)
    tl.store(x, n)


def test_a_function_defined_inside_a_kernel_is_refused_at_its_def():
    # Triton 3.9 (sm_90, no GPU; /work/scratch/mutants/s8/probe/probe.out) refuses the kernel at the nested def,
    # "at 2:4:", before and whatever its body holds (here a break, which it never reaches)
    err = refused(nested_def, 8)
    assert type(err) is UnsupportedLanguageConstruct
    lines = str(err).splitlines()
    assert lines[0] == f"kernel nested_def, {HERE}:{line_of(nested_def, 'def first_at_least(v):')}:"
    assert lines[1] == "at 2:4:" and lines[-3].strip() == "def first_at_least(v):"
    assert lines[-1] == ("nested function definitions are not allowed inside a @triton.jit kernel. Move the helper "
                         "function to module level and decorate it with @triton.jit.")
    # under an if on a constexpr that is false, Triton never reads the def: the kernel runs; true: refused (that
    # kernel's source has no loop-exit keyword, so the text check that skips the parse must count its defs)
    assert ran(nested_def_left_out, 5, C=False) == [5] + [-1] * 15
    assert type(refused(nested_def_left_out, 5, C=True)) is UnsupportedLanguageConstruct


@triton.jit
def nested_pass(x, n):
    def unused(v):
        pass
    tl.store(x, n)


def test_a_kernel_whose_only_two_defs_are_its_own_and_a_nested_one_is_refused():
    # the text check that skips the parse counts the defs: here exactly 2 (the kernel's and the nested one), and no
    # other word of the source follows a "def" (nested_def_left_out's comment holds a third: "def itself"), no
    # break/continue/return and no helper call. Triton 3.9 refuses at the nested def, line 2 column 4 (as above)
    err = refused(nested_pass, 5)
    assert type(err) is UnsupportedLanguageConstruct
    assert str(err).splitlines()[1] == "at 2:4:" and str(err).endswith("decorate it with @triton.jit.")
