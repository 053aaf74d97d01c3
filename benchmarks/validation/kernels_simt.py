"""The validation rows' CUDA-style kernels, for kernellab's SIMT simulator (``kernel(blk, ...)``).

Each is written for this project from the description its source gives (``validation.csv`` and the
source's own text): a grid-stride float4 copy, a padded shared-memory transpose with float4 global
accesses, a byte-wise transform, chains of ``__expf`` and of FADD in one warp, and pointer chases
through shared memory and through HBM. Their CUDA twins are in ``benchmarks/validation/cuda/`` (the GPU
check times them).
"""

from __future__ import annotations

import numpy as np

UNROLL = 4  # float4 copies per thread per pass of the copy loop (the source's "float4, UNROLL=4")
LOG2E = np.float32(1.4426950408889634)  # __expf(x) is ex2.approx(x · log2 e): an FMUL and a MUFU.EX2
TILE = 32  # the transpose's tile: 32 × 32 floats, rows padded to 33


def copy_float4(blk, src, dst, n4):
    """``dst[i] = src[i]`` over ``n4`` float4s, a grid-stride loop, ``UNROLL`` float4 loads then stores per pass."""
    tid = blk.bx * blk.bdx + blk.tx
    stride = blk.gdx * blk.bdx
    for base in range(0, n4, stride * UNROLL):
        idx = [base + u * stride + tid for u in range(UNROLL)]
        vals = []
        for i in idx:
            with blk.where(i < n4):
                vals.append(blk.load(src, i * 4, vec=4))
        for i, v in zip(idx, vals):
            with blk.where(i < n4):
                blk.store(dst, i * 4, v, vec=4)


def transpose_padded_float4(blk, inp, out, n):
    """``out = inpᵀ`` (n × n floats) through a 32 × 33 shared tile; block 8 × 32, each thread one float4
    of a tile row in, one float4 of a tile row out (four scalar shared accesses each way)."""
    tile = blk.shared(TILE * (TILE + 1), np.float32, name="tile")
    x0, y0 = blk.bx * TILE, blk.by * TILE
    v = blk.load(inp, (y0 + blk.ty) * n + x0 + blk.tx * 4, vec=4)
    for j in range(4):
        blk.store(tile, blk.ty * (TILE + 1) + blk.tx * 4 + j, v[:, j])
    blk.syncthreads()
    w = np.stack([blk.load(tile, (blk.tx * 4 + j) * (TILE + 1) + blk.ty) for j in range(4)], axis=1)
    blk.store(out, (x0 + blk.ty) * n + y0 + blk.tx * 4, w, vec=4)


def scale_bytes(blk, c, b, scalar, n):
    """``b[i] = scalar · c[i]`` over ``n`` int8 elements, one 16-byte vector (16 elements) a thread."""
    i = (blk.bx * blk.bdx + blk.tx) * 16
    with blk.where(i < n):
        v = blk.load(c, i, vec=16)
        blk.store(b, i, (v * scalar).astype(np.int8), vec=16)


def _expf(blk, x):
    """``__expf`` on every element of ``x``: the simulator's ``blk.expf`` (an FMUL by log2 e and a ``MUFU.EX2``
    on the XU pipe), or, on a kernellab that has none (commit 75152b7, the "before" run), the same FMUL and
    one warp instruction named ``mufu.ex2`` a chain."""
    if hasattr(blk, "expf"):
        return blk.expf(x)
    x = blk.fmul(x, LOG2E)
    blk.count_instr("mufu.ex2", x.shape[1])
    return np.exp2(x).astype(np.float32)


def expf_chains(blk, out, iters, CHAINS):
    """One warp: ``CHAINS`` independent chains ``x = __expf(x · 1e-5)``, ``iters`` steps each (an FMUL by 1e-5,
    then ``__expf``'s FMUL by log2 e and MUFU.EX2)."""
    x = np.full((blk.n_threads, CHAINS), 0.5, np.float32) + np.arange(CHAINS, dtype=np.float32) * 1e-3
    for _ in range(iters):
        x = _expf(blk, blk.fmul(x, np.float32(1e-5)))
    blk.store(out, np.arange(CHAINS) * 32 + blk.tx[:, None], x)  # chain c of every lane: one line


def fadd_chains(blk, out, iters, CHAINS):
    """One warp: ``CHAINS`` independent chains ``x = x + 1``, ``iters`` FADDs each."""
    x = np.zeros((blk.n_threads, CHAINS), np.float32) + np.arange(CHAINS, dtype=np.float32)
    for _ in range(iters):
        x = blk.fadd(x, np.float32(1.0))
    blk.store(out, np.arange(CHAINS) * 32 + blk.tx[:, None], x)  # chain c of every lane: one line


def chase_shared(blk, nxt, out, hops, N):
    """One thread (``<<<1, 1>>>``): copy a cycle of ``N`` int32 indices into shared memory, then follow it
    ``hops`` times (``j = s[j]``, each load's address the previous load's value)."""
    s = blk.shared(N, np.int32, name="s")
    cols = np.zeros((blk.n_threads, 1), np.int64) + np.arange(N)
    blk.store(s, cols, blk.load(nxt, cols))
    j = np.zeros(blk.n_threads, np.int64)
    for _ in range(hops):
        j = blk.load(s, j).astype(np.int64)
    blk.store(out, 0, j.astype(np.int32))


def chase_global(blk, nxt, out, hops):
    """One thread (``<<<1, 1>>>``): follow a chain of int64 indices through global memory ``hops`` times
    (``j = nxt[j]``)."""
    j = np.zeros(blk.n_threads, np.int64)
    for _ in range(hops):
        j = blk.load(nxt, j)
    blk.store(out, 0, j)
