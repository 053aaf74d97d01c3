"""libdevice (``tl.extra.libdevice``, ``tl.extra.cuda.libdevice``, ``tl.math``): every import path of
Triton 3.9, every function's types, each function's accuracy against an independent reference within
the ulp bounds CUDA documents, the correctly rounded operations exactly, the integer intrinsics
exactly, edge values (inf, NaN, -0, subnormals, huge arguments), FLOP counts, and both front ends.

The accuracy checks run every function in one test each (fp32: 54, fp64: 44; one pytest item each cost about 1.4 ms
of pytest's own CPU): a failure lists every function out of its bound by the id it had as a parametrized test
(``[exp]``). One function alone: ``fp32_ulp_error("exp")``, ``fp64_ulp_error("exp", mpmath)``."""

import math
from fractions import Fraction

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import triton_launch
from kernellab.triton.executor import dtypes as T
from kernellab.triton.executor.tensor import tensor
from kernellab.triton.language.extra import libdevice as LD
from tests.reference import every_case, failing_cases

MODES = [pytest.param(True, id="vectorised"), pytest.param(False, id="one-by-one")]
NP = {"fp32": np.float32, "fp64": np.float64, "int32": np.int32, "uint32": np.uint32, "int64": np.int64,
      "uint64": np.uint64}


def block(a) -> tensor:
    """A numpy array as a one-program block (the values a kernel would have loaded)."""
    a = np.asarray(a)
    return tensor(a[None], T.from_numpy(a.dtype), a.shape)


def call(name, *arrays) -> np.ndarray:
    return getattr(LD, name)(*(block(a) for a in arrays)).data[0]


# --- import paths -------------------------------------------------------------------------------------
def test_every_import_path_of_triton_3_9_reaches_the_same_functions():
    from kernellab.triton.language.extra import libdevice
    from kernellab.triton.language.extra.cuda import libdevice as cuda_libdevice
    from kernellab.triton.language.extra.cuda.libdevice import tanh as cuda_tanh
    from kernellab.triton.language.extra.libdevice import tanh

    assert tanh is cuda_tanh is libdevice.tanh is cuda_libdevice.tanh is tl.extra.libdevice.tanh
    assert tl.math.exp is tl.exp  # tl.math's own functions stay its own
    # the pre-3.0 path (tl.math was libdevice) is gone in Triton 3.9, and here: a library that tries it first
    # falls back to tl.extra.libdevice (in a kernel it is a CompilationError: tests/test_triton_limits.py)
    with pytest.raises(ImportError, match="cannot import name 'erfinv'"):
        from kernellab.triton.language.math import erfinv  # noqa: F401
    assert not hasattr(tl.math, "tanh") and hasattr(tl.extra.libdevice, "tanh")
    from kernellab.triton.language.extra.hip import libdevice as hip

    assert hip.tanh is tanh and hip.fast_tanhf(np.float32([1.0]))[0] == np.float32(math.tanh(1.0))


def test_the_table_is_triton_3_9s_and_every_name_answers():
    # 197 functions in Triton 3.9's third_party/nvidia/language/cuda/libdevice.py (counted by hand there)
    assert len(LD.SIGNATURES) == 197 and len(LD.__all__) == 197
    # a few signatures read from that file: result types as its dispatch gives them
    assert LD.SIGNATURES["float_as_uint"] == {("fp32",): T.int32}
    assert LD.SIGNATURES["pow"] == {("fp32", "int32"): T.float32, ("fp64", "int32"): T.float64,
                                    ("fp32", "fp32"): T.float32, ("fp64", "fp64"): T.float64}
    assert LD.SIGNATURES["sad"] == {("int32", "int32", "uint32"): T.int32, ("uint32", "uint32", "uint32"): T.uint32}
    assert LD.SIGNATURES["clz"] == {("int32",): T.int32, ("int64",): T.int32}
    rng = np.random.default_rng(0)
    for name, sigs in LD.SIGNATURES.items():
        for args, result in sigs.items():
            vals = [(rng.uniform(0.1, 0.9, 4) if a[0] == "f" else rng.integers(1, 9, 4)).astype(NP[a]) for a in args]
            if name in LD.UNSUPPORTED:
                with pytest.raises(NotImplementedError, match=rf"^libdevice\.{name} is not supported by kernellab: "):
                    call(name, *vals)
                continue
            out = getattr(LD, name)(*(block(v) for v in vals))
            assert out.dtype == result and out.shape == [4], (name, args)
            np_out = getattr(LD, name)(*vals)  # the lecture form: numpy arrays in and out
            assert np_out.dtype == NP[result.name] and np.array_equal(np_out, out.data[0], equal_nan=True), name


def test_wrong_types_and_names_are_clear_errors():
    with pytest.raises(TypeError, match=r"libdevice\.exp has no variant for argument types \(fp16\); it accepts "
                                        r"\(fp32\), \(fp64\)"):
        call("exp", np.float16([1.0]))
    with pytest.raises(TypeError, match=r"libdevice\.fma_rn takes 3 arguments, got 2"):
        LD.fma_rn(1.0, 2.0)
    with pytest.raises(NotImplementedError, match=r"^libdevice\.j0 is not supported by kernellab: numpy has no Bessel"):
        LD.j0(1.0)
    with pytest.raises(NotImplementedError, match=r"rcp64h is not supported by kernellab: it is a hardware approximation"):
        LD.rcp64h(np.float64([2.0]))
    with pytest.raises(AttributeError, match=r"libdevice has no function not_a_function \(Triton 3\.9's libdevice has 197"):
        LD.not_a_function  # noqa: B018
    assert set(LD.UNSUPPORTED) == {"j0", "j1", "jn", "y0", "y1", "yn", "cyl_bessel_i1", "rcp64h"}
    # Python numbers are fp32 and int32, as tl.to_tensor makes them: pow(x, 2) is powi, pow(x, 2.0) powf
    assert LD.pow(block(np.float32([3.0])), 2).dtype == T.float32
    assert call("pow", np.float32([3.0]), np.int32([2]))[0] == 9


