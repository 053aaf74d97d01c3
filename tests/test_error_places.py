"""Every error names its place the same way, and a traceback holds only the user's lines (issue 26).

A newcomer's six deliberate mistakes found two front-end errors without a kernel or program (a pointer
offset by a float, ``tl.arange(0, 1000)``) and LaunchError tracebacks ending inside
``kernellab/simt/launcher.py`` and ``kernellab/triton/runtime.py`` (now ``runtime/jit.py``). These tests hold both front ends of
mini-Triton and the SIMT simulator to one rule: the message starts with the place
(``kernel K, program (x,y,z): `` or ``kernel K``), ``details`` carries it, and the last frame of the
traceback is the user's: the kernel's line for an error inside it, the launch line for a bad launch.
"""

import traceback

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import KernelTypeError, KernelValueError, LaunchError, launch, triton_launch
from kernellab.errors import KernelError


def _frames(exc):
    return traceback.extract_tb(exc.__traceback__)


def _no_kernellab_frame(exc):
    return not [f for f in _frames(exc) if "/kernellab/" in f.filename.replace("\\", "/")]


# --- the Triton front end's TypeError and ValueError name kernel and program -----------------------
@triton.jit
def float_offset(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK).to(tl.float32)
    tl.load(x_ptr + offs)                       # a pointer offset by a float


@triton.jit
def arange_1000_in_program_2(x_ptr, BLOCK: tl.constexpr):
    if tl.program_id(0) == 2:                   # one program alone: the error must name program 2
        tl.arange(0, 1000)
    tl.load(x_ptr + tl.arange(0, BLOCK))


def seed_float_bound(tl, x, BLOCK):
    tl.arange(0, BLOCK / 2)                     # a float bound: arange takes compile-time ints


def seed_arange_1000(tl, x, BLOCK):
    if tl.program_id(0) == 2:
        tl.arange(0, 1000)


def test_jit_type_error_names_kernel_and_program():
    with pytest.raises(TypeError, match=r"^kernel float_offset, program \(0,0,0\): a pointer can be offset only "
                                        r"by integers, not by fp32$") as info:
        float_offset[(3,)](np.ones(16, np.float32), BLOCK=4)
    e = info.value
    assert isinstance(e, KernelTypeError) and isinstance(e, KernelError)
    assert e.details == {"kernel": "float_offset", "program": "(0,0,0)",
                         "error": "a pointer can be offset only by integers, not by fp32"}
    assert _frames(e)[-1].line == "tl.load(x_ptr + offs)                       # a pointer offset by a float"


def test_jit_compile_error_names_the_kernel_and_its_line():
    # program 2 alone reaches tl.arange(0, 1000): what Triton 3.9 refuses to compile is a CompilationError naming
    # the kernel and the file's line (a compile error is the kernel's, not a program's), vectorised or not
    line = arange_1000_in_program_2.fn.__code__.co_firstlineno + 3  # the decorator, def, if, then the arange
    for vectorize in (True, False):
        with pytest.raises(triton.CompilationError) as info:
            arange_1000_in_program_2[(4,)](np.ones(16, np.float32), BLOCK=4, vectorize=vectorize)
        err = info.value
        assert str(err).startswith(f"kernel arange_1000_in_program_2, {__file__}:{line}:\nat 3:8:\n"
                                   "def arange_1000_in_program_2(x_ptr, BLOCK: tl.constexpr):")
        assert str(err).endswith("        ^\narange's range must be a power of 2")
        assert type(err.__cause__) is ValueError and str(err.__cause__) == "arange's range must be a power of 2"
        assert (err.node.lineno, err.node.col_offset) == (3, 8)  # as Triton 3.9 reports it: "at 3:8:"
        assert _frames(err)[-1].name == "arange_1000_in_program_2"
        assert _no_kernellab_frame(err)


