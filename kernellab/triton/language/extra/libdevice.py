"""``tl.extra.libdevice``: the functions of CUDA's libdevice, as Triton 3.9 exposes them, computed with numpy.

``from triton.language.extra import libdevice``, ``triton.language.extra.libdevice``,
``triton.language.extra.cuda.libdevice`` and ``triton.language.math`` (the pre-3.0 path) all reach
these functions (with kernellab's prefix). Each accepts the argument types Triton's dispatch table
gives it (``SIGNATURES``) and returns the type it says: fp32 in, fp32 out; fp64 in, fp64 out;
the integer variants where libdevice has them (``float_as_uint`` is typed int32, as in Triton).
Python numbers are fp32 or int32, as ``tl.to_tensor`` makes them; any other type raises TypeError
(Triton's dispatch refuses it too: convert fp16 with ``.to(tl.float32)``).

How they compute:

- correctly rounded operations (``add_rn``…``fma_ru``, ``div_*``, ``rcp_*``, ``sqrt_*``, conversions
  in the four modes) are exact: :mod:`kernellab.triton.language.extra.rounding`;
- the integer intrinsics (``clz``, ``popc``, ``brev``, ``byte_perm``, ``mulhi``, ``mul24``, ``sad``, …)
  are exact: :mod:`kernellab.triton.language.extra.bits`;
- fp32 functions compute in fp64 and round once; fp64 functions compute in numpy's longdouble and
  round once (``erf``, ``erfc``, ``lgamma``, ``tgamma`` use Python's ``math`` in fp64), so results
  are within CUDA's documented ulp bounds and usually closer than the GPU's. The ``fast_*`` intrinsics
  (``__expf``…) are computed as accurately; a GPU's differ in the last bits.

Not computed (they raise NotImplementedError saying why): the Bessel functions ``j0``, ``j1``,
``jn``, ``y0``, ``y1``, ``yn`` and ``cyl_bessel_i1`` (numpy has none of them), and ``rcp64h``
(an undocumented hardware approximation). ``UNSUPPORTED`` lists them.

FLOPs count as for ``tl``'s own operations: ``add_*``, ``sub_*``, ``mul_*``, ``div_*``, ``rcp_*``
and ``fast_dividef`` 1 per element, ``fma`` and ``fma_*`` 2, every other function 0 (special
functions run on the SFU, or are not floating-point arithmetic).

On numpy arrays (the lecture form's ``kernel(tl, ...)`` computes on them, and its ``tl.extra`` is this
package), the functions return numpy arrays, dispatched on the arrays' dtypes; a batch of lecture-form
programs computes once for all of them (:mod:`kernellab.triton.executor.perprogram`).

Examples
--------
>>> x = np.float32([0.5, -0.0, np.inf])
>>> tanh(x).tolist(), tanh(x).dtype              # fp32 in, fp32 out
([0.46211716532707214, -0.0, 1.0], dtype('float32'))
>>> float_as_int(np.float32([1.0])).tolist(), clz(np.int32([1])).tolist()   # 1.0f is 0x3f800000
([1065353216], [31])
"""

from __future__ import annotations

import re

import numpy as np

from kernellab.i18n import _

from ...executor import dtypes as T
from ...executor import kinds
from ...executor.perprogram import NotBatchable, PerProgram
from ...executor.tensor import _align, broadcast_shape, count_flops, tensor
from ...executor.view import spread
from ..core import _to_tensor
from . import bits, rounding, specfun

_LETTERS = {"f": T.float32, "d": T.float64, "i": T.int32, "u": T.uint32, "l": T.int64, "L": T.uint64}

