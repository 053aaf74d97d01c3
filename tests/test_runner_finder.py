"""The runner's meta path finder (kernellab/triton/runner/modules.py) watching the import of ``torch``, without
torch: a module named ``torch`` written here is imported through the finder, which runs torch's own loader and
then the runner's hook, and leaves the module its own loader.

test_runner.py covers the ``triton`` side of the finder; test_runner_torch.py the real torch (needs torch)."""

import sys
import types

import pytest

import kernellab.triton
from kernellab.triton.runner import modules


@pytest.fixture
def a_torch(tmp_path, monkeypatch):
    """A file ``torch.py`` first on the path and no ``torch`` imported: ``import torch`` finds this one."""
    (tmp_path / "torch.py").write_text("cuda = 'the module ran'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    yield tmp_path
    sys.modules.pop("torch", None)  # the monkeypatch puts back a torch imported before, if any


def test_torch_imported_through_the_finder_runs_its_own_loader_then_the_hook(a_torch, monkeypatch):
    seen = []
    finder = modules.TritonFinder(on_torch=seen.append)
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    import torch

    # the hook ran once, after torch's own code (its module attribute is set by then)
    assert seen == [torch] and torch.cuda == "the module ran" and torch.__file__ == str(a_torch / "torch.py")
    # the module keeps its own loader, not the finder's wrapper (reload, pickling and tracebacks use it)
    assert type(torch.__spec__.loader).__name__ == "SourceFileLoader" and torch.__loader__ is torch.__spec__.loader
    assert "torch" not in finder.made  # torch is torch's module: nothing for deactivate to forget


def test_without_a_hook_the_finder_leaves_torch_alone(a_torch):
    assert modules.TritonFinder().find_spec("torch") is None  # the next finder answers, unwrapped
    assert modules.TritonFinder(on_torch=print).find_spec("numpy") is None  # and for every other name


def test_a_torch_no_finder_has_is_no_spec(monkeypatch):
    finder = modules.TritonFinder(on_torch=print)
    no_spec = types.SimpleNamespace()  # an old-style finder without find_spec is passed over
    monkeypatch.setattr(sys, "meta_path", [finder, no_spec, *sys.meta_path])
    monkeypatch.setattr(sys, "path", [])  # nowhere to find a module
    assert finder._torch_spec("torch", None, None) is None


def test_a_loader_without_exec_module_is_not_wrapped(monkeypatch):
    spec = types.SimpleNamespace(loader=types.SimpleNamespace())  # a legacy loader (load_module only)
    finder = modules.TritonFinder(on_torch=print)
    other = types.SimpleNamespace(find_spec=lambda name, path, target: spec)
    monkeypatch.setattr(sys, "meta_path", [finder, other])
    assert finder._torch_spec("torch", None, None) is spec and spec.loader.__class__ is types.SimpleNamespace


def test_the_after_load_loader_hands_the_module_its_own_loader_back():
    calls = []

    class Loader:
        def create_module(self, spec):
            calls.append("create")
            return None  # the import system's default module

        def exec_module(self, module):
            calls.append(("exec", module.__loader__))

    inner = Loader()
    after = modules._AfterLoad(inner, lambda m: calls.append(("then", m.__name__)))
    m = types.ModuleType("torch")
    m.__spec__ = types.SimpleNamespace(loader=after)
    m.__loader__ = after
    assert after.create_module(m.__spec__) is None
    after.exec_module(m)
    # its own loader back before its code runs, the hook after
    assert calls == ["create", ("exec", inner), ("then", "torch")] and m.__spec__.loader is inner
    bare = types.ModuleType("torch")  # a module without a spec or a loader of ours: left as it is
    bare.__loader__ = "theirs"
    after.exec_module(bare)
    assert bare.__spec__ is None and bare.__loader__ == "theirs" and calls[-1] == ("then", "torch")


def test_an_alias_loader_keeps_kernellabs_spec_and_the_module_object():
    loader = modules.AliasLoader(kernellab.triton)
    assert loader.create_module(None) is kernellab.triton
    stranger = types.ModuleType("triton")
    stranger.__spec__ = "the import system's"
    loader.exec_module(stranger)
    assert stranger.__spec__ is kernellab.triton.__spec__
    specless = modules.AliasLoader(types.ModuleType("made_here"))  # a module made by hand has no spec to give
    made = types.ModuleType("triton")
    made.__spec__ = "the import system's"
    specless.exec_module(made)
    assert made.__spec__ == "the import system's"


def test_package_metadata_answers_only_for_triton():
    finder = modules.TritonFinder()
    for name in ("triton", "Triton", "TRITON"):
        (dist,) = finder.find_distributions(types.SimpleNamespace(name=name))
        assert dist.version == modules.TRITON_VERSION == "3.9.0" and dist.metadata["Name"] == "triton"
        assert dist.read_text("top_level.txt") == "triton\n" and dist.read_text("RECORD") is None
        assert str(dist.locate_file("language")).endswith("kernellab/triton/language")
    for context in (types.SimpleNamespace(name="triton-nightly"), types.SimpleNamespace(name=None), None):
        assert list(finder.find_distributions(context)) == []


def test_forget_removes_only_the_names_answered_with_kernellabs_modules(monkeypatch):
    theirs = types.ModuleType("triton.theirs")
    monkeypatch.setitem(sys.modules, "triton.ours", kernellab.triton)
    monkeypatch.setitem(sys.modules, "triton.theirs", theirs)
    modules.forget({"triton.ours", "triton.theirs", "triton.never_imported"})
    assert "triton.ours" not in sys.modules and sys.modules["triton.theirs"] is theirs
    taken = {"triton.theirs": theirs}
    monkeypatch.setitem(sys.modules, "triton.theirs", kernellab.triton)  # put back only where nothing is now
    modules.restore(taken)
    assert sys.modules["triton.theirs"] is kernellab.triton


def test_torchs_triton_probes_answer_no_triton_and_come_back(monkeypatch):
    from kernellab.triton.runner import cuda, inductor

    probes = types.ModuleType("torch.utils._triton")  # laid out as torch's: the two probes and other names
    probes.has_triton_package, probes.has_triton = (lambda: True), (lambda: True)
    probes.triton_backend = "theirs"
    before = dict(vars(probes))
    monkeypatch.setitem(sys.modules, "torch.utils._triton", probes)
    undo = inductor.install(None)
    assert [(m, n) for m, n, _old in undo] == [(probes, "has_triton_package"), (probes, "has_triton")]
    assert probes.has_triton_package() is False and probes.has_triton() is False and probes.triton_backend == "theirs"
    cuda.uninstall(undo)
    assert vars(probes) == before and probes.has_triton()
    del probes.has_triton  # a torch with one of the probes: only that one is replaced, nothing is added
    undo = inductor.install(None)
    assert [n for _m, n, _old in undo] == ["has_triton_package"] and not hasattr(probes, "has_triton")
    cuda.uninstall(undo)


def test_torchs_modules_that_import_triton_themselves_find_none(tmp_path, monkeypatch):
    # laid out as torch's inductor: triton_compat imports triton itself, asking no probe, and on success goes on to
    # Triton's compiler internals (CompiledKernel), which kernellab's triton does not have
    runtime = tmp_path / "torch" / "_inductor" / "runtime"
    runtime.mkdir(parents=True)
    for d in (tmp_path / "torch", tmp_path / "torch" / "_inductor", runtime):
        (d / "__init__.py").write_text("")
    (runtime / "triton_compat.py").write_text("try:\n    import triton\nexcept ImportError:\n    triton = None\n"
                                              "if triton is not None:\n    from triton.compiler import CompiledKernel\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        monkeypatch.delitem(sys.modules, name)
    finder = modules.TritonFinder(on_torch=lambda torch: None)
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    import triton  # the script's own import, before torch's: kernellab's
    from torch._inductor.runtime import triton_compat

    assert triton_compat.triton is None  # its no-Triton branch, as on a machine without Triton
    assert sys.modules["triton"] is triton is kernellab.triton and finder.hiding == 0  # the script's triton is back
    import triton.language  # and answers again after

    assert triton.language is kernellab.triton.language
    sys.modules.pop("triton.language", None)
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        del sys.modules[name]  # this file's torch, not a real one, for the tests after
    for name in finder.made:
        sys.modules.pop(name, None)
