"""The control-flow check's two shortcuts (kernellab.triton.compiler.limits): a kernel's source read from
linecache where inspect's search of ``sys.modules`` would change nothing (``kernellab.lines.source_lines``, the one
reader of a kernel's source), and the parse
skipped where the text holds no ``break``, ``continue``, ``return`` or call of a ``@triton.jit`` helper
(``_may_flow``). Each is checked against what it stands in for: ``inspect.getsourcelines``, and the parse and
visit of every kernel the tests launch."""

import importlib.util
import inspect
import textwrap

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.lines import _DEF_LINE, source_lines
from kernellab.triton.compiler import limits
from tests import triton_kernels


def _decorated():
    @triton.jit
    def inner(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)

    return inner


def _codes():
    """Code objects of every kind the check reads: module-level kernels, a kernel defined in a function, plain
    functions, a lambda."""
    out = [k.fn.__code__ for k in vars(triton_kernels).values() if isinstance(k, triton.JITFunction)]
    out += [_decorated().fn.__code__, _decorated.__code__, _codes.__code__, (lambda v: v + 1).__code__]
    return out


def test_the_source_is_what_inspect_reads():
    codes = _codes()
    assert len(codes) > 20
    for code in codes:
        assert source_lines(code) == inspect.getsourcelines(code), code.co_name


def test_a_first_line_inside_the_body_is_left_to_inspect():
    # a code object whose first line is a line of its body (as a code made or moved by a tool can be): inspect
    # looks back from it (Python 3.11, 3.12) or starts there (3.13); either way it is inspect's answer
    code = triton_kernels.add_kernel.fn.__code__
    moved = code.replace(co_firstlineno=code.co_firstlineno + 3)
    assert source_lines(moved) == inspect.getsourcelines(moved)
    lines, start = source_lines(moved)
    assert start != code.co_firstlineno + 3 or not _DEF_LINE.match(lines[0])


def test_a_module_imported_from_a_file_outside_sys_modules(tmp_path):
    # as the compiled-count tests load their kernels: a file no module in sys.modules is for
    path = tmp_path / "kl_flow_text.py"
    path.write_text(textwrap.dedent('''
        import kernellab.triton as triton
        import kernellab.triton.language as tl


        @triton.jit
        def k(x_ptr, n, BLOCK: tl.constexpr):
            for i in range(n):
                tl.store(x_ptr + i, 1.0)
    '''))
    spec = importlib.util.spec_from_file_location("kl_flow_text", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    code = mod.k.fn.__code__
    assert source_lines(code) == inspect.getsourcelines(code)
    assert source_lines(code)[1] == 6  # the decorator's line, 1-based: the text starts with a blank line


def test_source_exec_from_a_string_cannot_be_read_either_way():
    scope: dict = {}
    exec("def f(x):\n    return x\n", scope)
    with pytest.raises(OSError):
        inspect.getsourcelines(scope["f"].__code__)
    assert source_lines(scope["f"].__code__) is None
    assert limits._source(scope["f"].__code__) == (None, 0)


def _parsed(code, scope, constexprs):
    """What ``limits._flow`` gives when it always parses: the refused lines and the helper calls, by position."""
    src, start = limits._source(code)
    visitor = limits._Flow(scope, constexprs)
    visitor.visit(limits.ast.parse(src))
    return ([(n.lineno, n.col_offset, m) for n, m, _c, _g in visitor.found],
            [(n.lineno, n.col_offset, h.__name__) for n, h, _g in visitor.calls])


def test_the_text_says_nothing_is_there_only_where_the_parse_finds_nothing():
    from tests import test_triton_control_flow as flow

    skipped = 0
    for mod in (triton_kernels, flow):
        scope = vars(mod)
        limits._SCOPES[id(scope)] = scope  # (as a launch registers its kernel's globals)
        for kernel in [k for k in scope.values() if isinstance(k, triton.JITFunction)]:
            code = kernel.fn.__code__
            found, calls = _parsed(code, scope, kernel._constexpr_names)
            if not limits._may_flow(limits._source(code)[0], scope):
                skipped += 1
                assert found == [] and calls == [], kernel.__name__
            elif found or calls:
                assert limits._flow(code, id(scope), kernel._constexpr_names)[2:] != ((), ())
    # the tutorial kernels without helpers, returns or loops that exit early: add, softmax, matmul, layer norm…
    assert skipped >= 10


@triton.jit
def _stops(a):
    for _i in range(a):
        break
    return a


@triton.jit
def _calls_a_wide_name(x, n):
    tl.store(x, _ｓtops(n))  # Python reads the fullwidth ｓ as an s: the helper above


@triton.jit
def _calls_after_def_text(x, n):
    # def _stops is not a call; the next line is
    tl.store(x, _stops(n))


@triton.jit
def _calls_after_a_word(x, n):
    tl.store(x, 0 if n < 0 else _stops(n))


def test_a_helper_called_through_a_name_python_normalises_is_followed():
    x = np.zeros(16, np.int32)
    with pytest.raises(triton.CompilationError) as info:
        _calls_a_wide_name[(1,)](x, 8)
    assert str(info.value.__cause__).endswith("Break")


@pytest.mark.parametrize("kernel", [_calls_after_def_text, _calls_after_a_word])
def test_a_helper_named_after_def_in_a_comment_or_after_a_word_and_called_is_followed(kernel):
    x = np.zeros(16, np.int32)
    with pytest.raises(triton.CompilationError) as info:
        kernel[(1,)](x, 8)
    assert str(info.value.__cause__).endswith("Break")