# --- accuracy: CUDA's documented bounds ---------------------------------------------------------------
# Maximum ulp errors from the CUDA C++ Programming Guide, appendix "Mathematical Functions": the tables
# "Single-Precision Mathematical Standard Library Functions with Maximum ULP Error", "Double-Precision
# Mathematical Standard Library Functions with Maximum ULP Error" and "Single-Precision Floating-Point
# Intrinsic Functions" (for the fast_* intrinsics the guide gives these bounds on the ranges tested
# below). (fp32 bound, fp64 bound); None: no fp64 variant.
ULP = {
    "exp": (2, 1), "exp2": (2, 1), "exp10": (2, 1), "expm1": (1, 1), "log": (1, 1), "log2": (1, 1),
    "log10": (2, 1), "log1p": (1, 1), "sin": (2, 2), "cos": (2, 2), "tan": (4, 2), "sinpi": (1, 2),
    "cospi": (1, 2), "asin": (2, 2), "acos": (2, 2), "atan": (2, 2), "atan2": (3, 2), "sinh": (3, 2),
    "cosh": (2, 1), "tanh": (2, 1), "asinh": (3, 3), "acosh": (4, 3), "atanh": (3, 2), "pow": (4, 2),
    "cbrt": (1, 1), "rcbrt": (1, 1), "hypot": (3, 2), "rhypot": (2, 1), "norm3d": (3, 2), "rnorm3d": (2, 1),
    "norm4d": (3, 2), "rnorm4d": (2, 1), "rsqrt": (2, 1), "sqrt": (0, 0), "erf": (2, 2), "erfc": (4, 5),
    "erfinv": (2, 5), "erfcinv": (4, 6), "erfcx": (4, 4), "normcdf": (5, 5), "normcdfinv": (5, 8),
    "lgamma": (6, 4), "tgamma": (5, 10), "cyl_bessel_i0": (6, 6), "rsqrt_rn": (0, None),
    "fast_expf": (2, None), "fast_exp10f": (2, None), "fast_log2f": (2, None), "fast_logf": (3, None),
    "fast_log10f": (3, None), "fast_powf": (4, None), "fast_sinf": (2, None), "fast_cosf": (2, None),
    "fast_tanf": (4, None),
}
# the __expf bound is 2 + floor(|1.173·x|) ulp and __exp10f's 2 + floor(|2.97·x|); sinf/cosf are bounded
# in absolute error (2^-21.41, 2^-21.19) on [-π, π]: the ranges below keep those at or under the table's


def _erfinv_ref(p):  # bisection on math.erf: independent of the Newton iteration under test
    lo, hi = -6.0, 6.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erf(mid) < p else (lo, mid)
    return (lo + hi) / 2


def _i0_ref(x):
    """The power series Σ (x²/4)^k / (k!)², k < 400, vectorised in float64 (np.i0 under test uses Chebyshev
    fits instead). The terms are positive: each is a running product of ≤ 400 factors, off by at most
    3·400·2⁻⁵³ ≈ 1.3e-13 relative, and so is their sum; the fp32 bound is 6 ulp of 2⁻²⁴ ≈ 6e-8 relative.
    (The exact series, summed in Fractions, agrees within 1e-15 relative on these cases and took 4 s.)"""
    q = (np.asarray(x, np.float64) ** 2 / 4)[:, None]
    k = np.arange(1, 400, dtype=np.float64)
    return 1 + np.cumprod(q / (k * k), axis=1).sum(axis=1)


_R = np.random.default_rng(7)
_U = lambda lo, hi, n=300: _R.uniform(lo, hi, n)  # noqa: E731
_WIDE = np.concatenate([-(10.0 ** _U(-30, 30, 150)), 10.0 ** _U(-30, 30, 150)])

# name → (arguments as arrays, float64 reference); fp32 inputs are made from these
F32_CASES = {
    "exp": ([_U(-87, 88)], np.exp), "exp2": ([_U(-126, 127)], np.exp2), "exp10": ([_U(-37, 38)], lambda x: 10.0 ** x),
    "expm1": ([_U(-20, 88)], np.expm1), "log": ([10.0 ** _U(-44, 38)], np.log), "log2": ([10.0 ** _U(-44, 38)], np.log2),
    "log10": ([10.0 ** _U(-44, 38)], np.log10), "log1p": ([_U(-0.999, 1e3)], np.log1p),
    "sin": ([np.concatenate([_U(-100, 100), 10.0 ** _U(5, 38, 50)])], np.sin),
    "cos": ([np.concatenate([_U(-100, 100), 10.0 ** _U(5, 38, 50)])], np.cos), "tan": ([_U(-100, 100)], np.tan),
    "sinpi": ([_U(-1e3, 1e3)], lambda x: np.sin(np.pi * np.fmod(x, 2))),
    "cospi": ([_U(-1e3, 1e3)], lambda x: np.cos(np.pi * np.fmod(x, 2))),
    "asin": ([_U(-1, 1)], np.arcsin), "acos": ([_U(-1, 1)], np.arccos), "atan": ([_WIDE], np.arctan),
    "atan2": ([_WIDE, _R.permutation(_WIDE)], np.arctan2), "sinh": ([_U(-89, 89)], np.sinh),
    "cosh": ([_U(-89, 89)], np.cosh), "tanh": ([_U(-20, 20)], np.tanh), "asinh": ([_WIDE], np.arcsinh),
    "acosh": ([1 + 10.0 ** _U(-7, 30)], np.arccosh), "atanh": ([_U(-0.9999, 0.9999)], np.arctanh),
    "pow": ([_U(0.01, 100), _U(-10, 10)], np.power), "cbrt": ([_WIDE], np.cbrt), "rcbrt": ([_WIDE], lambda x: 1 / np.cbrt(x)),
    "hypot": ([_WIDE, _R.permutation(_WIDE)], np.hypot), "rhypot": ([_WIDE, _R.permutation(_WIDE)], lambda x, y: 1 / np.hypot(x, y)),
    "norm3d": ([_WIDE, _R.permutation(_WIDE), _R.permutation(_WIDE)], lambda x, y, z: np.sqrt(x * x + y * y + z * z)),
    "rnorm3d": ([_WIDE, _R.permutation(_WIDE), _R.permutation(_WIDE)], lambda x, y, z: 1 / np.sqrt(x * x + y * y + z * z)),
    "norm4d": ([_WIDE] + [_R.permutation(_WIDE) for _ in range(3)], lambda *v: np.sqrt(sum(a * a for a in v))),
    "rnorm4d": ([_WIDE] + [_R.permutation(_WIDE) for _ in range(3)], lambda *v: 1 / np.sqrt(sum(a * a for a in v))),
    "rsqrt": ([10.0 ** _U(-44, 38)], lambda x: 1 / np.sqrt(x)), "rsqrt_rn": ([10.0 ** _U(-44, 38)], lambda x: 1 / np.sqrt(x)),
    "sqrt": ([10.0 ** _U(-44, 38)], np.sqrt),
    "erf": ([_U(-5, 5)], np.vectorize(math.erf)), "erfc": ([_U(-5, 10)], np.vectorize(math.erfc)),
    "erfinv": ([_U(-0.999, 0.999)], np.vectorize(_erfinv_ref)),
    "erfcinv": ([_U(0.001, 1.999)], np.vectorize(lambda q: _erfinv_ref(1 - q))),
    "erfcx": ([_U(-9, 9)], np.vectorize(lambda x: math.exp(x * x) * math.erfc(x))),
    "normcdf": ([_U(-37, 8)], np.vectorize(lambda x: math.erfc(-x / math.sqrt(2)) / 2)),
    "normcdfinv": ([_U(0.001, 0.999)], np.vectorize(lambda p: math.sqrt(2) * _erfinv_ref(2 * p - 1))),
    "lgamma": ([np.concatenate([_U(-2.26, 1e4), _U(-20, -10.002, 50)])], np.vectorize(math.lgamma)),
    "tgamma": ([np.concatenate([_U(0.01, 35), _U(-30, -0.01, 50)])], np.vectorize(math.gamma)),
    "cyl_bessel_i0": ([_U(-80, 80, 60)], _i0_ref),
    "fast_expf": ([_U(-1, 1)], np.exp), "fast_exp10f": ([_U(-0.3, 0.3)], lambda x: 10.0 ** x),
    "fast_log2f": ([10.0 ** _U(-30, 30)], np.log2), "fast_logf": ([10.0 ** _U(-30, 30)], np.log),
    "fast_log10f": ([10.0 ** _U(-30, 30)], np.log10), "fast_powf": ([_U(0.5, 2), _U(-4, 4)], np.power),
    "fast_sinf": ([_U(-np.pi, np.pi)], np.sin), "fast_cosf": ([_U(-np.pi, np.pi)], np.cos),
    "fast_tanf": ([_U(-1.5, 1.5)], np.tan),
}


