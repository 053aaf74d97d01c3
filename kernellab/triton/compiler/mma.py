"""The tensor-core instructions Triton 3.9 compiles a ``tl.dot`` into, counted per program and target.

* **sm_80 (A100)**: ``mma.sync.aligned.m16n8kK``, one warp each: a dot of an ``M×K`` block by a
  ``K×N`` block is ``M·N·K / (16·8·K₀)`` warp instructions, ``K₀`` = 16 for fp16 and bf16, 8 for tf32
  (fp32 inputs, ``input_precision="tf32"``, the default), 32 for 8-bit inputs; ``"tf32x3"`` runs three.
* **sm_90 (H100)**: ``wgmma.mma_async.m64nNkK₀``, one *warpgroup* (4 warps) each, when the program has
  a multiple of 4 warps and the block has at least 64 rows per warpgroup along M: the warpgroups split
  M into tiles of 64 rows (then N), and each instruction covers ``N = min(N per warpgroup, 256)``
  columns. Counted as warp instructions (4 per wgmma, as ``smsp__inst_executed`` counts them). Blocks
  too small for it use ``mma.sync`` as on sm_80.
* ``input_precision="ieee"`` on fp32 uses no tensor core: 0 on both.

Both counts equal the MMA instructions of the PTX Triton 3.9 compiles (``kernellab/compiled_counts.json``,
the ``dot_*`` and ``matmul`` cases), times the warps that run them.

Examples
--------
>>> mma_instructions(128, 128, 32, "fp16", None, num_warps=4)      # 256 mma.sync; 4 wgmma m64n128k16 × 4 warps
(256, 16)
>>> mma_instructions(32, 32, 16, "fp16", None, num_warps=4)        # M = 32 < 64: mma.sync on sm_90 too
(8, 8)
>>> mma_instructions(64, 64, 32, "fp32", "ieee", num_warps=4)
(0, 0)
"""

from __future__ import annotations

K0 = {"fp16": 16, "bf16": 16, "tf32": 8, "int8": 32, "fp8": 32}


def kind(dtype_name: str, input_precision: str | None) -> tuple[str | None, int]:
    """``(operand kind, passes)`` of a dot of ``dtype_name`` operands: None when it uses no tensor core."""
    name = dtype_name.lower()
    if name in ("fp16", "float16"):
        return "fp16", 1
    if name in ("bf16", "bfloat16"):
        return "bf16", 1
    if name in ("fp32", "float32"):
        precision = input_precision or "tf32"
        if precision == "ieee":
            return None, 0
        return "tf32", 3 if precision == "tf32x3" else 1
    if name in ("int8", "uint8"):
        return "int8", 1
    if name.startswith(("fp8", "float8")):
        return "fp8", 1
    return None, 0


def mma_instructions(m: int, n: int, k: int, dtype_name: str, input_precision: str | None,
                     num_warps: int, batch: int = 1) -> tuple[int, int]:
    """Warp-level MMA instructions of one program's ``tl.dot``: ``(sm_80, sm_90)``."""
    what, passes = kind(dtype_name, input_precision)
    if what is None:
        return 0, 0
    k0 = K0[what]
    sm80_k0 = 16 if what == "fp8" else k0  # sm_80 has no fp8 MMA: Triton converts the operands to fp16
    sm80 = batch * passes * m * n * k // (16 * 8 * sm80_k0)
    tile = wgmma_tile(m, n, num_warps, batch)
    if tile is None:
        return sm80, batch * passes * m * n * k // (16 * 8 * k0)
    _wg_m, _wg_n, n_instr = tile
    sm90 = passes * (m // 64) * (n // n_instr) * (k // k0) * 4
    return sm80, sm90


def wgmma_tile(m: int, n: int, num_warps: int, batch: int = 1) -> tuple[int, int, int] | None:
    """``(warpgroups along M, warpgroups along N, N of one wgmma)`` of an ``M×N`` dot on sm_90, or None
    where the block is too small for ``wgmma`` (then ``mma.sync``).

    >>> wgmma_tile(128, 128, 8), wgmma_tile(32, 32, 4)
    ((2, 1, 128), None)
    """
    if num_warps % 4 or m < 64 or m % 64 or batch != 1:
        return None
    groups = num_warps // 4
    wg_m = min(groups, m // 64)
    wg_n = max(groups // wg_m, 1)
    return wg_m, wg_n, min(n // wg_n, 256)


def mma_warps(m: int, n: int, num_warps: int) -> tuple[int, int]:
    """``warpsPerCTA`` of the ``mma.sync`` accumulator of an ``M×N`` dot (Triton 3.9's
    ``warpsPerTileV2``): warps go along M while it has at least as many 16-row tiles per warp as N
    has 8-column ones, else along N.

    >>> mma_warps(64, 64, 4), mma_warps(128, 128, 8), mma_warps(64, 256, 4)
    ((2, 2), (2, 4), (1, 4))
    """
    wm = wn = 1
    while wm * wn < num_warps:
        if m // 16 // wm >= n // 8 // wn and wm < m // 16:
            wm *= 2
        else:
            wn *= 2
    return wm, wn
