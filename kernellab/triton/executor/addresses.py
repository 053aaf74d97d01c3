"""Pointers made from integers: ``tl.load(ptrs).to(tl.pointer_type(tl.float16))`` finds the array an address is in.

Kernels that handle many tensors at once (the grouped GEMM tutorial) pass a tensor of their addresses,
``torch.tensor([a.data_ptr(), …])``, and turn each loaded int64 back into a pointer. kernellab keeps
no GPU address space, so it maps an address back to the host memory it came from:

* the arrays passed to a launch so far (while they live), and those given to :func:`register_array`;
* any live CPU torch tensor (its whole storage), found by scanning the objects Python's garbage collector
  tracks, once per address not yet known.

The pointer then points into that array's memory, ``(address − start) / element size`` elements in. An
address inside no such array is an :class:`~kernellab.OutOfBoundsError` naming the address and the
program; one that is not a multiple of the element size from the array's start is a
:class:`~kernellab.MisalignedError`. Programs of one vectorised step whose addresses fall in different
arrays rerun one by one (each then has its own pointer).

Examples
--------
>>> import numpy as np
>>> import kernellab.triton as triton
>>> import kernellab.triton.language as tl
>>> @triton.jit
... def first_of_each(addrs_ptr, out_ptr):
...     p = tl.load(addrs_ptr + tl.program_id(0)).to(tl.pointer_type(tl.float32))
...     tl.store(out_ptr + tl.program_id(0), tl.load(p + 1))
>>> a, b = np.array([1, 2], np.float32), np.array([30, 40], np.float32)
>>> _ = register_array(a), register_array(b)
>>> addrs = np.array([a.ctypes.data, b.ctypes.data], np.int64); out = np.zeros(2, np.float32)
>>> _ = first_of_each[(2,)](addrs, out); out.tolist()
[2.0, 40.0]
"""

from __future__ import annotations

import bisect
import gc
import sys
import weakref

import numpy as np

from ...errors import MisalignedError, OutOfBoundsError, fmt_dim3
from ...i18n import _
from . import dtypes as T
from .program import Divergence

_REGIONS: dict[int, tuple[int, object]] = {}  # start address → (bytes, weak reference to the array or tensor)


def _remember(start: int, nbytes: int, owner) -> None:
    try:
        ref = weakref.ref(owner)
    except TypeError:
        return
    old = _REGIONS.get(start)
    if old is None or old[1]() is None or old[0] < nbytes:
        _REGIONS[start] = (int(nbytes), ref)


_KNOWN: dict[int, tuple] = {}  # id(numpy array) → (weak reference, address, bytes): arrays registered before


def _forget(key: int):
    def drop(ref):
        if _KNOWN.get(key, (None,))[0] is ref:
            del _KNOWN[key]

    return drop


def register_array(array) -> int:
    """Let kernels reach ``array`` (a numpy array or CPU torch tensor) by its address; returns the address.

    An array registered before, of the same size, whose region is still known, is found by identity
    (an address is read through ``__array_interface__``, which builds a dict: once a launch and array
    is the most a launch of a small kernel spends on it)."""
    if array.__class__ is np.ndarray:
        known = _KNOWN.get(id(array))
        if known is not None and known[0]() is array and known[2] == array.nbytes:
            region = _REGIONS.get(known[1])
            if region is not None and region[0] >= known[2] and region[1]() is not None:
                return known[1]
        start = array.__array_interface__["data"][0]
        _remember(start, array.nbytes, array)
        _KNOWN[id(array)] = (weakref.ref(array, _forget(id(array))), start, array.nbytes)
        return start
    if isinstance(array, np.ndarray):
        start = array.__array_interface__["data"][0]
        _remember(start, array.nbytes, array)
        return start
    if type(array).__module__.startswith("torch") and hasattr(array, "untyped_storage"):
        storage = array.untyped_storage()
        _remember(storage.data_ptr(), storage.nbytes(), array)
        return array.data_ptr()
    raise TypeError(_("register_array takes a numpy array or a CPU torch tensor, not a {type}").format(
        type=type(array).__name__))


