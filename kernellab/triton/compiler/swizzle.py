"""The shared-memory buffer Triton 3.9 picks for a layout conversion, and the instructions that fill and
empty it.

A ``ttg.convert_layout`` whose data crosses warps goes through shared memory
(``transferWithinBlockSwizzling``). Triton 3.9 does not pick a fixed buffer: it builds one for the pair of
layouts (``optimalSwizzling`` in ``lib/Tools/GenericSwizzling.cpp``), working on both layouts flattened to
one dimension (dimension 0 fastest, as ``LinearLayout::flattenOuts``) and seen as bases over GF(2): the
element a register, lane or warp bit moves to. A buffer is a list of such bases too, offset bit ``i`` of
the buffer holding element basis ``S[i]``, in four parts:

* **vector**: the bases a thread writes (and reads) in one instruction;
* **bank**: the bases that spread one instruction's lanes over the 32 banks;
* **segment**: the rest, chosen so that the lanes of an instruction land in different banks: a basis the
  store's lanes and the load's lanes both leave free, or the XOR of a store lane basis and a load lane
  basis (``computeSegment``), which is what swizzling is;
* **reps**: bases both sides hold in registers, taken out of the segment: the buffer holds one
  repetition at a time, a barrier between repetitions.

Each side then moves its elements with one of three instructions (``getSrcDstTiles``): ``st.shared`` /
``ld.shared`` (up to 128 bits a thread), ``stmatrix`` / ``ldmatrix`` (.x4: four 8×8 matrices of 16-byte
rows, 128 bits a thread; ``stmatrix`` from sm_90 on, ``ldmatrix`` on both targets) and their ``.trans``
forms (16-bit elements only). A pair of instructions fits when the two layouts share the tile the pair
needs (``optimalSwizzlingTile``); among the pairs that fit, the one with the fewest bank conflicts wins,
ties to the one with the most repetitions; when none fits, plain ``st.shared``/``ld.shared``
(``optimalSwizzlingLdSt``). A plain access moves as many registers at once as the buffer's first offset
bits are register bases of that side (``largestVectorisation``), at most 128 bits; an ``ldmatrix`` or
``stmatrix`` .x4 moves 128 bits a thread.

:func:`plan` returns the buffer, each side's instruction and its count per thread.

Examples
--------
A 32×32 fp16 transpose (row-major loads, column-major stores, 4 warps): one ``st.shared.v4`` and one
``ldmatrix.x4.trans`` a thread, on sm_80 as in the PTX Triton 3.9 compiles (``transpose16`` case):

>>> src = Flat(regs=(32, 64, 128), lanes=(256, 512, 1, 2, 4), warps=(8, 16))
>>> dst = Flat(regs=(1, 2, 4), lanes=(8, 16, 32, 64, 128), warps=(256, 512))
>>> p = plan(src, dst, 16, "sm80"); p.store, p.load, p.stores, p.loads
('st.shared', 'ldmatrix.trans', 1, 1)
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ...access import Access, shared_ideal_wavefronts, shared_wavefronts

WARP = 32
ST, MATRIX, TRANS = 0, 1, 2  # instruction kinds (getSrcDstTiles's order)
NAMES = {("st", ST): "st.shared", ("st", MATRIX): "stmatrix", ("st", TRANS): "stmatrix.trans",
         ("ld", ST): "ld.shared", ("ld", MATRIX): "ldmatrix", ("ld", TRANS): "ldmatrix.trans"}


class Flat(NamedTuple):
    """A distributed layout flattened to one dimension: the element (an int, dimension 0 fastest) each
    register, lane and warp bit moves to; 0 where the bit holds a copy."""

    regs: tuple
    lanes: tuple
    warps: tuple


# --- GF(2) linear algebra on bases written as ints ------------------------------------------------------
def _rref(rows) -> list:
    """The reduced row echelon form of ``rows`` over GF(2), each row's pivot its lowest set bit
    (``f2reduce::inplace_rref_strided``); zero rows dropped."""
    rows = [r for r in rows if r]
    out = []
    while rows:
        pivot_bit = min((r & -r) for r in rows)
        i = next(k for k, r in enumerate(rows) if r & pivot_bit)
        p = rows.pop(i)
        out = [r ^ p if r & pivot_bit else r for r in out]
        rows = [r ^ p if r & pivot_bit else r for r in rows]
        rows = [r for r in rows if r]
        out.append(p)
    return out


def _pivots(rows) -> dict:
    return {(r & -r).bit_length() - 1: r for r in _rref(rows)}


def nullspace(vectors, dim: int) -> list:
    """A basis of the ``x`` with ``v·x = 0`` for every ``v`` (``nullspaceBasis``)."""
    piv = _pivots(vectors)
    out = []
    for free in range(dim):
        if free in piv:
            continue
        v = 1 << free
        for p, row in piv.items():
            if row >> free & 1:
                v ^= 1 << p
        out.append(v)
    return out


def intersection(b1, b2, dim: int) -> list:
    """A basis of ``span(b1) ∩ span(b2)`` (``intersectionBasis``): when every basis is a power of two,
    the common ones in ``b1``'s order."""
    if all(b & (b - 1) == 0 for b in (*b1, *b2)):
        s2 = set(b2)
        return [b for b in b1 if b and b in s2]
    return nullspace(nullspace(b1, dim) + nullspace(b2, dim), dim)


