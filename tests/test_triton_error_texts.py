"""The texts of ``triton.runtime.errors`` and ``triton.compiler.errors`` as Triton 3.9 builds them (kernellab
raises them under Triton's names), in the cases the kernels' own tests never reach: no message, no source, a
node without a line, line 0, and a round trip through pickle (an error crossing a process, as a pytest-xdist
worker's or a multiprocessing pool's does)."""

import pickle
from types import SimpleNamespace

from kernellab.triton.compiler.errors import CompilationError, CompileTimeAssertionFailure
from kernellab.triton.runtime.errors import AutotunerError, InterpreterError, OutOfResources, PTXASError

SRC = "def k(x):\n    o = tl.arange(0, 1000)\n"


def test_runtime_errors_with_and_without_a_message():
    assert (str(InterpreterError("lane 3 out of bounds")), str(InterpreterError())) == ("lane 3 out of bounds", "")
    assert (str(PTXASError("bad reg")), str(PTXASError())) == ("PTXAS error: bad reg", "PTXAS error: ")
    assert (str(AutotunerError("no config")), str(AutotunerError())) == ("Autotuner error: no config", "Autotuner error: ")


def test_out_of_resources_crosses_a_process_with_its_fields():
    err = pickle.loads(pickle.dumps(OutOfResources(262144, 232448, "shared memory")))
    # 256 KiB asked, the H100's 227 KiB a block (232 448 B) allowed
    assert (type(err), err.required, err.limit, err.name) == (OutOfResources, 262144, 232448, "shared memory")
    assert str(err).startswith("out of resource: shared memory, Required: 262144, Hardware limit: 232448.")


def test_compilation_error_without_source_or_line():
    at = SimpleNamespace(lineno=2, col_offset=8)
    assert str(CompilationError(None, at, "boom")) == "at 2:8:\n <source unavailable>\nboom"
    # a node without a line (a whole function): the source as it is, no "at"
    assert str(CompilationError(SRC, SimpleNamespace(), "boom")) == SRC + "\nboom"
    # line 0: no line of the source comes before it
    assert str(CompilationError(SRC, SimpleNamespace(lineno=0, col_offset=0), None)) == "at 0:0:\n <source empty>"


def test_compilation_error_keeps_the_last_twelve_lines_and_the_caret():
    src = "\n".join(f"line{i}" for i in range(1, 21))
    msg = str(CompilationError(src, SimpleNamespace(lineno=15, col_offset=3), "e"))
    # lines 4–15 (12 of them, up to the node's), then a caret under column 3
    assert msg == "at 15:3:\n" + "\n".join(f"line{i}" for i in range(4, 16)) + "\n   ^\ne"


def test_compilation_error_names_the_kernel_and_crosses_a_process():
    node = SimpleNamespace(lineno=2, col_offset=8, kernel="k", file_line="k.py:2")
    err = CompileTimeAssertionFailure(SRC, node, "static_assert failed")
    assert str(err).startswith("kernel k, k.py:2:\nat 2:8:\ndef k(x):\n")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is CompileTimeAssertionFailure and str(back) == str(err) and back.src == SRC
