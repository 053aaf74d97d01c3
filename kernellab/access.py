"""The memory access record, and every memory counter as a pure function of it.

One warp instruction's access is the byte address of each lane plus the mask of active lanes
(Triton's interpreter materialises pointer blocks the same way). The SIMT simulator and mini-Triton
both build an :class:`~kernellab.Access` and count it here, so the two engines cannot disagree on a sector.

Definitions follow the Nsight Compute Kernel Profiling Guide: a *request* is one warp instruction's
command to L1TEX; a *sector* is an aligned 32-byte chunk; a *line* (a tag) is an aligned 128-byte
cache line of four sectors; a shared-memory *wavefront* is one cycle's worth of bank accesses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from kernellab.i18n import _

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
    known_aligned : bool
        the caller's guarantee that every active address is a multiple of ``width`` (see
        :meth:`from_lanes`); when False, :attr:`aligned` computes it.

    Examples
    --------
    >>> acc = Access.from_lanes(np.arange(32) * 4, width=4)   # 32 consecutive floats
    >>> requests(acc), sectors(acc), lines(acc), bytes_requested(acc)
    (1, 4, 1, 128)
    """

    addresses: np.ndarray
    active: np.ndarray
    width: int
    known_aligned: bool = field(default=False, repr=False, compare=False)
    # what the counters derive from the record, computed once each (a declared mutable field: the
    # record itself is never changed)
    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)

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
            raise ValueError(_("access width must be 1, 2, 4, 8 or 16 bytes, not {width}").format(
                width=width))
        pad = -addr.size % WARP_SIZE
        if pad:
            addr = np.concatenate([addr, np.zeros(pad, np.int64)])
            act = np.concatenate([act, np.zeros(pad, bool)])
        acc = cls(addr.reshape(-1, WARP_SIZE), np.asarray(act, bool).reshape(-1, WARP_SIZE), width,
                  known_aligned=bool(aligned))
        if active is None and not pad:
            acc._memo["every"] = True  # every lane active: known, not looked for (see every_active)
        return acc

    def _derived(self, key, compute):
        """``compute()``, remembered under ``key`` for this record."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def rows(self, which: np.ndarray) -> Access:
        """The warps selected by ``which`` (a bool vector over warps) as a record of their own."""
        return Access(self.addresses[which], self.active[which], self.width, known_aligned=self.aligned)

    @property
    def aligned(self) -> bool:
        """Whether every active lane's address is a multiple of ``width`` (computed once per record).

        An aligned access never straddles a sector or a line: sectors and lines are multiples of
        every width.
        """
        if self.known_aligned or self.width == 1:
            return True
        return self._derived("aligned", self._misaligned_free)

    def _misaligned_free(self) -> bool:
        misaligned = self.addresses & (self.width - 1)  # widths are powers of two
        return not (misaligned.any() if self.every_active else misaligned[self.active].any())

    @property
    def every_active(self) -> bool:
        """Whether every lane is active (computed once per record; what most counters ask first)."""
        got = self._memo.get("every")
        if got is None:
            got = self._memo["every"] = bool(_all(self.active, axis=None))
        return got

    @property
    def ordered(self) -> bool:
        """Whether every lane is active and each warp's addresses never decrease from lane to lane.

        Coalesced, strided and broadcast accesses are ordered; their sectors and lines are counted in
        one pass instead of a sort (computed once per record).
        """
        return self._derived("ordered", self._ordered)

    def _ordered(self) -> bool:
        if not self.every_active:
            return False
        flat = self.addresses.ravel()
        up = flat[1:] >= flat[:-1]
        up[WARP_SIZE - 1 :: WARP_SIZE] = True  # a warp's last lane against the next warp's first: not compared
        return bool(up.all())


def _distinct_per_row(ids: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Number of distinct ids among the valid entries of each row.

    Each row is sorted with its invalid entries replaced by the largest int64, so its ``n`` valid ids are
    its ``n`` smallest values (a valid id equal to that largest value is the same value either way); the
    distinct ones are 1 + the places where a value differs from its left neighbour among those ``n``.
    """
    rows, width = ids.shape
    if width == 0:
        return np.zeros(rows, np.int64)
    if valid.all():
        s = np.sort(ids, axis=1)
        out = np.count_nonzero(s[:, 1:] != s[:, :-1], axis=1).astype(np.int64)
        out += 1
        return out
    s = np.sort(np.where(valid, ids, np.iinfo(np.int64).max), axis=1)
    n = np.count_nonzero(valid, axis=1)
    change = s[:, 1:] != s[:, :-1]
    change &= np.arange(width - 1) < (n - 1)[:, None]  # only between two of the row's n smallest
    return np.where(n > 0, np.count_nonzero(change, axis=1) + 1, 0).astype(np.int64)


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


def _chunks_exact(acc: Access, unit: int) -> int:
    """Distinct ``unit``-byte chunks per request, summed: the reference count behind :func:`sectors` and :func:`lines`.

    An aligned record's lanes each touch one chunk, their address's: ordered warps are counted in one pass,
    the others from each warp's addresses sorted once for every unit (:func:`_distinct_sorted_total`).
    """
    if acc.aligned:
        if acc.ordered:  # one chunk id per lane, in order within each warp
            return _changes(_span_ids(acc, unit)[0])
        return _distinct_sorted_total(acc, unit.bit_length() - 1)
    return _distinct_total(*_span_ids(acc, unit))


