"""The runner without torch: ``import triton`` in every form answers kernellab's Triton, package metadata says
3.9.0, deactivating undoes it all, a real ``triton`` already imported comes back, and without the runner
nothing outside ``kernellab.*`` is imported. ``python -m kernellab run`` runs a script that says ``import triton``.

The torch side (CUDA queries, tensors on "cuda") is tests/test_runner_torch.py, which needs torch."""

import importlib
import importlib.metadata
import sys
import textwrap
import types

import numpy as np
import pytest

import kernellab.triton
from kernellab.cli import main
from kernellab.triton import runner


@pytest.fixture
def on():
    with runner.activate():
        yield
    assert not runner.active()


def test_every_form_of_import_answers_kernellabs_triton(on):
    import triton
    import triton.language as tl
    from triton.language.extra import libdevice
    from triton.runtime import driver

    assert triton is kernellab.triton and tl is kernellab.triton.language
    assert importlib.import_module("triton") is kernellab.triton  # what no rewrite of imports reaches
    assert importlib.import_module("triton.testing") is kernellab.triton.testing
    assert __import__("triton.language", fromlist=["core"]).core is kernellab.triton.language.core
    assert libdevice is kernellab.triton.language.extra.libdevice and driver is kernellab.triton.runtime.driver
    # kernellab's modules keep their own names and specs (reload, pickling and tracebacks use them)
    assert tl.__name__ == "kernellab.triton.language" and tl.__spec__.name == "kernellab.triton.language"


def test_a_kernel_written_against_triton_runs(on):
    import triton
    import triton.language as tl

    @triton.jit
    def twice(x_ptr, n, B: tl.constexpr):
        offs = tl.program_id(0) * B + tl.arange(0, B)
        tl.store(x_ptr + offs, 2 * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

    x = np.arange(100, dtype=np.float32)
    cnt = twice[(triton.cdiv(100, 64),)](x, 100, B=64)
    assert x.tolist() == [2.0 * i for i in range(100)] and cnt.programs == 2  # cdiv(100, 64) = 2


def test_versions_by_module_and_by_package_metadata(on):
    import triton

    # a library comparing versions takes its Triton 3.x path
    assert triton.__version__ == "3.9.0" and int(triton.__version__.split(".")[0]) >= 3
    assert importlib.metadata.version("triton") == "3.9.0"
    assert importlib.metadata.metadata("triton")["Name"] == "triton"
    assert importlib.util.find_spec("triton") is not None


def test_a_submodule_kernellab_lacks_is_an_import_error_naming_it(on):
    with pytest.raises(ModuleNotFoundError, match="triton.backends") as info:
        import triton.backends  # noqa: F401
    assert info.value.name == "triton.backends" and isinstance(info.value, ImportError)  # `except ImportError:` works


def test_deactivating_undoes_everything():
    meta_path = list(sys.meta_path)
    with runner.activate():
        import triton
        import triton.language  # noqa: F401

        assert runner.active()
    assert not runner.active() and sys.meta_path == meta_path
    assert not [n for n in sys.modules if n == "triton" or n.startswith("triton.")]
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("triton")  # this environment has no real triton
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        importlib.metadata.version("triton")


def test_a_real_triton_already_imported_is_set_aside_and_comes_back():
    real = types.ModuleType("triton")
    real.__version__ = "3.1.0"
    real_lang = types.ModuleType("triton.language")
    sys.modules.update({"triton": real, "triton.language": real_lang})
    try:
        with runner.activate():
            import triton
            import triton.language

            assert triton is kernellab.triton and triton.language is kernellab.triton.language
        assert sys.modules["triton"] is real and sys.modules["triton.language"] is real_lang
    finally:
        del sys.modules["triton"], sys.modules["triton.language"]


def test_activate_twice_is_once_and_deactivate_twice_is_harmless():
    first = runner.activate()
    runner.activate()
    assert sum(isinstance(f, runner.TritonFinder) for f in sys.meta_path) == 1
    runner.deactivate()
    runner.deactivate()
    assert not runner.active() and not any(isinstance(f, runner.TritonFinder) for f in sys.meta_path)
    assert repr(first) == "<kernellab runner: off>"


def test_without_the_runner_nothing_outside_kernellab_is_imported(fresh_interpreter):
    # a new interpreter (tests/conftest.py): importing the runner's modules and launching a kernel add no module
    # outside kernellab, and no real triton or torch is loaded
    assert fresh_interpreter["new"] == [] and fresh_interpreter["real"] == []


def test_importing_kernellab_leaves_importlib_metadata_unloaded_until_it_is_asked(fresh_interpreter):
    # the runner answers importlib.metadata's hook only, so `import kernellab` need not load it (with email,
    # zipfile, socket and tempfile, ≈ 21 ms of CPU on every gallery page and test process); asked for
    # triton's version under the runner, it loads and answers 3.9.0
    assert fresh_interpreter["metadata_loaded"] is False and fresh_interpreter["version"] == "3.9.0"


def test_kernellab_run_runs_an_unmodified_script(tmp_path, capsys):
    # main(), as ``python -m kernellab`` calls it, in this process (the real ``python -m`` — its argv, exit status and
    # output — is test_cli's failing script's point); the modelled GPU is as it was afterwards
    script = tmp_path / "tutorial.py"
    script.write_text(textwrap.dedent("""
        import sys
        import importlib
        import numpy as np
        import triton
        import triton.language as tl

        @triton.jit
        def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
            offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
            mask = offs < n
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

        x = np.arange(1000, dtype=np.float32)
        out = np.empty_like(x)
        add_kernel[(triton.cdiv(1000, 256),)](x, x, out, 1000, BLOCK_SIZE=256)
        assert (out == 2 * x).all()
        print(importlib.import_module("triton").__name__, triton.runtime.driver.active.get_current_target().arch,
              sys.argv[1:])
    """))
    before = kernellab.triton.runtime.driver.active.get_current_target().arch
    assert main(["run", "--gpu", "A100", str(script), "--n", "3"]) == 0
    assert capsys.readouterr().out.split() == ["kernellab.triton", "80", "['--n',", "'3']"]  # the A100 is sm_80
    assert kernellab.triton.runtime.driver.active.get_current_target().arch == before and not runner.active()


def test_kernellab_run_reports_the_scripts_error_from_its_own_line(tmp_path, capsys):
    # main(), as ``python -m kernellab`` calls it, in this process: the real ``python -m`` (its argv, exit status
    # and output) is test_cli's failing script's point
    script = tmp_path / "broken.py"
    script.write_text("import triton\nraise KeyError('from the script')\n")
    assert main(["run", str(script)]) == 1
    err = capsys.readouterr().err
    assert 'broken.py", line 2' in err and "KeyError: 'from the script'" in err
    assert "runpy" not in err  # the frames of runpy.run_path and of the command are not the user's
    assert not runner.active()