# Triton 3.9's libdevice (third_party/nvidia/language/cuda/libdevice.py): name, then each accepted
# signature as argument letters > result letter (f fp32, d fp64, i int32, u uint32, l int64, L uint64)
_TABLE = """
clz i>i l>i | popc i>i l>i | byte_perm iii>i | mulhi ii>i uu>u ll>l LL>L | mul24 ii>i uu>u | brev i>i l>l
sad iiu>i uuu>u | abs i>i l>l f>f d>d | floor f>f d>d | rcp64h d>d | rsqrt f>f d>d | ceil d>d f>f
trunc d>d f>f | exp2 f>f d>d | saturatef f>f | fma_rn fff>f ddd>d | fma_rz fff>f ddd>d | fma_rd fff>f ddd>d
fma_ru fff>f ddd>d | fast_dividef ff>f | div_rn ff>f dd>d | div_rz ff>f dd>d | div_rd ff>f dd>d
div_ru ff>f dd>d | rcp_rn f>f d>d | rcp_rz f>f d>d | rcp_rd f>f d>d | rcp_ru f>f d>d | sqrt_rn f>f d>d
sqrt_rz f>f d>d | sqrt_rd f>f d>d | sqrt_ru f>f d>d | sqrt f>f d>d | add_rn dd>d ff>f | add_rz dd>d ff>f
add_rd dd>d ff>f | add_ru dd>d ff>f | mul_rn dd>d ff>f | mul_rz dd>d ff>f | mul_rd dd>d ff>f
mul_ru dd>d ff>f | double2float_rn d>f | double2float_rz d>f | double2float_rd d>f | double2float_ru d>f
double2int_rn d>i | double2int_rz d>i | double2int_rd d>i | double2int_ru d>i | double2uint_rn d>i
double2uint_rz d>i | double2uint_rd d>i | double2uint_ru d>i | int2double_rn i>d | uint2double_rn u>d
float2int_rn f>i | float2int_rz f>i | float2int_rd f>i | float2int_ru f>i | float2uint_rn f>i
float2uint_rz f>i | float2uint_rd f>i | float2uint_ru f>i | int2float_rn i>f | int2float_rz i>f
int2float_rd i>f | int2float_ru i>f | uint2float_rn u>f | uint2float_rz u>f | uint2float_rd u>f
uint2float_ru u>f | hiloint2double ii>d | double2loint d>i | double2hiint d>i | float2ll_rn f>l
float2ll_rz f>l | float2ll_rd f>l | float2ll_ru f>l | float2ull_rn f>l | float2ull_rz f>l | float2ull_rd f>l
float2ull_ru f>l | double2ll_rn d>l | double2ll_rz d>l | double2ll_rd d>l | double2ll_ru d>l
double2ull_rn d>l | double2ull_rz d>l | double2ull_rd d>l | double2ull_ru d>l | ll2float_rn l>f
ll2float_rz l>f | ll2float_rd l>f | ll2float_ru l>f | ull2float_rn L>f | ull2float_rz L>f | ull2float_rd L>f
ull2float_ru L>f | ll2double_rn l>d | ll2double_rz l>d | ll2double_rd l>d | ll2double_ru l>d
ull2double_rn L>d | ull2double_rz L>d | ull2double_rd L>d | ull2double_ru L>d | int_as_float i>f
float_as_int f>i | uint_as_float u>f | float_as_uint f>i | longlong_as_double l>d | double_as_longlong d>l
fast_sinf f>f | fast_cosf f>f | fast_log2f f>f | fast_logf f>f | fast_expf f>f | fast_tanf f>f
fast_exp10f f>f | fast_log10f f>f | fast_powf ff>f | hadd ii>i uu>u | rhadd ii>i uu>u | sub_rn ff>f dd>d
sub_rz ff>f dd>d | sub_rd ff>f dd>d | sub_ru ff>f dd>d | rsqrt_rn f>f | ffs i>i l>i | rint f>f d>d
llrint f>l d>l | nearbyint f>f d>d | isnan f>i d>i | signbit f>i d>i | copysign ff>f dd>d | finitef f>i
isinf f>i d>i | nextafter ff>f dd>d | sin f>f d>d | cos f>f d>d | sinpi f>f d>d | cospi f>f d>d
tan f>f d>d | log2 f>f d>d | exp f>f d>d | exp10 f>f d>d | cosh f>f d>d | sinh f>f d>d | tanh f>f d>d
atan2 ff>f dd>d | atan f>f d>d | asin f>f d>d | acos f>f d>d | log f>f d>d | log10 f>f d>d | log1p f>f d>d
acosh f>f d>d | asinh f>f d>d | atanh f>f d>d | expm1 f>f d>d | hypot ff>f dd>d | rhypot ff>f dd>d
norm3d fff>f ddd>d | rnorm3d fff>f ddd>d | norm4d ffff>f dddd>d | rnorm4d ffff>f dddd>d | cbrt f>f d>d
rcbrt f>f d>d | j0 f>f d>d | j1 f>f d>d | y0 f>f d>d | y1 f>f d>d | yn if>f id>d | jn if>f id>d
cyl_bessel_i0 f>f d>d | cyl_bessel_i1 f>f d>d | erf f>f d>d | erfinv f>f d>d | erfc f>f d>d | erfcx f>f d>d
erfcinv f>f d>d | normcdfinv f>f d>d | normcdf f>f d>d | lgamma f>f d>d | ldexp fi>f di>d | scalbn fi>f di>d
fmod ff>f dd>d | remainder ff>f dd>d | fma fff>f ddd>d | pow fi>f di>d ff>f dd>d | tgamma f>f d>d
round f>f d>d | llround f>l d>l | fdim ff>f dd>d | ilogb f>i d>i | logb f>f d>d | isfinited d>i
"""