def complement(basis, dim: int) -> list:
    """The unit vectors completing ``basis`` to the whole space, in increasing order (``complementBasis``)."""
    piv = _pivots(basis)
    return [1 << i for i in range(dim) if i not in piv]


def represent(e: int, parts: tuple) -> tuple:
    """The bits of each part (a list of bases) whose XOR is element ``e``: ``invertAndCompose`` of a
    layout whose non-zero bases are independent (zero bases, copies, are never used)."""
    named = [(k, i, b) for k, part in enumerate(parts) for i, b in enumerate(part) if b]
    # solve over GF(2): augment each basis with the bit that names it
    rows = [(b, 1 << j) for j, (_, _, b) in enumerate(named)]
    out = [0] * len(parts)
    pivots = []
    for b, tag in rows:
        for pb, ptag, bit in pivots:
            if b >> bit & 1:
                b ^= pb
                tag ^= ptag
        if b:
            bit = (b & -b).bit_length() - 1
            pivots.append((b, tag, bit))
    rest, tag = e, 0
    for pb, ptag, bit in pivots:
        if rest >> bit & 1:
            rest ^= pb
            tag ^= ptag
    if rest:
        return None
    for j, (k, i, _) in enumerate(named):
        if tag >> j & 1:
            out[k] |= 1 << i
    return tuple(out)


# --- the buffer -----------------------------------------------------------------------------------------
class Buffer(NamedTuple):
    """A shared-memory buffer as element bases: offset bit ``i`` holds ``bases()[i]``."""

    vector: tuple
    bank: tuple
    segment: tuple
    reps: tuple

    def bases(self) -> tuple:
        return self.vector + self.bank + self.segment + self.reps


def _segment(bank_src, bank_dst, dim: int, length: int) -> list:
    """``computeSegment``: bases free in both, then XORs of the two sides' lane bases (no conflict), then,
    when too few, the bases of either (conflicts)."""
    s_src = {b for b in bank_src if b}
    s_dst = {b for b in bank_dst if b}
    seg = [1 << b for b in range(dim) if (1 << b) not in s_src and (1 << b) not in s_dst]
    if len(seg) >= length:
        return seg[:length]
    a = sorted(v for v in s_src if v not in s_dst)
    b = sorted(v for v in s_dst if v not in s_src)
    if len(a) > len(b):
        a, b = b, a
    conflicts = min(max(0, length - len(a) - len(seg)), len(a))
    seg += [a[i] ^ b[i] for i in range(conflicts, len(a))]
    seg += a[:conflicts] + b[:conflicts]
    return seg[:length]