def _scan_torch() -> None:
    """Remember every live CPU torch tensor's storage (one pass over the objects the collector tracks)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return
    base = torch.Tensor
    with torch._C.DisableTorchFunction():  # the real devices, whatever a mode (the runner's) says
        for obj in gc.get_objects():
            if issubclass(type(obj), base) and obj.device.type == "cpu":
                try:
                    storage = obj.untyped_storage()
                except (RuntimeError, NotImplementedError):
                    continue
                _remember(storage.data_ptr(), storage.nbytes(), obj)


def storage_device(t) -> str:
    """The type of the device a torch tensor's data is on (``"cpu"``), whatever a torch function mode says:
    under the runner every tensor says ``cuda:0`` (:mod:`kernellab.triton.runner.devices`), and its data is in
    CPU memory."""
    import torch

    with torch._C.DisableTorchFunction():
        return t.device.type


def _bytes_of(owner) -> np.ndarray:
    """A uint8 view of the whole memory of ``owner`` (a numpy array, or a torch tensor's storage)."""
    if isinstance(owner, np.ndarray):
        return owner.reshape(-1).view(np.uint8) if owner.flags.c_contiguous else owner.T.reshape(-1).view(np.uint8)
    import torch

    u = torch.empty(0, dtype=torch.uint8)
    u.set_(owner.untyped_storage())
    return u.numpy()


def _find(addr: int):
    """``(start, bytes, owner)`` of the live region holding ``addr``, or None."""
    starts = sorted(_REGIONS)
    i = bisect.bisect_right(starts, addr) - 1
    while i >= 0:
        start = starts[i]
        nbytes, ref = _REGIONS[start]
        owner = ref()
        if owner is None:
            del _REGIONS[start]
        elif addr < start + nbytes:
            return start, nbytes, owner
        else:
            return None
        i -= 1
    return None


def region_of(addr: int):
    """``(start, bytes, owner)`` of the array holding ``addr`` (scanning torch tensors once when unknown), or None."""
    found = _find(addr)
    if found is None:
        _scan_torch()
        found = _find(addr)
    return found


def pointed_at(addresses, elem, prog) -> tuple[np.ndarray, np.ndarray]:
    """``(flat, offsets)``: the array that int64 ``addresses`` (a kernellab tensor) point into, as elements of
    type ``elem``, and their element offsets in it (the pointer block of ``addresses.to(tl.pointer_type(elem))``,
    see the module)."""
    storage = elem.storage if elem.__class__ is T.float_format else elem.np
    width = np.dtype(storage).itemsize
    data = np.asarray(addresses.data).astype(np.int64, copy=False)
    values = np.unique(data)
    first = region_of(int(values[0]))
    regions = [first] + [None] * (len(values) - 1)
    for k, v in enumerate(values[1:], 1):
        r = first if first is not None and first[0] <= v < first[0] + first[1] else region_of(int(v))
        regions[k] = r
    for v, r in zip(values, regions):
        if r is None:
            row = _row_of(data, v, prog)
            raise OutOfBoundsError(
                _("{place}: address {address:#x} is inside no array kernellab knows (a launch argument, a live CPU "
                  "torch tensor, or an array given to kernellab.triton.register_array)").format(
                    place=prog.where(row), address=int(v)),
                kernel=prog.kernel, program=fmt_dim3(prog.pids[row]), address=int(v))
        if (int(v) - r[0]) % width:
            row = _row_of(data, v, prog)
            raise MisalignedError(
                _("{place}: address {address:#x} is {offset} bytes into its array, not a multiple of the {width}-byte "
                  "{dtype}").format(place=prog.where(row), address=int(v), offset=int(v) - r[0], width=width,
                                    dtype=elem.name),
                kernel=prog.kernel, program=fmt_dim3(prog.pids[row]), address=int(v))
    if any(r[0] != first[0] for r in regions):
        raise Divergence  # programs of this step point into different arrays: each gets its own pointer
    start, nbytes, owner = first
    flat = _bytes_of(owner)[:nbytes // width * width].view(storage)
    return flat, (data - start) // width


def _row_of(data: np.ndarray, value, prog) -> int:
    """The first program (row of the step) whose addresses hold ``value``."""
    hits = np.nonzero((data == value).reshape(data.shape[0], -1).any(axis=1))[0] if data.ndim else [0]
    row = int(hits[0]) if len(hits) else 0
    return row if data.ndim and data.shape[0] == prog.P else 0


__all__ = ["pointed_at", "region_of", "register_array", "storage_device"]
