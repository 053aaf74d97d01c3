"""Prints and errors that help (issue 16): per-program prints in launch order, one traceback ending at the
kernel's line, arguments checked at launch, a hint for a Python ``if`` on lanes, direct indexing refused,
no lecture jargon in public docstrings."""

import ast
import importlib
import pkgutil
import re
import sys
import traceback
from pathlib import Path

import numpy as np
import pytest

import kernellab
import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import LaunchError, OutOfBoundsError, launch

sys.path.insert(0, str(Path(__file__).parent))
from source_trees import tree as parsed


# --- prints ----------------------------------------------------------------------------------------
@triton.jit
def _prints(x_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    print("pid", pid)
    tl.device_print("x", tl.load(x_ptr + pid))


@triton.jit
def _helper_prints(v):
    print("v", v)


@triton.jit
def _calls_a_printing_helper(x_ptr, BLOCK: tl.constexpr):
    _helper_prints(tl.program_id(0) * 10)


@triton.jit
def _prints_then_fails(x_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    print("before", pid)
    tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))


def test_print_and_device_print_per_program_in_launch_order(capsys):
    _prints[(3,)](np.array([5, 6, 7], np.int32), BLOCK=1)
    assert capsys.readouterr().out.splitlines() == [
        "pid 0", "pid (0, 0, 0) x5", "pid 1", "pid (1, 0, 0) x6", "pid 2", "pid (2, 0, 0) x7"]


def test_a_print_in_a_called_jit_function_also_runs_per_program(capsys):
    _calls_a_printing_helper[(2, 2)](np.zeros(1, np.float32), BLOCK=1)   # x fastest: (0,0) (1,0) (0,1) (1,1)
    assert capsys.readouterr().out.splitlines() == ["v 0", "v 10", "v 0", "v 10"]


def test_lecture_form_prints_per_program(capsys):
    def k(tl, x, BLOCK):
        print("pid", tl.program_id(0))
        tl.load(x, tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))

    kernellab.triton_launch(k, 3, np.ones(12, np.float32), BLOCK=4)
    assert capsys.readouterr().out.splitlines() == ["pid 0", "pid 1", "pid 2"]


def test_no_double_print_when_a_program_fails(capsys):
    with pytest.raises(OutOfBoundsError, match=r"program \(2,0,0\)"):
        _prints_then_fails[(3,)](np.ones(8, np.float32), BLOCK=4)   # program 2 reads x[8..11] of 8
    assert capsys.readouterr().out.splitlines() == ["before 0", "before 1", "before 2"]


# --- one traceback, at the kernel's line -----------------------------------------------------------
@triton.jit
def _oob(x_ptr, BLOCK: tl.constexpr):
    tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))


def _last_frame(exc):
    return traceback.extract_tb(exc.__traceback__)[-1]


def test_triton_error_is_one_traceback_ending_at_the_kernels_line():
    with pytest.raises(OutOfBoundsError) as info:
        _oob[(3,)](np.ones(8, np.float32), BLOCK=4)          # vectorised first, then one by one
    exc = info.value
    assert exc.__context__ is None or exc.__suppress_context__
    assert "During handling" not in "".join(traceback.format_exception(exc))
    last = _last_frame(exc)
    assert last.name == "_oob" and "tl.load" in last.line
    assert [f.filename for f in traceback.extract_tb(exc.__traceback__)].count(last.filename) >= 2  # test, kernel
    assert not any("/kernellab/triton/" in f.filename and f.name != "run"
                   for f in traceback.extract_tb(exc.__traceback__))


def test_simt_error_ends_at_the_kernels_line():
    def k(blk, A):
        blk.load(A, blk.tx + 1)

    with pytest.raises(OutOfBoundsError) as info:
        launch(k, 1, 32, args=(np.ones(32, np.float32),))
    last = _last_frame(info.value)
    assert last.name == "k" and "blk.load" in last.line