def ulps(got: np.ndarray, ref: np.ndarray, dt) -> np.ndarray:
    """|got − ref| in units of the last place of ``dt`` at ``ref`` (ref computed in higher precision)."""
    ref = np.asarray(ref, np.float64)
    unit = np.spacing(np.abs(ref).astype(dt)).astype(np.float64)
    unit = np.where(unit == 0, np.finfo(dt).smallest_subnormal, unit)
    return np.abs(got.astype(np.float64) - ref) / unit


def fp32_ulp_error(name: str) -> list[str]:
    """What is wrong with libdevice's fp32 ``name`` on its inputs (``F32_CASES``) against the float64 reference and
    CUDA's fp32 bound (``ULP``), one line each; ``[]`` when it is within the bound."""
    args, ref = F32_CASES[name]
    args32 = [a.astype(np.float32) for a in args]
    with np.errstate(all="ignore"):
        want = ref(*(a.astype(np.float64) for a in args32))
    got = call(name, *args32)
    if got.dtype != np.float32:
        return [f"result dtype {got.dtype}, not float32"]
    ok = np.isfinite(want) & (np.abs(want) < np.finfo(np.float32).max)
    if not ok.sum() > len(want) // 2:
        return [f"only {ok.sum()} of {len(want)} references finite in fp32"]
    err = ulps(got[ok], want[ok], np.float32)
    bound = ULP[name][0] + (0.5 if ULP[name][0] == 0 else 0)  # 0 ulp: correctly rounded, within half an ulp
    if err.max() > bound:
        return [f"{err.max()} ulp at x = {args32[0][ok][err.argmax()]!r}, bound {bound}"]
    return []


def test_fp32_within_cudas_ulp_bound():
    # 54 functions (sorted(F32_CASES)), each checked; a failure lists every function out of its bound by the id it had
    # as a parametrized test ([exp]), with its worst error. One function: fp32_ulp_error("exp")
    checked = every_case({name: (name,) for name in sorted(F32_CASES)}, fp32_ulp_error)
    assert checked[0] == 54
    assert not checked[1], failing_cases(checked, "exceed CUDA's fp32 ulp bound")


def fp64_ulp_error(name: str, mp) -> list[str]:
    """What is wrong with libdevice's fp64 ``name`` on the first 120 of its inputs (``F32_CASES``; sin, cos and tan
    also on huge arguments) against mpmath at 160 bits and CUDA's fp64 bound (``ULP``); ``[]`` when it is within
    the bound. ``mp`` is the mpmath module."""
    mp.mp.prec = 160
    refs = {
        "exp": mp.exp, "exp2": lambda x: mp.power(2, x), "exp10": lambda x: mp.power(10, x), "expm1": mp.expm1,
        "log": mp.log, "log2": lambda x: mp.log(x, 2), "log10": mp.log10, "log1p": mp.log1p, "sin": mp.sin,
        "cos": mp.cos, "tan": mp.tan, "sinpi": mp.sinpi, "cospi": mp.cospi, "asin": mp.asin, "acos": mp.acos,
        "atan": mp.atan, "atan2": mp.atan2, "sinh": mp.sinh, "cosh": mp.cosh, "tanh": mp.tanh, "asinh": mp.asinh,
        "acosh": mp.acosh, "atanh": mp.atanh, "pow": mp.power, "cbrt": lambda x: mp.sign(x) * mp.cbrt(abs(x)),
        "rcbrt": lambda x: mp.sign(x) / mp.cbrt(abs(x)),
        "hypot": mp.hypot, "rhypot": lambda x, y: 1 / mp.hypot(x, y),
        "norm3d": lambda *v: mp.sqrt(sum(a * a for a in v)), "rnorm3d": lambda *v: 1 / mp.sqrt(sum(a * a for a in v)),
        "norm4d": lambda *v: mp.sqrt(sum(a * a for a in v)), "rnorm4d": lambda *v: 1 / mp.sqrt(sum(a * a for a in v)),
        "rsqrt": lambda x: 1 / mp.sqrt(x), "sqrt": mp.sqrt, "erf": mp.erf, "erfc": mp.erfc, "erfinv": mp.erfinv,
        "erfcinv": lambda q: mp.erfinv(1 - q), "erfcx": lambda x: mp.exp(x * x) * mp.erfc(x), "normcdf": mp.ncdf,
        "normcdfinv": lambda p: mp.sqrt(2) * mp.erfinv(2 * p - 1), "lgamma": mp.loggamma,
        "tgamma": mp.gamma, "cyl_bessel_i0": lambda x: mp.besseli(0, x),
    }
    args, _ = F32_CASES[name]
    args = [a[:120] for a in args]
    if name == "lgamma":  # mpmath's loggamma is complex for negative x: log|Γ(x)|
        refs["lgamma"] = lambda x: mp.log(abs(mp.gamma(x)))
    if name in ("sin", "cos", "tan"):  # huge arguments: the reduction must be exact
        args = [np.concatenate([args[0], [1e22, 1e300, 2.0**1000, 5e-324]])]
    want = np.array([float(refs[name](*(mp.mpf(float(a[i])) for a in args))) for i in range(len(args[0]))])
    got = call(name, *args)
    if got.dtype != np.float64:
        return [f"result dtype {got.dtype}, not float64"]
    ok = np.isfinite(want)
    err = ulps(got[ok], want[ok], np.float64)
    bound = ULP[name][1] + (0.5 if ULP[name][1] == 0 else 0)
    if err.max() > bound:
        return [f"{err.max()} ulp at x = {args[0][ok][err.argmax()]!r}, bound {bound}"]
    return []


