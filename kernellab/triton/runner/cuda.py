"""``torch.cuda`` under the runner: its queries describe the modelled GPU.

:func:`install` replaces names of the ``torch.cuda`` module (and remembers what they were, for
:func:`uninstall`): ``is_available`` is True, ``device_count`` 1, ``current_device`` 0, and
``get_device_name``, ``get_device_capability`` and ``get_device_properties`` (``multi_processor_count``,
``total_memory``, ``L2_cache_size``, …) answer from :mod:`kernellab.specs` for the GPU the performance
model charges (``triton.runtime.driver``). ``torch.cuda.device(...)``, ``set_device``,
``synchronize``, streams and ``torch.cuda.Event`` (with ``elapsed_time``) work: kernellab models one GPU,
device 0, and launches that run one after another in the order they are made, so there is one stream
and nothing to wait for; ``torch._C._cuda_getCurrentRawStream(0)``, the raw handle libraries pass to their
launchers, is that stream's, 0 (as ``Stream.cuda_stream``). An event's ``elapsed_time`` is the predicted GPU time of the kernellab launches
made between its ``record()`` and the other's (:mod:`kernellab.triton.launches`), in milliseconds, each launch as
``triton.testing.do_bench`` reports a call that makes that launch alone (its cold launch cost included).

Every other function of ``torch.cuda`` still runs as torch wrote it (``manual_seed``, ``empty_cache``
work on a CPU build); where it fails, it raises :class:`NotStoodIn` (a ``NotImplementedError``) that
names the call, chained to torch's own error. CUDA graphs raise it at once: ``CUDAGraph`` and ``graph`` stay
classes, as torch's are (a library's annotation ``torch.cuda.CUDAGraph | None`` or ``isinstance`` check
works), and making one raises it.
"""

from __future__ import annotations

import functools
import inspect

from kernellab.i18n import _

from .. import launches
from ..runtime.driver import COMPUTE_CAPABILITY, gpu
from ..timing import launch_seconds

#: The device index kernellab's one modelled GPU has.
DEVICE_INDEX = 0


class NotStoodIn(NotImplementedError):
    """A CUDA call the runner does not stand in for (the message names it)."""


def _not_stood_in(call: str, why: str):
    return NotStoodIn(_("{call}: kernellab's runner does not stand in for it ({why})").format(call=call, why=why))


def _index(device, call: str) -> int:
    """The device index ``device`` names (None, an int, "cuda", "cuda:0", a torch.device); only 0 exists."""
    if device is None:
        return DEVICE_INDEX
    if isinstance(device, str):
        kind, _sep, idx = device.partition(":")
        index = int(idx) if idx else DEVICE_INDEX
    elif isinstance(device, int):
        index = device
    else:  # a torch.device
        index = device.index if getattr(device, "index", None) is not None else DEVICE_INDEX
    if index < 0:
        return DEVICE_INDEX
    if index != DEVICE_INDEX:
        raise ValueError(_("{call}: kernellab models one GPU, device 0; device {index} does not exist").format(
            call=call, index=index))
    return index


# --- device queries -----------------------------------------------------------------------------------
def is_available() -> bool:
    """True: the modelled GPU is there."""
    return True


def device_count() -> int:
    """1: kernellab models one GPU."""
    return 1


def current_device() -> int:
    """0, the modelled GPU."""
    return DEVICE_INDEX


def set_device(device) -> None:
    """Select device 0 (the only one); any other index is a ``ValueError``."""
    _index(device, "torch.cuda.set_device")


def get_device_capability(device=None) -> tuple[int, int]:
    """``(major, minor)`` of the modelled GPU: (9, 0) for the H100 and H200, (8, 0) A100, (8, 6) A6000."""
    _index(device, "torch.cuda.get_device_capability")
    return COMPUTE_CAPABILITY.get(gpu().sm_type, (9, 0))


