"""Shared by the conformance tests: load one kernel source twice, with kernellab's and with Triton's imports."""

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

import pytest

OURS = "import kernellab.triton as triton\nimport kernellab.triton.language as tl\n"
THEIRS = "import triton\nimport triton.language as tl\n"


def load_source(name: str, text: str, tmp: Path):
    """Import ``text`` as module ``name`` from a file (Triton's jit reads a kernel's source from its file)."""
    path = tmp / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Pair(NamedTuple):
    """One kernel source loaded twice: ``ours`` as written (kernellab), ``theirs`` with Triton's imports."""

    ours: ModuleType
    theirs: ModuleType

    def run(self, name, grid, arrays, scalars=(), **meta):
        """Launch kernel ``name`` in both on copies of ``arrays`` (numpy for ours, CPU torch tensors for
        Triton's interpreter); return both lists of arrays after the launch."""
        import torch

        ours, theirs = getattr(self.ours, name), getattr(self.theirs, name)
        a1 = [a.copy() for a in arrays]
        a2 = [torch.from_numpy(a.copy()) for a in arrays]
        ours[grid](*a1, *scalars, **meta)
        theirs[grid](*a2, *scalars, **meta)
        return a1, [t.numpy() for t in a2]


@pytest.fixture(scope="module")
def load_pair(tmp_path_factory):
    """``load_pair(source_path) -> Pair``: the file as written, and with Triton's two import lines."""

    def load(source: Path):
        text = source.read_text()
        assert OURS in text, f"{source.name} must start with kernellab's two import lines"
        tmp = tmp_path_factory.mktemp(source.stem)
        return Pair(load_source(f"kl_{source.stem}", text, tmp),
                    load_source(f"real_{source.stem}", text.replace(OURS, THEIRS), tmp))

    return load


@pytest.fixture(scope="session")
def import_lines():
    """``(ours, theirs)``: kernellab's two import lines and Triton's."""
    return OURS, THEIRS


@pytest.fixture(scope="module")
def source_loader():
    """``load_source`` itself, for tests that build their own source text."""
    return load_source