def test_fp64_within_cudas_ulp_bound():
    # 44 functions with an fp64 variant (ULP[name][1] not None), each checked; a failure lists every function out of
    # its bound by the id it had as a parametrized test ([exp]). One function: fp64_ulp_error("exp", mpmath)
    mp = pytest.importorskip("mpmath", reason="mpmath is the fp64 oracle (in the test dependency group)")
    names = sorted(n for n in F32_CASES if ULP[n][1] is not None)
    checked = every_case({name: (name, mp) for name in names}, fp64_ulp_error)
    assert checked[0] == 44
    assert not checked[1], failing_cases(checked, "exceed CUDA's fp64 ulp bound")


def test_fp64_tails_keep_their_relative_accuracy():
    mp = pytest.importorskip("mpmath", reason="mpmath is the fp64 oracle (in the test dependency group)")
    mp.mp.prec = 200
    q = np.array([1e-300, 1e-100, 1e-20, 5e-324])  # erfcinv far in the tail, down to the smallest subnormal
    want = [float(mp.findroot(lambda y, v=v: mp.log(mp.erfc(y)) - mp.log(mp.mpf(v)), mp.sqrt(-mp.log(v)))) for v in q]
    assert ulps(call("erfcinv", q), np.array(want), np.float64).max() <= 6
    x = np.array([-30.0, -20.0, -37.5])  # normcdf's left tail: 4.9e-198, 2.8e-89, 4.6e-308
    want = np.array([float(mp.ncdf(v)) for v in x])
    assert ulps(call("normcdf", x), want, np.float64).max() <= 5
    x = np.array([1e4, 1e150, 30.0])  # erfcx for large x: ≈ 1/(x√π)
    want = np.array([float(mp.exp(mp.mpf(v) ** 2) * mp.erfc(v)) for v in x])
    assert ulps(call("erfcx", x), want, np.float64).max() <= 4


# --- correctly rounded operations: exact, against Fractions ---------------------------------------------
def _round_exact(q: Fraction, dt, mode: str) -> float:
    """The rational ``q`` rounded to ``dt`` in ``mode``: the two floats of ``dt`` that bracket ``q``, found
    by stepping, then the mode picks one (an independent definition of IEEE rounding)."""
    fi = np.finfo(dt)
    top = Fraction(float(fi.max))
    if abs(q) > top:  # past the largest float: ∞ or the largest, by the mode (rn: ∞ from half an ulp on)
        half = (top - Fraction(float(np.nextafter(fi.max, dt(0))))) / 2
        away = {"rn": abs(q) >= top + half, "rz": False, "ru": q > 0, "rd": q < 0}[mode]
        return math.copysign(math.inf if away else float(fi.max), 1 if q > 0 else -1)
    lo = np.clip(dt(float(q)), -fi.max, fi.max)
    while Fraction(float(lo)) > q:
        lo = np.nextafter(lo, dt(-np.inf))
    while lo < fi.max and Fraction(float(np.nextafter(lo, dt(np.inf)))) <= q:
        lo = np.nextafter(lo, dt(np.inf))
    if Fraction(float(lo)) == q:
        return float(lo)
    hi = np.nextafter(lo, dt(np.inf))  # lo < q < hi, both finite
    if mode == "rd" or (mode == "rz" and q > 0):
        return float(lo)
    if mode == "ru" or (mode == "rz" and q < 0):
        return float(hi)
    dl, dh = q - Fraction(float(lo)), Fraction(float(hi)) - q
    if dl != dh:
        return float(lo if dl < dh else hi)
    return float(lo if int(np.asarray(lo).view(np.int32 if dt == np.float32 else np.int64)) % 2 == 0 else hi)


def _operands(dt, n=120, seed=3):
    rng = np.random.default_rng(seed)
    fi = np.finfo(dt)
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)
    edge = [1.0, 1 + float(fi.eps), float(fi.max), float(fi.smallest_subnormal), float(fi.tiny), 3.0, -3.0,
            2.0 ** -30, 0.1, float(fi.max) / 3]
    return np.concatenate([x, edge]).astype(dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["fp32", "fp64"])