def get_device_name(device=None) -> str:
    """``"NVIDIA "`` and the modelled GPU's name (``"NVIDIA H100 SXM"``)."""
    _index(device, "torch.cuda.get_device_name")
    return "NVIDIA " + gpu().name


class DeviceProperties:
    """What ``torch.cuda.get_device_properties`` returns, for the modelled GPU, from :mod:`kernellab.specs`.

    ``total_memory`` and ``L2_cache_size`` are bytes, ``clock_rate`` kHz (the rated boost clock), the shared
    memory fields bytes (``shared_memory_per_block`` is the 48 KiB a block gets without opting in). The memory
    clock and bus width are not modelled (the model charges the DRAM bandwidth itself): reading them raises
    :class:`NotStoodIn`.
    """

    def __init__(self, g):
        major, minor = COMPUTE_CAPABILITY.get(g.sm_type, (9, 0))
        self.name = "NVIDIA " + g.name
        self.major, self.minor = major, minor
        self.multi_processor_count = g.sms
        self.total_memory = g.dram_capacity
        self.L2_cache_size = g.l2_bytes
        self.max_threads_per_multi_processor = g.max_threads_per_sm
        self.max_threads_per_block = g.max_threads_per_block
        self.warp_size = g.warp_size
        self.regs_per_multiprocessor = g.regs_per_sm
        self.shared_memory_per_block = 48 * 1024
        self.shared_memory_per_block_optin = g.max_smem_per_block
        self.shared_memory_per_multiprocessor = g.max_smem_per_sm
        self.clock_rate = int(g.clock_hz // 1000)
        self.is_integrated = 0
        self.is_multi_gpu_board = 0
        self.gcnArchName = ""
        self.uuid = "kernellab-" + g.name.lower().replace(" ", "-")

    def __getattr__(self, name):  # only for names not set above
        if name in ("memory_clock_rate", "memory_bus_width"):
            raise _not_stood_in(f"torch.cuda.get_device_properties(...).{name}",
                                _("kernellab models the DRAM bandwidth, not its clock or bus width"))
        raise AttributeError(name)

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // 2**20}MB, multi_processor_count={self.multi_processor_count}, "
                f"L2_cache_size={self.L2_cache_size // 2**20}MB)")


def get_device_properties(device=None) -> DeviceProperties:
    """The modelled GPU's properties (:class:`DeviceProperties`)."""
    _index(device, "torch.cuda.get_device_properties")
    return DeviceProperties(gpu())


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether the modelled GPU has bfloat16 arithmetic: compute capability 8.0 and later, all of kernellab's."""
    return get_device_capability()[0] >= 8


def is_tf32_supported() -> bool:
    """Whether the modelled GPU has TF32 tensor cores: compute capability 8.0 and later."""
    return get_device_capability()[0] >= 8


def get_arch_list() -> list[str]:
    """The modelled GPU's architecture, as the one arch torch was built for (``["sm_90"]`` on the H100)."""
    major, minor = get_device_capability()
    return [f"sm_{major}{minor}"]


def init() -> None:
    """Nothing to initialise."""


def synchronize(device=None) -> None:
    """Nothing to wait for: kernellab's launches have finished when they return."""
    _index(device, "torch.cuda.synchronize")


class device:
    """``with torch.cuda.device(i):``: selects device ``i``, which must be 0 (or None, or negative: no-op)."""

    def __init__(self, device):
        self.idx = _index(device, "torch.cuda.device")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class device_of(device):
    """``with torch.cuda.device_of(tensor):``: the tensor's device, device 0."""

    def __init__(self, obj):
        super().__init__(None)


