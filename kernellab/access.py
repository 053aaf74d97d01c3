"""The memory access record, and every memory counter as a pure function of it.

One warp instruction's access is the byte address of each lane plus the mask of active lanes
(Triton's interpreter materialises pointer blocks the same way). The SIMT simulator and mini-Triton
both build an :class:`~kernellab.Access` and count it here, so the two engines cannot disagree on a sector.

Definitions follow the Nsight Compute Kernel Profiling Guide: a *request* is one warp instruction's
command to L1TEX; a *sector* is an aligned 32-byte chunk; a *line* (a tag) is an aligned 128-byte
cache line of four sectors; a shared-memory *wavefront* is one cycle's worth of bank accesses.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

WARP_SIZE = 32  # lanes per warp (all CUDA GPUs so far)
SECTOR_BYTES = 32  # bytes per sector, the unit of L1/L2/DRAM transfer
LINE_BYTES = 128  # bytes per L1/L2 cache line: four sectors
BANKS = 32  # shared-memory banks
BANK_BYTES = 4  # bytes each bank serves per cycle: successive 32-bit words map to successive banks
WAVEFRONT_BYTES = BANKS * BANK_BYTES  # 128 B: what shared memory returns in one cycle


@dataclass(frozen=True)
class Access:
    """One warp instruction's memory access, for many warps at once.

    Attributes
    ----------
    addresses : numpy.ndarray
        int64 byte address of each lane, shape ``(warps, 32)``; lane ``l`` of row ``w`` is the
        thread ``32·w + l`` of the linear thread index.
    active : numpy.ndarray
        bool, same shape: the lanes that execute the instruction. Inactive lanes access nothing.
    width : int
        bytes each active lane moves: 1, 2, 4, 8 or 16 (a float4 is one 16-byte access).

    Examples
    --------
    >>> acc = Access.from_lanes(np.arange(32) * 4, width=4)   # 32 consecutive floats
    >>> requests(acc), sectors(acc), lines(acc), bytes_requested(acc)
    (1, 4, 1, 128)
    """

    addresses: np.ndarray
    active: np.ndarray
    width: int

    @classmethod
    def from_lanes(cls, addresses, active=None, width: int = 4, aligned: bool | None = None) -> Access:
        """Build a record from a flat vector over lanes, padding the last warp with inactive lanes.

        ``addresses`` is a 1-D array of byte addresses (thread ``t`` at position ``t``); ``active``
        a bool array of the same length, all lanes when omitted. ``aligned=True`` is a caller's
        guarantee that every active address is a multiple of ``width`` (the SIMT simulator checks
        alignment before it records an access); it saves recomputing :attr:`aligned`.
        """
        addr = np.asarray(addresses, dtype=np.int64).ravel()
        if active is None:
            act = np.ones(addr.shape, bool)
        elif isinstance(active, np.ndarray) and active.shape == addr.shape:
            act = active
        else:
            act = np.broadcast_to(active, addr.shape).ravel()
        if width not in (1, 2, 4, 8, 16):
            raise ValueError(f"access width must be 1, 2, 4, 8 or 16 bytes, not {width}")
        pad = -addr.size % WARP_SIZE
        if pad:
            addr = np.concatenate([addr, np.zeros(pad, np.int64)])
            act = np.concatenate([act, np.zeros(pad, bool)])
        acc = cls(addr.reshape(-1, WARP_SIZE), np.asarray(act, bool).reshape(-1, WARP_SIZE), width)
        if aligned:
            acc.__dict__["aligned"] = True  # pre-fill the cached property
        return acc

    @cached_property
    def aligned(self) -> bool:
        """Whether every active lane's address is a multiple of ``width`` (computed once per record).

        An aligned access never straddles a sector or a line: sectors and lines are multiples of
        every width.
        """
        if self.width == 1:
            return True
        misaligned = self.addresses & (self.width - 1)  # widths are powers of two
        return not (misaligned.any() if self.active.all() else misaligned[self.active].any())

    @cached_property
    def ordered(self) -> bool:
        """Whether every lane is active and each warp's addresses never decrease from lane to lane.

        Coalesced, strided and broadcast accesses are ordered; their sectors and lines are counted in
        one pass instead of a sort (computed once per record).
        """
        if not self.active.all():
            return False
        flat = self.addresses.ravel()
        up = flat[1:] >= flat[:-1]
        up[WARP_SIZE - 1 :: WARP_SIZE] = True  # a warp's last lane against the next warp's first: not compared
        return bool(up.all())


def _distinct_per_row(ids: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Number of distinct non-negative ids among the valid entries of each row.

    Rows that are fully valid and already in order (coalesced, strided and broadcast accesses) are
    counted in one pass — an id is new where it differs from its left neighbour; the others are sorted.
    """
    out = np.zeros(ids.shape[0], np.int64)
    step = np.diff(ids, axis=1)
    ordered = valid.all(axis=1) & ((step >= 0).all(axis=1) | (step <= 0).all(axis=1))
    out[ordered] = 1 + np.count_nonzero(step[ordered], axis=1)
    rest = ~ordered & valid.any(axis=1)
    if rest.any():
        s = np.sort(np.where(valid[rest], ids[rest], -1), axis=1)
        new = s >= 0
        new[:, 1:] &= s[:, 1:] != s[:, :-1]
        out[rest] = new.sum(axis=1)
    return out


