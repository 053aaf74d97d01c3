"""``import triton`` answered by kernellab: a meta path finder, and the package metadata it reports.

While the runner is active, :class:`TritonFinder` stands first on ``sys.meta_path``. Every import of
``triton`` or ``triton.X`` (``import``, ``from … import``, ``importlib.import_module``, ``__import__``)
resolves to the module object ``kernellab.triton.X`` itself, so ``triton.jit is kernellab.triton.jit``.
A ``triton.X`` that kernellab lacks is a :class:`ModuleNotFoundError` naming it: it is never taken from a
real Triton installed beside kernellab. ``importlib.metadata.version("triton")`` (and ``distribution``,
``metadata``) reports version 3.9.0, the release kernellab's Triton follows.

Why a finder and not an entry in ``sys.modules`` per name: a finder answers for submodules nobody
has imported yet and for ``importlib.import_module``, which no rewrite of the script's source reaches,
and removing it (and the entries it made) undoes everything. The finder also watches the import of
``torch``: when torch finishes importing, :func:`kernellab.triton.runner.cuda.install` replaces its CUDA
queries (see that module); and while one of torch's modules that import Triton without asking torch's probes
runs (:data:`kernellab.triton.runner.inductor.WITHOUT_TRITON`), ``import triton`` fails for it, as where no
Triton is installed.

Nothing here runs until :func:`kernellab.triton.runner.activate`: importing this module imports nothing
but the standard library and kernellab.
"""

from __future__ import annotations

import importlib
import os
import sys
from contextlib import contextmanager
from importlib.machinery import ModuleSpec

from kernellab.i18n import _

from .inductor import WITHOUT_TRITON

#: The Triton release kernellab's ``triton`` follows: what ``triton.__version__`` and the package metadata say.
TRITON_VERSION = "3.9.0"
#: The package kernellab's ``triton`` lives in.
HOME = "kernellab.triton"
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # kernellab/triton/, HOME's folder


def _is_triton(name: str) -> bool:
    return name == "triton" or name.startswith("triton.")


class AliasLoader:
    """Loads ``triton.X`` as the already imported module ``kernellab.triton.X`` (the same object)."""

    def __init__(self, module):
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # the import system gave the module our spec; kernellab's own stays its spec (importlib.reload,
        # pickling and tracebacks use it)
        if self.spec is not None:
            module.__spec__ = self.spec


class _AfterLoad:
    """A loader that runs another loader, then ``then(module)`` (how the runner learns that torch is ready);
    with ``around`` (a context manager factory), the other loader runs inside it."""

    def __init__(self, loader, then=None, around=None):
        self.loader, self.then, self.around = loader, then, around

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.loader is self:
            spec.loader = self.loader  # the module keeps its own loader
        if getattr(module, "__loader__", None) is self:
            module.__loader__ = self.loader
        if self.around is None:
            self.loader.exec_module(module)
        else:
            with self.around():
                self.loader.exec_module(module)
        if self.then is not None:
            self.then(module)


class TritonFinder:
    """The meta path finder of the runner: ``triton`` → ``kernellab.triton``; ``torch`` → torch, then the
    CUDA stand-ins (``on_torch``); ``importlib.metadata`` → version 3.9.0 for ``triton``."""

    def __init__(self, on_torch=None):
        self.on_torch = on_torch
        self.made: set[str] = set()  # the sys.modules names this finder answered, removed on deactivate
        self.hiding = 0  # > 0 while a module of inductor.WITHOUT_TRITON runs: no triton for it

    # --- modules ------------------------------------------------------------------------------------
    def find_spec(self, name, path=None, target=None):
        if _is_triton(name):
            if self.hiding:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)  # as where none is installed
            return self._triton_spec(name)
        if self.on_torch is not None:
            if name == "torch":
                return self._torch_spec(name, path, target)
            if name in WITHOUT_TRITON:
                return self._torch_spec(name, path, target, around=self._no_triton)
        return None

    @contextmanager
    def _no_triton(self):
        """While a module of ``WITHOUT_TRITON`` runs: ``import triton`` fails, as where no Triton is installed;
        kernellab's ``triton`` modules (and a real Triton's, if imported) are back in ``sys.modules`` after."""
        taken = stash_real_triton()
        self.hiding += 1
        try:
            yield
        finally:
            self.hiding -= 1
            restore(taken)

    def _triton_spec(self, name):
        home = HOME + name[len("triton"):]
        try:
            module = importlib.import_module(home)
        except ModuleNotFoundError as exc:
            if exc.name is not None and exc.name != home:
                raise  # kernellab's module itself failed to import something else: that error, as it is
            raise ModuleNotFoundError(_("No module named {name!r}: kernellab's Triton has no {home} (the runner "
                                        "answers every 'triton' import with kernellab.triton; the coverage page "
                                        "lists what it has)").format(name=name, home=home), name=name) from None
        self.made.add(name)
        package = getattr(module, "__path__", None)
        spec = ModuleSpec(name, AliasLoader(module), is_package=package is not None)
        if package is not None:
            spec.submodule_search_locations = list(package)
        return spec

    def _torch_spec(self, name, path, target, around=None):
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _AfterLoad(spec.loader, self.on_torch if around is None else None, around)
                return spec
        return None

    # --- package metadata ---------------------------------------------------------------------------
    def find_distributions(self, context=None):
        """``importlib.metadata``'s hook: a distribution named ``triton``, version 3.9.0, when asked for by name."""
        name = getattr(context, "name", None)
        if name is None or name.replace("-", "_").replace(".", "_").lower() != "triton":
            return iter(())
        return iter((_distribution(),))


def _distribution():
    """The ``importlib.metadata.Distribution`` of kernellab's Triton (made when first asked for)."""
    # imported here, not at the top: only importlib.metadata calls this hook, so it is loaded by then, and at
    # the top every ``import kernellab`` paid for it (≈ 21 ms of CPU: email, zipfile, socket, tempfile)
    import importlib.metadata

    class KernellabTriton(importlib.metadata.Distribution):
        """``triton`` 3.9.0 as importlib.metadata sees it, provided by kernellab."""

        _TEXT = {"METADATA": f"Metadata-Version: 2.1\nName: triton\nVersion: {TRITON_VERSION}\n"
                             "Summary: Triton's API on kernellab's simulator (python -m kernellab run)\n",
                 "top_level.txt": "triton\n", "INSTALLER": "kernellab\n"}

        def read_text(self, filename):
            return self._TEXT.get(filename)

        def locate_file(self, path):
            return os.path.join(_PACKAGE_DIR, str(path))

    return KernellabTriton()


def forget(made) -> None:
    """Remove from ``sys.modules`` the ``triton`` names the finder answered (they are kernellab's modules
    under a second name), and their parents' attributes keep nothing of them."""
    for name in sorted(made, key=len, reverse=True):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__name__", "").startswith(HOME):
            del sys.modules[name]


def stash_real_triton() -> dict:
    """Take every ``triton`` / ``triton.*`` module already in ``sys.modules`` (a real Triton imported before
    the runner) out of it, and return them, to be put back by :func:`restore`."""
    taken = {n: m for n, m in list(sys.modules.items()) if _is_triton(n)}
    for n in taken:
        del sys.modules[n]
    return taken


def restore(taken: dict) -> None:
    """Put back the modules :func:`stash_real_triton` took."""
    for n, m in taken.items():
        sys.modules.setdefault(n, m)


__all__ = ["AliasLoader", "HOME", "TRITON_VERSION", "TritonFinder", "forget", "restore", "stash_real_triton"]