# --- arguments checked at launch -------------------------------------------------------------------
@pytest.mark.parametrize(("value", "kind"), [([1.0, 2.0], "list"), ({"a": 1}, "dict"), (object(), "object")])
def test_triton_bad_argument_is_named_at_launch(value, kind):
    with pytest.raises(LaunchError, match=rf"kernel _oob: argument x_ptr is a {kind}: pass a numpy array") as info:
        _oob[(1,)](value, BLOCK=4)
    assert info.value.__context__ is None or info.value.__suppress_context__


def test_simt_bad_argument_is_named_at_launch():
    def k(blk, A):
        pass

    with pytest.raises(LaunchError, match="argument A is a list"):
        launch(k, 1, 32, args=([1.0],))


# --- a Python if on lanes; direct indexing ---------------------------------------------------------
def test_python_if_on_lane_values_gets_a_blk_where_hint():
    def k(blk, A, n):
        i = blk.tx
        if i < n:
            blk.store(A, i, 1.0)

    with pytest.raises(ValueError, match=r"kernel k: a Python if .* use `with blk.where\(cond\):`") as info:
        launch(k, 1, 32, args=(np.zeros(32, np.float32), 16))
    assert _last_frame(info.value).line.startswith("if i < n")


@pytest.mark.parametrize("body", ["for j in range(i):\n        pass", "n = int(i)", "v = [1.0, 2.0][i]"])
def test_a_python_number_of_lane_values_gets_a_hint(body):
    src = f"def k(blk, A):\n    i = blk.tx\n    {body}\n"
    scope = {}
    exec(compile(src, "<kernel>", "exec"), scope)
    with pytest.raises(TypeError, match=r"kernel k: a Python number .* use a value every lane shares"):
        launch(scope["k"], 1, 32, args=(np.zeros(32, np.float32),))


@pytest.mark.parametrize("body", ["B[i] = blk.load(A, i)", "blk.store(B, i, A[i])", "v = A[0]"])
def test_direct_indexing_of_an_argument_is_refused(body):
    src = f"def k(blk, A, B):\n    i = blk.tx\n    {body}\n"
    scope = {}
    exec(compile(src, "<kernel>", "exec"), scope)
    A, B = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)
    with pytest.raises(TypeError, match=r"kernel k: [AB]\[\.\.\.\] indexes the kernel argument [AB] directly.*"
                                        r"blk\.load\([AB], i\).*blk\.store\([AB], i, value\)"):
        launch(scope["k"], 1, 32, args=(A, B))
    assert (B == 0).all()


def test_arguments_keep_shape_dtype_and_memory(capsys):
    def k(blk, A, B):
        assert A.shape == (4, 8) and A.dtype == np.float32 and A.size == 32 and len(A) == 4
        print(A)
        blk.store(B, blk.tx, blk.load(A, blk.tx) * 2)

    A, B = np.arange(32, dtype=np.float32).reshape(4, 8), np.zeros(32, np.float32)
    c = launch(k, 1, 32, args=(A, B))
    assert (B == 2 * A.ravel()).all() and c.dram_sectors == {"A": 4, "B": 4}
    assert capsys.readouterr().out.startswith("[[ 0.  1.  2.  3.  4.  5.  6.  7.]")  # printing an argument works


# --- no lecture jargon in public docstrings --------------------------------------------------------
_JARGON = re.compile(r"\bseeds?('s|'| scripts?| form|-form)", re.IGNORECASE)


def test_no_public_docstring_speaks_of_seeds():
    found = []
    for mod in pkgutil.walk_packages(kernellab.__path__, "kernellab."):
        module = importlib.import_module(mod.name)
        tree = parsed(module.__file__)  # shared with the other tests that walk the package (tests/source_trees.py)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                if getattr(node, "name", "").startswith("_"):
                    continue
                doc = ast.get_docstring(node) or ""
                if _JARGON.search(doc):
                    found.append(f"{mod.name}.{getattr(node, 'name', '')}")
    assert found == []