def _distinct_total(ids: np.ndarray, valid: np.ndarray) -> int:
    """Distinct valid ids per row, summed over rows (what a counter over many warps needs).

    Fast path: when every entry is valid and every row is non-decreasing, a flat pass counts the
    places where an id differs from its left neighbour in the same row. Otherwise
    :func:`_distinct_per_row`. Both give the same number.
    """
    width = ids.shape[1]
    if ids.size and valid.all():
        flat = ids.ravel()
        up = flat[1:] >= flat[:-1]
        up[width - 1 :: width] = True  # a row's last entry against the next row's first: not compared
        if up.all():
            return _changes(ids)
    return int(_distinct_per_row(ids, valid).sum())


def _changes(ids: np.ndarray) -> int:
    """Distinct ids per row summed over rows, for rows already in order: 1 + the places an id changes."""
    flat = ids.ravel()
    change = flat[1:] != flat[:-1]
    return ids.shape[0] + int(np.count_nonzero(change)) - int(np.count_nonzero(change[ids.shape[1] - 1 :: ids.shape[1]]))


def _distinct_chunks(acc: Access, unit: int) -> int:
    """Distinct ``unit``-byte chunks per request, summed: the count behind :func:`sectors` and :func:`lines`."""
    ids, valid = _span_ids(acc, unit)
    if acc.aligned and acc.ordered:  # one chunk id per lane, in order within each warp
        return _changes(ids)
    return _distinct_total(ids, valid)


def _span_ids(acc: Access, unit: int) -> tuple[np.ndarray, np.ndarray]:
    """Ids of the ``unit``-byte chunks holding each lane's first and last byte, with their mask.

    When every active lane is aligned to its width, its first and last byte share a chunk (``unit`` is
    a multiple of every width), so the first byte's chunk alone is returned.
    """
    cache = acc.__dict__.setdefault("_span_cache", {})  # sectors and the DRAM union both need unit 32
    if unit not in cache:
        cache[unit] = _span_ids_uncached(acc, unit)
    return cache[unit]


def _span_ids_uncached(acc: Access, unit: int) -> tuple[np.ndarray, np.ndarray]:
    shift = unit.bit_length() - 1  # units are powers of two: a shift is floor division
    first = acc.addresses >> shift
    if acc.aligned:
        return first, acc.active
    last = (acc.addresses + acc.width - 1) >> shift
    return np.concatenate([first, last], axis=1), np.concatenate([acc.active, acc.active], axis=1)


