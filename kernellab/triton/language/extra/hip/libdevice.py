"""``tl.extra.hip.libdevice``: the functions of Triton 3.9's HIP libdevice, computed as CUDA's libdevice
functions of the same names are (:mod:`kernellab.triton.language.extra.libdevice`).

Examples
--------
>>> import numpy as np
>>> fast_tanhf(np.float32([0.5])).tolist()
[0.46211716532707214]
"""

from .. import libdevice as _cuda

_NAMES = ("clz popc abs floor rsqrt ceil trunc exp2 exp fast_expf fast_dividef sqrt rint llrint nearbyint "
          "isnan signbit copysign isinf nextafter sin cos tan log2 cosh sinh tanh atan2 atan asin acos log "
          "log10 log1p acosh asinh atanh expm1 hypot j0 j1 y0 y1 cyl_bessel_i0 cyl_bessel_i1 erf erfinv "
          "erfc erfcx lgamma ldexp fmod fma pow ilogb round finitef isfinited").split()

globals().update({n: getattr(_cuda, n) for n in _NAMES})


def fast_tanhf(arg0, _semantic=None):
    """``tanh`` of an fp32 block (HIP's fast variant; computed as accurately as ``tanh``)."""
    return _cuda.tanh(arg0)


__all__ = sorted([*_NAMES, "fast_tanhf"])