_LAST = np.iinfo(np.int64).max  # where a masked-off lane sorts: after every address
# where a masked-off lane's word sorts in _max_bank_load: before every word (≥ −2^61); a 0-d array, which numpy
# selects and compares with faster than a Python int that large
_FIRST = np.array(np.iinfo(np.int64).min)
_STEP = [np.uint64(1 << k) for k in range(64)]
_BANK_SHIFT = BANK_BYTES.bit_length() - 1  # 2^k as the unsigned steps are compared with it
_all, _any, _add = np.logical_and.reduce, np.logical_or.reduce, np.add.reduce  # ndarray.all, any, sum: no wrapper


def _sorted_lanes(acc: Access) -> tuple[np.ndarray, np.ndarray]:
    """Each warp's active addresses in increasing order, its masked-off lanes after them (as the largest
    int64), and how many lanes of each warp are active (computed once per record)."""
    def compute():
        if acc.every_active:  # an ordered record's warps are in order already (coalesced, strided, broadcast)
            return acc.addresses if acc.ordered else np.sort(acc.addresses, axis=1), None
        return np.sort(np.where(acc.active, acc.addresses, _LAST), axis=1), _add(acc.active, axis=1)
    return acc._derived("sorted", compute)


def _sorted_steps(acc: Access) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None, int]:
    """What every distinct count of an aligned record reads, from each warp's sorted addresses
    (:func:`_sorted_lanes`), computed once per record: the bits in which neighbours differ, ``s[:, i + 1] ^
    s[:, i]`` as unsigned; the pairs of neighbours that are both active lanes (None: every lane is active);
    per warp, 1 if it has an active lane (None: every lane is active); and how many warps have one."""
    def compute():
        s, n = _sorted_lanes(acc)
        steps = (s[:, 1:] ^ s[:, :-1]).view(np.uint64)
        if n is None:
            return steps, None, None, s.shape[0]
        return steps, _LANES[: s.shape[1] - 1] < (n - 1)[:, None], (n > 0).astype(np.int64), int(np.count_nonzero(n))
    return acc._derived("steps", compute)


def _distinct_sorted(acc: Access, shift: int) -> np.ndarray:
    """Per warp: the distinct ``address >> shift`` of its active lanes (shift 0: addresses; 5: sectors; 7: lines).

    ``>> shift`` never reverses two addresses' order, so the sorted addresses (:func:`_sorted_lanes`) shifted
    are the chunk ids sorted: 1 + the places an id differs from its left neighbour among the warp's ``n``
    active lanes (the first ``n`` of its sorted row: an active address equal to the filler is the same value),
    0 for a warp with none. Two neighbours' ids differ where their addresses differ in a bit at or above
    ``shift``: where ``a ^ b``, as unsigned, is at least ``2^shift`` (:func:`_sorted_steps`; one pass over the
    record serves every shift).
    """
    steps, pairs, some, _ = _sorted_steps(acc)
    change = steps >= _STEP[shift]
    if pairs is None:
        out = _add(change, axis=1)
        out += 1
        return out
    change &= pairs
    out = _add(change, axis=1)
    out += some
    return out  # a warp with no active lane has no active pair: 0 + 0


def _distinct_sorted_total(acc: Access, shift: int) -> int:
    """``_distinct_sorted(acc, shift).sum()`` in one count over the record (what a counter summed over warps needs).

    A warp with ``n > 0`` active lanes adds 1 + its changes among them, one with none adds 0 (it has no pair of
    active neighbours: no lane is below ``n - 1 = -1``), so the sum is every change counted at once plus the warps
    with an active lane; when every lane is active, plus every warp.
    """
    steps, pairs, _, warps = _sorted_steps(acc)
    change = steps >= _STEP[shift]
    if pairs is not None:
        change &= pairs
    return warps + int(np.count_nonzero(change))


def _span_ids(acc: Access, unit: int) -> tuple[np.ndarray, np.ndarray]:
    """Ids of the ``unit``-byte chunks holding each lane's first and last byte, with their mask.

    When every active lane is aligned to its width, its first and last byte share a chunk (``unit`` is
    a multiple of every width), so the first byte's chunk alone is returned.
    """
    return acc._derived(("span", unit), lambda: _span_ids_uncached(acc, unit))  # sectors and the DRAM union share unit 32


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
    if acc.every_active:
        return acc.active.shape[0]
    return int(np.count_nonzero(warp_any(acc.active)))


def warp_any(active: np.ndarray) -> np.ndarray:
    """Per warp (a row of 32 lanes of ``active``, bool): whether any lane is active, ``active.any(axis=1)``.

    From ``_WORD_WARPS`` warps on, a C-contiguous row of 32 bools is read as four 8-byte words, OR-ed together (an
    optimisation: numpy reduces a short axis one element at a time, about six times slower on 4,096 warps; below
    about 200 warps the four passes cost more than they save).

    >>> warp_any(np.arange(96).reshape(3, 32) % 40 == 35).tolist()     # lanes 35 and 75: warps 1 and 2
    [False, True, True]
    """
    if (active.ndim == 2 and active.shape[0] >= _WORD_WARPS and active.shape[1] == WARP_SIZE
            and active.dtype == np.bool_ and active.flags.c_contiguous):
        w = active.view(np.uint64)  # (warps, 4): 8 lanes a word
        out = w[:, 0] | w[:, 1]
        out |= w[:, 2]
        out |= w[:, 3]
        return out != 0
    return _any(active, axis=1)


_WORD_WARPS = 256  # warps from which warp_any reads words (CPU time measured from 2 to 4,096 warps)


def sectors(acc: Access) -> int:
    """Sectors: distinct aligned 32-byte chunks each request touches, summed over requests.

    Nsight Compute: ``l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum`` (nvprof ``gld_transactions``).
    32 lanes reading 32 consecutive floats touch 4 sectors; 32 lanes on 32 different lines touch 32.
    """
    return _chunks(acc, SECTOR_BYTES)