def _parse(text: str) -> dict:
    table = {}
    for item in text.replace("\n", " | ").split("|"):
        if item.strip():
            name, *sigs = item.split()
            table[name] = {tuple(_LETTERS[c].name for c in s.split(">")[0]): _LETTERS[s.split(">")[1]] for s in sigs}
    return table


SIGNATURES: dict = _parse(_TABLE)  #: Triton 3.9's table, for each name the result type of each tuple of argument type names


def _bessel():
    return _("numpy has no Bessel functions of the first and second kind (J0, J1, Jn, Y0, Y1, Yn), and kernellab computes with numpy only")


def _bessel_i1():
    return _("numpy has only the order-0 modified Bessel function (np.i0), not order 1")


def _rcp64h():
    return _("it is a hardware approximation of 1/x from the high 32 bits of x, and NVIDIA does not document its result bit for bit")


UNSUPPORTED = {"j0": _bessel, "j1": _bessel, "jn": _bessel, "y0": _bessel, "y1": _bessel, "yn": _bessel,
               "cyl_bessel_i1": _bessel_i1, "rcp64h": _rcp64h}  #: what raises NotImplementedError, and why

_LD_EXACT = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant  # x86-64: 63 > 52


def _precise(fn64, fn_ld=None):
    """``fn`` computed one precision up and rounded once: fp32 in fp64, fp64 in longdouble (``fn_ld``,
    else ``fn64`` itself when the function exists only in fp64)."""
    def impl(*args, out):
        if out == np.float32:
            return fn64(*(a.astype(np.float64) if a.dtype.kind == "f" else a for a in args))
        if fn_ld is not None and _LD_EXACT:
            return fn_ld(*(a.astype(np.longdouble) if a.dtype.kind == "f" else a for a in args))
        return fn64(*args)

    return impl


def _same(fn):
    """``fn`` of numpy ufuncs, evaluated one precision up (fp64 for fp32, longdouble for fp64)."""
    return _precise(fn, fn)


def _norm(*xs):
    s = sum(x * x for x in xs)  # no overflow one precision up: fp32² fits fp64, fp64² fits longdouble
    out = np.sqrt(s)
    return np.where(np.any([np.isinf(x) for x in xs], axis=0), np.inf, out)  # ∞ wins over NaN, as in C


def _mode(name: str) -> str:
    return name.rsplit("_", 1)[1]


def _plain(fn):
    return lambda *args, out: fn(*args)


def _as_int32(fn):
    return lambda x, out: fn(x).astype(np.int32)


def _in_mode(fn, mode: str):
    return lambda *args, out: fn(*args, mode)


