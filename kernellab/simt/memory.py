"""Memory of one launch: global arrays at byte addresses, and per-block ``__shared__`` arrays.

Global memory is the kernel's numpy arguments, each placed at a 256-byte aligned address (as
``cudaMalloc`` aligns) and addressed by flat element index; shared memory is one copy of each
``__shared__`` array per block. Every access becomes an :class:`~kernellab.Access` for counting.
"""

from __future__ import annotations

import numpy as np

from kernellab.i18n import _

from ..access import SECTOR_BYTES, WARP_SIZE, Access, sector_set
from ..errors import LaunchError
from ..grid import cdiv

ALLOC_ALIGN = 256  # bytes: cudaMalloc returns pointers aligned to at least 256 bytes
SHARED_ALIGN = 16  # bytes: each __shared__ array starts on a 16-byte boundary, so float4 access is legal


class GlobalArray:
    """One global array: its name, flat view, base byte address and the DRAM sectors touched so far."""

    def __init__(self, name: str, array: np.ndarray, base: int, touched: np.ndarray, kernel: str = "kernel"):
        if not isinstance(array, np.ndarray) or not array.flags.c_contiguous or array.dtype.kind not in "biuf":
            raise LaunchError(_("kernel {kernel}: global array {name} must be a C-contiguous numeric numpy array").format(
                kernel=kernel, name=name), kernel=kernel, array=name)
        self.name = name
        self.array = array
        self.flat = np.asarray(array).reshape(-1)  # a plain view: stores reach the caller's array
        self.size = array.size
        self.itemsize = array.itemsize
        self.base = base
        self.touched = touched  # one flag per 32-byte sector of the array: a view of the launch's bitmap