def lines(acc: Access) -> int:
    """Lines (tags): distinct aligned 128-byte cache lines each request touches, summed over requests.

    The L1 looks up one tag per line a request touches; the performance model charges L1 one cycle
    per line (the lecture's "L1 每周期 1 个 line").
    """
    return _chunks(acc, LINE_BYTES)


def ideal_sectors(acc: Access) -> int:
    """Ideal sectors: what each request would touch were its distinct bytes contiguous and aligned, summed.

    Per request, ⌈distinct active addresses × width / 32⌉: CUPTI's ``theoreticalL2Transactions``,
    Nsight Compute's Source-page "L2 Theoretical Sectors Global"; ``sectors − ideal sectors`` is its
    "L2 Theoretical Sectors Global Excessive", the excess an uncoalesced access pays.

    Examples
    --------
    >>> ideal_sectors(Access.from_lanes(np.arange(32) * 4))          # 32 floats in a row: 128 B, 4 sectors
    4
    >>> ideal_sectors(Access.from_lanes(np.arange(32) * 4096))       # a row each: still 128 distinct B
    4
    >>> ideal_sectors(Access.from_lanes(np.zeros(32, np.int64)))     # one float for the warp: 1
    1
    """
    if acc.addresses.size >= _IDEAL_AFFINE_LANES or "affine runs" in acc._memo:
        return _ideal_affine(acc)  # the same number, from each warp's first address and stride
    return _ideal_exact(acc)


def packed_sectors(distinct, width: int) -> int:
    """The definition behind every ideal-sector count: ``Σ ⌈distinct × width / 32⌉`` over requests.

    ``distinct`` holds, per request, how many distinct addresses its active lanes access (a request with
    none adds 0); ``width`` is the bytes each lane moves. Their bytes packed contiguously from a sector
    boundary fill ``⌈distinct × width / 32⌉`` sectors.

    >>> packed_sectors([32, 32, 5, 1], 4)        # two full warps of floats, 5 floats, one broadcast float
    10
    """
    d = np.asarray(distinct, np.int64) * width
    d += SECTOR_BYTES - 1  # ⌈x / 32⌉ = ⌊(x + 31) / 32⌋, a shift
    d >>= SECTOR_BYTES.bit_length() - 1
    return int(_add(d, axis=None))


def _ideal_exact(acc: Access) -> int:
    """:func:`ideal_sectors` by its definition: the distinct active addresses of each warp, looked at."""
    return packed_sectors(_distinct_sorted(acc, 0), acc.width)


def affine_ideal(stride, active, width: int) -> int:
    """:func:`ideal_sectors` of warps whose lane ``l`` accesses ``first + l·stride`` (as :func:`affine_counts`).

    The first address does not matter: at a stride ``≠ 0`` the ``n`` active lanes of a warp hold ``n``
    distinct addresses, at stride 0 one (a broadcast), so a warp takes ``⌈n × width / 32⌉`` sectors, or
    ``⌈width / 32⌉`` (:func:`packed_sectors`). ``stride`` is int64 per warp; ``active`` bool ``(warps,
    32)`` or None (every lane).

    >>> active = np.arange(96).reshape(3, 32) < 70                 # 96 floats, the last 26 masked off
    >>> affine_ideal(np.full(3, 4), active, 4)                     # 32·4/32 + 32·4/32 + ⌈6·4/32⌉ = 4 + 4 + 1
    9
    >>> affine_ideal(np.array([0, 4]), None, 4)                    # a broadcast warp: 1; a coalesced one: 4
    5
    """
    stride = np.asarray(stride, np.int64).reshape(-1)
    n = np.full(stride.size, WARP_SIZE, np.int64) if active is None else np.count_nonzero(active, axis=1)
    return packed_sectors(np.where(stride == 0, np.minimum(n, 1), n), width)


def prefix_ideal(active, width: int) -> int:
    """:func:`ideal_sectors` of rows of consecutive elements with their first ``active[r]`` lanes active
    (as :func:`prefix_counts`): ``f = k // 32`` full warps take ``⌈32 × width / 32⌉ = width`` sectors each,
    and the warp of the last ``k mod 32`` lanes ``⌈(k mod 32) × width / 32⌉`` (:func:`packed_sectors`);
    the rows' starts do not matter.

    >>> prefix_ideal([1024, 1024, 17], 4)     # 2 × 32 warps × 4 sectors, and 17 floats = 68 B: 3 sectors
    259
    """
    k = np.asarray(active, np.int64).reshape(-1)
    full, tail = np.divmod(k, WARP_SIZE)
    return int(full.sum()) * packed_sectors(WARP_SIZE, width) + packed_sectors(tail, width)


def bytes_requested(acc: Access) -> int:
    """Bytes the active lanes ask for: active lanes × width (``l1tex__t_bytes`` requested, not moved)."""
    return (acc.active.size if acc.every_active else int(np.count_nonzero(acc.active))) * acc.width