def _build() -> dict:
    """name → ``impl(*arrays, out=result numpy type)``, for every computed libdevice function."""
    ld = {}
    for n, f in {"exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2,
                 "log10": np.log10, "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tan": np.tan,
                 "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asin": np.arcsin, "acos": np.arccos,
                 "atan": np.arctan, "atan2": np.arctan2, "asinh": np.arcsinh, "acosh": np.arccosh,
                 "atanh": np.arctanh, "cbrt": np.cbrt, "hypot": np.hypot}.items():
        ld[n] = _same(f)
    ld["exp10"] = _same(lambda x: np.power(x.dtype.type(10), x))
    ld["rcbrt"] = _same(lambda x: 1 / np.cbrt(x))
    ld["rhypot"] = _same(lambda x, y: 1 / np.hypot(x, y))
    ld["rsqrt"] = ld["rsqrt_rn"] = _same(lambda x: 1 / np.sqrt(x))
    ld["norm3d"] = ld["norm4d"] = _same(_norm)
    ld["rnorm3d"] = ld["rnorm4d"] = _same(lambda *xs: 1 / _norm(*xs))
    ld["pow"] = _same(lambda x, y: np.power(x, y.astype(x.dtype)))  # pown(x, n) is pow(x, (double) n)
    for fast, slow in (("sinf", "sin"), ("cosf", "cos"), ("tanf", "tan"), ("log2f", "log2"), ("logf", "log"),
                       ("log10f", "log10"), ("expf", "exp"), ("exp10f", "exp10"), ("powf", "pow")):
        ld["fast_" + fast] = ld[slow]
    for n, f in {"erf": specfun.erf, "erfc": specfun.erfc, "lgamma": specfun.lgamma, "tgamma": specfun.tgamma,
                 "erfinv": specfun.erfinv, "erfcinv": specfun.erfcinv, "erfcx": specfun.erfcx,
                 "normcdf": specfun.normcdf, "normcdfinv": specfun.normcdfinv, "sinpi": specfun.sinpi,
                 "cospi": specfun.cospi, "cyl_bessel_i0": specfun.i0}.items():
        ld[n] = _precise(f)
    ld["fmod"] = lambda x, y, out: np.fmod(x, y)  # exact
    ld["remainder"] = lambda x, y, out: specfun.remainder(x, y)  # exact, representable in x's type
    ld["fast_dividef"] = _fast_dividef
    ld["sqrt"] = lambda x, out: np.sqrt(x)  # correctly rounded (sqrtf with -prec-sqrt=true, Triton's default)
    for n, f in {"abs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
                 "nearbyint": np.rint}.items():
        ld[n] = _plain(f)
    ld["round"] = lambda x, out: rounding.round_away(x)
    ld["saturatef"] = lambda x, out: np.where(x > 0, np.minimum(x, x.dtype.type(1)), x.dtype.type(0))
    ld["copysign"] = lambda x, y, out: np.copysign(x, y)
    ld["nextafter"] = lambda x, y, out: np.nextafter(x, y)
    ld["fdim"] = lambda x, y, out: np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x > y, x - y, 0)).astype(x.dtype)
    ld["ldexp"] = ld["scalbn"] = lambda x, n, out: np.ldexp(x, n)
    ld["logb"] = _logb
    ld["ilogb"] = _ilogb
    for n, f in {"isnan": np.isnan, "isinf": np.isinf, "signbit": np.signbit, "finitef": np.isfinite,
                 "isfinited": np.isfinite}.items():
        ld[n] = _as_int32(f)
    for op in ("add", "sub", "mul", "div"):
        for m in rounding.MODES:
            ld[f"{op}_{m}"] = _in_mode(getattr(rounding, op), m)
    for m in rounding.MODES:
        ld["rcp_" + m], ld["sqrt_" + m], ld["fma_" + m] = (_in_mode(f, m) for f in (rounding.rcp, rounding.sqrt, rounding.fma))
    ld["fma"] = ld["fma_rn"]
    for name in SIGNATURES:  # conversions: <from>2<to>_<mode>
        if _CONVERSION.fullmatch(name):
            ld[name] = _conversion(name)
    ld["llrint"] = lambda x, out: rounding.to_int(x, np.int64, "rn")
    ld["llround"] = lambda x, out: rounding.to_int(x, np.int64, "away")
    for name in ("int_as_float", "float_as_int", "uint_as_float", "float_as_uint", "longlong_as_double",
                 "double_as_longlong"):
        ld[name] = lambda x, out: np.ascontiguousarray(x).view(out)  # the bits, retyped
    ld["hiloint2double"] = lambda hi, lo, out: (
        (hi.astype(np.int64) << 32) | (lo.astype(np.int64) & 0xFFFFFFFF)).view(np.float64)
    ld["double2loint"] = lambda x, out: (np.ascontiguousarray(x).view(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    ld["double2hiint"] = lambda x, out: (np.ascontiguousarray(x).view(np.int64) >> 32).astype(np.int32)
    for name in ("clz", "popc", "ffs", "brev", "byte_perm", "mulhi", "mul24", "sad"):
        ld[name] = _plain(getattr(bits, name))
    ld["hadd"] = lambda x, y, out: bits.hadd(x, y)
    ld["rhadd"] = lambda x, y, out: bits.hadd(x, y, rounded=True)
    return ld


def _fast_dividef(x, y, out):
    """``__fdividef``: ``x / y``, but 0 for 2^126 < |y| < 2^128 (NaN if ``x`` is infinite), as CUDA documents."""
    q = x / y
    big = (np.abs(y) > 2.0**126) & np.isfinite(y)
    return np.where(big, np.where(np.isinf(x), np.float32(np.nan), np.float32(0)), q)


def _logb(x, out):
    """The unbiased exponent of ``x`` as a float (-inf at 0, +inf at ±inf), exact."""
    e = (np.frexp(x)[1] - 1).astype(x.dtype)
    return np.where(x == 0, -np.inf, np.where(np.isinf(x), np.inf, np.where(np.isnan(x), np.nan, e))).astype(x.dtype)


def _ilogb(x, out):
    """The unbiased exponent of ``x`` as int32: INT_MIN at 0 and NaN, INT_MAX at ±inf (CUDA's ``ilogb``)."""
    e = (np.frexp(np.where(np.isfinite(x), x, 1))[1] - 1).astype(np.int32)
    lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    return np.where((x == 0) | np.isnan(x), lo, np.where(np.isinf(x), hi, e)).astype(np.int32)


_CONVERSION = re.compile(r"(double|float|u?int|u?ll)2(double|float|u?int|u?ll)_r[nzdu]")
_INT = {"int": np.int32, "uint": np.uint32, "ll": np.int64, "ull": np.uint64}
_FLOAT = {"float": np.float32, "double": np.float64}


def _conversion(name: str):
    """``<from>2<to>_<mode>``: float → int saturating (unsigned results typed as Triton types them),
    int or double → float rounded in the mode."""
    src, rest = name.split("2", 1)
    dst, mode = rest.rsplit("_", 1)
    if dst in _INT:
        wide = _INT[dst]
        return lambda x, out: rounding.to_int(x, wide, mode).view(out) if np.dtype(wide).itemsize == np.dtype(out).itemsize \
            else rounding.to_int(x, wide, mode).astype(out)
    return lambda x, out: rounding.to_float(x, _FLOAT[dst], mode)


_IMPL = _build()

_FLOPS = {**{f"{op}_{m}": 1 for op in ("add", "sub", "mul", "div", "rcp") for m in rounding.MODES},
          "fast_dividef": 1, "fma": 2, **{f"fma_{m}": 2 for m in rounding.MODES}}  # FLOPs per element


def _signature_error(name: str, got: tuple):
    accepted = ", ".join("(" + ", ".join(k) + ")" for k in SIGNATURES[name])
    return TypeError(_("libdevice.{name} has no variant for argument types ({got}); it accepts {accepted} "
                       "(convert with .to(tl.float32) or .to(tl.float64))").format(
        name=name, got=", ".join(got), accepted=accepted))


def _call(name: str, args: tuple):
    if len(args) != len(next(iter(SIGNATURES[name]))):
        raise TypeError(_("libdevice.{name} takes {n} arguments, got {got}").format(
            name=name, n=len(next(iter(SIGNATURES[name]))), got=len(args)))
    if any(isinstance(a, (np.ndarray, np.generic, PerProgram)) for a in args) and not any(isinstance(a, tensor) for a in args):
        return _call_numpy(name, args)
    ts = [_to_tensor(a) for a in args]
    key = tuple(t.dtype.name for t in ts)
    out_t = SIGNATURES[name].get(key)
    if out_t is None:
        raise _signature_error(name, key)
    shape = ()
    for t in ts:
        shape = broadcast_shape(shape, t._shape)
    nd = len(shape)
    data = [_align(t.data, t._shape, nd, False) for t in ts]
    res = _compute(name, data, out_t.np)
    rows = max(d.shape[0] for d in data)
    if name in _FLOPS:
        count_flops(shape, _FLOPS[name])
    return tensor(np.ascontiguousarray(spread(res, (rows, *shape))), out_t, shape)


def _call_numpy(name: str, args: tuple):
    """The lecture form: numpy arrays in, a numpy array out (Python numbers are fp32 or int32)."""
    per = [a for a in args if isinstance(a, PerProgram)]
    if any(a.weak for a in per):  # a Python number in each program: run them one by one
        raise NotBatchable(f"libdevice.{name} of Python numbers")
    arrs = [a.data if isinstance(a, PerProgram) else np.asarray(a) if isinstance(a, (np.ndarray, np.generic))
            else np.asarray(a, T.of_python(a).np) for a in args]
    key = tuple(T.from_numpy(a.dtype).name for a in arrs)
    out_t = SIGNATURES[name].get(key)
    if out_t is None:
        raise _signature_error(name, key)
    if not per:
        return _compute(name, np.broadcast_arrays(*arrs), out_t.np)
    # a batch of programs (kernellab.triton.executor.perprogram): a leading program axis on every operand, and
    # the blocks aligned on their last axes, so that each program computes what it would alone
    nd = max(a.data.ndim - 1 if isinstance(a, PerProgram) else np.ndim(a) for a in args)
    aligned = [d.reshape(d.shape[0], *(1,) * (nd - d.ndim + 1), *d.shape[1:]) if isinstance(a, PerProgram)
               else d.reshape(1, *(1,) * (nd - d.ndim), *d.shape) for a, d in zip(args, arrs)]
    return PerProgram(_compute(name, np.broadcast_arrays(*aligned), out_t.np), weak=False)


def _compute(name: str, arrays: list, out) -> np.ndarray:
    with np.errstate(all="ignore"):  # the GPU raises no floating-point exceptions
        res = np.asarray(_IMPL[name](*arrays, out=np.dtype(out).type))
    if res.dtype != out:
        res = res.view(out) if res.dtype.kind in "iu" and np.dtype(out).kind in "iu" and \
            res.dtype.itemsize == np.dtype(out).itemsize else res.astype(out)
    return res


def _function(name: str):
    sigs = SIGNATURES[name]
    types = "; ".join(f"({', '.join(k)}) → {v.name}" for k, v in sigs.items())
    if name in UNSUPPORTED:
        def fn(*args, _semantic=None):
            raise NotImplementedError(_("libdevice.{name} is not supported by kernellab: {why}").format(
                name=name, why=UNSUPPORTED[name]()))

        doc = f"Not computed: raises NotImplementedError ({UNSUPPORTED[name].__name__.strip('_')}). Types: {types}."
    else:
        def fn(*args, _semantic=None):
            return _call(name, args)

        doc = f"libdevice ``{name}``, elementwise. Types: {types}. FLOPs per element: {_FLOPS.get(name, 0)}."
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__module__ = __name__
    return kinds.pure(fn)


for _name in SIGNATURES:
    globals()[_name] = _function(_name)
del _name


def __getattr__(name: str):
    if name.startswith("_"):
        raise AttributeError(name)
    raise AttributeError(_("libdevice has no function {name} (Triton 3.9's libdevice has {n}; see "
                           "kernellab.triton.language.extra.libdevice.SIGNATURES)").format(name=name, n=len(SIGNATURES)))


__all__ = sorted(SIGNATURES)
