"""Tensors asked for on ``"cuda"`` live on the CPU, and say they are on the modelled GPU.

A ``torch.overrides.TorchFunctionMode`` sees every torch function and tensor method the script calls
(factories included) before torch runs it. Under the runner it:

- runs a call asked for on ``"cuda"``, ``"cuda:0"``, ``torch.device("cuda", 0)`` or device index 0
  (``device=`` of a factory such as ``torch.empty``, ``x.to("cuda")``, ``x.new_zeros(..., device=...)``) on
  the CPU; any other CUDA index is a ``ValueError`` naming the call (kernellab models one GPU);
- makes ``x.cuda()`` and ``x.pin_memory()`` return ``x`` (its data is already where kernels read it), and
  ``pin_memory=True`` a no-op;
- answers ``x.device`` with ``device(type='cuda', index=0)``, ``x.is_cuda`` with True, ``x.is_cpu`` with False and
  ``x.get_device()`` with 0, for every tensor, so a script's own checks (``x.device == DEVICE`` with the
  tutorials' ``DEVICE = triton.runtime.driver.active.get_active_torch_device()``, ``assert x.is_cuda``) hold
  and libraries take their CUDA paths. The data is in CPU memory: ``print(x)`` shows it as CPU torch does
  (no ``device=`` suffix), and ``x.cpu()`` is ``x``.

Why a mode and not replacing ``torch.empty`` and friends: the mode sees calls through names bound before
the runner started (``from torch import empty``), C++ factories and tensor properties alike, and
leaving it undoes everything. torch's own code inside a call it intercepts runs without the mode, so
torch sees the real device. The mode belongs to the thread that activated the runner (torch keeps modes
per thread).
"""

from __future__ import annotations

from kernellab.i18n import _


def _cuda_index(value, call: str):
    """None when ``value`` is not a CUDA device; else its index, which must be 0."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        index = value
    elif isinstance(value, str):
        if not value.startswith("cuda"):
            return None
        index = int(value.partition(":")[2] or 0)
    elif type(value).__name__ == "device" and getattr(value, "type", None) == "cuda":
        index = value.index or 0
    else:
        return None
    if index != 0:
        raise ValueError(_("{call}: kernellab models one GPU, cuda:0; cuda:{index} does not exist").format(
            call=call, index=index))
    return index


def make_mode(torch):
    """A new instance of the runner's torch function mode (torch imported by the caller)."""
    from torch.overrides import TorchFunctionMode

    Tensor = torch.Tensor
    gpu = torch.device("cuda", 0)
    cpu = torch.device("cpu")

    def same(args, kwargs):
        return args[0]

    answers = {
        Tensor.device.__get__: lambda args, kwargs: gpu,
        Tensor.is_cuda.__get__: lambda args, kwargs: True,
        Tensor.is_cpu.__get__: lambda args, kwargs: False,
        Tensor.get_device: lambda args, kwargs: 0,
        Tensor.cuda: same,
        Tensor.pin_memory: same,
    }
    positional_device = {Tensor.to}

    class OnTheModelledGPU(TorchFunctionMode):
        """CUDA devices mean the CPU; every tensor says it is on ``cuda:0`` (see the module)."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            answer = answers.get(func)
            if answer is not None:
                return answer(args, kwargs)
            if kwargs:
                device = kwargs.get("device")
                if device is not None and _cuda_index(device, _name(func)) is not None:
                    kwargs = {**kwargs, "device": cpu}
                if kwargs.get("pin_memory"):
                    kwargs = {**kwargs, "pin_memory": False}
            if func in positional_device and len(args) > 1 and _cuda_index(args[1], _name(func)) is not None:
                args = (args[0], cpu, *args[2:])
            return func(*args, **kwargs)

    return OnTheModelledGPU()


def _name(func) -> str:
    owner = getattr(func, "__objclass__", None)
    name = getattr(func, "__name__", repr(func))
    return f"torch.Tensor.{name}" if owner is not None else f"torch.{name}"


__all__ = ["make_mode"]