@pytest.mark.parametrize("mode", ["rn", "rz", "rd", "ru"])
def test_rounded_arithmetic_is_exact_in_every_mode(dt, mode):
    a = _operands(dt)
    b = np.random.default_rng(5).permutation(a)
    c = np.random.default_rng(6).permutation(a)
    ops = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
           "div": lambda x, y: x / y}
    for op, f in ops.items():
        got = call(f"{op}_{mode}", a, b)
        want = [_round_exact(f(Fraction(float(x)), Fraction(float(y))), dt, mode) for x, y in zip(a, b)]
        np.testing.assert_array_equal(got, np.array(want, dt), err_msg=f"{op}_{mode}")
    got = call(f"fma_{mode}", a, b, c)
    want = [_round_exact(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)), dt, mode) for x, y, z in zip(a, b, c)]
    np.testing.assert_array_equal(got, np.array(want, dt), err_msg=f"fma_{mode}")
    pos = np.abs(a)
    got = call(f"rcp_{mode}", a)
    np.testing.assert_array_equal(got, np.array([_round_exact(1 / Fraction(float(x)), dt, mode) for x in a], dt))
    got = call(f"sqrt_{mode}", pos)  # √x is exact to compare: r ≤ √x ⇔ r² ≤ x
    want = []
    for x in pos:
        r = dt(np.sqrt(np.float64(x)) if dt == np.float32 else np.sqrt(x))
        lo = r if Fraction(float(r)) ** 2 <= Fraction(float(x)) else np.nextafter(r, dt(-np.inf))
        while Fraction(float(np.nextafter(lo, dt(np.inf)))) ** 2 <= Fraction(float(x)):
            lo = np.nextafter(lo, dt(np.inf))
        hi = lo if Fraction(float(lo)) ** 2 == Fraction(float(x)) else np.nextafter(lo, dt(np.inf))
        mid2 = ((Fraction(float(lo)) + Fraction(float(hi))) / 2) ** 2
        want.append({"rd": lo, "rz": lo, "ru": hi, "rn": lo if Fraction(float(x)) < mid2 else hi}[mode])
    np.testing.assert_array_equal(got, np.array(want, dt), err_msg=f"sqrt_{mode}")


def test_rounding_edge_values():
    f = np.float32
    one, tiny = f(1), f(2.0**-30)
    # 1 + 2^-30 lies between 1 and 1 + 2^-23: rn, rz, rd give 1, ru the next float
    assert [call(f"add_{m}", [one], [tiny])[0] for m in ("rn", "rz", "rd", "ru")] == [1, 1, 1, np.nextafter(one, f(2))]
    # an exact zero sum is +0, except in rd: -0 (IEEE 754 §6.3); two -0 stay -0
    z = [call(f"add_{m}", [f(1)], [f(-1)])[0] for m in ("rn", "rz", "rd", "ru")]
    assert [bool(np.signbit(v)) for v in z] == [False, False, True, False]
    assert np.signbit(call("add_rn", [f(-0.0)], [f(-0.0)])[0])
    assert np.signbit(call("fma_rd", [f(1)], [f(-1)], [f(1)])[0]) and not np.signbit(call("fma_rn", [f(1)], [f(-1)], [f(1)])[0])
    # overflow: rn and ru go to +inf, rz and rd stop at the largest float
    big = f(np.finfo(f).max)
    assert [call(f"mul_{m}", [big], [f(2)])[0] for m in ("rn", "rz", "rd", "ru")] == [np.inf, big, big, np.inf]
    # fma rounds once: (1 + 2^-12)² - 1 = 2^-11 + 2^-24, which fp32 holds; unfused it would lose 2^-24
    e = f(1 + 2.0**-12)
    assert call("fma_rn", [e], [e], [f(-1)])[0] == 2.0**-11 + 2.0**-24
    # the fp64 fma the same way: (1 + 2^-30)² - 1 = 2^-29 + 2^-60
    e = np.float64(1 + 2.0**-30)
    assert call("fma", [e], [e], [-1.0])[0] == 2.0**-29 + 2.0**-60
    # inf and NaN pass through; a finite product plus -inf is -inf even when the product overflows
    assert call("fma_rn", [f(3e38)], [f(3e38)], [f(-np.inf)])[0] == -np.inf
    assert np.isnan(call("fma_rn", [f(np.inf)], [f(0)], [f(1)])[0])
    assert np.isnan(call("div_rz", [f(0)], [f(0)])[0]) and call("div_ru", [f(1)], [f(0)])[0] == np.inf
    assert np.signbit(call("sqrt_rn", [f(-0.0)])[0]) and np.isnan(call("sqrt_ru", [f(-1)])[0])
    # subnormals are kept (no flush to zero): 2^-149 / 2 is exactly between 0 and 2^-149
    s = f(np.finfo(f).smallest_subnormal)
    assert [call(f"div_{m}", [s], [f(2)])[0] for m in ("rn", "rz", "rd", "ru")] == [0, 0, 0, s]


def test_conversions_exact_in_every_mode():
    rng = np.random.default_rng(11)
    d = np.concatenate([rng.standard_normal(60) * 10.0 ** rng.integers(-40, 40, 60), [1 + 2.0**-40, -1 - 2.0**-40,
                        3.4028235677973366e38, 1e300, -1e300, 2.0**-149 / 3, 0.5, 1.5, 2.5, -2.5]])
    for m in ("rn", "rz", "rd", "ru"):
        np.testing.assert_array_equal(call(f"double2float_{m}", d),
                                      np.array([_round_exact(Fraction(float(v)), np.float32, m) for v in d], np.float32))
    ints = np.array([2**31 - 1, -2**31, 16777217, -16777217, 123456789, 3, 0], np.int32)
    ll = np.array([2**63 - 1, -2**63, 2**53 + 1, -(2**53 + 1), 2**62 + 2**38 + 1, 7], np.int64)
    ull = np.array([2**64 - 1, 2**63 + 1, 2**53 + 1, 9], np.uint64)
    for m in ("rn", "rz", "rd", "ru"):
        for name, src, dt in (("int2float", ints, np.float32), ("ll2float", ll, np.float32), ("ull2float", ull, np.float32),
                              ("ll2double", ll, np.float64), ("ull2double", ull, np.float64)):
            want = np.array([_round_exact(Fraction(int(v)), dt, m) for v in src], dt)
            np.testing.assert_array_equal(call(f"{name}_{m}", src), want, err_msg=f"{name}_{m}")
    # float → int: the mode's rounding, saturating out of range, NaN → 0 (PTX cvt); unsigned typed as Triton types it
    x = np.array([2.5, -2.5, 1e10, -1e10, np.nan, 3.7, -3.7, np.inf], np.float64)
    assert call("double2int_rn", x).tolist() == [2, -2, 2**31 - 1, -2**31, 0, 4, -4, 2**31 - 1]
    assert call("double2int_rz", x).tolist() == [2, -2, 2**31 - 1, -2**31, 0, 3, -3, 2**31 - 1]
    assert call("double2int_rd", x).tolist()[:2] == [2, -3] and call("double2int_ru", x).tolist()[:2] == [3, -2]
    u = call("double2uint_rn", np.array([3e9, -5.0]))
    assert u.dtype == np.int32 and u.view(np.uint32).tolist() == [3000000000, 0]
    assert call("float2ll_rd", np.float32([-1.5, 1e30])).tolist() == [-2, 2**63 - 1]
    assert call("double2ull_ru", np.array([1.2e19])).view(np.uint64).tolist() == [12000000000000000000]
    assert call("llround", np.array([2.5, -2.5, 0.49999999999999994])).tolist() == [3, -3, 0]  # halves away from 0
    assert call("llrint", np.float32([2.5, 3.5])).tolist() == [2, 4]  # halves to even
    assert call("int2double_rn", np.int32([-2**31])).tolist() == [-2147483648.0]
    assert call("uint2double_rn", np.uint32([2**32 - 1])).tolist() == [4294967295.0]