def test_a_kernel_defined_in_a_function_is_placed_in_its_dedented_source():
    # the same kernel defined inside this function: its def is indented 4 spaces in the file, but Triton places
    # the error in the dedented source it shows, so the place is the module-level kernel's, "at 3:8:" (line 3,
    # column 12 of the file - the def's indent of 4 = 8), and the caret line is the same
    @triton.jit
    def arange_1000_in_program_2(x_ptr, BLOCK: tl.constexpr):
        if tl.program_id(0) == 2:
            tl.arange(0, 1000)
        tl.load(x_ptr + tl.arange(0, BLOCK))

    with pytest.raises(triton.CompilationError) as info:
        arange_1000_in_program_2[(4,)](np.ones(16, np.float32), BLOCK=4)
    err = info.value
    assert (err.node.lineno, err.node.col_offset) == (3, 8)
    assert "\nat 3:8:\ndef arange_1000_in_program_2(x_ptr, BLOCK: tl.constexpr):" in str(err)
    assert str(err).endswith("\n        ^\narange's range must be a power of 2")


def test_seed_front_end_names_the_place_the_same_way():
    with pytest.raises(TypeError, match=r"^kernel seed_float_bound, program \(0,0,0\): arange's arguments must "
                                        r"be compile-time ints") as info:
        triton_launch(seed_float_bound, 2, np.ones(8, np.float32), BLOCK=4)
    assert info.value.details["kernel"] == "seed_float_bound" and "error" in info.value.details
    with pytest.raises(ValueError, match=r"^kernel seed_arange_1000, program \(2,0,0\): arange's range must be a "
                                         r"power of 2") as info:
        triton_launch(seed_arange_1000, 3, np.ones(8, np.float32), BLOCK=4)
    assert info.value.details["program"] == "(2,0,0)"
    assert _frames(info.value)[-1].name == "seed_arange_1000" and _no_kernellab_frame(info.value)


def test_a_message_that_names_its_place_already_is_not_prefixed_twice():
    def k(tl, x, BLOCK):
        tl.load(None, tl.arange(0, BLOCK))

    with pytest.raises(TypeError) as info:
        triton_launch(k, 1, np.ones(4, np.float32), BLOCK=4)
    assert str(info.value) == "kernel k, program (0,0,0): tl.load got None instead of an array"
    assert info.value.details["program"] == "(0,0,0)"


# --- the SIMT simulator: the same prefix, the same details ---------------------------------------
def test_simt_type_and_value_errors_carry_details():
    def float_index(blk, A):
        blk.load(A, blk.tx * 0.5)

    with pytest.raises(TypeError, match=r"^kernel float_index: memory indices must be integers, got float64$") as info:
        launch(float_index, 1, 32, args=(np.ones(32, np.float32),))
    assert isinstance(info.value, KernelTypeError) and info.value.details["kernel"] == "float_index"
    assert _frames(info.value)[-1].line == "blk.load(A, blk.tx * 0.5)"
    assert _no_kernellab_frame(info.value)

    def branch(blk, A):
        if blk.tx < 3:
            pass

    with pytest.raises(ValueError, match=r"^kernel branch: a Python if") as info:
        launch(branch, 1, 32, args=(np.ones(32, np.float32),))
    assert isinstance(info.value, KernelValueError) and info.value.details["kernel"] == "branch"
    assert _frames(info.value)[-1].line == "if blk.tx < 3:"


# --- LaunchError: the traceback ends at the launch line ------------------------------------------
def _ends_at_the_launch_line(exc, text):
    frames = _frames(exc)
    assert frames[-1].filename == __file__ and text in frames[-1].line, frames[-1]
    assert _no_kernellab_frame(exc), [f"{f.filename}:{f.lineno}" for f in frames]


def test_simt_launch_error_ends_at_the_launch_line():
    def axpy(blk, x, y):
        pass

    with pytest.raises(LaunchError, match="argument x is a list") as info:
        launch(axpy, 1, 32, args=([1.0], np.ones(1, np.float32)))      # the newcomer's mistake 6a
    _ends_at_the_launch_line(info.value, "launch(axpy, 1, 32")
    with pytest.raises(LaunchError, match="allows at most") as info:
        launch(axpy, 1, 2048, args=(np.ones(1, np.float32), np.ones(1, np.float32)))
    _ends_at_the_launch_line(info.value, "launch(axpy, 1, 2048")
    with pytest.raises(LaunchError, match="grid dimensions must be positive") as info:
        launch(axpy, (2, 0), 32, args=(np.ones(1, np.float32), np.ones(1, np.float32)))
    _ends_at_the_launch_line(info.value, "launch(axpy, (2, 0)")