class GlobalMemory:
    """The global arrays of one launch, found by identity; arrays not passed as arguments are added on first use."""

    def __init__(self, named: dict[str, np.ndarray], kernel: str = "kernel"):
        self.kernel = kernel  # the launch's kernel, named by errors about an array it uses
        self._by_id: dict[int, GlobalArray] = {}
        self._alias: dict[int, GlobalArray] = {}  # the views the kernel receives → their arrays
        self._next = 0
        end = sum(cdiv(max(a.nbytes, 1), ALLOC_ALIGN) * ALLOC_ALIGN for a in named.values())
        self._touched = np.zeros(end // SECTOR_BYTES, bool)  # one flag per sector of the address space
        self.first_touch = None  # launch(lines=True): called (array name, sectors) with the sectors an access touches first
        for name, arr in named.items():
            self.add(name, arr)

    def add(self, name: str, arr: np.ndarray) -> GlobalArray:
        """Place ``arr`` at the next aligned address (once: a second name for it is ignored)."""
        if id(arr) not in self._by_id:
            size = cdiv(max(arr.nbytes, 1), ALLOC_ALIGN) * ALLOC_ALIGN
            end = (self._next + size) // SECTOR_BYTES
            if end > self._touched.size:  # an array met in the kernel, not passed as an argument
                self._touched = np.concatenate([self._touched, np.zeros(end - self._touched.size, bool)])
                for g in self._by_id.values():
                    g.touched = self._touched[g.base // SECTOR_BYTES:][: g.touched.size]
            first = self._next // SECTOR_BYTES
            g = GlobalArray(name, arr, self._next, self._touched[first:first + cdiv(arr.nbytes, SECTOR_BYTES)],
                            self.kernel)
            self._next += size
            self._by_id[id(arr)] = g
        return self._by_id[id(arr)]

    def alias(self, view: np.ndarray, arr: np.ndarray) -> None:
        """Know ``view`` (a view the kernel receives) as the array ``arr`` already placed."""
        self._alias[id(view)] = self._by_id[id(arr)]

    def mark(self, acc: Access) -> None:
        """Add the sectors ``acc`` touches to the compulsory DRAM traffic (a union over the launch).

        When ``first_touch`` is set, it is told how many of them no earlier access touched, and in
        which array: what :mod:`kernellab.lines` charges to the access's line.
        """
        self.mark_ids(_fewer_repeats(sector_set(acc)))

    def mark_ids(self, ids: np.ndarray) -> None:
        """:meth:`mark` for the sector ids (into the launch's address space, repeats allowed) an access touches."""
        if self.first_touch is not None and ids.size:
            touched = self._touched
            new = ids[~touched[ids]]  # with repeats; every other id is marked already
            if new.size:
                lo, hi = int(new.min()), int(new.max())
                if hi - lo < _SPAN_PER_ID * new.size:  # how many are distinct: the flags they set in their range
                    before = int(np.count_nonzero(touched[lo:hi + 1]))
                    touched[new] = True
                    self.first_touch(self._name_of_sector(lo), int(np.count_nonzero(touched[lo:hi + 1])) - before)
                    return
                self.first_touch(self._name_of_sector(lo), int(np.unique(new).size))
        self._touched[ids] = True

    def _name_of_sector(self, sector: int) -> str:
        """The name of the array holding sector ``sector`` of the address space.

        One holds it: a sector is marked only for an access checked in bounds of its array (:class:`~kernellab.Block`
        checks every access, or a moved one's reference and its move), and an array starts on an ``ALLOC_ALIGN``
        boundary, a whole number of sectors, so its elements lie in its own ``⌈nbytes ÷ 32⌉`` sectors."""
        return next(g.name for g in self._by_id.values()
                    if g.base // SECTOR_BYTES <= sector < g.base // SECTOR_BYTES + g.touched.size)

    def lookup(self, arr) -> GlobalArray:
        """The :class:`GlobalArray` for ``arr``."""
        g = self._alias.get(id(arr))  # the kernel's view, most often
        if g is None:
            g = self._by_id.get(id(arr))
        return g if g is not None else self.add(f"global{len(self._by_id)}", arr)

    def dram_sectors(self) -> dict[str, int]:
        """Distinct 32-byte sectors touched per array name (arrays never touched left out)."""
        out: dict[str, int] = {}
        for g in self._by_id.values():
            n = int(np.count_nonzero(g.touched))
            if n:
                out[g.name] = out.get(g.name, 0) + n
        return out


#: The widest range of sector ids, per new id, whose flags :meth:`GlobalMemory.mark_ids` counts (before and after
#: setting them) to find how many new ids are distinct; a wider one is sorted out by np.unique (an optimisation: a
#: pass over a flag costs far less than hashing an id)
_SPAN_PER_ID = 64
_REPEATS_WORTH_DROPPING = 4096  # ids: below this, setting them all is cheaper than looking for repeats


def _fewer_repeats(ids: np.ndarray) -> np.ndarray:
    """The same set of sector ids, mostly without the repeats a warp's accesses make (an optimisation).

    Drops every id equal to the one 1 place before it (lanes of a warp in one sector) or 32 places before
    (the same lane of the warp before, as when a block's warps read the same row). A dropped id equals an
    earlier one, and the first place of each value is never dropped, so the set is unchanged; setting
    bitmap flags by index costs about 17 times a plain pass over the ids, so fewer of them is faster.

    >>> _fewer_repeats(np.repeat(np.arange(3), 2000)).tolist()
    [0, 1, 2]
    """
    if ids.size <= _REPEATS_WORTH_DROPPING:
        return ids
    keep = np.empty(ids.size, bool)
    keep[0] = True
    np.not_equal(ids[1:], ids[:-1], out=keep[1:])
    keep[WARP_SIZE:] &= ids[WARP_SIZE:] != ids[:-WARP_SIZE]
    return ids[keep]


class SharedArray:
    """A ``__shared__`` array: one copy per block, addressed like global memory by flat element index.

    Float arrays start filled with NaN, so a value read before any thread wrote it shows up in the
    result (CUDA shared memory starts undefined).

    Attributes
    ----------
    name : str
        shown in error messages, e.g. ``As``.
    shape : tuple
        the per-block shape as declared.
    offset : int
        byte offset of element 0 in the block's shared memory: what decides the banks.
    data : numpy.ndarray
        the storage, shape ``(blocks, size)``.
    """

    def __init__(self, name: str, shape, dtype, n_blocks: int, offset: int):
        self.name = name
        self.shape = tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        self.dtype = np.dtype(dtype)
        self.size = int(np.prod(self.shape))
        self.itemsize = self.dtype.itemsize
        self.nbytes = self.size * self.itemsize
        self.offset = offset
        fill = np.nan if self.dtype.kind == "f" else 0
        self.data = np.full((n_blocks, self.size), fill, self.dtype)

    def __repr__(self) -> str:
        return f"SharedArray({self.name!r}, shape={self.shape}, dtype={self.dtype.name}, offset={self.offset})"

    def block(self, b: int) -> np.ndarray:
        """Block ``b``'s copy, in the declared shape (for inspecting a kernel's shared memory)."""
        return self.data[b].reshape(self.shape)