# --- streams and events ----------------------------------------------------------------------------------
class Stream:
    """A CUDA stream of the modelled GPU. There is one queue: kernellab's launches run when they are made,
    one after another, so every stream is the same stream and everything on it has finished."""

    def __init__(self, device=None, priority: int = 0, **kwargs):
        self.device_index = _index(device, "torch.cuda.Stream")
        self.priority = priority
        self.cuda_stream = 0

    @property
    def device(self):
        import torch

        return torch.device("cuda", self.device_index)

    def wait_event(self, event) -> None:
        """Nothing to wait for."""

    def wait_stream(self, stream) -> None:
        """Nothing to wait for."""

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return isinstance(other, Stream)

    def __hash__(self):
        return hash(Stream)

    def __repr__(self) -> str:
        return f"<torch.cuda.Stream device=cuda:{self.device_index} cuda_stream=0x0 (kernellab)>"


ExternalStream = Stream
_STREAMS = {"current": Stream()}


def _cuda_getCurrentRawStream(device_index: int = DEVICE_INDEX) -> int:
    """``torch._C._cuda_getCurrentRawStream``: the raw handle (``cudaStream_t``) of the current stream of
    ``device_index``, the one queue's, 0 (:attr:`Stream.cuda_stream`)."""
    _index(device_index, "torch._C._cuda_getCurrentRawStream")
    return current_stream().cuda_stream


def current_stream(device=None) -> Stream:
    """The stream launches go to (there is one)."""
    _index(device, "torch.cuda.current_stream")
    return _STREAMS["current"]


def default_stream(device=None) -> Stream:
    """The default stream (there is one)."""
    return current_stream(device)


def set_stream(stream) -> None:
    """Make ``stream`` current; every stream is the same queue here."""
    _STREAMS["current"] = stream if isinstance(stream, Stream) else _STREAMS["current"]