def requests(acc: Access) -> int:
    """Requests: warp instructions with at least one active lane (a warp with none issues nothing).

    Nsight Compute: ``l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`` — one request per warp-level
    global memory instruction, whatever its width.
    """
    if acc.active.all():
        return acc.active.shape[0]
    return int(np.count_nonzero(acc.active.any(axis=1)))


def sectors(acc: Access) -> int:
    """Sectors: distinct aligned 32-byte chunks each request touches, summed over requests.

    Nsight Compute: ``l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum`` (nvprof ``gld_transactions``).
    32 lanes reading 32 consecutive floats touch 4 sectors; 32 lanes on 32 different lines touch 32.
    """
    return _distinct_chunks(acc, SECTOR_BYTES)


def lines(acc: Access) -> int:
    """Lines (tags): distinct aligned 128-byte cache lines each request touches, summed over requests.

    The L1 looks up one tag per line a request touches; the performance model charges L1 one cycle
    per line (the lecture's "L1 每周期 1 个 line").
    """
    return _distinct_chunks(acc, LINE_BYTES)


def bytes_requested(acc: Access) -> int:
    """Bytes the active lanes ask for: active lanes × width (``l1tex__t_bytes`` requested, not moved)."""
    return int(np.count_nonzero(acc.active)) * acc.width


def sector_ids(acc: Access) -> np.ndarray:
    """The distinct sector ids (address // 32) the active lanes touch, over all warps, sorted.

    Union them over a launch, per array, for the compulsory DRAM traffic: each sector must come from
    DRAM at least once.
    """
    return np.unique(lane_sector_ids(acc))


def lane_sector_ids(acc: Access) -> np.ndarray:
    """The sector ids the active lanes touch, unsorted and with repeats (:func:`sector_ids` unsorted).

    For a union kept as a bitmap over an array's sectors, which needs no sort.

    Examples
    --------
    >>> lane_sector_ids(Access.from_lanes([0, 4, 64], width=4)).tolist()
    [0, 0, 2]
    """
    ids, valid = _span_ids(acc, SECTOR_BYTES)
    return ids.ravel() if valid.all() else ids[valid]


def _pairs_share(acc: Access, xor: int) -> np.ndarray:
    """Per warp: whether every active lane's partner ``lane ^ xor`` is inactive or reads the same address."""
    partner = np.arange(WARP_SIZE) ^ xor
    a, act = acc.addresses, acc.active
    same = (a == a[:, partner]) | ~act[:, partner]
    return (same | ~act).all(axis=1)