def test_bit_casts_and_halves():
    assert call("float_as_int", np.float32([1.0, -0.0])).tolist() == [0x3F800000, -2**31]
    assert call("int_as_float", np.int32([0x40490FDB]))[0] == np.float32(np.pi)  # 0x40490fdb is π in fp32
    assert call("uint_as_float", np.uint32([0x7F800000]))[0] == np.inf
    assert call("float_as_uint", np.float32([-1.0])).view(np.uint32).tolist() == [0xBF800000]
    assert call("double_as_longlong", np.array([1.0])).tolist() == [0x3FF0000000000000]
    assert call("longlong_as_double", np.int64([0x4000000000000000])).tolist() == [2.0]
    x = np.array([np.pi, -1e-300, np.inf])
    hi, lo = call("double2hiint", x), call("double2loint", x)
    assert hi[0] == 0x400921FB and lo[0] == 0x54442D18  # π = 0x400921fb54442d18
    np.testing.assert_array_equal(call("hiloint2double", hi, lo), x)


# --- the integer intrinsics: exact ----------------------------------------------------------------------
def test_integer_intrinsics_against_python_integers():
    rng = np.random.default_rng(2)
    a = np.concatenate([rng.integers(-2**31, 2**31, 60), [0, -1, 1, -2**31, 2**31 - 1]]).astype(np.int32)
    b = np.concatenate([rng.integers(-2**31, 2**31, 60), [0, -1, 2**31 - 1, -2**31, 2]]).astype(np.int32)
    la = np.concatenate([rng.integers(-2**63, 2**63, 60, dtype=np.int64), [0, -1, 1, -2**63, 2**63 - 1]])
    lb = np.concatenate([rng.integers(-2**63, 2**63, 60, dtype=np.int64), [0, -1, 2**63 - 1, -2**63, 2]])
    u32 = lambda v: int(v) & 0xFFFFFFFF  # noqa: E731
    u64 = lambda v: int(v) & 0xFFFFFFFFFFFFFFFF  # noqa: E731
    s32 = lambda v: (int(v) & 0xFFFFFFFF) - ((int(v) & 0x80000000) << 1)  # noqa: E731
    assert call("clz", a).tolist() == [32 - u32(v).bit_length() for v in a]
    assert call("clz", la).tolist() == [64 - u64(v).bit_length() for v in la]
    assert call("popc", a).tolist() == [bin(u32(v)).count("1") for v in a]
    assert call("popc", la).tolist() == [bin(u64(v)).count("1") for v in la]
    assert call("ffs", a).tolist() == [(u32(v) & -u32(v)).bit_length() for v in a]
    assert call("ffs", la).tolist() == [(u64(v) & -u64(v)).bit_length() for v in la]
    assert call("brev", a).tolist() == [s32(int(f"{u32(v):032b}"[::-1], 2)) for v in a]
    assert call("brev", la).view(np.uint64).tolist() == [int(f"{u64(v):064b}"[::-1], 2) for v in la]
    assert call("mulhi", a, b).tolist() == [(int(x) * int(y)) >> 32 for x, y in zip(a, b)]
    ua, ub = a.view(np.uint32), b.view(np.uint32)
    assert call("mulhi", ua, ub).tolist() == [(int(x) * int(y)) >> 32 for x, y in zip(ua, ub)]
    assert call("mulhi", la, lb).tolist() == [(int(x) * int(y)) >> 64 for x, y in zip(la, lb)]
    ula, ulb = la.view(np.uint64), lb.view(np.uint64)
    assert call("mulhi", ula, ulb).tolist() == [(int(x) * int(y)) >> 64 for x, y in zip(ula, ulb)]
    sx24 = lambda v: (int(v) & 0xFFFFFF) - ((int(v) & 0x800000) << 1)  # noqa: E731
    assert call("mul24", a, b).tolist() == [s32(sx24(x) * sx24(y)) for x, y in zip(a, b)]
    assert call("mul24", ua, ub).tolist() == [((int(x) & 0xFFFFFF) * (int(y) & 0xFFFFFF)) & 0xFFFFFFFF for x, y in zip(ua, ub)]
    assert call("hadd", a, b).tolist() == [(int(x) + int(y)) >> 1 for x, y in zip(a, b)]
    assert call("rhadd", a, b).tolist() == [(int(x) + int(y) + 1) >> 1 for x, y in zip(a, b)]
    assert call("hadd", ua, ub).tolist() == [(int(x) + int(y)) >> 1 for x, y in zip(ua, ub)]
    z = b.view(np.uint32)
    assert call("sad", a, b, z).tolist() == [s32(abs(int(x) - int(y)) + int(w)) for x, y, w in zip(a, b, z)]
    assert call("sad", ua, ub, z).tolist() == [(abs(int(x) - int(y)) + int(w)) & 0xFFFFFFFF for x, y, w in zip(ua, ub, z)]
    assert call("abs", np.int32([-5, -2**31])).tolist() == [5, -2**31]  # abs(INT_MIN) wraps, as on the GPU
    # __byte_perm(0x33221100, 0x77665544, s): nibble n of s picks the result's byte n among bytes 0..7
    x, y = np.int32([0x33221100]), np.int32([0x77665544])
    assert [hex(int(call("byte_perm", x, y, np.int32([s]))[0])) for s in (0x3210, 0x7654, 0x0123, 0x4444)] == \
        ["0x33221100", "0x77665544", "0x112233", "0x44444444"]