@triton.jit
def add_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_triton_launch_error_ends_at_the_launch_line():
    with pytest.raises(LaunchError, match="argument x_ptr is a list") as info:
        add_kernel[(1,)]([1.0, 2.0], np.ones(2, np.float32), 2, BLOCK=4)   # the newcomer's mistake 6b
    _ends_at_the_launch_line(info.value, "add_kernel[(1,)]([1.0, 2.0]")
    with pytest.raises(LaunchError) as info:
        add_kernel[(0,)](np.ones(2, np.float32), np.ones(2, np.float32), 2, BLOCK=4)
    _ends_at_the_launch_line(info.value, "add_kernel[(0,)]")
    with pytest.raises(LaunchError, match="num_warps must be a power of two") as info:
        add_kernel[(1,)](np.ones(2, np.float32), np.ones(2, np.float32), 2, BLOCK=4, num_warps=3)
    _ends_at_the_launch_line(info.value, "num_warps=3")


def test_seed_launch_error_ends_at_the_launch_line():
    def copy(tl, x, BLOCK):
        pass

    with pytest.raises(LaunchError) as info:
        triton_launch(copy, (1, 2, 3, 4), np.ones(4, np.float32), BLOCK=4)
    _ends_at_the_launch_line(info.value, "triton_launch(copy, (1, 2, 3, 4)")


def test_a_kernel_error_holds_the_launch_line_then_the_kernels_line():
    def oob(blk, A):
        blk.load(A, blk.tx + 1)

    with pytest.raises(IndexError) as info:
        launch(oob, 1, 32, args=(np.ones(32, np.float32),))
    lines = [f.line for f in _frames(info.value)]
    assert lines[-2:] == ["launch(oob, 1, 32, args=(np.ones(32, np.float32),))", "blk.load(A, blk.tx + 1)"]


def test_full_tracebacks_on_request(monkeypatch):
    monkeypatch.setenv("KERNELLAB_TRACEBACK", "full")

    def axpy(blk, x):
        pass

    with pytest.raises(LaunchError) as info:
        launch(axpy, 1, 32, args=([1.0],))
    assert not _no_kernellab_frame(info.value)   # kernellab's own frames, to debug kernellab


def test_a_frames_file_is_resolved_once_and_told_by_its_whole_path(monkeypatch):
    # whether a frame is kernellab's or numpy's is its file's resolved path, found once per file name: two
    # tracebacks through the same files resolve each name once; an __init__.py is kernellab's only in its folder
    from pathlib import Path

    import kernellab
    import kernellab.tracebacks as tb

    resolved = []
    real = Path.resolve
    monkeypatch.setattr(Path, "resolve", lambda self, *a, **k: resolved.append(str(self)) or real(self, *a, **k))
    tb._library_absolute.cache_clear()
    here, init = __file__, kernellab.__file__
    other_init = str(Path(__file__).parent / "__init__.py")
    assert [tb._library(f) for f in (init, here, other_init, np.__file__, "<string>")] == [True, False, False, True,
                                                                                          False]
    assert [tb._library(f) for f in (init, here, other_init)] == [True, False, False]
    # the absolute names once each; "<string>" is relative, so it is resolved at each call (here once)
    assert sorted(resolved) == sorted([init, here, other_init, np.__file__, "<string>"])


def test_a_relative_frame_file_is_resolved_in_the_current_directory_each_time(monkeypatch, tmp_path):
    # a script run as `python script.py` keeps the relative name "script.py" in its frames: the same relative name
    # "__init__.py" is a user's file in tmp_path and kernellab's own after a chdir into kernellab's folder. A cache
    # keyed by the relative name would keep the first answer.
    import os
    from pathlib import Path

    import kernellab
    import kernellab.tracebacks as tb

    tb._library_absolute.cache_clear()
    (tmp_path / "__init__.py").write_text("")
    monkeypatch.chdir(tmp_path)
    assert tb._library("__init__.py") is False          # tmp_path/__init__.py: the user's
    monkeypatch.chdir(Path(kernellab.__file__).parent)
    assert tb._library("__init__.py") is True           # kernellab/__init__.py
    assert os.path.isabs(kernellab.__file__) and tb._library(kernellab.__file__) is True