def phase_lanes(acc: Access) -> np.ndarray:
    """Lanes per phase for each warp: how many lanes shared memory serves together (the uniform-pair rule).

    A phase moves at most 128 bytes (one wavefront with no conflict): a 32-bit access is one phase
    of 32 lanes, a 64-bit access two half-warps, a 128-bit access four quarter-warps. The measured
    exception: when lanes pair up on one address, the phase takes twice as many lanes —

    * 64-bit: every lane pair (n, n^1) shares an address → one phase of 32 lanes;
    * 128-bit: every pair (n, n^1), or every pair (n, n^2), shares an address → two phases of 16.

    (A pair shares when both lanes read the same address or one of them is inactive.)

    Evidence: NVIDIA's answer for CC 7.x, "LDS.128 requires 4 requests … if the guidelines are met
    … should reduce from 4 to 2" (forums.developer.nvidia.com/t/77228/2), and Nsight Compute on an
    A10 (CC 8.6) and an H100 (forums.developer.nvidia.com/t/373160): an ``LDS.128`` with lanes 0–15
    on one address and 16–31 on another takes 2 wavefronts, not 4; one with lanes i and i+16 on
    one of 16 addresses 32 B apart takes 8 (no pair shares, quarter-warps with 2-way conflicts).
    A full-warp broadcast is not merged further (two phases for a 128-bit access): nothing measured
    says it is.

    Examples
    --------
    >>> halves = Access.from_lanes(np.repeat([0, 32], 16), width=16)   # lanes 0-15 → +0 B, 16-31 → +32 B
    >>> int(phase_lanes(halves)[0]), int(phase_lanes(Access.from_lanes(np.arange(32) * 16, width=16))[0])
    (16, 8)
    """
    if acc.width <= BANK_BYTES:
        return np.full(acc.addresses.shape[0], WARP_SIZE)
    lanes = np.full(acc.addresses.shape[0], WAVEFRONT_BYTES // acc.width)
    merged = _pairs_share(acc, 1)
    if acc.width == 16:
        merged |= _pairs_share(acc, 2)
    lanes[merged] *= 2
    return lanes


def _phases(acc: Access) -> list[tuple[np.ndarray, np.ndarray]]:
    """Split each warp into the phases shared memory serves one after another (see :func:`phase_lanes`).

    Returns groups of phases with the same number of lanes: each group's word ids (4-byte words,
    one row per phase, one column per word a lane touches) and their mask.
    """
    words_per_lane = max(1, acc.width // BANK_BYTES)
    base = acc.addresses // BANK_BYTES
    words = (base[..., None] + np.arange(words_per_lane)).reshape(base.shape[0], -1)
    valid = np.repeat(acc.active, words_per_lane, axis=1)
    lanes = phase_lanes(acc)
    groups = []
    for n in np.unique(lanes):
        rows = lanes == n
        cols = int(n) * words_per_lane
        groups.append((words[rows].reshape(-1, cols), valid[rows].reshape(-1, cols)))
    return groups


def _max_bank_load(words: np.ndarray, valid: np.ndarray) -> int:
    """Sum over phases of the largest number of distinct words any one bank must serve."""
    s = np.sort(np.where(valid, words, -1), axis=1)
    distinct = s >= 0
    distinct[:, 1:] &= s[:, 1:] != s[:, :-1]
    rows = np.repeat(np.arange(s.shape[0]), s.shape[1]).reshape(s.shape)
    per_bank = np.bincount((rows * BANKS + s % BANKS)[distinct], minlength=s.shape[0] * BANKS)
    return int(per_bank.reshape(-1, BANKS).max(axis=1).sum())


def shared_wavefronts(acc: Access) -> int:
    """Shared-memory wavefronts: cycles the 32 banks need to serve the access.

    Nsight Compute: ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum``. In each phase (see
    :func:`phase_lanes`) a bank serves one 4-byte word per cycle; lanes reading the same word
    share it (broadcast). A phase therefore takes as many wavefronts as the largest number of
    distinct words that fall into one bank; a phase with no active lane takes none.

    Examples
    --------
    >>> shared_wavefronts(Access.from_lanes(np.repeat([0, 32], 16), width=16))   # 2 phases, 1 word per bank
    2
    """
    return sum(_max_bank_load(w, v) for w, v in _phases(acc))


def shared_ideal_wavefronts(acc: Access) -> int:
    """Wavefronts with no bank conflict: one per phase that has an active lane.

    A full warp of 32-bit accesses ideally takes 1 wavefront, of 128-bit accesses 4 (512 B at 128 B
    per wavefront), or 2 when lanes pair up on one address (:func:`phase_lanes`).
    """
    return sum(int(v.any(axis=1).sum()) for _, v in _phases(acc))


def bank_conflicts(acc: Access) -> int:
    """Bank conflicts: wavefronts beyond the ideal, as Nsight Compute reports them.

    ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum`` = wavefronts − ideal wavefronts.

    Examples
    --------
    >>> col = Access.from_lanes(np.arange(32) * 32 * 4, width=4)   # a column of a 32×32 float tile
    >>> shared_wavefronts(col), bank_conflicts(col)                  # every lane in bank 0
    (32, 31)
    """
    return shared_wavefronts(acc) - shared_ideal_wavefronts(acc)