class stream:
    """``with torch.cuda.stream(s):``: runs the block on ``s`` (the one queue)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


StreamContext = stream


class _Clock:
    """The modelled stream's clock: seconds of predicted GPU time of the launches made since it started.
    It is a recorder of :mod:`kernellab.triton.launches` (launches call ``append``), keeping a sum, not a list."""

    def __init__(self):
        self.seconds = 0.0

    def append(self, launch) -> None:
        self.seconds += launch_seconds(launch.counts)


_CLOCK: dict = {}


def _clock() -> _Clock:
    """The clock, started (registered as a recorder of this thread's launches) the first time an event records."""
    if "clock" not in _CLOCK:
        clock = _Clock()
        _CLOCK["clock"] = clock
        _CLOCK["token"] = launches._RECORDERS.set(launches._RECORDERS.get() + (clock,))
    return _CLOCK["clock"]


def _stop_clock() -> None:
    clock = _CLOCK.pop("clock", None)
    token = _CLOCK.pop("token", None)
    if clock is None:
        return
    try:
        launches._RECORDERS.reset(token)
    except ValueError:  # reset from another context: drop the clock wherever it is
        launches._RECORDERS.set(tuple(r for r in launches._RECORDERS.get() if r is not clock))


class Event:
    """``torch.cuda.Event``: a point on the modelled stream. ``a.elapsed_time(b)`` is the predicted GPU time,
    in milliseconds, of the kernellab launches made between ``a.record()`` and ``b.record()``."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False,
                 external: bool = False):
        self.enable_timing = enable_timing
        self._at = None

    def record(self, stream=None) -> None:
        self._at = _clock().seconds

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def wait(self, stream=None) -> None:
        """Nothing to wait for."""

    def elapsed_time(self, end_event) -> float:
        if not self.enable_timing or not end_event.enable_timing:
            raise ValueError(_("torch.cuda.Event.elapsed_time: both events must be made with enable_timing=True"))
        if self._at is None or end_event._at is None:
            raise ValueError(_("torch.cuda.Event.elapsed_time: both events must be recorded first"))
        return (end_event._at - self._at) * 1e3

    def ipc_handle(self):
        raise _not_stood_in("torch.cuda.Event.ipc_handle", _("there is no other process's GPU to share with"))


def _graphs(name: str, kind: str = "function"):
    """A CUDA-graph name of ``torch.cuda`` that raises :class:`NotStoodIn` when called; ``kind`` ``"class"``: a class
    (torch's ``CUDAGraph`` and ``graph`` are), for annotations and ``isinstance``, whose construction raises it."""
    def refuse(*args, **kwargs):
        raise _not_stood_in(f"torch.cuda.{name}", _("kernellab records no CUDA graph; "
                                                    "triton.testing.do_bench_cudagraph times the launches as do_bench"))

    if kind == "class":
        return type(name, (), {"__new__": lambda cls, *args, **kwargs: refuse(), "__module__": "torch.cuda",
                               "__doc__": f"torch.cuda.{name}, not stood in for: making one raises NotStoodIn."})
    refuse.__name__ = name
    return refuse


#: Every name :func:`install` gives ``torch.cuda``.
STAND_INS = {
    "is_available": is_available, "device_count": device_count, "current_device": current_device,
    "set_device": set_device, "get_device_capability": get_device_capability, "get_device_name": get_device_name,
    "get_device_properties": get_device_properties, "is_bf16_supported": is_bf16_supported,
    "is_tf32_supported": is_tf32_supported, "get_arch_list": get_arch_list, "init": init,
    "synchronize": synchronize, "device": device, "device_of": device_of, "Stream": Stream,
    "ExternalStream": ExternalStream, "current_stream": current_stream, "default_stream": default_stream,
    "set_stream": set_stream, "stream": stream, "StreamContext": StreamContext, "Event": Event,
    "CUDAGraph": _graphs("CUDAGraph", "class"), "graph": _graphs("graph", "class"),
    "make_graphed_callables": _graphs("make_graphed_callables"),
}


def _named(name: str, original):
    """``original`` (a function of ``torch.cuda``), raising :class:`NotStoodIn` naming ``torch.cuda.<name>``
    where torch's own code fails on a CPU build."""

    @functools.wraps(original)
    def call(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        except NotStoodIn:
            raise
        except Exception as exc:
            raise _not_stood_in(f"torch.cuda.{name}", f"{type(exc).__name__}: {exc}") from exc

    call._kernellab_original = original
    return call


#: Every name :func:`install` gives ``torch._C`` (a CPU build has none of them).
C_STAND_INS = {"_cuda_getCurrentRawStream": _cuda_getCurrentRawStream}


def install(torch_module) -> list:
    """Give ``torch.cuda`` and ``torch._C`` the stand-ins; returns what to put back (``(module, name, old value)``)."""
    cuda_module = torch_module.cuda
    undo = []
    c_module = getattr(torch_module, "_C", None)
    for name, value in C_STAND_INS.items() if c_module is not None else ():
        undo.append((c_module, name, getattr(c_module, name, _MISSING)))
        setattr(c_module, name, value)
    for name, value in STAND_INS.items():
        undo.append((cuda_module, name, cuda_module.__dict__.get(name, _MISSING)))
        setattr(cuda_module, name, value)
    for name, value in list(vars(cuda_module).items()):
        if name.startswith("_") or name in STAND_INS or not inspect.isfunction(value):
            continue
        if not getattr(value, "__module__", "").startswith("torch.cuda"):
            continue  # helpers torch.cuda imports from elsewhere (lru_cache, cast)
        undo.append((cuda_module, name, value))
        setattr(cuda_module, name, _named(name, value))
    return undo


_MISSING = object()


def uninstall(undo: list) -> None:
    """Put back what :func:`install` replaced, and stop the event clock."""
    for module, name, old in reversed(undo):
        if old is _MISSING:
            module.__dict__.pop(name, None)
        else:
            setattr(module, name, old)
    _STREAMS["current"] = Stream()
    _stop_clock()


__all__ = ["C_STAND_INS", "DEVICE_INDEX", "DeviceProperties", "Event", "NotStoodIn", "STAND_INS", "Stream", "current_device",
           "device", "device_count", "get_device_capability", "get_device_name", "get_device_properties", "install",
           "is_available", "synchronize", "uninstall"]
