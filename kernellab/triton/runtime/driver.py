"""``triton.runtime.driver``: the driver of the GPU kernellab models, as Triton's CUDA driver answers.

Triton's tutorials ask the driver which device to allocate on, which target they compile for and how
many SMs, registers and bytes of shared memory the GPU has. Here the answers describe the GPU the
performance model charges (:mod:`kernellab.specs`): the H100 SXM unless ``KERNELLAB_GPU`` names another
(``H100``, ``H200``, ``A100``, ``A6000``) or :func:`set_gpu` chooses one. The data itself lives on the
CPU, so ``get_active_torch_device()`` is torch's CPU device (or ``"cpu"`` without torch), while
``get_current_target()`` says ``cuda``: a tutorial's ``is_cuda()`` takes its CUDA branch. What a CPU
user must still change is their own ``torch.cuda.*`` calls.

Examples
--------
>>> from kernellab.triton.runtime import driver
>>> target = driver.active.get_current_target()
>>> (target.backend, target.arch, target.warp_size), driver.active.get_device_capability()
(('cuda', 90, 32), (9, 0))
>>> props = driver.active.utils.get_device_properties(0)
>>> props["multiprocessor_count"], props["max_shared_mem"], props["max_num_regs"], props["warpSize"]
(132, 232448, 65536, 32)
>>> previous = set_gpu("A6000"); driver.active.get_current_target().arch, gpu().sms
(86, 84)
>>> _ = set_gpu(previous); gpu().name
'H100 SXM'
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ...errors import LaunchError
from ...i18n import _
from ...specs import GPU, GPUS, as_gpu

#: The compute capability of each SM type, from the CUDA C Programming Guide's table (GA102, the RTX A6000,
#: is 8.6; GA100, the A100, 8.0; GH100, the H100 and H200, 9.0).
COMPUTE_CAPABILITY = {"GA102": (8, 6), "GA100": (8, 0), "GH100": (9, 0)}
#: The names ``KERNELLAB_GPU`` and :func:`set_gpu` accept, each GPU of :data:`kernellab.GPUS`.
GPU_NAMES = {"A6000": GPUS[0], "A100": GPUS[1], "H100": GPUS[2], "H200": GPUS[3]}


def _named(name) -> GPU:
    if isinstance(name, str):
        key = name.strip().upper().replace("RTX ", "").split()[0] if name.strip() else ""
        if key not in GPU_NAMES:
            raise ValueError(_("unknown GPU {name!r}: KERNELLAB_GPU and set_gpu take one of {names}").format(
                name=name, names=", ".join(GPU_NAMES)))
        return GPU_NAMES[key]
    return as_gpu(name)


_STATE = {"gpu": _named(os.environ.get("KERNELLAB_GPU") or "H100")}


def gpu() -> GPU:
    """The GPU being modelled: what the driver describes and what ``triton.testing`` and autotune predict for."""
    return _STATE["gpu"]


#: Whether the runner is on (:mod:`kernellab.triton.runner` sets it as it turns on and off): the driver then
#: answers as a CUDA device, ``cuda:0`` and ``torch.cuda``, whose tensors the runner keeps on the CPU.
RUNNER = [False]


def torch_device():
    """The torch device kernellab's tensors are on as the script sees it: ``cuda:0`` under the runner
    (:data:`~kernellab.triton.runtime.driver.RUNNER`), else the CPU (or the string ``"cpu"`` without torch)."""
    try:
        import torch
    except ImportError:
        return "cpu"
    return torch.device("cuda", 0) if RUNNER[0] else torch.device("cpu")


_BENCHMARKER: list = [None]  # what get_benchmarker returns: timing.do_bench, registered when it is imported


def register_benchmarker(fn) -> None:
    """Make ``fn`` what ``driver.active.get_benchmarker()`` returns (``kernellab.triton.timing.do_bench``,
    which stands above the driver)."""
    _BENCHMARKER[0] = fn


def set_gpu(which) -> GPU:
    """Model another GPU (a name such as ``"A100"``, or a :class:`~kernellab.specs.GPU`); returns the previous one."""
    previous = _STATE["gpu"]
    _STATE["gpu"] = _named(which)
    return previous


@dataclass(frozen=True)
class GPUTarget:
    """What Triton compiles for, as ``triton.backends.compiler.GPUTarget``: backend, architecture, warp size."""

    backend: str
    arch: int | str
    warp_size: int


class CudaUtils:
    """``driver.active.utils``: device properties of the modelled GPU under Triton's keys."""

    def get_device_properties(self, device=0) -> dict:
        """Triton's keys, from :mod:`kernellab.specs`: ``max_shared_mem`` (opt-in shared memory per block,
        bytes), ``max_num_regs`` (32-bit registers per block: the SM's file, as CUDA's
        ``MAX_REGISTERS_PER_BLOCK`` is on these GPUs [CCtab]), ``multiprocessor_count``, ``warpSize``,
        ``sm_clock_rate`` (kHz, the rated boost clock) and ``max_threads_per_sm``. The memory clock and bus
        width are not modelled (the model charges the DRAM bandwidth itself): ``mem_clock_rate`` and
        ``mem_bus_width`` are None."""
        g = gpu()
        return {"max_shared_mem": g.max_smem_per_block, "max_num_regs": g.regs_per_sm,
                "multiprocessor_count": g.sms, "warpSize": g.warp_size, "sm_clock_rate": int(g.clock_hz // 1000),
                "mem_clock_rate": None, "mem_bus_width": None, "max_threads_per_sm": g.max_threads_per_sm}

    def fill_1d_tma_descriptor(self, *args, **kwargs):
        raise NotImplementedError(_("fill_1d_tma_descriptor writes a CUDA TMA descriptor, which kernellab "
                                    "has no GPU to read: pass a triton.tools.tensor_descriptor."
                                    "TensorDescriptor instead"))

    fill_2d_tma_descriptor = fill_1d_tma_descriptor


class ModelledDriver:
    """``driver.active``: the modelled GPU, as Triton's CUDA driver describes a real one."""

    def __init__(self):
        self.utils = CudaUtils()

    @staticmethod
    def is_active() -> bool:
        return True

    def get_active_torch_device(self):
        """The device a tutorial allocates on: ``torch.device("cuda", 0)`` under the runner (tensors asked for
        there live on the CPU, :mod:`kernellab.triton.runner`), else torch's CPU device, or the string ``"cpu"``
        when torch is not installed."""
        return torch_device()

    def get_current_target(self) -> GPUTarget:
        """``GPUTarget("cuda", major·10 + minor, 32)`` of the modelled GPU (90 for the H100)."""
        major, minor = self.get_device_capability()
        return GPUTarget("cuda", 10 * major + minor, gpu().warp_size)

    def get_current_device(self) -> int:
        """Device 0: kernellab models one GPU."""
        return 0

    def set_current_device(self, device) -> None:
        if int(device) != 0:
            raise LaunchError(_("kernellab models one GPU, device 0; device {device} does not exist").format(
                device=device))

    def get_current_stream(self, device=None) -> int:
        """Stream 0: launches run one after another, in the order they are made."""
        return 0

    def get_device_capability(self, device=0) -> tuple[int, int]:
        """``(major, minor)`` compute capability of the modelled GPU [CCtab]."""
        return COMPUTE_CAPABILITY.get(gpu().sm_type, (9, 0))

    def get_device_interface(self):
        """The torch module a tutorial synchronises with: ``torch.cuda`` under the runner (its stand-ins),
        else ``torch.cpu`` (kernellab's launches are synchronous)."""
        import torch

        return torch.cuda if RUNNER[0] else torch.cpu

    def get_benchmarker(self):
        """``triton.testing.do_bench``, which here reports the model's predicted GPU time
        (:mod:`kernellab.triton.timing` registers it: :func:`register_benchmarker`)."""
        return _BENCHMARKER[0]

    def get_empty_cache_for_benchmark(self):
        """A buffer to clear between timed calls; kernellab models no cache state across launches."""
        return np.empty(0, np.int8)

    def clear_cache(self, cache) -> None:
        """Nothing to clear: each launch's DRAM traffic is counted on its own."""


#: ``triton.runtime.driver.active``: the driver launches and tutorials ask (``default`` unless
#: :func:`set_active` chose another).
default = ModelledDriver()
active = default


def set_active(new_driver) -> None:
    """``triton.runtime.driver.set_active(d)``: the driver ``active`` answers with from now on."""
    global active
    active = new_driver


def reset_active() -> None:
    """``triton.runtime.driver.reset_active()``: ``active`` is ``default`` again."""
    global active
    active = default


class DriverConfig:
    """``triton.runtime.driver.driver``, Triton's ``DriverConfig``: the same ``active``, ``default``,
    ``set_active`` and ``reset_active`` as this module (``triton.runtime.driver`` is the module here)."""

    active = property(lambda self: active)
    default = property(lambda self: default)
    set_active = staticmethod(set_active)
    reset_active = staticmethod(reset_active)


driver = DriverConfig()



def set_allocator(allocator) -> None:
    """``triton.set_allocator(fn)``: Triton asks ``fn(size, alignment, stream)`` for the global scratch memory
    that device-side tensor descriptors need. kernellab's descriptors need none (the simulator reads the
    tensor itself), so the allocator is kept, for :func:`get_allocator`, and never called."""
    if allocator is not None and not callable(allocator):
        raise TypeError(_("set_allocator takes a function (size, alignment, stream) -> tensor, not a "
                          "{type}").format(type=type(allocator).__name__))
    _STATE["allocator"] = allocator


def get_allocator():
    """The allocator :func:`set_allocator` was given last (None before)."""
    return _STATE.get("allocator")


__all__ = ["COMPUTE_CAPABILITY", "RUNNER", "CudaUtils", "DriverConfig", "GPUTarget", "ModelledDriver", "active", "default",
           "driver", "get_allocator", "gpu", "reset_active", "set_active", "set_allocator", "set_gpu", "torch_device"]