def sorted_distinct(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` of an integer array: its distinct values, sorted, flattened, a new array.

    Sorted once and compared with each left neighbour; an array already in order (a block's addresses, their
    sectors) is not sorted again. numpy 2's ``np.unique`` hashes the values first: 133 µs for 1,024 distinct
    int64 against 15 µs sorted here, and 5 µs when they are in order.

    >>> sorted_distinct(np.array([[5, 1], [5, 3]])).tolist(), sorted_distinct(np.array([2, 2, 7])).tolist()
    ([1, 3, 5], [2, 7])
    """
    u = np.ravel(a)
    if u.size > 1 and not np.greater_equal(u[1:], u[:-1]).all():
        u = np.sort(u)
    keep = np.empty(u.size, bool)
    keep[:1] = True
    np.not_equal(u[1:], u[:-1], out=keep[1:])
    return u[keep]


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
    return ids.ravel() if valid is acc.active and acc.every_active or _all(valid, axis=None) else ids[valid]


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
    base = acc.addresses >> _BANK_SHIFT  # // 4 (floor, as a shift: negative addresses too)
    if words_per_lane == 1:  # a word a lane, and every warp one phase of 32 lanes
        return [(base, acc.active)]
    words = (base[..., None] + _LANES[:words_per_lane]).reshape(base.shape[0], -1)
    valid = np.repeat(acc.active, words_per_lane, axis=1)
    lanes = phase_lanes(acc)
    groups = []
    for n in np.unique(lanes):
        rows = lanes == n
        cols = int(n) * words_per_lane
        groups.append((words[rows].reshape(-1, cols), valid[rows].reshape(-1, cols)))
    return groups


def _max_bank_load(words: np.ndarray, valid: np.ndarray) -> int:
    """Sum over phases of the largest number of distinct words any one bank must serve (a word's bank is its
    number mod 32, a negative word's too: every bank moves alike with the addresses, as the affine path assumes)."""
    s = np.sort(np.where(valid, words, _FIRST), axis=1)  # masked-off lanes first, as the smallest int64: no word
    distinct = s != _FIRST
    distinct[:, 1:] &= s[:, 1:] != s[:, :-1]
    banks = s & (BANKS - 1)  # s mod 32, the word's bank, then offset by 32 per phase: one bincount for all
    banks += (np.arange(s.shape[0]) * BANKS)[:, None]
    per_bank = np.bincount(banks[distinct], minlength=s.shape[0] * BANKS)
    return int(_add(np.maximum.reduce(per_bank.reshape(-1, BANKS), axis=1), axis=None))


def _shared_exact(acc: Access) -> tuple[int, int]:
    """Wavefronts and ideal wavefronts, the reference count: every phase's banks looked at."""
    groups = _phases(acc)
    return (sum(_max_bank_load(w, v) for w, v in groups),
            sum(int(np.count_nonzero(_any(v, axis=1))) for _, v in groups))


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
    return _shared(acc)[0]


def shared_ideal_wavefronts(acc: Access) -> int:
    """Wavefronts with no bank conflict: one per phase that has an active lane.

    A full warp of 32-bit accesses ideally takes 1 wavefront, of 128-bit accesses 4 (512 B at 128 B
    per wavefront), or 2 when lanes pair up on one address (:func:`phase_lanes`).
    """
    return _shared(acc)[1]


def bank_conflicts(acc: Access) -> int:
    """Bank conflicts: wavefronts beyond the ideal, as Nsight Compute reports them.

    ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum`` = wavefronts − ideal wavefronts.

    Examples
    --------
    >>> col = Access.from_lanes(np.arange(32) * 32 * 4, width=4)   # a column of a 32×32 float tile
    >>> shared_wavefronts(col), bank_conflicts(col)                  # every lane in bank 0
    (32, 31)
    """
    wavefronts, ideal = _shared(acc)
    return wavefronts - ideal


# ---------------------------------------------------------------------------------------------------
# Optimisation. Everything above is the definition; what follows gives the same numbers faster, and
# tests/test_fastpath.py checks that it does (fast = exact on random pointer families, masks, widths
# and alignments). Most warps of a real kernel address memory affinely: lane l reads
# ``first + l·stride``. Such a warp's sectors, lines and wavefronts follow from ``first``, ``stride``
# and the runs of its mask without looking at its lanes; every other warp takes the exact path.
# ---------------------------------------------------------------------------------------------------

_LANES = np.arange(WARP_SIZE, dtype=np.int64)


def _affine(acc: Access) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per warp: its first address, its stride (lane 1 − lane 0) and whether *every* lane (active or
    not) sits at ``first + lane·stride`` (computed once per record)."""
    def compute():  # on the flat array: contiguous passes, much faster than slicing columns
        addresses = acc.addresses
        warps = addresses.shape[0]
        per = max(1, min(warps, _AFFINE_WARPS))  # warps a pass looks at: its scratch is reused, not made anew
        step_buf, same_buf = np.empty(per * WARP_SIZE, addresses.dtype), np.empty((per, WARP_SIZE), bool)
        stride, affine = np.empty(warps, addresses.dtype), np.empty(warps, bool)
        for lo in range(0, warps, per):
            flat = addresses[lo:lo + per].ravel()
            n = flat.size // WARP_SIZE
            step = step_buf[: flat.size]
            np.subtract(flat[1:], flat[:-1], out=step[:-1])
            step = step.reshape(n, WARP_SIZE)  # step[w, l]: lane l + 1 − lane l; column 31 is meaningless
            stride[lo:lo + n] = first = step[:, 0]
            step[:, -1] = first  # column 31 compares equal: a contiguous compare is faster than one of 31 columns
            same = np.equal(step, first[:, None], out=same_buf[:n])  # every step of a warp equal to its first
            affine[lo:lo + n] = True if same.all() else same.all(axis=1)
        return addresses[:, 0], stride, affine
    return acc._derived("affine", compute)


#: Warps :func:`_affine` looks at in one pass (1 MiB of int64 steps): a scratch array that size is reused from
#: pass to pass, where one over every warp of a large record (8 MiB at 2^20 lanes) is new memory each time, every
#: page of it a page fault to map (an optimisation; the same values, tests/test_access_affine.py)
_AFFINE_WARPS = 4096


def _affine_runs(acc: Access):
    """:func:`_runs_of` for the record's warps (computed once per record)."""
    return acc._derived("affine runs", lambda: _runs_of(*_affine(acc), acc.active))


def _runs_of(first, stride, affine, active, mask_runs=None):
    """The warps counted analytically: affine, with their active lanes in one run.

    ``first``, ``stride`` and ``affine`` are per warp (see :func:`_affine`), ``active`` the lanes'
    mask (``None``: every lane), ``mask_runs`` its :func:`_mask_runs` when already known. Returns
    ``(lo, hi, lanes, step, rest)``: for each such warp with an active lane, the addresses of its
    first and last active lane, its number of active lanes and the absolute value of its stride;
    ``rest`` marks the warps left to the exact path (None when there are none). Warps with no
    active lane touch nothing and appear in neither.
    """
    if active is None or active.all():
        p, q, rest = 0, WARP_SIZE - 1, None if affine.all() else ~affine
        if rest is not None:
            first, stride = first[affine], stride[affine]
    else:
        n, p, q, one_run = _mask_runs(active) if mask_runs is None else mask_runs
        easy = affine & one_run
        rest = ~easy & (n > 0)
        easy &= n > 0
        first, stride, p, q, rest = first[easy], stride[easy], p[easy], q[easy], rest if rest.any() else None
    a, b = first + p * stride, first + q * stride
    return np.minimum(a, b), np.maximum(a, b), q - p + 1, np.abs(stride), rest


def _mask_runs(active: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per warp: active lanes, first and last active lane, and whether the active lanes are one run.

    Each warp's mask is packed into one 32-bit word (lane l is bit l), so each answer is a few
    operations per warp: the number of set bits, the lowest and highest set bit, and whether the
    word is ``2^(q+1) − 2^p`` (bits p to q set, no gap). A warp with no active lane has n = 0.
    """
    packed = np.ascontiguousarray(np.packbits(active, axis=1, bitorder="little"))  # 4 bytes per warp
    word = packed.view("<u4").reshape(-1).astype(np.int64)
    n = np.bitwise_count(word).astype(np.int64) if _HAS_POPCOUNT else _POPCOUNT8[packed].sum(axis=1)
    p = np.frexp(word & -word)[1].astype(np.int64) - 1  # the lowest set bit: 2^p, of binary exponent p + 1
    q = np.frexp(word)[1].astype(np.int64) - 1  # the highest set bit
    one = np.int64(1)
    one_run = word == np.left_shift(one, q + 1) - np.left_shift(one, p)
    return n, p, q, one_run


_HAS_POPCOUNT = hasattr(np, "bitwise_count")  # numpy ≥ 2.0
_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], np.int64)  # set bits of each byte, for older numpy


def _run_chunks(runs, unit: int) -> int:
    """Distinct ``unit``-byte chunks of the analytic warps of :func:`_runs_of` (see :func:`_chunks`)."""
    lo, hi, lanes, step, _rest = runs
    shift = unit.bit_length() - 1
    return int(np.where(step >= unit, lanes, (hi >> shift) - (lo >> shift) + 1).sum())


def _chunks(acc: Access, unit: int) -> int:
    """:func:`_chunks_exact`, with affine one-run warps counted analytically.

    For an aligned access every lane's bytes lie in one chunk, the chunk of its first byte. The
    active lanes of an affine one-run warp sit at ``first + l·stride`` for ``l`` from ``p`` to ``q``:
    with ``|stride| ≥ unit`` each lane is in a chunk of its own (``q − p + 1`` chunks); with a smaller
    stride successive lanes step at most one chunk, so every chunk between the two ends is touched
    (``chunk(hi) − chunk(lo) + 1``; 1 for a broadcast, stride 0).
    """
    size = acc.addresses.size
    if not acc.aligned or size < _EXACT_LANES or (size < _ORDERED_EXACT_LANES and acc.ordered):
        return _chunks_exact(acc, unit)  # a small record, or an ordered one, is cheaper counted lane by lane
    return _chunks_affine(acc, unit)


# Where the exact path is the cheaper one (CPU time per record, measured on the records the tests count:
# below 8192 lanes the affine analysis costs more than it saves; ordered records take one pass up to 2^16)
_EXACT_LANES = 1 << 13
_ORDERED_EXACT_LANES = 1 << 16
_IDEAL_AFFINE_LANES = 1 << 13  # from here the affine pass is cheaper than sorting out each warp's distinct addresses


def _chunks_affine(acc: Access, unit: int) -> int:
    """The analytic count of :func:`_chunks` (affine one-run warps), the rest by the exact path."""
    runs = _affine_runs(acc)
    rest = runs[-1]
    total = _run_chunks(runs, unit)
    return total if rest is None else total + _chunks_exact(acc.rows(rest), unit)


def sector_set(acc: Access) -> np.ndarray:
    """The sector ids the active lanes touch, each at least once (:func:`lane_sector_ids` as a set, faster).

    For a union over a launch (compulsory DRAM traffic), only the set matters. When the record is aligned
    and every active warp is affine with one run of active lanes (``_affine_runs``), the set is built
    per warp: a warp equal to the warp before it (same lowest address, stride and lanes) adds nothing; a
    warp with ``|stride| < 32`` touches every sector from its lowest to its highest address (successive
    lanes step at most one sector), one with a larger stride a sector per lane at ``lo + j·|stride|``.
    Otherwise every lane's sector, as :func:`lane_sector_ids`.

    >>> sorted(set(sector_set(Access.from_lanes(np.arange(64) * 4, width=4)).tolist()))   # 64 floats: 8 sectors
    [0, 1, 2, 3, 4, 5, 6, 7]
    """
    if not acc.aligned or "affine runs" not in acc._memo:
        return lane_sector_ids(acc)
    lo, hi, lanes, step, rest = acc._memo["affine runs"]
    if rest is not None or lo.size == 0:
        return lane_sector_ids(acc)
    lanes = np.broadcast_to(lanes, lo.shape)
    new = np.ones(lo.size, bool)  # a warp equal to the one before it touches the same sectors
    new[1:] = (lo[1:] != lo[:-1]) | (step[1:] != step[:-1]) | (lanes[1:] != lanes[:-1])
    lo, hi, lanes, step = lo[new], hi[new], lanes[new], step[new]
    shift = SECTOR_BYTES.bit_length() - 1
    dense = step < SECTOR_BYTES
    first, last = lo[dense] >> shift, hi[dense] >> shift
    count = last - first + 1
    ids = [np.repeat(first - (np.cumsum(count) - count), count) + np.arange(int(count.sum()))]
    if not dense.all():
        sparse = ~dense
        addr = lo[sparse, None] + _LANES * step[sparse, None]
        ids.append((addr >> shift)[_LANES < lanes[sparse, None]])
    return np.concatenate(ids)


def _ideal_affine(acc: Access) -> int:
    """:func:`_ideal_exact`, with affine one-run warps counted analytically: their ``lanes`` active lanes sit
    at ``first + l·stride``, so they hold ``lanes`` distinct addresses, or 1 for a broadcast (stride 0)."""
    _lo, _hi, lanes, step, rest = _affine_runs(acc)
    total = packed_sectors(np.where(step == 0, 1, lanes), acc.width)
    return total if rest is None else total + _ideal_exact(acc.rows(rest))


def affine_counts(first, stride, active, width: int) -> tuple[int, int, int, int]:
    """Requests, sectors, lines and bytes of warps whose lane ``l`` accesses ``first + l·stride``.

    The same numbers as :func:`requests`, :func:`sectors`, :func:`lines` and :func:`bytes_requested`
    of the record ``Access(first[:, None] + lane · stride[:, None], active, width)``, without
    building its addresses: for a caller that knows its pointers are affine (mini-Triton's
    consecutive offsets). ``first`` and ``stride`` are int64 per warp; ``active`` is bool ``(warps,
    32)`` or None (every lane); every address must be a multiple of ``width``.

    Examples
    --------
    >>> first = np.array([0, 128, 256]); stride = np.full(3, 4)   # 96 consecutive floats
    >>> active = np.arange(96).reshape(3, 32) < 70                # the last 26 masked off
    >>> affine_counts(first, stride, active, 4)                   # 3 warps; 4 + 4 + 1 sectors
    (3, 9, 3, 280)
    """
    first, stride = np.asarray(first, np.int64), np.asarray(stride, np.int64)
    if active is None:
        req, nbytes, mask_runs = first.size, first.size * WARP_SIZE * width, None
    else:
        mask_runs = _mask_runs(active)
        req, nbytes = int(np.count_nonzero(mask_runs[0])), int(mask_runs[0].sum()) * width
    runs = _runs_of(first, stride, np.ones(first.size, bool), active, mask_runs)
    sec, lin = _run_chunks(runs, SECTOR_BYTES), _run_chunks(runs, LINE_BYTES)
    rest = runs[-1]
    if rest is not None:  # warps whose active lanes have gaps: built and counted exactly
        acc = Access(first[rest, None] + stride[rest, None] * _LANES, active[rest], width, known_aligned=True)
        sec, lin = sec + _chunks_exact(acc, SECTOR_BYTES), lin + _chunks_exact(acc, LINE_BYTES)
    return req, sec, lin, nbytes


def aligned_counts(addresses: np.ndarray, active: np.ndarray | None, width: int) -> tuple[int, int, int, int, int]:
    """Requests, sectors, bytes, lines and ideal sectors of the record ``Access(addresses, active, width)`` whose
    active addresses are multiples of ``width``: the numbers :func:`requests`, :func:`sectors`,
    :func:`bytes_requested`, :func:`lines` and :func:`ideal_sectors` give, from one sort of each warp.

    ``addresses`` is int64 ``(warps, 32)``, ``active`` bool of the same shape or None (every lane). An
    optimisation for small records counted once (mini-Triton's reference count of a block's lanes): each warp's
    active addresses are sorted once, masked-off lanes after them as the largest int64, and each count is the
    number of neighbours whose ids differ (in a bit at or above 5 for sectors, 7 for lines, any for addresses),
    plus one for each warp whose lanes are all active — in a warp with a masked-off lane, the step from its last
    active address to the filler is that one. So no pairs mask is needed, provided no active address shares a
    line with the filler: a record with an address that high, or of ``_EXACT_LANES`` lanes or more, is counted by
    the five functions (tests/test_access.py checks both against them).

    >>> active = np.arange(96).reshape(3, 32) < 42                 # a warp of 32 floats, one of 10, one of none
    >>> aligned_counts(np.arange(96).reshape(3, 32) * 4, active, 4)   # sectors 4 + 2, ideal 4 + ⌈10·4/32⌉
    (2, 6, 168, 2, 6)
    """
    warps = addresses.shape[0]
    if not warps or warps * WARP_SIZE >= _EXACT_LANES or (active is not None and _max(addresses, axis=None) >= _FILLER_LINE):
        acc = Access(addresses, np.ones(addresses.shape, bool) if active is None else active, width, known_aligned=True)
        return requests(acc), sectors(acc), bytes_requested(acc), lines(acc), ideal_sectors(acc)
    if active is None:
        s = np.sort(addresses, axis=1)
    else:
        s = np.where(active, addresses, _LAST)
        s.sort(axis=1)
    flat = s.reshape(-1)
    steps = np.empty(flat.size, np.int64)  # a ^ b of neighbours (as unsigned: see _distinct_sorted), on the flat
    np.bitwise_xor(flat[1:], flat[:-1], out=steps[:-1])  # array (contiguous: faster than a warp's 31 columns)
    steps[WARP_SIZE - 1 :: WARP_SIZE] = 0  # a warp's last lane against the next warp's first: no step
    steps = steps.view(np.uint64)
    sec, lin = int(np.count_nonzero(steps >= _STEP[5])), int(np.count_nonzero(steps >= _STEP[7]))
    distinct = _add((steps != 0).reshape(warps, WARP_SIZE), axis=1)  # per warp, less its last distinct address
    if active is None:
        full, req, nbytes = warps, warps, warps * WARP_SIZE * width
        distinct += 1
    else:  # (no active address is the filler: a warp's first sorted lane is one if it has none, its last if any is off)
        whole = s[:, -1] != _LAST
        full, req, nbytes = int(np.count_nonzero(whole)), int(np.count_nonzero(s[:, 0] != _LAST)), int(
            np.count_nonzero(active)) * width
        distinct += whole  # a warp with a masked-off lane counted its last active address's step to the filler
    if warps <= 64:  # packed_sectors in Python ints: fewer numpy calls on a few warps
        ideal = sum((d * width + SECTOR_BYTES - 1) >> 5 for d in distinct.tolist())
    else:
        ideal = packed_sectors(distinct, width)
    return req, sec + full, nbytes, lin + full, ideal


_FILLER_LINE = _LAST >> 7 << 7  # the filler's 128-byte line: an active address in it takes the five functions
_max = np.maximum.reduce


def _shared(acc: Access) -> tuple[int, int]:
    """:func:`_shared_exact` (wavefronts, ideal wavefronts), faster: small records are remembered by
    content, and affine warps are counted by class (:func:`_shared_affine`).

    A kernel's shared-memory accesses repeat from one pass of its loop to the next (shared addresses
    rarely depend on the loop counter), so a record of at most ``_SEEN_LANES`` lanes already met
    (same width, addresses and mask) takes the numbers found the first time.
    """
    def compute():
        if acc.addresses.size > _SEEN_LANES:
            return _shared_affine(acc)
        return _shared_seen(acc.width, acc.addresses.tobytes(), acc.active.tobytes())
    return acc._derived("shared", compute)


_SEEN_LANES = 4096  # records of at most this many lanes are remembered (32 KiB of addresses each)


@lru_cache(maxsize=256)
def _shared_seen(width: int, addresses: bytes, active: bytes) -> tuple[int, int]:
    """:func:`_shared_affine` of the record with these contents (remembered: see :func:`_shared`)."""
    addr = np.frombuffer(addresses, np.int64).reshape(-1, WARP_SIZE)
    return _shared_affine(Access(addr, np.frombuffer(active, bool).reshape(addr.shape), width))


def _shared_affine(acc: Access) -> tuple[int, int]:
    """:func:`_shared_exact`, with affine warps looked up by class.

    A warp's wavefronts depend only on which lanes are active, on each active lane's bank and on which
    lanes share a word. All stay the same when every address moves by 128 bytes (32 banks × 4 B), and
    — for an aligned access, whose lanes at a stride ``s ≠ 0`` never share a word — when ``s`` is
    replaced by another non-zero stride equal to it modulo 128. So an affine warp counts as the warp
    ``first mod 128 + lane·s'`` with ``s'`` in 1…128 (0 only for a broadcast) and the same active
    lanes, computed once by the exact path and remembered. (Lanes of 1 or 2 bytes can share a word at
    a non-zero stride: such accesses take the exact path.)
    """
    if not acc.aligned or acc.width < BANK_BYTES:
        return _shared_exact(acc)
    first, stride, affine = _affine(acc)
    if not affine.any():
        return _shared_exact(acc)
    s = stride[affine] % WAVEFRONT_BYTES
    s[(s == 0) & (stride[affine] != 0)] = WAVEFRONT_BYTES
    active = acc.active if affine.all() else acc.active[affine]
    mask = np.packbits(active, axis=1, bitorder="little").view("<u4").reshape(-1).astype(np.int64)
    # one int per class: the mask's 32 bits, then first mod 128 (7 bits), then s' (0…128, 8 bits)
    keys, n = np.unique(mask << 15 | first[affine] % WAVEFRONT_BYTES << 8 | s, return_counts=True)
    wavefronts = ideal = 0
    for key, count in zip(keys.tolist(), n.tolist()):
        w, i = _shared_class(acc.width, key >> 8 & (WAVEFRONT_BYTES - 1), key & 255, key >> 15)
        wavefronts, ideal = wavefronts + count * w, ideal + count * i
    if not affine.all():
        w, i = _shared_exact(acc.rows(~affine))
        wavefronts, ideal = wavefronts + w, ideal + i
    return wavefronts, ideal


@lru_cache(maxsize=8192)
def _shared_class(width: int, first: int, stride: int, mask: int = (1 << WARP_SIZE) - 1) -> tuple[int, int]:
    """Wavefronts and ideal wavefronts of the warp ``first + lane·stride`` whose active lanes are the bits of ``mask``,
    by the exact path."""
    active = (mask >> _LANES) & 1 == 1
    return _shared_exact(Access.from_lanes(first + _LANES * stride, active, width=width, aligned=True))


# ---------------------------------------------------------------------------------------------------
# Optimisation for mini-Triton's commonest access: rows of consecutive elements, a prefix of each row
# active (``offs = pid * BLOCK + tl.arange(0, BLOCK)`` under ``offs < n``). Counted from each row's first
# byte and its number of active lanes, in closed form; equal to the exact path by construction and by
# tests/test_view.py.
# ---------------------------------------------------------------------------------------------------


def _row_counts(a: int, k: int, width: int) -> tuple[int, int, int, int]:
    """Requests, sectors, lines and bytes of one row: lanes ``0 … k−1`` at bytes ``a + l·width``.

    The row's lanes fill warps of 32 (lane ``l`` in warp ``l // 32``); ``f = k // 32`` warps are full
    and one more holds the last ``m = k mod 32`` lanes. A full warp spans ``32·width`` bytes from a
    first byte that stays ``≡ a`` (mod 32), so it touches ``width`` sectors, plus one when ``a`` is
    not sector-aligned. Its lines sum, over ``j < f``, ``⌊(b_j + L − 1)/128⌋ − ⌊b_j/128⌋ + 1`` with
    ``b_j = a + jL``, ``L = 32·width``; the sum telescopes to ``f + ⌊b_f/128⌋ − ⌊a/128⌋`` minus the
    warps ``j`` in ``1 … f`` whose first byte ``b_j`` starts a line (those lines are not straddled).

    Examples
    --------
    >>> _row_counts(0, 70, 4)        # 70 floats from byte 0: 3 warps; 4 + 4 + 1 sectors, 3 lines
    (3, 9, 3, 280)
    >>> _row_counts(4, 32, 4)        # one warp of floats starting 4 bytes into a line: 5 sectors, 2 lines
    (1, 5, 2, 128)
    """
    if k <= 0:
        return 0, 0, 0, 0
    f, m = divmod(k, WARP_SIZE)
    span = WARP_SIZE * width
    sec = f * (width + (a % SECTOR_BYTES != 0))
    if span >= LINE_BYTES:  # a multiple of 128: every b_j starts a line, or none does
        starts_line = f if a % LINE_BYTES == 0 else 0
    elif a % span:  # b_j ≡ a (mod span) never ≡ 0 (mod 128)
        starts_line = 0
    else:  # b_j starts a line when j ≡ j0 (mod q): q = 128 / span warps per line
        q = LINE_BYTES // span
        j0 = -(a // span) % q
        starts_line = f // q if j0 == 0 else (f - j0) // q + 1 if f >= j0 else 0
    lin = f + (a + f * span) // LINE_BYTES - a // LINE_BYTES - starts_line if f else 0
    if m:
        b, e = a + f * span, a + f * span + m * width - 1
        sec += e // SECTOR_BYTES - b // SECTOR_BYTES + 1
        lin += e // LINE_BYTES - b // LINE_BYTES + 1
    return -(-k // WARP_SIZE), sec, lin, k * width


def prefix_counts(starts, active, width: int) -> tuple[int, int, int, int]:
    """Requests, sectors, lines and bytes of rows of consecutive elements, each with a prefix of its lanes active.

    Row ``r`` has its lanes ``l < active[r]`` at byte ``starts[r] + l·width`` (``starts`` are byte
    addresses, multiples of ``width``); its lanes start a warp of their own, as one program's block
    does. The same numbers as :func:`requests`, :func:`sectors`, :func:`lines` and
    :func:`bytes_requested` of that record, computed per row in closed form (``_row_counts``),
    once per distinct (first byte mod 128, active lanes): rows that differ by whole lines count alike.

    Examples
    --------
    >>> prefix_counts([0, 4096, 8192], [1024, 1024, 17], 4)   # 2^11+17 floats in blocks of 1024
    (65, 259, 65, 8260)

    (32 + 32 + 1 requests and lines; 2 × 32 warps × 4 sectors, and 17 floats = 68 bytes in 3 sectors.)
    """
    a = np.asarray(starts, np.int64).reshape(-1)
    k = np.asarray(active, np.int64).reshape(-1)
    if a.size != k.size:
        a, k = np.broadcast_arrays(a, k)
    key = a % LINE_BYTES * (int(k.max(initial=0)) + 1) + k
    if key.size and (key == key[0]).all():
        groups = [(int(a[0]), int(k[0]), key.size)]
    elif key.size > 1 and (key[:-1] == key[0]).all():  # every row alike but the last (a masked tail)
        groups = [(int(a[0]), int(k[0]), key.size - 1), (int(a[-1]), int(k[-1]), 1)]
    else:
        _, first, n = np.unique(key, return_index=True, return_counts=True)
        groups = [(int(a[i]), int(k[i]), int(c)) for i, c in zip(first, n)]
    total = [0, 0, 0, 0]
    for ai, ki, count in groups:
        for i, v in enumerate(_row_counts(ai, ki, width)):
            total[i] += v * count
    return tuple(total)


#: Lanes of one warp that the L1 merges into one L2 atomic when they update the same address, 16. Measured on a
#: V100 (accel-sim/gpgpu-sim pull request 33, correlated against a QV100, where 163 840 threads adding to one
#: address make 10 240 L2 atomics) and ASSUMED on later SMs.
ATOMIC_MERGE_LANES = 16


def merged_updates(elements: np.ndarray, warp_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(element, L2 updates)``: the updates each element receives from one warp instruction's lanes, after the
    L1 merges a warp's same-address lanes :data:`ATOMIC_MERGE_LANES` at a time.

    >>> merged_updates(np.array([5] * 32 + [5] * 8 + [7]), np.array([0] * 32 + [1] * 8 + [1]))
    (array([5, 5, 7]), array([2, 1, 1]))
    """
    if elements.size == 0:
        return elements, elements
    key = warp_of * (int(elements.max()) + 1) + elements
    keys, counts = np.unique(key, return_counts=True)
    return keys % (int(elements.max()) + 1), -(-counts // ATOMIC_MERGE_LANES)
