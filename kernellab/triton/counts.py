"""What a mini-Triton launch counts, and the tally that gathers it while programs run.

Every memory count goes through :mod:`kernellab.access`: a program's block of pointers, flattened
row-major, is split into warps of 32 lanes (an approximation: real Triton chooses its own layout;
bytes are exact whatever the layout). Counting is deferred and done in bulk, since the counters are
pure functions of the access records.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from ..access import WARP_SIZE, Access, bytes_requested, requests, sectors


@dataclass(frozen=True)
class TritonCounts:
    """Counts of one launch (or a sum of launches), readable as ``cnt["load_bytes"]`` like the seed's dict.

    Examples
    --------
    >>> c = TritonCounts(programs=2, load_bytes=256, store_bytes=128)
    >>> c["programs"], c["load_bytes"] + c["store_bytes"], (c + c).programs
    (2, 384, 4)
    """

    programs: int = 0  # program instances run
    loads: int = 0  # tl.load calls, summed over programs
    stores: int = 0  # tl.store calls, summed over programs
    load_bytes: int = 0  # bytes the active (masked-in) lanes load
    store_bytes: int = 0  # bytes the active lanes store
    load_requests: int = 0  # warp-level load requests: 32 lanes of a program's flattened block each
    load_sectors: int = 0  # 32-byte sectors those requests touch
    store_requests: int = 0  # warp-level store requests
    store_sectors: int = 0  # 32-byte sectors stores touch
    dot_flops: int = 0  # 2·M·N·K per tl.dot of an M×K by K×N block, per program
    atomics: int = 0  # tl.atomic_* calls, summed over programs
    atomic_bytes: int = 0  # active lanes × element size: the operands atomics send (old values come back alike)
    atomic_requests: int = 0  # warp-level atomic requests (Nsight: l1tex__t_requests_pipe_lsu_mem_global_op_atom)
    atomic_sectors: int = 0  # 32-byte sectors atomics touch
    per_program: dict | None = field(default=None, compare=False, repr=False)  # (x,y,z) → TritonCounts

    @property
    def requests(self) -> int:
        """Load and store requests together."""
        return self.load_requests + self.store_requests

    @property
    def sectors(self) -> int:
        """Load and store sectors together."""
        return self.load_sectors + self.store_sectors

    def __getitem__(self, key: str):
        if key in _NAMES or key in ("requests", "sectors"):
            return getattr(self, key)
        raise KeyError(key)

    def keys(self) -> tuple[str, ...]:
        """The names ``cnt[name]`` accepts."""
        return (*_NAMES, "requests", "sectors")

    def __add__(self, other: TritonCounts) -> TritonCounts:
        """Counts of two launches together (per-program breakdowns are dropped)."""
        return TritonCounts(**{n: getattr(self, n) + getattr(other, n) for n in _NAMES})


def count_access(addresses: np.ndarray, active: np.ndarray | None, width: int) -> tuple[int, int, int]:
    """Requests, sectors and bytes of ``(programs, lanes)`` byte addresses, each program's lanes in their own warps.

    Every address is a multiple of ``width`` (arrays start aligned; offsets are whole elements).

    Examples
    --------
    >>> count_access(np.arange(64)[None] * 4, None, 4)         # 64 floats: 2 warps × 4 sectors
    (2, 8, 256)
    >>> count_access(np.zeros((3, 1), np.int64), None, 4)      # 3 programs read one float each
    (3, 3, 12)
    """
    rows, lanes = addresses.shape
    pad = -lanes % WARP_SIZE
    if pad:  # each program's lanes start a new warp
        active = np.ones(addresses.shape, bool) if active is None else active
        addresses = np.concatenate([addresses, np.zeros((rows, pad), np.int64)], axis=1)
        active = np.concatenate([active, np.zeros((rows, pad), bool)], axis=1)
    acc = Access.from_lanes(addresses.ravel(), None if active is None else active.ravel(), width, aligned=True)
    return requests(acc), sectors(acc), bytes_requested(acc)


_NAMES = tuple(f.name for f in fields(TritonCounts) if f.name != "per_program")
_FLUSH_LANES = 1 << 20  # count pending small accesses once this many lanes have gathered


class Tally:
    """Mutable accumulator for one launch (or one batch of its programs); :meth:`result` freezes it."""

    __slots__ = ("n", "_pending", "_pending_lanes")

    def __init__(self):
        self.n = dict.fromkeys(_NAMES, 0)
        self._pending: dict[tuple, list] = {}
        self._pending_lanes = 0

    def access(self, kind: str, addresses: np.ndarray, active: np.ndarray | None, width: int, copies: int = 1):
        """Record one ``tl.load`` / ``tl.store`` executed by ``copies`` programs alike per row of ``addresses``.

        ``addresses`` is ``(rows, lanes)`` int64 byte addresses, one row per program; ``active`` the
        same shape (``None``: all lanes). ``kind`` is ``"load"``, ``"store"`` or ``"atomic"``.
        """
        rows, lanes = addresses.shape
        self.n[kind + "s"] += rows * copies
        self._pending.setdefault((kind, width, copies, lanes), []).append((addresses, active))
        self._pending_lanes += addresses.size
        if self._pending_lanes >= _FLUSH_LANES:
            self.flush()

    def flops(self, n: int):
        """Record ``n`` dot FLOPs."""
        self.n["dot_flops"] += n

    def counted(self, kind: str, instructions: int, requests: int, sectors: int, nbytes: int):
        """Add an access already counted by :func:`count_access` (``instructions`` programs ran it)."""
        n = self.n
        n[kind + "s"] += instructions
        n[kind + "_requests"] += requests
        n[kind + "_sectors"] += sectors
        n[kind + "_bytes"] += nbytes

    def flush(self):
        """Count every pending access through :mod:`kernellab.access`."""
        for (kind, width, copies, _), parts in self._pending.items():
            addr = parts[0][0] if len(parts) == 1 else np.concatenate([a for a, _ in parts])
            if all(m is None for _, m in parts):
                active = None
            else:
                active = np.concatenate([np.ones(a.shape, bool) if m is None else m for a, m in parts])
            req, sec, nbytes = count_access(addr, active, width)
            self.n[kind + "_bytes"] += nbytes * copies
            self.n[kind + "_requests"] += req * copies
            self.n[kind + "_sectors"] += sec * copies
        self._pending.clear()
        self._pending_lanes = 0

    def merge(self, other: Tally):
        """Add another tally's counts into this one."""
        other.flush()
        for k, v in other.n.items():
            self.n[k] += v

    def result(self, per_program: dict | None = None) -> TritonCounts:
        """The frozen counts."""
        self.flush()
        return TritonCounts(**self.n, per_program=per_program)
