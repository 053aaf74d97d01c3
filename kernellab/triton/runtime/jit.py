"""``@triton.jit`` and ``kernel[grid](*args, **meta)`` for kernels in real Triton syntax.

At launch, array arguments (numpy arrays, or CPU torch tensors whenever torch is importable; torch is
never required) become :class:`~kernellab.triton.executor.tensor.pointer` blocks, Python and numpy
numbers become scalar tensors typed as Triton types them (int → int32, float → fp32), and parameters
annotated ``tl.constexpr`` receive their plain Python value. ``grid`` is a tuple (or int) or a
callable of the dict of arguments, as in Triton. Any other argument is a :class:`~kernellab.LaunchError`
that names it. Programs run vectorised when the kernel allows; a kernel that prints (``print``,
``tl.device_print``, in itself or in a ``@triton.jit`` function it calls) runs its programs one after
another, in launch order, so each program prints its own lines once, as Triton's interpreter does.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import types
from contextlib import nullcontext

import numpy as np

from ... import record
from ...errors import Float64Warning, LaunchError, ReplayError
from ...float64 import warn_float64
from ...grid import dim3
from ...i18n import _
from ...lines import LineFinder
from ...record import wants_lines
from ...tracebacks import user_traceback
from .. import launches
from ..compiler import limits, specialize
from ..executor import dtypes as T
from ..executor import loops, memory
from ..executor.addresses import register_array, storage_device
from ..executor.counts import TritonCounts
from ..executor.engine import run
from ..executor.program import _CURRENT
from ..executor.tensor import constexpr, pointer, tensor
from ..language.descriptors import make_tensor_descriptor, tensor_descriptor
from ..language.pybuiltins import in_kernel_environment
from ..replay import cache as replay
from ..replay import trace
from ..tools.tensor_descriptor import TensorDescriptor
from . import tuning
from .driver import gpu as modelled_gpu
from .errors import InterpreterError, OutOfResources  # noqa: F401  (triton.runtime.jit's names)

# accepted (num_warps sets the layouts of loads and stores), else no effect: how Triton compiles and launches (launch_pdl: programmatic dependent launch, whose
# gdc_wait / gdc_launch_dependents are no-ops here because launches run one after another, in order)
_LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "launch_pdl",
                   "launch_cooperative_grid", "extern_libs", "debug", "sanitize_overflow", "ir_override")


def _is_constexpr(annotation) -> bool:
    if annotation is constexpr:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr"


_TORCH_BITS = {"bfloat16": ("int16", T.bfloat16), "float8_e5m2": ("uint8", T.float8e5),
               "float8_e4m3fn": ("uint8", T.float8e4nv), "float8_e4m3fnuz": ("uint8", T.float8e4b8),
               "float8_e5m2fnuz": ("uint8", T.float8e5b16)}


@functools.cache
def _special_dtype(dt: np.dtype):
    """The Triton type of an ml_dtypes dtype (bfloat16, float8_*), else None (looked up once per dtype)."""
    return T._BY_NAME.get(dt.name)


def _as_array(v, name: str = "array"):
    """``(array, element type or None)`` of an array argument: a numpy array, or a CPU torch tensor
    (sharing its memory; bfloat16 and float8 tensors as their raw bits); ``(None, None)`` otherwise.

    A torch tensor that is not one dense block (a slice ``x[:, :n]``, a column ``x[..., -1]``, an expanded
    ``x.expand(n)``) is passed as a GPU launch passes it: a pointer to its first element, through which the
    kernel reaches the tensor's storage from there on (:func:`_storage_from`) with the strides it is given.
    A numpy array must be dense (:func:`kernellab.triton.executor.memory.flat_view` says how to make it so)."""
    if isinstance(v, np.ndarray):
        elem = _special_dtype(v.dtype)
        if elem is not None:  # an ml_dtypes array (bfloat16, float8_*): its bits
            return v.view(elem.storage), elem
        return v, None
    if type(v).__module__.startswith("torch") and hasattr(v, "data_ptr"):
        import torch  # importable: v is one of its tensors

        device = storage_device(v)
        if device != "cpu":
            raise LaunchError(_("argument {name} is a torch tensor on {device}: kernellab runs "
                                "on the CPU, pass it with device='cpu'").format(
                name=name, device=device))
        v = v.detach()
        tname = str(v.dtype).removeprefix("torch.")
        if tname in _TORCH_BITS:
            bits, elem = _TORCH_BITS[tname]
            v = v.view(getattr(torch, bits))
            arr = v.numpy()
            return (arr if memory.dense(arr) else _storage_from(v).numpy()).view(elem.storage), elem
        arr = v.numpy()
        return (arr if memory.dense(arr) else _storage_from(v).numpy()), None
    if hasattr(v, "__array__") and hasattr(v, "shape") and hasattr(v, "dtype") and not np.isscalar(v):
        return np.asarray(v), None
    return None, None


def _storage_from(v):
    """The elements of torch tensor ``v``'s storage from ``v``'s first element to the storage's end, as one dense
    1-D tensor sharing that memory: what a kernel given ``v``'s pointer may reach on a GPU (a slice's other
    columns, the one element an expanded tensor repeats)."""
    import torch  # importable: v is one of its tensors

    n = v.untyped_storage().nbytes() // v.element_size() - v.storage_offset()
    return torch.as_strided(v, (n,), (1,))


def _dtype_error(name: str, dt: np.dtype) -> LaunchError:
    """The LaunchError for an array argument whose dtype has no Triton type (complex, big-endian, …)."""
    if not dt.isnative and dt.newbyteorder("=") in T._BY_NUMPY:
        return LaunchError(_("argument {name} is a big-endian array ({dtype}): a GPU reads memory little-endian; "
                             "pass {name}.astype({native!r})").format(
            name=name, dtype=dt.str, native=dt.newbyteorder("=").str), argument=name, dtype=dt.str)
    return LaunchError(_("argument {name} is an array of {dtype}, which Triton has no type for: pass bool, "
                         "int8 to int64, uint8 to uint64, float16, float32 or float64 (bfloat16 and float8 as "
                         "ml_dtypes arrays or torch tensors)").format(name=name, dtype=dt), argument=name,
                       dtype=str(dt))


def _pointer(name: str, arr: np.ndarray, elem=None):
    """The pointer block of an array argument; LaunchError when its dtype has no Triton type."""
    try:
        return pointer(memory.flat_view(arr, name), np.zeros(1, np.int64), (), elem=elem)
    except TypeError:  # (dtypes.from_numpy: no Triton type)
        raise _dtype_error(name, arr.dtype) from None


def _argument(name: str, v):
    """What the kernel body sees for one argument."""
    if v.__class__ is np.ndarray and _special_dtype(v.dtype) is None:  # the usual case first
        out = _pointer(name, v)
        out._address = register_array(v)  # kernels may reach it by address later (tl.pointer_type casts)
        return out
    if isinstance(v, (tensor, type(None), str, T.dtype)):
        return v
    if isinstance(v, constexpr):
        return v.value
    if isinstance(v, (bool, int, float, np.generic)):
        dt = T.of_argument(v)
        with np.errstate(over="ignore"):  # a float beyond fp32's range arrives as ±inf, as the C float it is passed as
            return tensor(np.array([v], dt.np), dt, ())
    if isinstance(v, TensorDescriptor):  # a host-side descriptor: the kernel sees tl.make_tensor_descriptor's
        base = _argument(name, v.base)
        return make_tensor_descriptor(base, [int(d) for d in v.shape], [int(d) for d in v.strides],
                                      [int(d) for d in v.block_shape], v.padding, v.round_f32_to_tf32, _host=True)
    arr, elem = _as_array(v, name)
    if arr is not None:
        if arr is v:  # a numpy argument: kernels may reach it by address later (tl.pointer_type casts)
            address = register_array(v)
        else:
            address = memory.address(arr)
        out = _pointer(name, arr, elem)
        out._address = address  # the address of its data: the key naming the array (memory.address)
        return out
    if isinstance(v, tuple) or callable(v):  # tuples of arguments, functions passed to the kernel
        return v
    raise LaunchError(_("argument {name} is a {type}: pass a numpy array (or a CPU torch tensor) for a "
                        "pointer, a number for a scalar, or mark the parameter tl.constexpr").format(
        name=name, type=type(v).__name__), argument=name, type=type(v).__name__)


class KernelInterface:
    """What ``kernel[grid](*args, **meta)`` is defined on (Triton's ``KernelInterface``): ``JITFunction``,
    ``Autotuner`` and ``Heuristics`` derive from it, as a library's own wrapper may."""

    def warmup(self, *args, grid, **kwargs):
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    def run(self, *args, grid, warmup, **kwargs):
        raise NotImplementedError("run not implemented")

    def __getitem__(self, grid):
        """``kernel[grid]``: the launcher of ``run`` on that grid (no launcher frame in a kernel error's traceback)."""
        return functools.partial(self.run, grid=grid, warmup=False)

    def replay_reset(self) -> None:
        """Forget what replay recorded of the kernel this wraps (``@triton.autotune``, ``@triton.heuristics``):
        ``JITFunction.replay_reset``."""
        self.fn.replay_reset()


class KernelParam:
    """One parameter of a ``@triton.jit`` function, as Triton's ``JITFunction.params`` holds it."""

    def __init__(self, num: int, param: inspect.Parameter, do_not_specialize: bool,
                 do_not_specialize_on_alignment: bool):
        self.num = num
        self._param = param
        self.do_not_specialize = do_not_specialize
        self.do_not_specialize_on_alignment = do_not_specialize_on_alignment

    @property
    def name(self) -> str:
        return self._param.name

    @property
    def annotation(self) -> str:
        a = self._param.annotation
        if a is inspect.Parameter.empty:
            return ""
        return a if isinstance(a, str) else "constexpr" if a is constexpr else getattr(a, "__name__", str(a))

    @property
    def is_constexpr(self) -> bool:
        return _is_constexpr(self._param.annotation)

    @property
    def is_const(self) -> bool:
        return "const" in self.annotation and not self.is_constexpr

    @property
    def default(self):
        return self._param.default

    @property
    def has_default(self) -> bool:
        return self._param.default is not inspect.Parameter.empty


class JITFunction(KernelInterface):
    """A kernel decorated with ``@triton.jit``: launch it with ``kernel[grid](*args, **meta)``.

    Triton 3.9's constructor and public attributes (``fn``, ``signature``, ``arg_names``, ``params``,
    ``constexprs`` (the positions of the ``tl.constexpr`` parameters), ``do_not_specialize``, ``launch_metadata``,
    ``src``, ``cache_key``, ``pre_run_hooks``, …), so a library that reads or subclasses it works.

    Examples
    --------
    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.jit
    ... def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    ...     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ...     mask = offs < n
    ...     tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
    >>> x = np.arange(100, dtype=np.float32); out = np.empty_like(x)
    >>> cnt = add_kernel[(triton.cdiv(100, 64),)](x, x, out, 100, BLOCK=64)
    >>> bool((out == 2 * x).all()), cnt.programs, cnt.load_bytes, cnt.store_bytes  # 2·100·4, 100·4
    (True, 2, 800, 400)
    >>> cnt.flops, cnt.dram_bytes     # 2 programs × 64 adds (masked lanes compute too); x once, out: 2 × 13 sectors
    (128, 832)
    """

    def __init__(self, fn, version=None, do_not_specialize=None, do_not_specialize_on_alignment=None, debug=None,
                 noinline=None, repr=None, launch_metadata=None):
        self.fn = fn
        self._run_fn = in_kernel_environment(fn)  # min/max on blocks are tl.minimum/tl.maximum (pybuiltins)
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = self.module = getattr(fn, "__module__", None)
        self.__globals__ = getattr(fn, "__globals__", {})
        self.__wrapped__ = fn
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self.version, self.debug, self.noinline, self._repr = version, debug, noinline, repr
        self.launch_metadata = launch_metadata  # proton's names and metrics (launches.metadata)
        self.do_not_specialize = list(do_not_specialize or [])
        self.do_not_specialize_on_alignment = list(do_not_specialize_on_alignment or [])
        # parameters (names) the launch does not specialise (see kernellab.triton.compiler.specialize)
        self._fixed = _names(self.arg_names, self.do_not_specialize)
        self._unaligned = _names(self.arg_names, self.do_not_specialize_on_alignment)
        self.params = [KernelParam(i, p, p.name in self._fixed, p.name in self._unaligned)
                       for i, p in enumerate(self.signature.parameters.values())]
        self.constexprs = [p.num for p in self.params if p.is_constexpr]  # Triton's: positions
        self._constexpr_names = frozenset(p.name for p in self.params if p.is_constexpr)
        self.kernel = None
        self.pre_run_hooks: list = []
        self.hash = None
        params = self.signature.parameters.values()
        # plain parameters only: arguments bind by name and position without inspect (see _arguments)
        self._defaults = {p.name: p.default for p in params if p.default is not p.empty} \
            if all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params) else None
        # parameters whose default is a tl.constexpr object (Triton's ``tl.core.CONSTEXPR_0``): a call from
        # another kernel passes its value, as a launch passes every constexpr's
        self._constexpr_defaults = {p.name: p.default.value for p in params if isinstance(p.default, constexpr)}
        self._prints = None
        # launch options the kernel's own parameters do not shadow (dropped before binding), and the
        # keywords that need no dropping
        self._options_dropped = tuple(o for o in _LAUNCH_OPTIONS if o not in self.signature.parameters)
        self._options_free = "num_warps" not in self.signature.parameters
        self._plain_kwargs = frozenset(self.signature.parameters)
        self._hints: dict = {}  # what launches learnt about running it vectorised (see engine.run)
        self._trial_regs: dict = {}  # a warmup's registers per signature (see _registers)
        self.replay = False  # whether its launches may replay (``@triton.jit(replay=True)``)

    def __repr__(self) -> str:
        return f"JITFunction({self.module}:{self.__qualname__})"

    def repr(self, _):
        return f"{self.module}.{self.__qualname__}" if self._repr is None else self._repr(_)

    @property
    def src(self) -> str:
        """The kernel's source, from its ``def`` (as Triton's ``JITFunction.src``)."""
        return limits._source(self.fn.__code__)[0] or ""

    @property
    def starting_line_number(self) -> int:
        """The file's line the kernel's source starts on (its first decorator, as ``inspect`` reports it)."""
        return self.fn.__code__.co_firstlineno

    @property
    def file_name(self) -> str:
        return self.fn.__code__.co_filename

    @property
    def cache_key(self) -> str:
        """A hash of the kernel's source (Triton's key of its compiled-kernel cache)."""
        if self.hash is None:
            self.hash = hashlib.sha256((self.src + str(self.starting_line_number)).encode("utf-8")).hexdigest()
        return self.hash

    def replay_reset(self) -> None:
        """Forget every launch of this kernel that replay recorded (:mod:`kernellab.triton.replay.cache`), and
        what they captured: its next launch under replay records again. What a :class:`~kernellab.ReplayError`
        asks for once a global, a closure cell, a helper or a builtin the kernel reads has changed, as
        tinygrad's ``TinyJit.reset()`` does."""
        replay.clear(self)

    def add_pre_run_hook(self, hook) -> None:
        """``hook(*args, **kwargs)`` runs before every launch, as in Triton."""
        assert callable(hook)
        self.pre_run_hooks.append(hook)

    @property
    def prints(self) -> bool:
        """Whether the kernel (or a ``@triton.jit`` function it calls) calls ``print`` or ``tl.device_print``."""
        if self._prints is None:
            self._prints = _prints(self.fn, set())
        return self._prints

    def __call__(self, *args, **kwargs):
        """Call from inside another kernel, as a Triton device function."""
        if _CURRENT.get() is None:
            raise RuntimeError(_("{kernel} is a @triton.jit kernel: launch it as "
                                 "{kernel}[grid](...)").format(
                kernel=self.__name__))
        if self._constexpr_defaults:
            given = self.signature.bind_partial(*args, **kwargs).arguments
            kwargs = {**{n: v for n, v in self._constexpr_defaults.items() if n not in given}, **kwargs}
        return self._run_fn(*args, **kwargs)

    def run(self, *args, grid, warmup: bool = False, per_program: bool = False, vectorize: bool = True,
            lines: bool = False, _trial: bool = False, **kwargs) -> TritonCounts:
        """Launch on ``grid``; returns the counts. ``vectorize=False`` runs the programs one by one;
        ``lines=True`` adds counts per source line, a ``@triton.jit`` helper's lines with their call
        sites (``counts.by_line``, see :mod:`kernellab.lines`).

        ``num_warps=`` (default 4) sets the layouts of the kernel's loads and stores, as in Triton;
        ``num_stages=`` (default 3) pipelines its loops as Triton's compiler does (the instructions counted,
        not the bytes moved: :mod:`kernellab.triton.executor.loops`); the other launch options are
        accepted and change nothing here. (``_trial``: warmup's run of one program, without the pre-run hooks.)
        """
        if warmup:  # Triton's kernel.run(..., warmup=True): what it compiles, not launched
            return self.warmup(*args, grid=grid, **kwargs)
        for hook in () if _trial else self.pre_run_hooks:
            hook(*args, **kwargs)
        try:  # a bad launch (or a float64 warning made an error): the traceback ends at the user's launch line
            limits.control_flow(self, args, kwargs)  # a break/continue/return Triton 3.9 refuses to compile
            num_warps = int(kwargs.get("num_warps", 4)) if self._options_free else 4
            if num_warps < 1 or num_warps & (num_warps - 1):
                raise LaunchError(_("kernel {kernel}: num_warps must be a power of two, not {n}").format(
                    kernel=self.__name__, n=num_warps), kernel=self.__name__)
            stages = kwargs.get("num_stages") if "num_stages" not in self.signature.parameters else None
            stages = loops.DEFAULT_STAGES if stages is None else int(stages)
            given = dict(kwargs)  # the launch options too: for a fresh rerun of a replay, and the check's launch
            if not kwargs.keys() <= self._plain_kwargs:  # launch options the kernel does not take: dropped
                for opt in self._options_dropped:
                    kwargs.pop(opt, None)
            again = None  # the launch's signature, when it may replay (see kernellab.triton.replay.cache)
            if not replay.wants(self):
                self._replay_status = "off"
            elif per_program or not vectorize or lines:
                self._replay_status = "unsupported: per_program, vectorize=False or lines=True"
            else:
                again = replay.plan(self, args, kwargs, grid, num_warps, stages)
            if again is not None:
                grid = again.grid  # a callable grid is called once a launch
            grid, values, names, marks = self._bind(args, kwargs, grid) if again is None or not again.entry \
                else (grid, None, None, None)
            if values is not None:
                flats = [a for a in values if a.__class__ is pointer]
                warn_float64(self.__name__, [(names[a._address], a.flat) for a in flats if a.flat.dtype == np.float64])
        except (LaunchError, Float64Warning, ReplayError, limits.CompilationError) as exc:
            user_traceback(exc)
            raise
        if again is not None and again.entry:
            try:
                return replay.replayed(self, args, given, grid, again)
            except Exception as exc:
                user_traceback(exc)
                raise
        fn = self._run_fn
        rec = again.recorder(values) if again is not None and again.entry is None else None  # the launch's hook

        def body(prog):
            fn(*values)

        hook = getattr(self, "launch_metadata", None)
        try:
            with launches.metadata(lambda: hook(grid, self, self._named(args, kwargs))) if hook else nullcontext(), \
                    trace.recording(rec), loops.stages(stages), limits.enforced():
                counts = run(self.__name__, body, grid, names, vectorize=vectorize and not self.prints,
                             per_program=per_program, hints=self._hints,
                             lines=LineFinder(self.fn, (JITFunction.__call__.__code__,), self.__name__) if wants_lines(lines) else None,
                             num_warps=num_warps, specialization=marks,
                             options={"num_stages": int(given.get("num_stages", 3))},
                             addresses={id(a.flat): (a.flat, a._address) for a in flats if a._address is not None},
                             hook=rec)
        except Exception as exc:  # one traceback, ending at the kernel's line (or at the launch line)
            user_traceback(exc)
            raise
        if rec is not None:
            replay.finish(again, rec, counts, dim3(grid))
        return counts

    @property
    def name(self) -> str:
        """The kernel's name, as Triton's ``kernel.name``."""
        return self.__name__

    def _named(self, args, kwargs) -> dict:
        """The launch's arguments by parameter name, defaults filled in (what ``launch_metadata`` receives)."""
        named = self._arguments(args, kwargs)
        if named is None:
            bound = self.signature.bind_partial(*args, **{k: v for k, v in kwargs.items() if k in self.signature.parameters})
            bound.apply_defaults()
            named = dict(bound.arguments)
        return named

    def warmup(self, *args, grid=None, **kwargs) -> CompiledKernel:
        """``kernel.warmup(*args, grid=..., **meta)``: what Triton returns after compiling, without launching
        (see :class:`CompiledKernel`); the arguments are checked as a launch would check them."""
        launch = {k: v for k, v in kwargs.items() if k not in _LAUNCH_OPTIONS or k in self.signature.parameters}
        limits.control_flow(self, args, launch)
        self._bind(args, launch, grid if grid is not None else (1,))
        num_warps = int(kwargs.get("num_warps", 4))
        return CompiledKernel(self, num_warps=num_warps, num_stages=int(kwargs.get("num_stages", 3)),
                              n_regs=self._registers(args, kwargs, num_warps))

    def _registers(self, args, kwargs, num_warps: int) -> int:
        """The registers the residency charges one program of this launch: program (0, 0, 0) run on copies of
        the arrays, its loops stopped after 2 iterations, reported to no recorder
        (:func:`kernellab.triton.runtime.tuning.registers`); 32 when an argument is neither an array nor a
        number (it could write through), or the program cannot run alone. Kept per signature (the constexprs,
        the options, the arrays' dtypes and ranks, the other arguments' types): tutorial 02 warms its kernel
        up at every call."""
        key = (tuple(_signature_of(a, i in self.constexprs) for i, a in enumerate(args)),
               tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
        known = self._trial_regs.get(key)
        if known is None:
            known = self._trial_regs[key] = self._trial(args, kwargs, num_warps)
        return known

    def _trial(self, args, kwargs, num_warps: int) -> int:
        copies = [_copied(a) for a in args]
        options = {k: _copied(v) for k, v in kwargs.items()}
        if any(c is _COPY_REFUSED for c in (*copies, *options.values())):
            return tuning.DEFAULT_REGS
        try:
            with launches.hidden(), record.hidden(), loops.capped(2):
                counts = self.run(*copies, grid=(1,), vectorize=False, _trial=True, **options)
        except Exception:  # the program needs its grid (or raises): the residency's default, as for no values
            return tuning.DEFAULT_REGS
        return tuning.registers(counts, num_warps)

    def _arguments(self, args, kwargs) -> dict | None:
        """``name → value`` in parameter order, as ``signature.bind`` + ``apply_defaults`` give it, for a
        kernel of plain parameters; None when that needs inspect (other kinds of parameter, or a call
        ``bind`` rejects, whose error it then words)."""
        names = self.arg_names
        if self._defaults is None or len(args) > len(names):
            return None
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k in given or k not in self.signature.parameters:
                return None
            given[k] = v
        meta = {}
        for n in names:
            if n in given:
                meta[n] = given[n]
            elif n in self._defaults:
                meta[n] = self._defaults[n]
            else:
                return None
        return meta

    def _bind(self, args, kwargs, grid):
        """The grid, the values the kernel body receives, and ``address → parameter name``; LaunchError
        naming a bad argument."""
        meta = self._arguments(args, kwargs)
        if meta is None:
            try:
                bound = self.signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise LaunchError(_("kernel {kernel}: {error}").format(kernel=self.__name__, error=exc),
                                  kernel=self.__name__) from None
            bound.apply_defaults()
            meta = dict(bound.arguments)
        if callable(grid):
            grid = grid(meta)
        values, names, marks = [], {}, {}
        constexprs, fixed, unaligned = self._constexpr_names, self._fixed, self._unaligned
        for name, v in meta.items():
            if name in constexprs:
                values.append(v.value if isinstance(v, constexpr) else v)
                continue
            cls = v.__class__
            # the usual arguments first, as _argument and _specialise make them (a numpy array of a
            # numpy dtype, a Python int): the same pointer or scalar, the same mark and facts
            if cls is np.ndarray and _special_dtype(v.dtype) is None:
                try:
                    arg = pointer(memory.flat_view(v, name), np.zeros(1, np.int64), ())
                except TypeError:  # (dtypes.from_numpy: no Triton type)
                    exc = _dtype_error(name, v.dtype)
                    raise LaunchError(_("kernel {kernel}: {error}").format(kernel=self.__name__, error=exc),
                                      kernel=self.__name__, **exc.details) from None
                except LaunchError as exc:  # (memory.flat_view: not dense in memory)
                    raise LaunchError(_("kernel {kernel}: {error}").format(kernel=self.__name__, error=exc),
                                      **{**exc.details, "kernel": self.__name__}) from None
                address = arg._address = register_array(v)
                names[address] = name
                m = None if name in fixed else "D" if name not in unaligned and address % 16 == 0 else None
                if m is not None:
                    marks[name] = m
                arg._ax = specialize._FACTS[m]
                values.append(arg)
                continue
            if cls is int:
                try:
                    dt = T.of_argument(v)
                except OverflowError as exc:  # past 64 bits: Triton's launcher has no type for it either
                    raise LaunchError(_("kernel {kernel}: argument {name}: {error}").format(
                        kernel=self.__name__, name=name, error=exc), kernel=self.__name__, argument=name) from exc
                arg = tensor(np.array([v], dt.np), dt, ())
                m = None if name in fixed else 1 if v == 1 else "D" if name not in unaligned and v % 16 == 0 else None
                if m is not None:
                    marks[name] = m
                arg._ax = specialize._FACTS[m]
                values.append(arg)
                continue
            try:
                arg = _argument(name, v)
            except LaunchError as exc:
                raise LaunchError(_("kernel {kernel}: {error}").format(kernel=self.__name__, error=exc),
                                  kernel=self.__name__, **exc.details) from None
            if isinstance(arg, pointer):
                names[arg._address] = name
                self._specialise(name, arg, ("pointer", arg._address), marks)
            elif isinstance(arg, tensor_descriptor):
                names[memory.address(arg.base.flat)] = name
            elif isinstance(arg, tensor) and not arg._shape and arg is not v:
                self._specialise(name, arg, v, marks)
            values.append(arg)
        return grid, values, names, marks

    def _specialise(self, name: str, arg, value, marks: dict):
        """Give ``arg`` the facts the launch's specialisation of ``value`` says (and note the mark)."""
        m = specialize.mark(value, name not in self._fixed, name not in self._unaligned)
        if m is not None:
            marks[name] = m
        arg._ax = specialize.facts_of(value, m)


class CompiledKernel:
    """What ``kernel.warmup(...)`` returns: launch it with ``compiled[grid](*every argument)``.

    kernellab compiles nothing. ``n_regs`` is what the performance model's residency charges a program of
    the launch (:func:`kernellab.model.persm.triton_resources`): ``warmup`` runs program (0, 0, 0) on copies
    of the arrays, its loops stopped after two iterations, reported to no recorder, and reads the registers its values held
    (:mod:`kernellab.triton.executor.liveness`) or its dots need; 32 when it recorded neither, or could not
    run alone. ``metadata.shared`` is the shared memory one block may use, the modelled GPU's whole budget:
    a tutorial's occupancy calculation from it gives one program per SM, the conservative case, and never
    divides by zero. ``n_spills`` is 0.

    Examples
    --------
    >>> import kernellab.triton as triton
    >>> import kernellab.triton.language as tl
    >>> @triton.jit
    ... def one(out_ptr, B: tl.constexpr):
    ...     tl.store(out_ptr + tl.arange(0, B), 1)
    >>> k = one.warmup(np.zeros(8, np.int32), B=8, num_warps=8, grid=(1,))
    >>> k._init_handles(); k.n_regs, k.metadata.shared     # no floating-point value: the default 32
    (32, 232448)
    >>> out = np.zeros(8, np.int32); _ = k[(1, 1, 1)](out, 8); out.tolist()
    [1, 1, 1, 1, 1, 1, 1, 1]
    >>> @triton.jit
    ... def twice(x_ptr, B: tl.constexpr):
    ...     offs = tl.arange(0, B)
    ...     tl.store(x_ptr + offs, 2 * tl.load(x_ptr + offs))
    >>> x = np.ones(4096, np.float32); k2 = twice.warmup(x, B=4096, num_warps=4, grid=(1,))
    >>> k2.n_regs, float(x[0])   # 10 + 4096 ÷ 128 = 32 words a thread (the load, then 2 × it); x untouched
    (42, 1.0)
    """

    def __init__(self, fn: JITFunction, num_warps: int = 4, num_stages: int = 3, n_regs: int = tuning.DEFAULT_REGS):
        g = modelled_gpu()
        self.fn, self.name = fn, fn.__name__
        self.n_regs = int(n_regs)
        self.n_spills = 0
        self.metadata = types.SimpleNamespace(shared=g.max_smem_per_block, num_warps=num_warps,
                                              num_stages=num_stages, name=fn.__name__)
        self._options = {"num_warps": num_warps, "num_stages": num_stages}

    def _init_handles(self) -> None:
        """Nothing to load: there is no GPU module."""

    def __getitem__(self, grid):
        options = {k: v for k, v in self._options.items() if k not in self.fn.signature.parameters}

        def launch(*args, **kwargs):
            return self.fn.run(*args, grid=grid, **{**options, **kwargs})

        return launch


_COPY_REFUSED = object()


def _signature_of(value, constexpr: bool):
    """What a warmup's registers may depend on of one positional argument: an array's dtype and rank, a
    constexpr's value, another argument's type."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and hasattr(value, "shape"):
        return str(dtype), len(value.shape)
    return repr(value) if constexpr else type(value).__name__


def _copied(value):
    """A copy of an array argument (numpy, or anything with torch's ``clone``); a number, string, bool, None or
    dtype as it is; :data:`_COPY_REFUSED` for anything else (a descriptor, an object holding arrays)."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if value is None or isinstance(value, (bool, int, float, str, np.generic, T.dtype, constexpr)):
        return value
    if callable(getattr(value, "clone", None)) and hasattr(value, "data_ptr"):
        return value.clone()
    return _COPY_REFUSED


def _prints(fn, seen: set) -> bool:
    """Whether ``fn``'s code names ``print`` or ``device_print``, or a ``@triton.jit`` function that does."""
    code = getattr(fn, "__code__", None)
    if code is None or code in seen:
        return False
    seen.add(code)
    names, stack = set(), [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if inspect.iscode(k))
    if names & {"print", "device_print"}:
        return True
    scope = getattr(fn, "__globals__", {})
    return any(_prints(scope[n].fn, seen) for n in names if isinstance(scope.get(n), JITFunction))


def _names(params: list, which) -> frozenset:
    """Parameter names from names or positions (``do_not_specialize=[0, "n"]``)."""
    return frozenset(params[w] if isinstance(w, int) else w for w in (which or ()))


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=None,
        do_not_specialize_on_alignment=None, debug=None, noinline=None, replay: bool = False):
    """Decorate a kernel written in Triton syntax (``@triton.jit`` or ``@triton.jit(...)``), with Triton 3.9's options.

    ``replay=True``: a launch whose signature ran before replays its data flow instead of running the kernel's
    Python (:mod:`kernellab.triton.replay.cache`; opt-in, as tinygrad's ``TinyJit``).

    ``do_not_specialize`` and ``do_not_specialize_on_alignment`` (names or positions of parameters) are
    honoured as in Triton (see :mod:`kernellab.triton.compiler.specialize`). ``launch_metadata=hook`` is called as
    Triton calls it, ``hook(grid, kernel, args)`` with ``kernel.name`` and the launch's arguments by name,
    while a recorder listens (proton, ``do_bench``): its ``"name"`` names the launch in proton's table, its
    other entries are the launch's metrics (:func:`kernellab.triton.launches.metadata`). ``version``, ``repr``,
    ``debug`` and ``noinline`` are kept on the kernel.
    """
    def make(f):
        kernel = JITFunction(f, version=version, do_not_specialize=do_not_specialize,
                             do_not_specialize_on_alignment=do_not_specialize_on_alignment, debug=debug,
                             noinline=noinline, repr=repr, launch_metadata=launch_metadata)
        kernel.replay = bool(replay)
        return kernel

    return make if fn is None else make(fn)


# --- the rest of ``triton.runtime`` -------------------------------------------------------------------------

def _unsupported(feature: str, why: str):
    def call(*args, **kwargs):
        raise NotImplementedError(_("{feature} is not supported by kernellab: {why}").format(feature=feature, why=why))

    call.__name__ = feature.rsplit(".", 1)[-1]
    call.__doc__ = f"Not supported: {why}."
    return call


reinterpret = _unsupported("triton.reinterpret", "pass the array viewed as the type instead "
                                                 "(numpy .view, torch .view(dtype))")
TensorWrapper = reinterpret
RemoteCacheBackend = _unsupported("triton.runtime.RemoteCacheBackend", "kernellab compiles nothing to cache")
RedisRemoteCacheBackend = _unsupported("triton.runtime.RedisRemoteCacheBackend", "kernellab compiles nothing to cache")
MockTensor = _unsupported("triton.MockTensor", "kernellab launches take the real arrays")

