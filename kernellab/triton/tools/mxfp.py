"""``triton.tools.mxfp``: MXFP4 (e2m1) elements and MX (e8m0) scales on the host, as Triton 3.9's
tutorials build them (``MXFP4Tensor``, ``MXScaleTensor``, ``fp8e8m0_to_float32``).

The classes hold their codes in ``data`` as uint8: a torch tensor when they were made from one (or
with a ``device``, torch being installed), else a numpy array. They compute with numpy
(:mod:`kernellab.triton.executor.microscaling`), so the codes are the same whichever holds them. ``random``
draws with torch's generator in torch mode (``torch.manual_seed`` applies) and with numpy's
``default_rng(seed)`` otherwise.

One difference from Triton's: ``MXScaleTensor`` from floats computes ``floor(log2 v)`` exactly
(Triton's torch code evaluates ``log2`` in fp32, which rounds up just below a power of two).

Examples
--------
>>> import numpy as np
>>> MXFP4Tensor(np.float32([6.0, 0.3, -2.5, 7.0])).data.tolist()   # 0b0111, 0.5 → 0b0001, -2 (tie to even), clamp
[7, 1, 12, 7]
>>> MXFP4Tensor(np.float32([[1.0, 6.0, 0.5]])).to_packed_tensor(dim=1).tolist()   # 0x72, then 0.5 and a 0 pad
[[114, 1]]
>>> MXScaleTensor(np.float32([1.0, 0.75, 3.0, 0.0])).data.tolist()   # 2^0, 2^-1, 2^1, NaN
[127, 126, 128, 255]
>>> MXScaleTensor(np.float32([4.0])).to(np.float32).tolist()
[4.0]
"""

from __future__ import annotations

import numpy as np

from kernellab.i18n import _

from ..executor import microscaling as mx


def _is_torch(x) -> bool:
    return type(x).__module__.startswith("torch")


def _numpy(x) -> np.ndarray:
    return x.detach().cpu().numpy() if _is_torch(x) else np.asarray(x)


def _like(arr: np.ndarray, torch_mode: bool, device=None):
    if not torch_mode:
        return arr
    import torch

    return torch.from_numpy(np.ascontiguousarray(arr)).to(device if device is not None else "cpu")


def _torch_wanted(device) -> bool:
    if device is None:
        return False
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def _float32(dtype) -> None:
    if dtype is not np.float32 and str(dtype) not in ("torch.float32", "float32"):
        raise ValueError(_("only float32 is supported for converting microscaling data to floats, got {dtype}").format(
            dtype=dtype))


class _Codes:
    """Codes of a microscaling format, one a uint8 in ``data``: from floats (``data``), or of a ``size`` to be
    filled by ``random``; in torch mode when ``data`` is a torch tensor or ``device`` names one."""

    def __init__(self, data=None, size=None, device=None):
        self.device = device
        self._torch = _is_torch(data) if data is not None else _torch_wanted(device)
        if data is not None:
            self.device = getattr(data, "device", device)
            self.data = self._from_float(data)
            self.size = tuple(self.data.shape)
        elif size is not None:
            self.size = size if isinstance(size, tuple) else (size,)
        else:
            raise ValueError(_("Either parameter data or size must be provided"))


class MXFP4Tensor(_Codes):
    """Four-bit e2m1 values, one code a uint8 in ``data`` (from floats, or ``size`` then :meth:`random`)."""


    def random(self, rng=None):
        """Random codes, the sign, exponent and mantissa bits drawn in that order, as Triton's; returns ``self``."""
        if self._torch:
            import torch

            s, e, m = (torch.randint(0, n, size=self.size, dtype=torch.uint8, device=self.device) for n in (2, 4, 2))
        else:
            rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
            s, e, m = (rng.integers(0, n, size=self.size, dtype=np.uint8) for n in (2, 4, 2))
        self.data = (s << 3) | (e << 1) | m
        return self

    def to(self, dtype):
        """The values as float32 (a torch tensor in torch mode)."""
        _float32(dtype)
        return _like(mx.e2m1_decode(_numpy(self.data)), self._torch, self.device)

    def _from_float(self, values):
        """e2m1 codes of floats: nearest, ties to even; ±6 beyond ±6 and for inf and NaN; 0 below 0.25."""
        return _like(mx.e2m1_encode(_numpy(values)), self._torch, self.device)

    def to_packed_tensor(self, dim):
        """The codes packed two a byte along ``dim`` (first element in the low nibble, an odd length padded)."""
        data = _numpy(self.data)
        if not 0 <= dim < data.ndim:
            raise ValueError(_("The dimension to pack along is not within the range of tensor dimensions"))
        return _like(mx.pack_fp4(data, dim), self._torch, self.device)

    def unpack_packed_tensor(self, packed_tensor, dim, original_shape):
        """The codes of a tensor packed along ``dim``, cut to ``original_shape[dim]``."""
        out = mx.unpack_fp4(_numpy(packed_tensor), dim, original_shape[dim])
        return _like(out, _is_torch(packed_tensor), getattr(packed_tensor, "device", None))


def fp8e8m0_to_float32(scale):
    """float32 values of raw e8m0 scale bytes (255 is NaN)."""
    return _like(mx.e8m0_decode(_numpy(scale).view(np.uint8)), _is_torch(scale), getattr(scale, "device", None))


class MXScaleTensor(_Codes):
    """E8M0 block scales, one code a uint8 in ``data`` (from positive floats, or ``size`` then :meth:`random`)."""


    def random(self, low=None, high=None, rng=None):
        """Uniform codes from ``int(log2(low)) + 127`` to ``int(log2(high)) + 127`` (``int`` truncates, as in
        Triton's), within [0, 254]: NaN's 255 is never drawn."""
        lo = 0 if low is None else max(0, int(np.log2(low)) + mx.E8M0_BIAS)
        hi = 254 if high is None else min(254, max(0, int(np.log2(high)) + mx.E8M0_BIAS))
        if lo > hi:
            raise ValueError(_("Low must be less than or equal to high"))
        if self._torch:
            import torch

            self.data = torch.randint(lo, hi + 1, size=self.size, dtype=torch.uint8, device=self.device)
        else:
            rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
            self.data = rng.integers(lo, hi + 1, size=self.size, dtype=np.uint8)
        return self

    def to(self, dtype):
        """The scales as float32 (a torch tensor in torch mode)."""
        _float32(dtype)
        return fp8e8m0_to_float32(self.data)

    def _from_float(self, values):
        """e8m0 codes: ``floor(log2 v) + 127`` clamped to [0, 254]; 255 for v ≤ 0, inf and NaN."""
        return _like(mx.e8m0_encode(_numpy(values)), self._torch, self.device)


__all__ = ["MXFP4Tensor", "MXScaleTensor", "fp8e8m0_to_float32"]
