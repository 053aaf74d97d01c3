"""Where a Triton launch of the harness runs: kernellab on numpy arrays, or real Triton on torch tensors.

A case or a check writes its launch once against an :class:`Env`: ``env.zeros`` and ``env.randn`` make
its arrays, ``env.kt`` holds the kernels (``kernels_triton.py`` under that Triton), ``env.triton`` is
the Triton module, and ``env.bitcast[dtype]`` is what a kernel's ``BITCAST`` argument must be for that
dtype (numpy has no bfloat16 or fp8: kernellab gets their bits, and the kernel bitcasts them).

* :data:`KERNELLAB`: numpy arrays, ``kernellab.triton``; the model predicts what a launch takes.
* :func:`torch_env`: torch tensors on ``device`` and real Triton (``import triton``), this file's
  kernels executed with the real imports: on a GPU, or on the CPU under ``TRITON_INTERPRET=1``.

Examples
--------
>>> x = KERNELLAB.randn((2, 3), "bf16", seed=0)
>>> x.dtype, KERNELLAB.numpy(x).shape, KERNELLAB.bitcast["bf16"] is KERNELLAB.tl.bfloat16
(dtype('uint16'), (2, 3), True)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import kernellab.triton as kl_triton
import kernellab.triton.language as kl_tl

from . import kernels_triton

HERE = Path(__file__).resolve().parent
#: The dtypes an Env makes, by the names the harness uses.
DTYPES = ("fp16", "bf16", "fp8e5", "fp32", "int8", "int32", "int64")


class Env:
    """Arrays, kernels and the Triton module of one way of running the harness's Triton kernels."""

    name = "kernellab"

    def __init__(self):
        self.triton, self.tl, self.kt = kl_triton, kl_tl, kernels_triton
        self.bitcast = {d: None for d in DTYPES} | {"bf16": kl_tl.bfloat16, "fp8e5": kl_tl.float8e5}

    def _np(self, dtype):
        return {"fp16": np.float16, "bf16": np.uint16, "fp8e5": np.uint8, "fp32": np.float32, "int8": np.int8,
                "int32": np.int32, "int64": np.int64}[dtype]

    def zeros(self, shape, dtype):
        """An array of zeros (numpy; bfloat16 and fp8 as their bits)."""
        return np.zeros(shape, self._np(dtype))

    def randn(self, shape, dtype, seed=0, scale=1.0):
        """Standard normal values × ``scale``, rounded to ``dtype`` (bfloat16 and fp8 encoded as their bits)."""
        x = (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)
        if dtype == "bf16":
            return self.tl.bfloat16.encode(x).reshape(shape)
        if dtype == "fp8e5":
            return self.tl.float8e5.encode(x).reshape(shape)
        return x.astype(self._np(dtype))

    def numpy(self, x, dtype=None) -> np.ndarray:
        """The values of ``x`` as float64 numpy (``dtype``: decode the bits of a bfloat16 or fp8 array)."""
        x = np.asarray(x)
        if dtype == "bf16":
            x = self.tl.bfloat16.decode(x)
        elif dtype == "fp8e5":
            x = self.tl.float8e5.decode(x)
        return x.astype(np.float64)


KERNELLAB = Env()


class TorchEnv(Env):
    """Torch tensors on a device, with real Triton (see the module)."""

    def __init__(self, device: str, triton_module, kernels):
        import torch

        self.name, self.torch, self.device = f"triton on {device}", torch, device
        self.triton, self.tl, self.kt = triton_module, triton_module.language, kernels
        # bfloat16 and fp8 travel as their bits here too, as on kernellab: the same kernel code runs everywhere
        # (Triton 3.9's interpreter cannot load fp8 with other=0, and its bfloat16 dot returned inf)
        self.bitcast = {d: None for d in DTYPES} | {"bf16": self.tl.bfloat16, "fp8e5": self.tl.float8e5}
        self._bits = {"bf16": torch.int16, "fp8e5": torch.uint8}  # int16: torch.uint16 is new in torch 2.3

    def _dtype(self, dtype):
        t = self.torch
        return {"fp16": t.float16, "bf16": t.bfloat16, "fp8e5": t.float8_e5m2, "fp32": t.float32, "int8": t.int8,
                "int32": t.int32, "int64": t.int64}[dtype]

    def zeros(self, shape, dtype):
        x = self.torch.zeros(shape, dtype=self._dtype(dtype), device=self.device)
        return x.view(self._bits[dtype]) if dtype in self._bits else x

    def randn(self, shape, dtype, seed=0, scale=1.0):
        x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * scale
        x = self.torch.from_numpy(x).to(self.device).to(self._dtype(dtype))
        return x.view(self._bits[dtype]) if dtype in self._bits else x

    def numpy(self, x, dtype=None) -> np.ndarray:
        if dtype in self._bits:
            x = x.view(self._dtype(dtype))
        return x.detach().to(self.torch.float64).cpu().numpy()


def kernels_source(header: str) -> str:
    """``kernels_triton.py`` with its two kernellab import lines replaced by ``header``."""
    text = (HERE / "kernels_triton.py").read_text()
    old = "import kernellab.triton as triton\nimport kernellab.triton.language as tl\n"
    if old not in text:
        raise RuntimeError("kernels_triton.py no longer starts its imports with the two kernellab lines")
    return text.replace(old, header)


def real_kernels():
    """``kernels_triton.py`` under real Triton, as a module-like namespace (its ``@triton.jit`` needs a file:
    the source is written to a temporary file and imported from there)."""
    import importlib.util
    import tempfile

    src = kernels_source("import triton\nimport triton.language as tl\n")
    path = Path(tempfile.mkdtemp(prefix="kernellab-validation-")) / "validation_kernels_triton.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("validation_kernels_triton", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def torch_env(device: str = "cuda") -> TorchEnv:
    """Real Triton and torch on ``device`` (``"cpu"`` needs ``TRITON_INTERPRET=1`` set before Triton is imported)."""
    import triton

    return TorchEnv(device, triton, real_kernels())