# --- edge values ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["fp32", "fp64"])
def test_special_values_as_cuda_documents(dt):
    inf, nan, z = dt(np.inf), dt(np.nan), dt(-0.0)

    def one(name, *v):
        return call(name, *(np.array([x], dt) for x in v))[0]

    assert one("tanh", inf) == 1 and one("tanh", -inf) == -1 and np.signbit(one("tanh", z))
    assert one("exp", -inf) == 0 and one("exp", inf) == inf and one("expm1", -inf) == -1
    assert one("log", dt(0)) == -inf and np.isnan(one("log", dt(-1))) and one("log1p", dt(-1)) == -inf
    assert np.signbit(one("erf", z)) and one("erf", inf) == 1 and one("erfc", -inf) == 2
    assert one("erfinv", dt(1)) == inf and one("erfinv", dt(-1)) == -inf and np.isnan(one("erfinv", dt(1.5)))
    assert one("erfcinv", dt(0)) == inf and one("erfcinv", dt(2)) == -inf
    assert one("normcdfinv", dt(0)) == -inf and one("normcdfinv", dt(1)) == inf and one("normcdf", -inf) == 0
    assert one("erfcx", inf) == 0 and one("erfcx", dt(0)) == 1
    assert one("tgamma", z) == -inf and one("tgamma", dt(0)) == inf and np.isnan(one("tgamma", dt(-3)))
    assert one("lgamma", dt(0)) == inf and one("lgamma", dt(-3)) == inf and one("lgamma", -inf) == inf
    assert one("tgamma", dt(1)) == 1 and one("lgamma", dt(2)) == 0
    assert one("sinpi", dt(1)) == 0 and one("cospi", dt(0.5)) == 0 and np.isnan(one("sinpi", inf))
    assert np.signbit(one("sinpi", z)) and one("sinpi", dt(0.5)) == 1 and one("cospi", dt(1)) == -1
    assert one("cyl_bessel_i0", inf) == inf and one("cyl_bessel_i0", dt(0)) == 1
    assert one("hypot", inf, nan) == inf and one("norm3d", nan, -inf, dt(1)) == inf and one("rnorm4d", inf, dt(0), dt(0), dt(0)) == 0
    assert one("rsqrt", dt(0)) == inf and one("rsqrt", inf) == 0 and np.isnan(one("rsqrt", dt(-1)))
    assert one("cbrt", dt(-27)) == -3 and one("rcbrt", dt(-8)) == -0.5
    assert one("pow", dt(-8), dt(1 / 3)) != one("pow", dt(-8), dt(1 / 3))  # NaN: a negative base, non-integer power
    assert one("pow", nan, dt(0)) == 1 and one("pow", dt(1), nan) == 1 and one("pow", -inf, dt(-3)) == 0
    assert np.signbit(one("pow", -inf, dt(-3)))
    assert one("fmod", dt(5.5), dt(2)) == 1.5 and np.signbit(one("fmod", dt(-4), dt(2)))
    assert one("remainder", dt(5.5), dt(2)) == -0.5 and np.isnan(one("remainder", dt(1), dt(0)))
    assert one("remainder", dt(3), inf) == 3 and np.isnan(one("remainder", inf, dt(2)))
    assert one("round", dt(2.5)) == 3 and one("round", dt(-2.5)) == -3 and one("rint", dt(2.5)) == 2
    assert one("round", dt(0.49999997)) == 0 and np.signbit(one("round", dt(-0.3)))
    assert one("nearbyint", dt(-1.5)) == -2 and one("trunc", dt(-1.7)) == -1 and np.signbit(one("ceil", dt(-0.5)))
    assert one("fdim", dt(2), dt(0.5)) == 1.5
    assert one("fdim", dt(1), dt(3)) == 0 and np.isnan(one("fdim", nan, dt(1)))
    assert one("copysign", dt(3), z) == -3 and one("nextafter", dt(0), dt(1)) == np.finfo(dt).smallest_subnormal
    sub = np.finfo(dt).smallest_subnormal
    assert call("ldexp", np.array([sub * 3], dt), np.int32([-1]))[0] == sub * 2  # 1.5·2^-149 rounds to even
    assert call("ilogb", np.array([0, np.nan, np.inf, sub, 1, 1000], dt)).tolist() == \
        [-2**31, -2**31, 2**31 - 1, np.frexp(sub)[1] - 1, 0, 9]
    assert call("logb", np.array([0, np.inf, 8, sub], dt)).tolist() == [-np.inf, np.inf, 3, np.frexp(sub)[1] - 1]
    assert call("isnan", np.array([nan, inf, 1], dt)).tolist() == [1, 0, 0]
    assert call("isinf", np.array([nan, -inf, 1], dt)).tolist() == [0, 1, 0]
    assert call("signbit", np.array([z, 1, -inf], dt)).tolist() == [1, 0, 1]
    fin = "finitef" if dt == np.float32 else "isfinited"
    assert call(fin, np.array([nan, inf, sub], dt)).tolist() == [0, 0, 1]
    assert call("abs", np.array([z], dt))[0] == 0 and not np.signbit(call("abs", np.array([z], dt))[0])


def test_fast_intrinsics_and_saturate():
    f = np.float32
    assert call("saturatef", f([-1, 0.25, 7, np.nan, -0.0])).tolist() == [0, 0.25, 1, 0, 0]
    # __fdividef: for 2^126 < |y| < 2^128 it returns 0 (NaN when x is infinite), as CUDA documents
    assert call("fast_dividef", f([1, np.inf, 6]), f([2.0**127, 2.0**127, 3])).tolist()[::2] == [0, 2]
    assert np.isnan(call("fast_dividef", f([np.inf]), f([2.0**127]))[0])


# --- in kernels: both front ends, FLOPs, PDL -----------------------------------------------------------
@triton.jit
def _gelu_tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    from kernellab.triton.language.extra.cuda import libdevice  # as a library writes it, prefixed

    tl.extra.cuda.gdc_wait()
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    inner = libdevice.fma_rn(x * x * x, 0.044715, x) * 0.7978845608028654
    y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(out_ptr + offs, y, mask=mask)
    tl.extra.cuda.gdc_launch_dependents()


def _gelu_seed(tl, x, out, n, BLOCK):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    safe = np.minimum(offs, n - 1)
    v = tl.load(x, safe, mask=offs < n)
    libdevice = tl.extra.cuda.libdevice  # the seed language carries tl.extra too
    inner = libdevice.fma_rn(v * v * v, np.float32(0.044715), v) * np.float32(0.7978845608028654)
    tl.store(out, safe, np.float32(0.5) * v * (np.float32(1) + libdevice.tanh(inner)), mask=offs < n)


