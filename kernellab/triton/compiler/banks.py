"""Shared-memory wavefronts and bank conflicts of the buffers Triton 3.9 adds: a ``tl.dot`` operand's
swizzled buffer (``#ttg.swizzled_shared`` for ``mma.sync``, ``#ttg.nvmma_shared`` for ``wgmma``) and a
layout conversion's or cross-warp reduction's buffer (:func:`kernellab.triton.compiler.swizzle.banks`).
Every lane's byte address is derived from the layouts and the swizzle, then counted by
:mod:`kernellab.access` as Nsight Compute counts ``l1tex__data_pipe_lsu_wavefronts_mem_shared``.
:func:`staging` (with :func:`staged`, its wavefronts too) counts a ``tl.dot``'s operands on their way to the tensor
cores, here because it asks these functions for its buffers' wavefronts."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...access import Access, shared_ideal_wavefronts, shared_wavefronts
from .convert import (
    WARP,
    Linear,
    _bits,
    _cap,
    _distinct,
    _fastest,
    _reduction_steps,
    _run,
    _stmatrix,
    _unit,
    conversion,
    flat,
    fma_staging,
    read_back,
    register_order,
    shared_plan,
    wgmma_a_operand,
)
from .mma import dot_plan
from .swizzle import banks


def ideal_wavefronts(x: Linear, d: int, bits: int) -> int:
    """Wavefronts of one conflict-free warp instruction of a thread's runs along ``d`` of ``x`` (up to 128
    bits): one per 128 bytes the warp moves."""
    width = (1 << min(_run(x, d), _cap(bits))) * max(bits // 8, 1)
    return max(WARP * width // 128, 1)


def _coords(bases: tuple, rank: int) -> np.ndarray:
    """The coordinates of every XOR of a subset of ``bases`` (subset ``i`` the bits of ``i``): ``(2^n, rank)``."""
    table = np.zeros((1, rank), np.int64)
    for b in bases:
        table = np.concatenate([table, table ^ np.asarray(b, np.int64)])
    return table


def operand_swizzle(shape: tuple, order: tuple, slot: int, bits: int) -> tuple[int, int, int]:
    """``(vec, perPhase, maxPhase)`` of the ``#ttg.swizzled_shared`` buffer Triton 3.9 stores an ``mma``
    operand in (``SwizzledSharedEncodingAttr::get`` for a dot operand of an NVIDIA mma parent, the
    Ampere branch; also wgmma's A taken in registers): ``kWidth = 32 ÷ bits``, rows of ``perPhase =
    128 ÷ (contiguous elements × 4 ÷ kWidth)`` share a phase, and the ``mma`` tile (8 × 8 × 4·kWidth)
    gives the vector and the phases: A contiguous along K: ``vec = 4·kWidth``, ``maxPhase = 8 ÷
    perPhase``; B contiguous along N: ``vec = 8``, ``maxPhase = 4·kWidth ÷ perPhase``.

    >>> operand_swizzle((64, 32), (1, 0), 0, 16), operand_swizzle((32, 64), (1, 0), 1, 16)   # kloop's TTGIR
    ((8, 2, 4), (8, 1, 8))
    """
    kwidth = max(32 // bits, 1)
    rank = len(shape)
    per_phase = max(128 // max(shape[order[0]] * 4 // kwidth, 1), 1)
    k = 4 * kwidth
    if slot == 0:
        vec, stride = (k, 8) if order[0] == rank - 1 else (8, k)
    else:
        vec, stride = (8, k) if order[0] == rank - 1 else (k, 8)
    return vec, per_phase, max(stride // per_phase, 1)


def operand_encoding(shape: tuple, d: int, slot: int, bits: int, nvmma: bool) -> str:
    """The shared encoding, as Triton 3.9's TTGIR prints it, of the buffer a ``tl.dot`` operand of ``shape``
    (``slot`` 0: A, 1: B) is stored in contiguous along ``d``: :func:`operand_swizzle`'s, or with ``nvmma``
    :func:`nvmma_swizzle`'s (``transposed`` where the buffer runs down the rows).

    >>> operand_encoding((64, 32), 1, 0, 16, False)
    '#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>'
    >>> operand_encoding((64, 64), 0, 1, 8, True)   # an fp8 B stored K-major for wgmma
    '#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8}>'
    """
    rank = len(shape)
    if nvmma:
        return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {nvmma_swizzle(shape, d, bits)}, "
                f"transposed = {'true' if d == rank - 2 else 'false'}, elementBitWidth = {bits}}}>")
    other = [i for i in reversed(range(rank)) if i != d]
    vec, per_phase, max_phase = operand_swizzle(shape[-2:], (d - (rank - 2), other[0] - (rank - 2)), slot, bits)
    order = ", ".join(str(i) for i in (d, *other))
    return f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, order = [{order}]}}>"


def _swizzled_bytes(coords: np.ndarray, shape: tuple, d: int, bits: int, swizzle: tuple) -> np.ndarray:
    """Byte offsets of ``coords`` in a ``#ttg.swizzled_shared`` buffer contiguous along ``d``: row ``r`` (the
    other matrix dimension; a batch dimension outside) has phase ``(r ÷ perPhase) mod maxPhase``, which
    XORs the index of each ``vec``-element group of the row."""
    vec, per_phase, max_phase = swizzle
    rank = len(shape)
    other = [i for i in range(rank) if i != d][-1]
    col, row = coords[:, d], coords[:, other]
    phase = (row // per_phase) % max_phase
    off = row * shape[d] + (((col // vec) ^ phase) * vec + col % vec)
    for i in range(rank):
        if i not in (d, other):
            off = off + coords[:, i] * shape[d] * shape[other]
    return off * max(bits // 8, 1)


def nvmma_swizzle(shape: tuple, d: int, bits: int) -> int:
    """The swizzle width in bytes of the ``#ttg.nvmma_shared`` buffer ``wgmma`` reads (``NVMMASharedEncodingAttr``):
    128, 64 or 32 when the contiguous dimension's bytes are a multiple of it, else 0."""
    contig = shape[d] * max(bits // 8, 1)
    for width in (128, 64, 32):
        if contig % width == 0:
            return width
    return 0


def _nvmma_bytes(coords: np.ndarray, shape: tuple, d: int, bits: int) -> np.ndarray:
    """Byte offsets of ``coords`` in a ``#ttg.nvmma_shared`` buffer contiguous along ``d``: the contiguous
    dimension cut into columns of ``W`` bytes (:func:`nvmma_swizzle`), each all rows long; in one, row ``r``
    at ``r·W``, its 16-byte chunks XORed with bits 7 and up of that offset (``W = 128``: ``r mod 8``)."""
    nbytes = max(bits // 8, 1)
    width = nvmma_swizzle(shape, d, bits)
    rank = len(shape)
    other = [i for i in range(rank) if i != d][-1]
    col, row = coords[:, d] * nbytes, coords[:, other]
    if not width:
        off = row * shape[d] * nbytes + col
    else:
        inner = row * width + col % width
        inner = inner ^ (((inner >> 7) & (width // 16 - 1)) << 4)
        off = (col // width) * (shape[other] * width) + inner
    for i in range(rank):
        if i not in (d, other):
            off = off + coords[:, i] * shape[d] * shape[other] * nbytes
    return off


@lru_cache(maxsize=1024)
def operand_banks(x: Linear, slot: int, bits: int, d: int, nvmma: bool) -> tuple[int, int]:
    """``(wavefronts, ideal wavefronts)``, over a program's warps, of storing a ``tl.dot`` operand held
    under ``x`` into its shared buffer (``ttg.local_alloc``), contiguous along ``d``: ``mma.sync``'s (and a
    register A's) ``#ttg.swizzled_shared`` buffer (:func:`operand_swizzle`), or with ``nvmma`` ``wgmma``'s
    ``#ttg.nvmma_shared`` one (:func:`nvmma_swizzle`). Each thread stores its runs of consecutive elements
    along ``d`` in vectors of up to 128 bits (no wider than the swizzle's vector); every lane's address
    of every instruction, through the buffer's swizzle, is counted by :mod:`kernellab.access`.

    >>> from kernellab.triton.compiler.convert import blocked
    >>> a = blocked((64, 32), (1, 8), (8, 4), (4, 1), (1, 0))   # 16 halves a thread: 2 st.shared.v4
    >>> operand_banks(a, 0, 16, 1, False)                      # 8 a program, 4 wavefronts each: no conflict
    (32, 32)
    """
    rank = len(x.shape)
    nbytes = max(bits // 8, 1)
    if nvmma:
        run = min(_run(x, d), _cap(bits), _bits(max(16 // nbytes, 1)))
    else:
        other = [i for i in range(rank) if i != d]
        swizzle = operand_swizzle(x.shape[-2:], (d - (rank - 2), other[-1] - (rank - 2)), slot, bits) \
            if rank >= 2 else (1, 1, 1)
        run = min(_run(x, d), _cap(bits), _bits(swizzle[0]))
    regs = _distinct(x.registers)
    rest = regs[run:] if all(regs[i] == _unit(rank, d, 1 << i) for i in range(run)) else regs
    lanes = _coords(x.lanes, rank)
    coords = (_coords(x.warps, rank)[:, None, None, :] ^ _coords(rest, rank)[None, :, None, :]
              ^ lanes[None, None, :, :]).reshape(-1, rank)
    if nvmma:
        addr = _nvmma_bytes(coords, x.shape, d, bits)
    else:
        addr = _swizzled_bytes(coords, x.shape, d, bits, swizzle)
    addr = addr.reshape(-1, WARP)
    acc = Access(addr, np.ones(addr.shape, bool), (1 << run) * nbytes, known_aligned=True)
    return shared_wavefronts(acc), shared_ideal_wavefronts(acc)


@lru_cache(maxsize=4096)
def conversion_banks(src: Linear, dst: Linear, bits: int, target: str = "sm80") -> tuple[int, int]:
    """``(wavefronts, ideal wavefronts)`` of a layout conversion's stores and loads over a program's warps
    (:func:`kernellab.triton.compiler.swizzle.banks`): ``(0, 0)`` where no shared memory is needed."""
    st, ld = conversion_sides(src, dst, bits, target)
    return st[0] + ld[0], st[1] + ld[1]


def conversion_sides(src: Linear, dst: Linear, bits: int, target: str = "sm80") -> tuple:
    """:func:`conversion_banks` for the stores and for the loads apart."""
    if src.shape != dst.shape or shared_plan(src, dst, bits, target) is None:
        return (0, 0), (0, 0)
    return banks(flat(src), flat(dst), bits, target)


@lru_cache(maxsize=4096)
def reduction_banks(src: Linear, axis: int | None, bits: int, operands: int = 1, used: int | None = None,
                    target: str = "sm80") -> tuple[int, int]:
    """``(wavefronts, ideal wavefronts)`` over a program's warps of a cross-warp reduction's conversions
    (:func:`kernellab.triton.compiler.convert.reduction`), each operand's stores and each used result's loads."""
    wf = ideal = 0
    for a, b, n_st, n_ld in _reduction_steps(src, axis, operands, used):
        st, ld = conversion_sides(a, b, bits, target)
        wf += st[0] * n_st + ld[0] * n_ld
        ideal += st[1] * n_st + ld[1] * n_ld
    return wf, ideal


def staging(a: Linear, b: Linear, what: str, bits: int, num_warps: int, target: str,
            tma: tuple = (False, False), plan=None, copied: tuple = (False, False), a_plan=None,
            loaded: tuple = (True, True)) -> tuple[int, int]:
    """``(stores, loads)`` per thread of a ``tl.dot``'s operands on their way to the tensor cores, as
    Triton 3.9 lowers them: each operand, in the layout of its load, is stored to shared memory
    (``ttg.local_alloc``), each thread writing its runs of consecutive elements in vectors of up to 128
    bits. On sm_90 ``wgmma`` reads both from shared memory: no loads; for tf32 it reads B K-major, so a
    B loaded row by row is stored one element at a time. With ``mma.sync`` (sm_80, and sm_90
    blocks too small for ``wgmma``) each warp loads its rows of A and columns of B with
    ``ldmatrix.x4``, 16 × 16 fp16 (512 bytes) an instruction (``.trans`` for B), whole 16-row (8-column)
    tiles even where its warps outnumber the block's tiles; tf32 B, which ``ldmatrix`` cannot transpose,
    is loaded one 32-bit element at a time. An operand that is a tensor descriptor's tile (``tma``: for A
    and B) is already in shared memory on sm_90, where ``wgmma`` reads it as the TMA copy left it: no
    stores. ``plan``: the dot's warps (:func:`kernellab.triton.compiler.mma.dot_plan`; None: its own);
    ``copied``: the operands a pipelined loop's ``cp.async`` copies write to shared memory (True: no
    stores), or that a loop made before it stores there once, before the loop (``"once"``: no stores in
    the iterations after the first; ``mma.sync`` still reads them every iteration).

    ``a_plan``: operand A is the accumulator of an earlier dot of the same chain, under that plan (flash
    attention's ``p``). With ``mma.sync`` whose warps all lie along M, the two dots' layouts match
    register for register (no shared memory); otherwise A goes through shared memory like a loaded
    block. ``wgmma`` takes such an A in registers: nothing when both dots have the same warps, else a
    layout conversion to its operand layout (:func:`~kernellab.triton.compiler.convert.wgmma_a_operand`).

    ``loaded``: for A and B, True where the operand is a load's result itself, ``"hoist"`` where it is
    computed from one by bitcasts and widening casts only (OptimizeDotOperands hoists the conversion to
    the dot operand through them, ``canHoistDotOpEncV2/V3``), False for any other computed operand. A
    hoisted A is ``wgmma``'s register operand (``MMAV3HoistLayoutConversion``): stored to a dot-operand
    buffer in its load's layout and read back with ``ldmatrix``, as ``mma.sync`` reads A (no store where
    the pipeliner copies it). An operand the pipeliner copies (``copied``) but that is computed after the
    copy where the conversion cannot follow it (any B of ``wgmma``, which reads B from shared memory; an
    operand that is not hoisted) is first read back from the copy's plain buffer into its load's layout
    (:func:`~kernellab.triton.compiler.convert.read_back`), then stored as an operand that was not copied. ``wgmma`` reads B K-major for every operand type but 16-bit floats
    (``allowTranspose``): a B loaded along N is stored one element at a time. A batched (3-D) dot is
    ``mma.sync`` on both targets, each warp its share of the batch.

    >>> from kernellab.triton.compiler.convert import blocked
    >>> a = blocked((64, 32), (1, 8), (8, 4), (4, 1), (1, 0)); b = blocked((32, 64), (1, 8), (4, 8), (4, 1), (1, 0))
    >>> staging(a, b, "fp16", 16, 4, "sm80"), staging(a, b, "fp16", 16, 4, "sm90")
    ((4, 8), (4, 0))
    """
    return staged(a, b, what, bits, num_warps, target, tma, plan, copied, a_plan, loaded)[:2]


@lru_cache(maxsize=1024)
def staged(a: Linear, b: Linear, what: str, bits: int, num_warps: int, target: str,
           tma: tuple = (False, False), plan=None, copied: tuple = (False, False), a_plan=None,
           loaded: tuple = (True, True)) -> tuple[int, int, int, int]:
    """:func:`staging`'s ``(stores, loads)`` per thread, then ``(wavefronts, ideal wavefronts)`` of a program's
    shared-memory traffic for the dot (:func:`kernellab.triton.compiler.banks.operand_banks`): the stores into an operand buffer
    counted lane by lane under its swizzle, a conversion's by its plan, the loads (``ldmatrix``,
    copies read back) as conflict-free, as the swizzle makes them."""
    if what == "fma":
        return (*fma_staging(a, b, bits, num_warps, target), 0, 0)
    cap = _cap(bits)
    batch = a.shape[0] if len(a.shape) == 3 else 1
    (m, k), n = a.shape[-2:], b.shape[-1]
    if plan is None:
        plan = dot_plan(m, n, what, num_warps, batch)
    wgmma = target == "sm90" and plan.sm90[0] == "wgmma"
    # wgmma reads B K-major unless its elements are 16-bit floats: down its columns
    along = (None, len(b.shape) - 2 if wgmma and what not in ("fp16", "bf16") else None)
    stores = loads = 0
    wave = [0, 0]  # wavefronts, ideal, per program
    nbytes = max(bits // 8, 1)
    a_free = False
    if a_plan is not None:
        if wgmma:  # A in registers: converted, unless both dots lay their warps alike
            a_free = True
            if a_plan.sm90[0] != "wgmma" or a_plan.sm90[1:3] != plan.sm90[1:3]:
                to = wgmma_a_operand(m, k, *plan.sm90[1:3], bits)
                st, ld = conversion(a, to, bits, target)
                stores, loads = stores + st, loads + ld
                w = conversion_banks(a, to, bits, target)
                wave[0], wave[1] = wave[0] + w[0], wave[1] + w[1]
        else:  # mma.sync: free when the producer's warps are the same, all along M
            own = plan.sm80 if target != "sm90" else plan.sm90[1:]
            if target != "sm90":
                theirs = a_plan.sm80
            else:
                theirs = a_plan.sm90[1:] if a_plan.sm90[0] == "mma" else None
            a_free = theirs is not None and tuple(own) == tuple(theirs) and own[-1] == 1
    for slot, (x, d, in_smem, cp, src) in enumerate(zip((a, b), along, tma, copied, loaded)):
        if wgmma and in_smem or (slot == 0 and a_free):
            continue
        if wgmma and slot == 0 and src == "hoist":  # A in registers: through a dot-operand buffer, ldmatrix
            if not cp:
                stores += (1 << len(_distinct(x.registers))) >> min(_run(x), cap)
                w = operand_banks(x, slot, bits, _fastest(x), False)
                wave[0], wave[1] = wave[0] + w[0], wave[1] + w[1]
            ld = 16 * -(-m // (16 * plan.sm90[1])) * k * nbytes // 512
            loads += ld
            wave[0], wave[1] = wave[0] + 4 * ld * num_warps, wave[1] + 4 * ld * num_warps
            continue
        if cp == "once":  # stored before the loop
            continue
        if cp:
            if src is True or (src == "hoist" and not wgmma):
                continue
            if src == "trans":  # a load read transposed: wgmma, or mma.sync's operand along K, reads the copy
                if wgmma or _fastest(x) == len(x.shape) - 1 - slot:  # through a transposed view (memdesc_trans)
                    continue
                # else (mma.sync's A along M) Triton 3.9 loads it ahead into registers and stores it every iteration
            else:
                back = read_back(x, bits)  # the copy read back into the load's layout
                loads += back
                ideal = back * num_warps * ideal_wavefronts(x, register_order(x)[0], bits)
                wave[0], wave[1] = wave[0] + ideal, wave[1] + ideal
        along_d = _fastest(x) if d is None else d
        plain = (1 << len(_distinct(x.registers))) >> min(_run(x, d), cap)
        st = _stmatrix(x, along_d, bits) if wgmma else None
        if st is not None and st < plain:  # stmatrix: four 8 × 16-byte rows a phase, the swizzle keeps them apart
            stores += st
            wave[0], wave[1] = wave[0] + 4 * st * num_warps, wave[1] + 4 * st * num_warps
        else:
            stores += plain
            w = operand_banks(x, slot, bits, along_d, wgmma)
            wave[0], wave[1] = wave[0] + w[0], wave[1] + w[1]
    if wgmma:
        return stores, loads, wave[0], wave[1]
    warps = plan.sm80 if target != "sm90" else plan.sm90[1:]
    per = 1
    if len(warps) == 3:  # batched: each warp its share of the batch
        per = -(-batch // warps[0])
        warps = warps[1:]
    wm, wn = warps
    rows, cols = 16 * -(-m // (16 * wm)), 8 * -(-n // (8 * wn))  # each warp's rows of A, columns of B
    matrices = 0  # ldmatrix.x4 a thread: 4 wavefronts each (the operand buffers' swizzle is conflict-free)
    if not a_free:
        matrices += per * -(-rows * k * nbytes // 512)
    if what == "tf32":
        scalar = per * (k * cols // WARP)
        loads += matrices + scalar
        wave[0] += (4 * matrices + scalar) * num_warps
        wave[1] += (4 * matrices + scalar) * num_warps
    else:
        matrices += per * -(-k * cols * nbytes // 512)  # 8 columns × K 16: one ldmatrix.x2
        loads += matrices
        wave[0], wave[1] = wave[0] + 4 * matrices * num_warps, wave[1] + 4 * matrices * num_warps
    return stores, loads, wave[0], wave[1]
