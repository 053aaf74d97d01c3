"""The tensor-core instructions Triton 3.9 compiles a ``tl.dot`` into, counted per program and target.

* **sm_80 (A100)**: ``mma.sync.aligned.m16n8kK``, one warp each: a dot of an ``M×K`` block by a
  ``K×N`` block is ``M·N·K / (16·8·K₀)`` warp instructions, ``K₀`` = 16 for fp16 and bf16, 8 for tf32
  (fp32 inputs, ``input_precision="tf32"``, the default), 32 for 8-bit inputs; ``"tf32x3"`` runs three
  dots chained through their accumulator, whose warps are planned as a chain's (:class:`DotChain`).
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

from functools import lru_cache
from typing import NamedTuple

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


@lru_cache(maxsize=1024)
def mma_instructions(m: int, n: int, k: int, dtype_name: str, input_precision: str | None,
                     num_warps: int, batch: int = 1, plan: Plan | None = None) -> tuple[int, int]:
    """Warp-level MMA instructions of one program's ``tl.dot``: ``(sm_80, sm_90)``. Every warp runs the
    tiles its layout gives it (:func:`dot_plan`): ``⌈M ÷ (16·warps along M)⌉ × ⌈N ÷ (N per instruction ·
    warps along N)⌉ × K ÷ K₀`` a thread, so warps that a small block leaves without a tile of their own
    repeat another warp's (a chained dot's 8 warps on 64 rows)."""
    what, passes = kind(dtype_name, input_precision)
    if what is None:
        return 0, 0
    if plan is None:
        plan = dot_plan(m, n, what, num_warps, batch)
    k0 = K0[what]
    sm80_k0 = 16 if what == "fp8" else k0  # sm_80 has no fp8 MMA: Triton converts the operands to fp16
    sm80 = passes * _mma_sync(m, n, k, sm80_k0, plan.sm80, num_warps, batch)
    if plan.sm90[0] == "mma":
        return sm80, passes * _mma_sync(m, n, k, k0, plan.sm90[1:], num_warps, batch)
    _v, w0, w1, n_instr = plan.sm90
    sm90 = passes * -(-m // (16 * w0)) * -(-n // (n_instr * w1)) * (k // k0) * num_warps
    return sm80, sm90


def tensor_flops(m: int, n: int, k: int, dtype_name: str, input_precision: str | None, num_warps: int,
                 batch: int = 1, plan: Plan | None = None) -> tuple[int, int]:
    """The Tensor Core work of one program's ``tl.dot`` on ``(sm_80, sm_90)``, in FLOPs at the FP16 rate: each
    warp instruction of :func:`mma_instructions` × the FLOPs of its tile with K counted as 16 (``mma.sync``:
    16 × 8 rows and columns, ``wgmma``: a warp's 16 rows × the instruction's N). Each operand kind's K₀ is the
    K an instruction covers in the time an fp16 one covers 16 (TF32 8 at half the FP16 rate, int8 32 at
    twice it), so this is the time the instructions hold the Tensor Cores, in FP16 FLOPs; fp8 counts its own
    FLOPs (K 32), which the model charges at the fp8 peak. Warps that repeat another warp's tile count
    (the instructions run), so a chained dot whose sm_80 warps all lie along N does twice its FLOPs there.

    >>> tensor_flops(128, 128, 32, "fp16", None, 4)        # 2·128·128·32 on both
    (1048576, 1048576)
    >>> tensor_flops(128, 32, 256, "fp16", None, 8, plan=dot_plan(128, 32, "fp16", 8, chain=(128, 256),
    ...              feeds_dot=True))                        # attention's q·kᵀ at head dim 256: sm_80 repeats it
    (4194304, 2097152)
    """
    what, _passes = kind(dtype_name, input_precision)
    if what is None:
        return 0, 0
    if plan is None:
        plan = dot_plan(m, n, what, num_warps, batch)
    sm80, sm90 = mma_instructions(m, n, k, dtype_name, input_precision, num_warps, batch, plan)
    n90 = plan.sm90[3] if plan.sm90[0] == "wgmma" else 8
    k_fp16 = 32 if what == "fp8" else 16
    return sm80 * MMA_FLOPS, sm90 * 2 * 16 * n90 * k_fp16


#: FLOPs of one ``mma.sync.m16n8k16`` (2·16·8·16): the FP16-rate work of one sm_80 MMA instruction.
MMA_FLOPS = 2 * 16 * 8 * 16


def _mma_sync(m: int, n: int, k: int, k0: int, warps: tuple, num_warps: int, batch: int) -> int:
    """``mma.sync.m16n8kK₀`` warp instructions: every warp's ``16 × 8`` tiles of its share, ``K ÷ K₀`` each."""
    if len(warps) == 3:
        wb, wm, wn = warps
        per = -(-batch // wb)
    else:
        (wm, wn), per = warps, batch
    return per * -(-m // (16 * wm)) * -(-n // (8 * wn)) * (k // k0) * num_warps


class Plan(NamedTuple):
    """How Triton 3.9 lays a ``tl.dot`` on the warps (``AccelerateMatmul``): ``sm80`` the ``mma.sync``
    ``warpsPerCTA`` (two or, batched, three entries); ``sm90`` ``("wgmma", warps along M, warps along N,
    N per instruction)`` or ``("mma", …warps)`` where the block is too small for ``wgmma``."""

    sm80: tuple
    sm90: tuple


WGMMA_N = tuple(range(256, 7, -8))  # the N a wgmma instruction may have (16-bit, tf32, fp8 operands)
WGMMA_N_INT8 = (224, 208, 192, 176, 160, 144, 128, 112, 96, 80, 64, 48, 32, 24, 16, 8)


def wgmma_n(m: int, n: int, num_warps: int, what: str = "fp16") -> int:
    """``mmaVersionToInstrShape`` for version 3: the largest valid N dividing the block's N that is at
    most its N per warp column (``N ÷ max(warps ÷ (M ÷ 16), 1)``, at least 8).

    >>> wgmma_n(64, 64, 8), wgmma_n(64, 128, 8), wgmma_n(128, 128, 4)
    (32, 64, 128)
    """
    n_warps = max(num_warps // max(m // 16, 1), 1)
    most = max(n // n_warps, 8)
    for v in (WGMMA_N_INT8 if what == "int8" else WGMMA_N):
        if n % v == 0 and v <= most:
            return v
    return 8


def wgmma_warps(m: int, num_warps: int, feeds_dot: bool) -> tuple[int, int]:
    """``warpsPerTileV3``: all warps along M for a dot whose result feeds another dot (flash attention's
    first one, so that its row reductions stay within warps); otherwise warpgroups of 4 along M while
    the block has rows for them, then along N."""
    if feeds_dot:
        return num_warps, 1
    w0, w1 = 4, 1
    while w0 * w1 < num_warps:
        if m > 16 * w0:
            w0 *= 2
        else:
            w1 *= 2
    return w0, w1


@lru_cache(maxsize=1024)
def dot_plan(m: int, n: int, what: str, num_warps: int, batch: int = 1, chain: tuple | None = None,
             feeds_dot: bool = False) -> Plan:
    """The warps of a ``tl.dot`` of an ``M×N`` result (``batch``: a 3-D dot's first dimension).
    ``chain``: the ``(M, N)`` of the last dot of a chain of dots this one belongs to (a result feeding
    another dot, or fed by one); Triton 3.9's ``warpsPerTileV2`` puts all warps on one axis for the
    whole chain, along M when that dot's M ≥ N (it converts the chain's last dot first, the others take
    its warps). ``feeds_dot``: this dot's result reaches a later dot (``warpsPerTileV3``).

    >>> dot_plan(64, 64, "fp16", 8, chain=(64, 128), feeds_dot=True)   # attention's q·kᵀ, head dim 128
    Plan(sm80=(1, 8), sm90=('wgmma', 8, 1, 32))
    """
    if batch > 1:
        wb = min(batch, num_warps)
        wm, wn = mma_warps(m, n, num_warps // wb)
        v2 = (wb, wm, wn)
    elif chain is not None:
        v2 = (num_warps, 1) if chain[0] >= chain[1] else (1, num_warps)
    else:
        v2 = mma_warps(m, n, num_warps)
    if num_warps % 4 or m % 64 or n % 8 or batch > 1 or what in ("fma", None):
        return Plan(v2, ("mma", *v2))
    n_instr = wgmma_n(m, n, num_warps, what)
    return Plan(v2, ("wgmma", *wgmma_warps(m, num_warps, feeds_dot), n_instr))


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


class DotChain:
    """The dots of one program that feed one another (a dot's result reaching another dot's operand
    through any elementwise operations, reductions or layout changes), in program order: what
    :func:`dot_plan` needs to know of each, once the program has run (a dot's warps depend on the dots
    after it). A value's layout tag names its chain and place (``("dot", M, N, kind, warps, (chain,
    i))``); its ``plan`` gives the frozen :class:`Plan`.

    >>> c = DotChain(); c.add(64, 64), c.add(64, 128)                    # q·kᵀ, then p·v
    (0, 1)
    >>> c.plan(0, "fp16", 8)
    Plan(sm80=(1, 8), sm90=('wgmma', 8, 1, 32))
    >>> c.plan(1, "fp16", 8)
    Plan(sm80=(1, 8), sm90=('wgmma', 4, 2, 64))
    """

    __slots__ = ("dots", "_plans")

    def __init__(self):
        self.dots: list = []
        self._plans: dict = {}  # made once the program has run, when the chain no longer grows

    def add(self, m: int, n: int, batch: int = 1) -> int:
        self.dots.append((m, n, batch))
        self._plans.clear()
        return len(self.dots) - 1

    def plan(self, i: int, what: str, num_warps: int, batch: int | None = None) -> Plan:
        key = (i, what, num_warps)
        got = self._plans.get(key)
        if got is None:
            m, n, b = self.dots[i]
            chained = len(self.dots) > 1
            got = self._plans[key] = dot_plan(m, n, what, num_warps, b, self.dots[-1][:2] if chained else None,
                                              feeds_dot=i < len(self.dots) - 1)
        return got
