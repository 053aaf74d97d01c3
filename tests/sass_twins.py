"""The SIMT twins of ``cuda/q01_axpy.cu`` and ``cuda/r0*.cu``: Harris's reductions 1–4 and the quickstart's axpy,
written as a user would, with no ``blk.count_instr``."""

import numpy as np


def axpy(blk, x, y, out, a, n):
    i = blk.bx * blk.bdx + blk.tx
    with blk.where(i < n):
        blk.store(out, i, blk.fma(a, blk.load(x, i), blk.load(y, i)))


def _load_to_shared(blk, g_idata, n):
    sdata = blk.shared(256, np.float32, name="sdata")
    i = blk.bx * blk.bdx + blk.tx
    with blk.where(i < n):
        v = blk.load(g_idata, i)  # 0 on the lanes past n: sdata[tid] = (i < n) ? g_idata[i] : 0
    blk.store(sdata, blk.tx, v)
    blk.syncthreads()
    return sdata


def _write_result(blk, sdata, g_odata):
    with blk.where(blk.tx == 0):
        blk.store(g_odata, blk.bx, blk.load(sdata, 0))


def reduce1(blk, g_idata, g_odata, n):
    """Interleaved addressing, divergent: ``if (tid % (2*s) == 0)``."""
    sdata, tid = _load_to_shared(blk, g_idata, n), blk.tx
    s = 1
    while s < blk.bdx:
        with blk.where(tid % (2 * s) == 0):
            blk.store(sdata, tid, blk.fadd(blk.load(sdata, tid), blk.load(sdata, tid + s)))
        blk.syncthreads()
        s *= 2
    _write_result(blk, sdata, g_odata)


def reduce2(blk, g_idata, g_odata, n):
    """Interleaved addressing, strided index: ``index = 2*s*tid`` (bank conflicts)."""
    sdata, tid = _load_to_shared(blk, g_idata, n), blk.tx
    s = 1
    while s < blk.bdx:
        index = 2 * s * tid
        with blk.where(index < blk.bdx):
            blk.store(sdata, index, blk.fadd(blk.load(sdata, index), blk.load(sdata, index + s)))
        blk.syncthreads()
        s *= 2
    _write_result(blk, sdata, g_odata)


def _sequential_tree(blk, sdata):
    tid = blk.tx
    s = blk.bdx // 2
    while s > 0:
        with blk.where(tid < s):
            blk.store(sdata, tid, blk.fadd(blk.load(sdata, tid), blk.load(sdata, tid + s)))
        blk.syncthreads()
        s >>= 1


def reduce3(blk, g_idata, g_odata, n):
    """Sequential addressing: ``if (tid < s)``, s halving."""
    sdata = _load_to_shared(blk, g_idata, n)
    _sequential_tree(blk, sdata)
    _write_result(blk, sdata, g_odata)


def reduce4(blk, g_idata, g_odata, n):
    """First add during the load: each block reads 2 · blockDim.x elements."""
    sdata = blk.shared(256, np.float32, name="sdata")
    i = blk.bx * (blk.bdx * 2) + blk.tx
    with blk.where(i < n):
        v = blk.load(g_idata, i)
    with blk.where(i + blk.bdx < n):
        v = blk.fadd(v, blk.load(g_idata, i + blk.bdx))
    blk.store(sdata, blk.tx, v)
    blk.syncthreads()
    _sequential_tree(blk, sdata)
    _write_result(blk, sdata, g_odata)