def _gelu_ref(x):
    d = x.astype(np.float64)
    return 0.5 * d * (1 + np.tanh(0.7978845608028654 * (d + 0.044715 * d ** 3)))


@pytest.mark.parametrize("vectorize", MODES)
@pytest.mark.parametrize("n", [1, 127, 128, 129, 1000])
def test_libdevice_in_both_front_ends(n, vectorize):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32) * 3
    out_jit, out_seed = np.zeros(n, np.float32), np.zeros(n, np.float32)
    cnt = _gelu_tanh_kernel[(triton.cdiv(n, 128),)](x, out_jit, n, BLOCK=128, vectorize=vectorize)
    triton_launch(_gelu_seed, triton.cdiv(n, 128), x, out_seed, n, BLOCK=128, vectorize=vectorize)
    np.testing.assert_allclose(out_jit, _gelu_ref(x), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(out_jit, out_seed)  # the same numbers through either front end
    # FLOPs per element: x·x·x 2, fma_rn 2, ·0.797 1, 0.5·x 1, ·(…) 1, 1 + tanh 1; tanh 0 (SFU) → 8,
    # counted for every lane of every program's 128-lane block (masked lanes compute too)
    assert cnt.flops == 8 * 128 * triton.cdiv(n, 128)


def test_flops_per_function_match_tl_arithmetic():
    @triton.jit
    def k(x_ptr, out_ptr, which: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, 16))
        if which == 0:
            y = LD.add_rz(x, x)  # 1 FLOP per element, as x + x
        elif which == 1:
            y = LD.fma(x, x, x)  # 2, as tl.fma
        elif which == 2:
            y = LD.div_ru(x, x) + LD.rcp_rn(x)  # 1 + 1, and the + 1
        else:
            y = LD.exp(LD.sqrt(x)) + LD.erf(x)  # special functions 0, the + 1
        tl.store(out_ptr + tl.arange(0, 16), y)

    x, out = np.linspace(1, 2, 16, dtype=np.float32), np.zeros(16, np.float32)
    assert [k[(1,)](x, out, which=w).flops for w in range(4)] == [16, 32, 48, 16]


def test_fp64_over_fp64s_own_range():
    # the fp32 domains above, widened to where fp64 overflows or underflows
    mp = pytest.importorskip("mpmath", reason="mpmath is the fp64 oracle (in the test dependency group)")
    mp.mp.prec = 160
    r = np.random.default_rng(17)
    u = lambda lo, hi: r.uniform(lo, hi, 60)  # noqa: E731
    cases = {
        "exp": (u(-745, 709.7), mp.exp), "exp2": (u(-1074, 1023.9), lambda x: mp.power(2, x)),
        "expm1": (u(-40, 709.7), mp.expm1), "log": (10.0 ** u(-323, 308), mp.log),
        "log1p": (10.0 ** u(-300, 300), mp.log1p), "sinh": (u(-710, 710), mp.sinh), "cosh": (u(-710, 710), mp.cosh),
        "tanh": (u(-30, 30), mp.tanh), "cbrt": (10.0 ** u(-320, 308), mp.cbrt), "erfc": (u(-6, 27.2), mp.erfc),
        "tgamma": (u(0.001, 171.6), mp.gamma), "lgamma": (10.0 ** u(0, 305), mp.loggamma),
        "rsqrt": (10.0 ** u(-323, 308), lambda x: 1 / mp.sqrt(x)), "asinh": (10.0 ** u(-300, 300), mp.asinh),
        "sin": (10.0 ** u(-300, 300), mp.sin), "atan": (10.0 ** u(-300, 300), mp.atan),
    }
    for name, (x, ref) in cases.items():
        want = np.array([float(ref(mp.mpf(float(v)))) for v in x])
        ok = np.isfinite(want) & (want != 0)
        err = ulps(call(name, x)[ok], want[ok], np.float64)
        assert err.max() <= ULP[name][1], (name, err.max(), x[ok][err.argmax()])


def _seed_mixed(tl, x, out, n, BLOCK):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    safe = np.minimum(offs, n - 1)
    v = tl.load(x, safe, mask=offs < n)
    row = tl.load(x, np.zeros(1, np.int32) + tl.program_id(0))  # one value per program, [1]
    libdevice = tl.extra.cuda.libdevice
    bits = libdevice.float_as_int(v)  # int32 block
    y = libdevice.pow(libdevice.fdim(v, row), np.float32(2)) + libdevice.int_as_float(bits & 0x7FFFFFFF)
    tl.store(out, safe, y + libdevice.popc(bits).astype(np.float32), mask=offs < n)


def test_seed_batches_of_programs_equal_one_by_one(monkeypatch):
    # vectorised, each libdevice call runs once for the whole batch (per-program values with a leading
    # program axis); one by one, once a program: the same numbers either way
    calls = []
    compute = LD._compute
    monkeypatch.setattr(LD, "_compute", lambda *a, **k: calls.append(a[0]) or compute(*a, **k))
    x = np.random.default_rng(4).standard_normal(300).astype(np.float32)
    outs, counts = [], []
    for vectorize in (True, False):
        out = np.zeros(300, np.float32)
        calls.clear()
        triton_launch(_seed_mixed, 5, x, out, 300, BLOCK=64, vectorize=vectorize)
        outs.append(out)
        counts.append(len(calls))
    np.testing.assert_array_equal(outs[0], outs[1])
    assert counts == [5, 25]  # 5 libdevice calls in the kernel: once for the batch, or once in each of 5 programs
    d = x.astype(np.float64)
    row = np.repeat(d[:5], 64)[:300]
    want = np.maximum(d - row, 0) ** 2 + np.abs(d) + np.array([bin(int(b) & 0xFFFFFFFF).count("1") for b in x.view(np.int32)])
    np.testing.assert_allclose(outs[0], want, rtol=1e-6)


def test_cuda_utils_num_warps_and_threads_follow_the_launch():
    @triton.jit
    def k(out_ptr):
        tl.store(out_ptr + tl.arange(0, 2), tl.join(tl.extra.cuda.num_warps(), tl.extra.cuda.num_threads()))

    for warps in (1, 4, 8):
        out = np.zeros(2, np.int32)
        k[(1,)](out, num_warps=warps)
        assert out.tolist() == [warps, 32 * warps]  # 32 threads a warp
    with pytest.raises(NotImplementedError, match=r"tl\.extra\.cuda\.smid is not supported by kernellab: kernellab does not place"):
        tl.extra.cuda.smid()
