"""kernellab's libdevice table and ``triton.tools.mxfp`` against the installed Triton 3.9 itself.

The dispatch table of every libdevice function is read from Triton's own source (the dicts of
``extern_elementwise`` calls in ``triton/language/extra/cuda/libdevice.py``), and the MX codes
kernellab makes from floats are compared with those Triton's torch code makes.
"""

import ast
import inspect

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the conformance session installs torch (CPU) and triton")
pytest.importorskip("triton", reason="the conformance session installs triton; run `nox -s conformance`")


def _table(module) -> dict:
    """name → {argument type names: result type name}, from the source of a Triton libdevice module."""
    out = {}
    for f in ast.parse(inspect.getsource(module)).body:
        if isinstance(f, ast.FunctionDef):
            d = next(n for n in ast.walk(f) if isinstance(n, ast.Dict))
            out[f.name] = {tuple(e.args[0].value for e in k.elts): v.elts[1].args[0].value for k, v in zip(d.keys, d.values)}
    return out


def test_the_libdevice_table_is_triton_3_9s():
    import triton.language.extra.cuda.libdevice as real

    from kernellab.triton.language.extra import libdevice as ours

    theirs = _table(real)
    mine = {n: {k: v.name for k, v in sigs.items()} for n, sigs in ours.SIGNATURES.items()}
    assert mine == theirs


def test_hip_names_are_triton_3_9s():
    import triton.language.extra.hip.libdevice as real

    from kernellab.triton.language.extra.hip import libdevice as ours

    names = {f.name for f in ast.parse(inspect.getsource(real)).body if isinstance(f, ast.FunctionDef)}
    assert names == set(ours.__all__)


def test_mx_codes_equal_tritons():
    import triton.tools.mxfp as real

    import kernellab.triton.tools.mxfp as ours

    torch.manual_seed(0)
    x = torch.randn(4096) * 4
    x[:8] = torch.tensor([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, -0.0])  # the ties, and -0
    assert torch.equal(real.MXFP4Tensor(x.clone()).data, ours.MXFP4Tensor(x.clone()).data)
    s = torch.rand(4096) * 10 + 1e-8
    assert torch.equal(real.MXScaleTensor(s).data, ours.MXScaleTensor(s).data)
    t = real.MXFP4Tensor(size=(6, 7)).random()
    mine = ours.MXFP4Tensor(t.to(torch.float32))
    for dim in (0, 1):
        assert torch.equal(t.to_packed_tensor(dim), mine.to_packed_tensor(dim))
    codes = torch.arange(256, dtype=torch.uint8)
    np.testing.assert_array_equal(real.fp8e8m0_to_float32(codes).numpy(), ours.fp8e8m0_to_float32(codes).numpy())
    torch.manual_seed(1)
    a = real.MXScaleTensor(size=(64,)).random(0.3, 8).data
    torch.manual_seed(1)
    assert torch.equal(a, ours.MXScaleTensor(size=(64,), device="cpu").random(0.3, 8).data)  # the same draws