def _buffer(src: Flat, dst: Flat, bits: int, vbasis, tile_src, tile_dst, dim: int, leave: int = 0) -> Buffer:
    """``optimalSwizzling`` for a chosen vector and the two sides' lane tiles, then ``buildReps`` (which keeps
    the first ``leave`` bases both sides hold in registers in the segment: an ldmatrix/stmatrix pair
    needs them to move 128 bits a thread)."""
    vbasis = list(vbasis)
    len_bank = min((1024 // ((1 << len(vbasis)) * bits)).bit_length() - 1, dim - len(vbasis))
    len_seg = dim - len_bank - len(vbasis)
    sbasis = _segment(vbasis + list(tile_src), vbasis + list(tile_dst), dim, len_seg)
    bbasis = complement(vbasis + sbasis, dim)
    both = set(src.regs) & set(dst.regs)
    seg, reps = [], []
    for b in sbasis:
        if b in both and leave <= 0:
            reps.append(b)
        else:
            leave -= b in both
            seg.append(b)
    return Buffer(tuple(vbasis), tuple(bbasis), tuple(seg), tuple(reps))


def _tile(a: Flat, b: Flat, n_a: int, n_b: int, contig_a: tuple, contig_b: tuple, dim: int):
    """``optimalSwizzlingTile``: the vector (register bases, then the lanes the instructions need
    contiguous) two instructions can share, or None."""
    if n_a < n_b:
        return _tile(b, a, n_b, n_a, contig_b, contig_a, dim)
    vbasis = intersection(a.regs, b.regs, dim)
    if len(vbasis) < n_b:
        return None
    vbasis = vbasis[:n_b]
    lane_a = [a.lanes[i] for i in contig_a]
    lane_b = [b.lanes[i] for i in contig_b]
    if not all(lane_a) or not all(lane_b):
        return None
    parts = (a.regs, a.lanes, a.warps)
    for i in range(n_a - n_b):  # b's first contiguous lanes are registers of a
        r = represent(b.lanes[contig_b[i]], parts)
        if r is None or r[0] == 0:
            return None
    for ia, ib in zip(contig_a, contig_b[len(contig_b) - len(contig_a):]):  # the rest: lane for lane
        r = represent(b.lanes[ib], parts)
        if r is None or r[1] != 1 << ia:
            return None
    return vbasis + lane_b


# getSrcDstTiles: (lanes that must be contiguous, lanes that give addresses) of each instruction
_TILES = {ST: ((), (0, 1, 2)), MATRIX: ((0, 1), (2, 3, 4)), TRANS: ((2, 3, 4), (0, 1))}


def _kinds(bits: int, side: str, target: str) -> tuple:
    kinds = [ST]
    matrix = target != "sm80" if side == "st" else True  # stmatrix from sm_90 on; ldmatrix on both
    if matrix and bits <= 32:
        kinds.append(MATRIX)
    if matrix and bits == 16:
        kinds.append(TRANS)
    return tuple(kinds)


def _conflicts(tile_src, tile_dst, buf: Buffer, dim: int) -> int:
    """``bankConflicts``: the ways a store's and a load's lanes collide in a bank (a lane tile basis that is
    also a segment basis doubles them), added."""
    seg = list(buf.segment)
    return (1 << len(intersection(seg, list(tile_src), dim))) - 1 + (1 << len(intersection(seg, list(tile_dst), dim))) - 1


def _ldst(src: Flat, dst: Flat, bits: int, dim: int) -> Buffer:
    """``optimalSwizzlingLdSt``: plain ``st.shared``/``ld.shared``. The vector is the registers both sides
    share; below 32 bits it is filled with registers one side holds where the other has warps (the side
    with more of them, ties to the lower basis), then with warp bases (``getVecBasisLdSt``). Below 128
    bits, the bank bases that are registers of the side that filled the bank (or of the side with more)
    go first, so that side's accesses vectorise further."""
    vbasis = intersection(src.regs, dst.regs, dim)[:max((128 // bits).bit_length() - 1, 0)]
    fills = None
    if (1 << len(vbasis)) * bits < 32:
        per_bank = (32 // bits).bit_length() - 1
        warp_src = [w for w in src.warps if w]
        warp_dst = [w for w in dst.warps if w]
        rs = intersection([r for r in src.regs if r not in vbasis], warp_dst, dim)
        rd = intersection([r for r in dst.regs if r not in vbasis], warp_src, dim)
        if len(rs) == len(rd) and rs:
            fills = min(rs) < min(rd)
            vbasis += rs if fills else rd
        else:
            fills = len(rs) > len(rd)
            vbasis += rs if fills else rd
        if len(vbasis) < per_bank:
            vbasis += intersection(warp_src, warp_dst, dim)
        i = 0
        while len(vbasis) < per_bank and (i < len(warp_src) or i < len(warp_dst)):
            if i < len(warp_src) and warp_src[i] not in vbasis:
                vbasis.append(warp_src[i])
            if len(vbasis) < per_bank and i < len(warp_dst) and warp_dst[i] not in vbasis:
                vbasis.append(warp_dst[i])
            i += 1
        vbasis = vbasis[:per_bank]
    log2vec = max(1, (1 << len(vbasis)) * bits // 32).bit_length() - 1
    tile_src = src.lanes[:len(src.lanes) - log2vec]
    tile_dst = dst.lanes[:len(dst.lanes) - log2vec]
    buf = _buffer(src, dst, bits, vbasis, tile_src, tile_dst, dim)
    if log2vec < 2:
        in_src = [i for i, r in enumerate(buf.bank) if r in src.regs]
        in_dst = [i for i, r in enumerate(buf.bank) if r in dst.regs]
        if fills is None:
            order = in_src if len(in_src) > len(in_dst) else in_dst
        else:
            order = in_src if fills else in_dst
        order = order + [i for i in range(len(buf.bank)) if i not in order]
        buf = buf._replace(bank=tuple(buf.bank[i] for i in order))
    return buf


class Plan(NamedTuple):
    """How a conversion goes through shared memory: the buffer, each side's instruction and per-thread
    count, and each side's vector (elements a plain access moves)."""

    buffer: Buffer
    store: str
    load: str
    stores: int
    loads: int
    vec_store: int
    vec_load: int


def _vector(side: Flat, buf: Buffer, bits: int) -> int:
    """``largestVectorisation``: ``2^k`` elements, ``k`` the most leading offset bits of the buffer that are
    register bases of this side while none of the side's other bases reaches into those bits (the
    registers then divide off as one vector), at most 128 bits."""
    order = buf.bases()
    regs = set(side.regs)
    k = 0
    while k < len(order) and order[k] in regs and (2 << k) * bits <= 128:
        k += 1
    while k:
        low = (1 << k) - 1
        used = set(order[:k])
        ok = True
        for b in (*side.regs, *side.lanes, *side.warps):
            if b and b not in used:
                off = represent(b, (order,))
                if off is None or off[0] & low:
                    ok = False
                    break
        if ok:
            break
        k -= 1
    return 1 << k


@lru_cache(maxsize=4096)
def plan(src: Flat, dst: Flat, bits: int, target: str = "sm80") -> Plan:
    """The buffer and instructions of converting ``src`` to ``dst`` (``bits``-bit elements, pointers 64)
    through shared memory on ``target`` (broadcast registers, zero bases, are removed first)."""
    if bits < 8:
        bits = 8
    src = src._replace(regs=tuple(r for r in src.regs if r))
    dst = dst._replace(regs=tuple(r for r in dst.regs if r))
    dim = _dim(src, dst)
    total = max((128 // bits).bit_length() - 1, 0)
    candidates = []
    for ks in _kinds(bits, "st", target):
        for kd in _kinds(bits, "ld", target):
            cs, cd = _TILES[ks][0], _TILES[kd][0]
            v = _tile(src, dst, total - len(cs), total - len(cd), cs, cd, dim)
            if v is None:
                continue
            ts, td = _addr_tile(ks, src, v), _addr_tile(kd, dst, v)
            if ts is None or td is None:
                continue
            leave = min(_missing(ks), _missing(kd))
            buf = _buffer(src, dst, bits, v, ts, td, dim, leave)
            candidates.append((_conflicts(ts, td, buf, dim), -len(buf.reps), ks, kd, buf))
    if candidates:
        _c, _r, ks, kd, buf = min(candidates, key=lambda c: (c[0], c[1]))
    else:
        ks = kd = ST
        buf = _ldst(src, dst, bits, dim)
    n_src, n_dst = 1 << len(src.regs), 1 << len(dst.regs)
    vs, vd = _vector(src, buf, bits), _vector(dst, buf, bits)
    stores = n_src // vs if ks == ST else max(n_src * bits // 128, 1)
    loads = n_dst // vd if kd == ST else max(n_dst * bits // 128, 1)
    return Plan(buf, NAMES["st", ks], NAMES["ld", kd], stores, loads, vs, vd)


def _missing(kind: int) -> int:
    """``regsMissing``: the register bases an instruction leaves to repetitions (2 for ldmatrix/stmatrix)."""
    contig, addr = _TILES[kind]
    return len(contig) + len(addr) - 3


def _dim(src: Flat, dst: Flat) -> int:
    """log2 of the block's elements: the bits the (non-zero) bases span."""
    span = 0
    for b in (*src.regs, *src.lanes, *src.warps, *dst.regs, *dst.lanes, *dst.warps):
        span |= b
    return span.bit_length()


def _addr_tile(kind: int, side: Flat, vbasis) -> tuple | None:
    """``getTile``: the bases that give one instruction's addresses (registers for the rows a
    ``.trans`` needs, then the address lanes)."""
    need = 3 - len(_TILES[kind][1])
    tile = []
    for r in side.regs:
        if need == 0:
            break
        if r not in vbasis:
            tile.append(r)
            need -= 1
    if need > 0:
        return None
    return tuple(tile) + tuple(side.lanes[i] for i in _TILES[kind][1])


# --- bank conflicts of a plan ----------------------------------------------------------------------------
def _xor_table(offsets: list) -> np.ndarray:
    """Every XOR of a subset of ``offsets``, subset ``i`` being the bits of ``i``."""
    table = np.zeros(1, np.int64)
    for o in offsets:
        table = np.concatenate([table, table ^ o])
    return table


def _offset(e: int, bases: tuple, kept: int) -> int | None:
    """The buffer offset (in elements) holding element ``e``: its representation in the buffer's bases,
    the repetition bits (the offset bits past ``kept``) dropped: each repetition reuses the buffer."""
    if not e:
        return 0
    r = represent(e, (bases,))
    return None if r is None else r[0] & ((1 << kept) - 1)


def side_banks(side: Flat, buf: Buffer, kind: int, vec: int, count: int, bits: int) -> tuple[int, int] | None:
    """``(wavefronts, ideal wavefronts)`` of one side of a conversion, summed over the side's warps: its
    ``count`` instructions a thread of ``kind``, plain accesses moving ``vec`` elements. A plain access's
    lane addresses come from the buffer (each lane's element, through the buffer's bases, the repetition
    bits dropped) and are counted by :mod:`kernellab.access` (a 64- or 128-bit access served in phases
    of 16 or 8 lanes); an ``ldmatrix``/``stmatrix`` .x4 is four 8 × 16-byte matrices, one phase each,
    whose 8 rows fall into ``2^(3 − r)`` ways of the same banks, ``r`` the rank of the rows' 16-byte
    bank groups. None where an element is not in the buffer."""
    bases = buf.bases()
    kept = len(buf.vector) + len(buf.bank) + len(buf.segment)
    warps = 1 << len(side.warps)
    nbytes = max(bits, 8) // 8
    if kind != ST:
        tile = _addr_tile(kind, side, buf.vector)
        if tile is None:
            return None
        groups = []
        for b in tile:
            o = _offset(b, bases, kept)
            if o is None:
                return None
            groups.append((o * nbytes >> 4) & 7)
        ways = 1 << (3 - len(_rref(groups)))
        return count * warps * 4 * ways, count * warps * 4
    regs = [r for r in side.regs if r]
    k = vec.bit_length() - 1
    rest = [r for r in regs if r not in bases[:k]]
    offs = {}
    for b in (*side.lanes, *side.warps, *rest):
        o = _offset(b, bases, kept)
        if o is None:
            return None
        offs[b] = o
    lanes = _xor_table([offs[b] for b in side.lanes])
    elements = (_xor_table([offs[b] for b in side.warps])[:, None, None] ^ _xor_table([offs[b] for b in rest])[None, :, None]
                ^ lanes[None, None, :]).reshape(-1, WARP)
    acc = Access(elements * nbytes, np.ones(elements.shape, bool), vec * nbytes, known_aligned=True)
    return shared_wavefronts(acc), shared_ideal_wavefronts(acc)


@lru_cache(maxsize=4096)
def banks(src: Flat, dst: Flat, bits: int, target: str = "sm80") -> tuple[tuple[int, int], tuple[int, int]]:
    """``(wavefronts, ideal wavefronts)`` of a conversion's stores, then of its loads (:func:`plan`), each
    over all the warps of a program: the bank conflicts are the differences.

    >>> src = Flat(regs=(32, 64, 128), lanes=(256, 512, 1, 2, 4), warps=(8, 16))   # the fp16 transpose
    >>> banks(src, Flat(regs=(1, 2, 4), lanes=(8, 16, 32, 64, 128), warps=(256, 512)), 16)
    ((16, 16), (16, 16))
    """
    p = plan(src, dst, bits, target)
    s = src._replace(regs=tuple(r for r in src.regs if r))
    d = dst._replace(regs=tuple(r for r in dst.regs if r))
    kinds = {v: k for k, v in NAMES.items()}
    out = []
    for side, name, vec, count in ((s, p.store, p.vec_store, p.stores), (d, p.load, p.vec_load, p.loads)):
        kind = kinds[name][1]
        got = side_banks(side, p.buffer, kind, vec, count, bits)
        if got is None:  # counted as conflict-free
            got = ((count if kind == ST else 4 * count) << len(side.warps),) * 2
        out.append(got)
    return tuple(out)
