"""Every row of ``validation.csv`` as a launch of this project's own kernels, at the row's size and config.

A case names what stands in for the row's kernel (``stand_in``; ``kind`` groups them for the page),
makes the row's launch on the row's GPU and returns the model's :class:`~predicted.Prediction` of the
quantity the row measured, with the row's *work*: the bytes or FLOPs of its unit's numerator (its
source's own formula, ``validation.md``), or the events a per-event unit counts (hops, warp
instructions). Arrays hold zeros: a sampled launch counts, it does not compute (``do_bench`` samples).

A Triton case is written once as ``launch(env) → (fn, work)`` (:mod:`env`): ``fn`` makes the row's
launches on ``env``'s arrays with ``env``'s Triton. On kernellab (``run``) the model predicts ``fn``
through ``do_bench``; the GPU check calls the same ``launch`` with torch tensors and real Triton.

Where a full SIMT simulation would take minutes, a case simulates fewer blocks of the same launch and
scales the counts (:func:`scaled`): exact for grids of identical blocks, as the unit tests check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace

import numpy as np

from kernellab import launch

from . import kernels_simt as ks
from . import predicted
from .checks import matmul_args
from .env import KERNELLAB

#: Stand-in kinds, for the page: what replaces the row's kernel.
KINDS = {
    "own": "our kernel, the row's algorithm",
    "cublas": "tutorial matmul, autotuned, for cuBLAS",
    "fastcu": "tutorial matmul, the row's tile, for fast.cu",
    "fa": "tutorial attention for FlashAttention",
    "k10": "Boehm's kernel 10 for cuBLAS SGEMM",
    "cub": "SIMT transform for CUB",
}


@dataclass(frozen=True)
class Case:
    """One row's launch: its stand-in, engine, and the function giving ``(Prediction, work)`` on a GPU."""

    row: str
    engine: str  # "triton" or "simt"
    kind: str  # a key of KINDS
    stand_in: str  # the kernel, size and config that stand in for the row's, in words
    run: Callable  # gpu → (predicted.Prediction, work)
    cheap: bool = False  # in the unit test's subset (a second or less)
    launch: Callable | None = None  # Triton cases: env → (fn, work), the launch on any env


CASES: dict[str, Case] = {}


def case(row, engine, kind, stand_in, cheap=False, ids=None):
    """Register the decorated ``run(gpu)`` as the case of ``row`` (and of every id in ``ids``)."""
    def deco(fn):
        for r in ids or (row,):
            CASES[r] = Case(r, engine, kind, stand_in, fn, cheap)
        return fn
    return deco


def triton_case(row, kind, stand_in, cheap=False, ids=None, target=None):
    """Register the decorated ``launch(env)`` as the Triton case of ``row`` (and of every id in ``ids``); ``target``:
    the architecture the row's kernel was compiled for when it is not the GPU's own (``predict``'s ``target``)."""
    def deco(launch_fn):
        def run(gpu):
            fn, work = launch_fn(KERNELLAB)
            return predicted.triton_bench(fn, gpu, target), work
        for r in ids or (row,):
            CASES[r] = Case(r, "triton", kind, stand_in, run, cheap, launch_fn)
        return launch_fn
    return deco


#: Counts that are not sums over the launch's blocks: the longest chain of dependent loads one thread runs
#: (a per-thread maximum, the same in a part of the launch as in the whole of identical blocks).
NOT_SUMMED = ("load_chain_global", "load_chain_shared")


def scaled(counts, factor: float, grid):
    """SIMT counts of part of a launch, scaled to the whole launch of ``grid``: every summed counter × ``factor``
    (not the per-thread maxima of ``NOT_SUMMED``).

    Exact when the launch's blocks (or loop passes) are identical, which the caller ensures; the
    counts' ``launch`` record gets the full grid.
    """
    changes = {f.name: round(getattr(counts, f.name) * factor) for f in fields(counts)
               if isinstance(getattr(counts, f.name), int) and not isinstance(getattr(counts, f.name), bool)
               and f.name not in NOT_SUMMED}
    return replace(counts, **changes, by_line=None,
                   dram_sectors={k: round(v * factor) for k, v in counts.dram_sectors.items()},
                   instr_by_kind={k: round(v * factor) for k, v in counts.instr_by_kind.items()},
                   launch={**counts.launch, "grid": tuple(grid)})


def _warps(block: int) -> int:
    """Tutorial 02's warps for a row of ``block`` columns (as of early 2024): 4, 8 from 2048, 16 from 4096."""
    return 16 if block >= 4096 else 8 if block >= 2048 else 4


# --- memory-bound elementwise and launch overhead ---------------------------------------------------------

def _vector_add(n):
    def make(env):
        x, y, out, kernel = env.zeros(n, "fp32"), env.zeros(n, "fp32"), env.zeros(n, "fp32"), env.kt.add_kernel
        return lambda: kernel[(env.triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024), 12 * n  # 12·n bytes
    return make


triton_case("EW-01", "own", "tutorial 01 add_kernel, n = 134 217 728, BLOCK_SIZE 1024, 4 warps")(
    _vector_add(134_217_728))
triton_case("LO-01", "own", "tutorial 01 add_kernel, n = 4096, BLOCK_SIZE 1024 (4 programs: cdiv(4096, 1024); "
            "the row says one)", cheap=True)(_vector_add(4096))


def _scale_bytes(n, simulated):
    def run(gpu):
        c, b = np.zeros(simulated, np.int8), np.zeros(simulated, np.int8)
        counts = launch(ks.scale_bytes, simulated // 4096, 256, args=(c, b, np.int8(3), simulated), gpu=gpu)
        counts = scaled(counts, n / simulated, (n // 4096, 1, 1))
        return predicted.simt(counts, gpu, name="scale_bytes"), None
    return run


case("EW-03", "simt", "cub", "SIMT b[i] = 3·c[i], int8, 2^24 elements, 256 threads a block, one 16-byte vector "
     "a thread (4096 blocks)")(_scale_bytes(1 << 24, 1 << 24))
case("EW-04", "simt", "cub", "SIMT b[i] = 3·c[i], int8, 2^28 elements, 256 threads a block, one 16-byte vector "
     "a thread (65 536 blocks; 1/16 of them simulated, counts × 16)")(_scale_bytes(1 << 28, 1 << 24))


def _copy(blocks, nbytes, threads=256):
    def run(gpu):
        n4 = nbytes // 16
        src, dst = np.zeros(4 * n4, np.float32), np.zeros(4 * n4, np.float32)
        counts = launch(ks.copy_float4, blocks, threads, args=(src, dst, n4), gpu=gpu)
        # the source times 20 back-to-back launches with CUDA events after 5 warm-up launches: a stream, warm L2
        return predicted.simt(counts, gpu, name="copy_float4", timer="stream"), 2 * nbytes  # BW = 2·bytes/t
    return run


# The source's SM-scaling runs (copy_bw.cu, "SM Scaling (256 threads/block, float4, UNROLL=4)") launch 256
# threads a block; its 1024-thread runs are the one-SM ones, which no row holds.
case("EW-06", "simt", "own", "SIMT grid-stride float4 copy, 256 MiB, 32 blocks of 256 threads (the source's "
     "SM-scaling launch), 4 float4 a thread a pass")(_copy(32, 1 << 28))
case("EW-07", "simt", "own", "SIMT grid-stride float4 copy, 256 MiB, 132 blocks of 256 threads (the source's "
     "SM-scaling launch), 4 float4 a thread a pass")(_copy(132, 1 << 28))
case("MB-01", "simt", "own", "SIMT grid-stride float4 copy, 16 MiB, 528 blocks of 256 threads (the row states no "
     "block size: 256 as the source's copy benchmark launches its 528 blocks); timed as a stream after a warm-up, "
     "as the source's, so the 32 MB start in L2 (the row's __ldcg/__stcg L1 bypass is not expressed)", cheap=True)(
    _copy(528, 1 << 24))


@case("EW-09", "simt", "own", "SIMT transpose through a 32×33 shared tile, float4 global accesses, block 8×32, "
      "32768² fp32 (1 048 576 blocks; 2048² simulated, counts × 256)")
def _transpose(gpu):
    n, sim = 32768, 2048
    a, o = np.zeros((sim, sim), np.float32), np.zeros((sim, sim), np.float32)
    counts = launch(ks.transpose_padded_float4, (sim // 32, sim // 32), (8, 32), args=(a, o, sim), gpu=gpu)
    counts = scaled(counts, (n // sim) ** 2, (n // 32, n // 32, 1))
    # 100 launches timed together (the source's "100 iterations"): a stream
    return predicted.simt(counts, gpu, name="transpose_padded_float4", timer="stream"), 2 * n * n * 4


# --- softmax and layer norm -------------------------------------------------------------------------------

def _softmax(m, n):
    def make(env):
        x, y, kernel = env.zeros((m, n), "fp32"), env.zeros((m, n), "fp32"), env.kt.softmax_kernel
        block = env.triton.next_power_of_2(n)
        return (lambda: kernel[(m,)](y, x, n, n, n, BLOCK_SIZE=block, num_warps=_warps(block)),
                2 * m * n * 4)  # tutorial 02: 2·M·N·4 bytes
    return make


triton_case("SM-01", "own", "tutorial 02 softmax_kernel, 4096 × 256 fp32, one program a row, BLOCK_SIZE 256, "
            "4 warps", cheap=True)(_softmax(4096, 256))
triton_case("SM-03", "own", "tutorial 02 softmax_kernel, 4096 × 12672 fp32, one program a row, BLOCK_SIZE 16384, "
            "16 warps; the source (intel-xpu-backend-for-triton issue 544) says only \"A100 platform\", and at "
            "676 GB/s at most nothing in its table tells the 40 GB card from the 80 GB one")(_softmax(4096, 12672))


#: The A100 of the layer-norm rows (OLMo issue 258 says "an A100 GPU"): its own table rules out the 40 GB card.
_OLMO_GPU = ("; an 80 GB A100 by the source's own table: its backward without affine at N 8192 moved 1524 GB/s "
             "(3·numel·size, all from DRAM), 98 % of the 40 GB card's 1555 GB/s")


def _ln_block(n, itemsize=2):
    """Tutorial 05's BLOCK_SIZE (the row in one block, at most 64 KB) and its warps."""
    block = min(65536 // itemsize, 1 << (n - 1).bit_length())
    return block, min(max(block // 256, 1), 8)


@triton_case("LN-01", "own", "tutorial 05 forward, 4096 × 4096 fp16 (dtype assumed), BLOCK_SIZE 4096, 8 warps"
             + _OLMO_GPU)
def _ln_fwd(env):
    m, n = 4096, 4096
    x, y, w, b = env.zeros((m, n), "fp16"), env.zeros((m, n), "fp16"), env.zeros(n, "fp16"), env.zeros(n, "fp16")
    mean, rstd = env.zeros(m, "fp32"), env.zeros(m, "fp32")
    (block, warps), kernel = _ln_block(n), env.kt.layer_norm_fwd
    return (lambda: kernel[(m,)](x, y, w, b, mean, rstd, n, n, 1e-5, BLOCK_SIZE=block, num_warps=warps),
            2 * m * n * 2)  # tutorial 05: 2·numel·size bytes


def _ln_bwd(m, n):
    """What one call of OLMo's benchmark (``y.backward(dy, retain_graph=True)``) runs on the GPU, in order: the
    ``torch.zeros`` of the 2·GROUP_SIZE_M lock words (the partial sums are ``torch.empty``: the first program of
    a group stores rather than adds), dx with a spin lock per group, dW and dB, then autograd's accumulation of
    the weight's and the bias's gradients (both require grad, and ``do_bench`` resets only x's, so each call
    adds in place: ``weight.grad += dW``, ``bias.grad += dB``)."""
    def make(env):
        group = 128 if n <= 4096 else 96 if n <= 8192 else 64  # tutorial 05's GROUP_SIZE_M
        x, dy, dx = (env.zeros((m, n), "fp16") for _ in range(3))
        w, mean, rstd = env.zeros(n, "fp16"), env.zeros(m, "fp32"), env.zeros(m, "fp32")
        dw_part, db_part = env.zeros((group, n), "fp16"), env.zeros((group, n), "fp16")
        locks, dw, db = env.zeros(2 * group, "int32"), env.zeros(n, "fp16"), env.zeros(n, "fp16")
        w_grad, b_grad = env.zeros(n, "fp16"), env.zeros(n, "fp16")
        block, warps = _ln_block(n)
        kt, cdiv = env.kt, env.triton.cdiv

        def backward():
            kt.zero_kernel[(cdiv(2 * group, 256),)](locks, 2 * group, BLOCK_SIZE=256)
            kt.layer_norm_bwd_dx[(m,)](dx, dy, dw_part, db_part, x, w, mean, rstd, locks, n, n, GROUP_SIZE_M=group,
                                       BLOCK_SIZE_N=block, num_warps=warps)
            kt.layer_norm_bwd_dwdb[(cdiv(n, 128),)](dw_part, db_part, dw, db, group, n, BLOCK_SIZE_M=32,
                                                    BLOCK_SIZE_N=128)
            for grad, new in ((w_grad, dw), (b_grad, db)):
                kt.add_kernel[(cdiv(n, 1024),)](grad, new, grad, n, BLOCK_SIZE=1024)
        return backward, 3 * m * n * 2  # tutorial 05: 3·numel·size bytes
    return make


_LN_CALL = ("the call as OLMo's benchmark makes it: torch.zeros of the lock words, dx with a spin lock per group, "
            "dW/dB, then the in-place accumulation of the weight's and the bias's gradients")
triton_case("LN-03", "own", "tutorial 05 backward, 4096 × 4096 fp16, GROUP_SIZE_M 128, BLOCK_SIZE_N 4096, 8 warps; "
            + _LN_CALL + _OLMO_GPU)(_ln_bwd(4096, 4096))
triton_case("LN-04", "own", "tutorial 05 backward, 4096 × 8192 fp16, GROUP_SIZE_M 96, BLOCK_SIZE_N 8192, 8 warps; "
            + _LN_CALL + _OLMO_GPU)(_ln_bwd(4096, 8192))


# --- GEMM -------------------------------------------------------------------------------------------------

def _matmul(m, n, k, dtype="fp16", layout="rrr", config=None, fp8_configs=False, precision=None):
    """A matmul launch: the autotuned tutorial kernel (``config`` None) or one fixed config
    ``(BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_warps, num_stages)``. ``layout``: row- or column-major
    storage of A, B, C (``"rcc"``: fast.cu's A row-major, B and C column-major)."""
    def make(env):
        a, b = env.zeros(m * k, dtype), env.zeros(k * n, dtype)
        c = env.zeros(m * n, "fp16" if dtype != "fp32" else "fp32")
        args, cdiv = matmul_args(env, a, b, c, m, n, k, layout), env.triton.cdiv
        bitcast = env.bitcast[dtype]
        if config is None:
            kernel = env.kt.autotuned_matmul(fp8_configs)

            def call():
                kernel[lambda meta: (cdiv(m, meta["BLOCK_SIZE_M"]) * cdiv(n, meta["BLOCK_SIZE_N"]),)](
                    *args, BITCAST=bitcast, PRECISION=precision)
        else:
            (bm, bn, bk, group, warps, stages), kernel = config, env.kt.matmul_kernel

            def call():
                kernel[(cdiv(m, bm) * cdiv(n, bn),)](*args, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                                                     GROUP_SIZE_M=group, BITCAST=bitcast, PRECISION=precision,
                                                     num_warps=warps, num_stages=stages)
        return call, 2 * m * n * k  # 2·M·N·K FLOPs
    return make


_AUTO = "tutorial 03 matmul_kernel, autotuned over the tutorial's CUDA configs, GROUP_SIZE_M 8"
triton_case("GL-01", "cublas", f"{_AUTO}; 8192³ bf16, A row-major, B and C column-major", ids=("GL-01", "GL-10"))(
    _matmul(8192, 8192, 8192, "bf16", "rcc"))
triton_case("GL-07", "cublas", f"{_AUTO}; 6144³ bf16, A row-major, B and C column-major")(
    _matmul(6144, 6144, 6144, "bf16", "rcc"))
triton_case("GL-03", "fastcu", "tutorial 03 matmul_kernel, 128×128×64 tiles, 4 warps (one warpgroup), 1 stage "
            "(no pipelining), row-major launch order; 8192³ bf16 (the row's 192-wide tile has no power-of-two form)")(
    _matmul(8192, 8192, 8192, "bf16", "rcc", (128, 128, 64, 1, 4, 1)))
triton_case("GL-04", "fastcu", "tutorial 03 matmul_kernel, 128×256×64 tiles, 8 warps, 4 stages, row-major launch "
            "order; 8192³ bf16 (producer/consumer warp specialisation has no form here)")(
    _matmul(8192, 8192, 8192, "bf16", "rcc", (128, 256, 64, 1, 8, 4)))
triton_case("GL-06", "fastcu", "tutorial 03 matmul_kernel, 128×256×64 tiles, 8 warps, 4 stages, grouped launch "
            "order (GROUP_SIZE_M 8 for the Hilbert curve); 8192³ bf16 (clusters and TMA multicast have no form here)")(
    _matmul(8192, 8192, 8192, "bf16", "rcc", (128, 256, 64, 8, 8, 4)))
triton_case("GL-11", "cublas", f"{_AUTO}; M 2048, N 8192, K 8192 fp16, row-major")(_matmul(2048, 8192, 8192))
triton_case("GL-13", "own", f"{_AUTO}; 3072³ fp16, row-major")(_matmul(3072, 3072, 3072))
triton_case("GL-14", "cublas", f"{_AUTO}; M 4096, N 8192, K 16384 fp32 data, TF32 dots")(
    _matmul(4096, 8192, 16384, "fp32", precision="tf32"))
#: GS-06's measurement, kept as published: what the source's own table shows.
_GS06 = {"GS-06": "; the source's table (triton issue 3672, row 19) prints 433.365881 TFLOP/s in both its cuBLAS "
         "and its Triton column at 2688³: 89.6 µs, the Triton column's flat time, where its cuBLAS column reads "
         "62.9 µs at 2560³ and 72.4 µs at 2816³"}
for _id, _n in (("GS-01", 1024), ("GS-03", 2048), ("GS-06", 2688), ("GS-07", 2816), ("GS-09", 1024),
                ("LO-03", 256), ("LO-04", 256)):
    triton_case(_id, "cublas", f"{_AUTO}; {_n}³ fp16, row-major" + _GS06.get(_id, ""), cheap=_n <= 1024)(
        _matmul(_n, _n, _n))
for _id, _n in (("GS-02", 1024), ("GS-04", 2048), ("GS-10", 1024)):
    triton_case(_id, "own", f"{_AUTO}; {_n}³ fp16, row-major", cheap=_n <= 1024)(_matmul(_n, _n, _n))
for _id, _n in (("GS-12", 2048), ("GS-13", 3072)):
    triton_case(_id, "own", f"{_AUTO}, and its fp8 configs; {_n}³ fp8 e5m2, B column-major (the tutorial passes "
                "Bᵀ)")(_matmul(_n, _n, _n, "fp8e5", "rcr", fp8_configs=True))


def _sgemm(m, n, k, timer="do_bench"):
    def run(gpu):
        from kernellab.counters import scale_counts
        from kernellab.sgemm import run_kernel
        from kernellab.sgemm.study import loop_shape, spec_for

        spec = spec_for(10, gpu)
        sim = max(spec.params["BM"], spec.params["BN"])
        rng = np.random.default_rng(0)
        A, B = rng.standard_normal((sim, 32)).astype(np.float32), rng.standard_normal((32, sim)).astype(np.float32)
        _, counts = run_kernel(spec, A, B, gpu=gpu)
        p = predicted.simt(scale_counts(counts, (m, n, k)), gpu, n=(m, n, k), shape=loop_shape(spec), name=spec.name,
                           timer=timer)
        return p, 2 * m * n * k
    return run


case("GL-16", "simt", "k10", "Boehm's kernel 10 (warptiling) on the SIMT simulator, simulated on one tile and "
     "scaled to M 4096, N 8192, K 16384 (kernellab.sgemm's route); 100 launches timed together: a stream")(
    _sgemm(4096, 8192, 16384, "stream"))
case("GL-17", "simt", "k10", "Boehm's kernel 10 (warptiling), scaled to M 5120, N 4096, K 4096")(
    _sgemm(5120, 4096, 4096))


# --- attention --------------------------------------------------------------------------------------------

def attn_config(d, hopper=False):
    """(BLOCK_M, BLOCK_N, num_warps, num_stages) of tutorial 06's forward from late 2023 to early 2024, by head dim:
    BLOCK_M 128, BLOCK_N 64 up to d 64 and 32 above; 4 warps and 4 stages up to d 64, 8 warps and 3 stages above;
    on a compute capability 9 GPU (``hopper``: its "Tuning for H100") 8 warps, and 7 stages from d 64 (3 below).
    Read in zhanglx13/triton@635415170f5a (Triton PR 2459's branch, 2023-10); the tutorial kept that block until
    its forward was autotuned (Triton PR 3892, mid-2024; a copy of the 2024-03 revision, after PR 3373's fp8
    forward, still holds it)."""
    bn = 64 if d <= 64 else 32
    if hopper:
        return 128, bn, 8, 7 if d >= 64 else 3
    return (128, bn, 4, 4) if d <= 64 else (128, bn, 8, 3)


#: ``_attention_fwd``'s config for the mid-2024 tutorial's autotuner (``kernels_triton.attn_configs``).
AUTOTUNED = "autotuned"


def _attention_fwd(z, h, n, d, causal=False, ws=False, config=None, qk_dtype="fp16"):
    """Tutorial 06's forward: ``config`` (BLOCK_M, BLOCK_N, num_warps, num_stages), :func:`attn_config`'s when None,
    or ``AUTOTUNED`` (the mid-2024 tutorial's autotuner, ``kernels_triton.attn_configs``); ``qk_dtype``: the
    dtype q, k and O are stored in (V stays fp16)."""
    def make(env):
        q, k, o = (env.zeros((z, h, n, d), qk_dtype) for _ in range(3))
        v = env.zeros((z, h, n, d), "fp16")
        lse = env.zeros((z, h, n), "fp32")
        args = (q, k, v, lse, o, d ** -0.5, n)
        flags = {"HEAD_DIM": d, "CAUSAL": causal, "WARP_SPECIALIZE": ws, "QK_BITCAST": env.bitcast[qk_dtype]}
        if config == AUTOTUNED:
            kernel = env.kt.autotuned_attn_fwd(d)

            def call():
                kernel[lambda meta: (env.triton.cdiv(n, meta["BLOCK_M"]), z * h)](*args, **flags)
        else:
            (bm, bn, warps, stages), kernel = config or attn_config(d), env.kt.attn_fwd

            def call():
                kernel[(env.triton.cdiv(n, bm), z * h)](*args, BLOCK_M=bm, BLOCK_N=bn, **flags, num_warps=warps,
                                                        num_stages=stages)
        return call, 4 * z * h * n * n * d * (0.5 if causal else 1.0)  # 4·B·H·N²·d, halved if causal
    return make


def _fwd_text(z, h, n, d, causal=False, what="FlashAttention", ws=False, config=None, dtypes="fp16"):
    if config == AUTOTUNED:
        tiles = ("autotuned over the mid-2024 tutorial's configs (BLOCK_M, BLOCK_N 64 or 128, BLOCK_N ≤ d; 3, 4 or "
                 "7 stages; 4 warps, or 8 on 128 × 128)")
    else:
        bm, bn, warps, stages = config or attn_config(d)
        tiles = f"BLOCK_M {bm}, BLOCK_N {bn}, {warps} warps, {stages} stages"
    return (f"tutorial 06 forward (FlashAttention-2 algorithm) for {what}; B {z}, H {h}, N {n}, d {d} {dtypes}"
            f"{', causal' if causal else ''}; {tiles}"
            + ("; key loop warp-specialised (tl.range(warp_specialize=True)), FlashAttention-3 being "
               "warp-specialised and tutorial 06 running its non-causal forward so on Hopper" if ws else ""))


#: FlashAttention-2 (Dao-AILab/flash-attention csrc/flash_attn/src): its CUDA kernels are sm_80 code on every GPU,
#: the MMA atom SM80_16x8x16 (kernel_traits.h), so on an H100 their dots are mma.sync, at 2/3 of the dense peak
#: (FlashAttention-3 paper, §1); its tiles at head dim 64: forward 128 × 128 on 4 warps (flash_fwd_launch_template.h
#: run_mha_fwd_hdim64), the next key block loaded during the current one (2 stages); backward 128 × 128 on 8 warps
#: with 144 KiB of shared memory or more (flash_bwd_launch_template.h run_mha_bwd_hdim64), Q double-buffered.
FA2 = {"target": "sm_80", "fwd64": (128, 128, 4, 2), "bwd64": (128, 128, 128, 32, 8, 2)}
_FA2_TEXT = ("; compiled for sm_80 (mma.sync and ldmatrix, no wgmma), as FlashAttention-2's CUDA kernels are on "
             "every GPU (MMA atom SM80_16x8x16), with FlashAttention-2's own tiles")
triton_case("AF-01", "fa", _fwd_text(32, 32, 512, 64, what="FlashAttention-2 (CUDA, mma.sync)", config=FA2["fwd64"])
            + _FA2_TEXT, target=FA2["target"])(_attention_fwd(32, 32, 512, 64, config=FA2["fwd64"]))
#: The FA3 paper's "Triton" series is ``triton.ops.flash_attention``: its benchmark script imports ``from
#: triton.ops.flash_attention import attention as attention_triton`` (Dao-AILab/flash-attention@1899c97,
#: hopper/benchmark_flash_attention.py), whose forward (triton-lang/triton@41e336f, python/triton/ops/
#: flash_attention.py) is BLOCK_M 128, BLOCK_N 64, 4 warps up to d 64 (8 above), 4 stages on every GPU, no H100
#: tuning: one unmasked key loop, as tutorial 06's non-causal forward (q pre-scaled there, once a program).
TRITON_OPS = (128, 64, 4, 4)
_OPS_TEXT = ("; triton.ops.flash_attention's forward config (the FA3 benchmark script's Triton, "
             "hopper/benchmark_flash_attention.py), whose key loop is this one")
#: tritonbench's "triton_tutorial_flash_v2" (pytorch/benchmark PR 2391, 2024-07-23) is its copy of the tutorial,
#: autotuned as the tutorial was from Triton PR 3892 (mid-2024; read in pytorch/benchmark@0d1deb2,
#: torchbenchmark/util/kernels/triton_fused_attention.py, a later state of that copy)
_TB_TEXT = "; tritonbench's copy of the mid-2024 tutorial (its autotune list, keyed on N_CTX)"
#: FlashAttention-3's rows stand in as the tutorial of early 2024 on an H100: its "Tuning for H100" (attn_config)
_H100_TEXT = "; the H100 tuning of the tutorial of late 2023 – early 2024 (8 warps, 7 stages from d 64)"
for _id, _shape, _what, _cfg, _text in (
        ("AF-03", (32, 32, 512, 64), "the FA3 paper's Triton", TRITON_OPS, _OPS_TEXT),
        ("AF-04", (1, 32, 16384, 64), "the FA3 paper's Triton", TRITON_OPS, _OPS_TEXT),
        ("AF-05", (32, 32, 512, 64), "FlashAttention-3 (wgmma, warp-specialised)", "h100", _H100_TEXT),
        ("AF-06", (1, 32, 16384, 64), "FlashAttention-3", "h100", _H100_TEXT),
        ("AF-07", (32, 16, 512, 128), "FlashAttention-3", "h100", _H100_TEXT),
        ("AF-08", (1, 16, 16384, 128), "FlashAttention-3", "h100", _H100_TEXT),
        ("AF-11", (1, 8, 16384, 256), "FlashAttention-3", "h100", _H100_TEXT),
        ("AF-13", (32, 16, 512, 128), "tritonbench's tutorial kernel", AUTOTUNED, _TB_TEXT),
        ("AF-14", (1, 16, 16384, 128), "tritonbench's tutorial kernel", AUTOTUNED, _TB_TEXT),
        ("AF-18", (1, 16, 16384, 128), "FlashAttention-2 on the A100 (its best case; the row is an envelope)", None,
         "")):
    _kind = "own" if "Triton" in _what or "tutorial" in _what else "fa"
    _ws = _what.startswith("FlashAttention-3")  # FA3 is warp-specialised; FA2 and the Triton rows are not
    _cfg = attn_config(_shape[3], hopper=True) if _cfg == "h100" else _cfg
    triton_case(_id, _kind, _fwd_text(*_shape, what=_what, ws=_ws, config=_cfg) + _text)(
        _attention_fwd(*_shape, ws=_ws, config=_cfg))
# causal: FlashAttention-3's causal forward is the same warp-specialised kernel as its non-causal one, so its
# stand-in is warp-specialised as AF-05..AF-11 are (the loop below the diagonal; the diagonal block stays plain),
# though tutorial 06's own benchmark warp-specialises only its non-causal forward on Hopper (its enable_ws rule)
triton_case("AF-10", "fa", _fwd_text(1, 16, 16384, 128, True, "FlashAttention-3", ws=True,
                                     config=attn_config(128, hopper=True)) + _H100_TEXT + "; the tutorial's "
            "own benchmark does not warp-specialise its causal forward on Hopper, FlashAttention-3's causal kernel is")(
    _attention_fwd(1, 16, 16384, 128, causal=True, ws=True, config=attn_config(128, hopper=True)))
#: Tutorial 06 as Triton PR 2459 measured it (2023-10-06; python/tutorials/06-fused-attention.py of the PR's branch,
#: zhanglx13/triton@635415170f5a): causal as two key loops, the blocks below the diagonal unmasked (STAGE 1), then
#: the diagonal block masked (STAGE 2); BLOCK_M 128, BLOCK_N 64 (head dim ≤ 64), and on a compute capability 9 GPU
#: ("Tuning for H100") 8 warps and 7 stages, not the 4 warps and 4 stages of other GPUs.
TUT06_2023_H100 = attn_config(64, hopper=True)  # (128, 64, 8, 7)
#: That revision's benchmark, provider "triton", mode "fwd": ``if mode == "fwd" and TORCH_HAS_FP8: q =
#: q.to(torch.float8_e5m2); k = k.to(torch.float8_e5m2)`` with ``TORCH_HAS_FP8 = hasattr(torch, 'float8_e5m2')``,
#: and ``o = torch.empty_like(q)``: q, k and O fp8 e5m2, V fp16, P cast to fp16 for P·V. torch has float8_e5m2 from
#: 2.1.0 (released 2023-10-04; its nightlies from mid-2023), and the cast was put in the tutorial upstream to run
#: on an H100. The PR does not name its torch; nothing found says it lacked float8_e5m2, so the row is scored on the
#: revision as it ran (the evidence favours it): fp8 q, k, O. With fp16 q and k the same tiles give 0.803.
TUT06_2023_QK = "fp8e5"
triton_case("AF-17", "own", _fwd_text(4, 48, 1024, 64, True, "the tutorial's 2023-10 revision",
                                      config=TUT06_2023_H100, dtypes="(q, k and O fp8 e5m2, V fp16)")
            + "; the H100 tuning and the benchmark of that revision (Triton PR 2459's branch, zhanglx13/triton@"
            "635415170f5a), which casts q and k to fp8 e5m2 in the forward where torch has float8_e5m2 (torch 2.1.0, "
            "2023-10-04, on) and makes O like q; scored as it ran, no source saying the PR's torch lacked "
            "float8_e5m2 (fp16 q and k: ratio 0.803)")(
    _attention_fwd(4, 48, 1024, 64, causal=True, config=TUT06_2023_H100, qk_dtype=TUT06_2023_QK))

BWD = (32, 128, 128, 32, 4, 5)  # tutorial 06's backward: BLOCK_M1, BLOCK_N1, BLOCK_M2, BLOCK_N2, warps, stages


def _attention_bwd(z, h, n, d, config=BWD):
    """FlashAttention-2's and -3's backward: tutorial 06's kernel with its 5-dot form (``DQ_ATOMIC``: each key
    block adds dS·K to a float32 dQ with atomics, then dQ is converted), not the tutorial's 7 dots (q·kᵀ and
    do·vᵀ again in a dQ pass): "the 5 GEMMs approach", against "the 7 GEMMs approach" that "does 7/5 = 1.4x more
    compute" (Tri Dao, Dao-AILab/flash-attention issue 1172, 2024-08-24)."""
    def make(env):
        q, k, v, o, do, dq, dk, dv = (env.zeros((z, h, n, d), "fp16") for _ in range(8))
        lse, delta = env.zeros((z, h, n), "fp32"), env.zeros((z, h, n), "fp32")
        dq_acc = env.zeros((z, h, n, d), "fp32")
        (m1, n1, m2, n2, warps, stages), pre, main = config, env.kt.attn_bwd_preprocess, env.kt.attn_bwd

        def backward():
            pre[(n // 128, z * h)](o, do, delta, dq_acc, n, HEAD_DIM=d, BLOCK_M=128, CLEAR_DQ=True)
            main[(n // n1, 1, z * h)](q, k, v, d ** -0.5, do, dq_acc, dk, dv, lse, delta, n, HEAD_DIM=d, BLOCK_M1=m1,
                                      BLOCK_N1=n1, BLOCK_M2=m2, BLOCK_N2=n2, num_warps=warps, num_stages=stages,
                                      DQ_ATOMIC=True)
            env.kt.attn_bwd_dq_convert[(z * h * n * d // 1024,)](dq_acc, dq, BLOCK=1024)
        return backward, 2.5 * 4 * z * h * n * n * d  # backward = 2.5 × forward
    return make


for _id, _shape, _what in (("AB-01", (32, 32, 512, 64), "FlashAttention-2"),
                           ("AB-03", (32, 32, 512, 64), "FlashAttention-3"),
                           ("AB-04", (1, 32, 16384, 64), "FlashAttention-3"),
                           ("AB-07", (1, 16, 16384, 128), "FlashAttention-3")):
    _z, _h, _n, _d = _shape
    _fa2 = _what == "FlashAttention-2"
    _cfg = FA2["bwd64"] if _fa2 else BWD
    triton_case(_id, "fa", f"tutorial 06 backward in {_what}'s 5-dot form (preprocess: rowsum(dO ∘ O) and the "
                "float32 dQ accumulator zeroed, as FlashAttention-2's non-deterministic and FlashAttention-3's "
                "preprocess kernels do; then per key block dK, dV and dS·K added to that dQ by atomics, then dQ "
                "converted; the tutorial's own 7 dots compute q·kᵀ and do·vᵀ again for dQ); "
                f"B {_z}, H {_h}, N {_n}, d {_d} "
                f"fp16; blocks {_cfg[0]}/{_cfg[1]}, {_cfg[4]} warps, {_cfg[5]} stages; "
                "the tutorial's torch op that pre-scales K is not counted" + (_FA2_TEXT if _fa2 else ""),
                target=FA2["target"] if _fa2 else None)(_attention_bwd(*_shape, config=_cfg))


# --- microbenchmarks and latency (clock64 inside the kernel: the loop's own time, no launch) -------------------

def _chains(kernel, long=256, short=128, chains=128):
    def run(gpu):
        out = np.zeros(32 * chains, np.float32)
        runs = [predicted.simt(launch(kernel, 1, 32, args=(out, it, chains), gpu=gpu), gpu, with_launch=False,
                               name=kernel.__name__) for it in (long, short)]
        return predicted.difference(*runs), (long - short) * chains  # warp instructions (chain steps)
    return run


case("MB-03", "simt", "own", "SIMT <<<1, 32>>>: 128 independent chains x = __expf(x·1e-5) (FMUL, FMUL by log2 e, "
     "MUFU.EX2); cycles per chain step from 256 − 128 steps", cheap=True)(_chains(ks.expf_chains))
case("MB-04", "simt", "own", "SIMT <<<1, 32>>>: 128 independent FADD chains; cycles per FADD from 256 − 128 steps",
     cheap=True)(_chains(ks.fadd_chains))


def shared_cycle(n: int = 2048) -> np.ndarray:
    """A random cycle through ``n`` int32 indices (``nxt[j]`` is the next), as LA-01's source builds one."""
    perm = np.random.default_rng(0).permutation(n)
    nxt = np.zeros(n, np.int32)
    nxt[perm] = np.roll(perm, -1)
    return nxt


def hbm_chain(hops: int = 1024) -> np.ndarray:
    """256 MiB of int64, one element a 128-byte line: a chain from element 0 through ``hops`` random distinct
    lines (the rest of the array untouched zeros, so that only the chain's pages are ever written)."""
    elems, per_line = (1 << 28) // 8, 128 // 8
    lines = np.random.default_rng(0).choice(elems // per_line, hops + 1, replace=False) * per_line
    nxt = np.zeros(elems, np.int64)
    nxt[0] = lines[0]
    nxt[lines[:-1]] = lines[1:]
    return nxt


@case("LA-01", "simt", "own", "SIMT <<<1, 1>>>: pointer chase through a random cycle of 2048 int32 in shared memory "
      "(8 KB); cycles per hop from 512 − 256 hops", cheap=True)
def _chase_shared(gpu):
    nxt = shared_cycle()
    runs = [predicted.simt(launch(ks.chase_shared, 1, 1, args=(nxt, np.zeros(1, np.int32), hops, nxt.size),
                                  gpu=gpu), gpu, with_launch=False, name="chase_shared") for hops in (512, 256)]
    return predicted.difference(*runs), 256


@case("LA-03", "simt", "own", "SIMT <<<1, 1>>>: pointer chase through HBM, 256 MiB of int64, one element a "
      "128-byte line, random order, cold; cycles per hop from 1024 − 512 hops")
def _chase_global(gpu):
    nxt = hbm_chain()
    runs = [predicted.simt(launch(ks.chase_global, 1, 1, args=(nxt, np.zeros(1, np.int64), hops), gpu=gpu), gpu,
                           with_launch=False, name="chase_global") for hops in (1024, 512)]
    return predicted.difference(*runs), 512


def check_complete(row_ids) -> None:
    """Every row of the CSV has a case, and every case a row."""
    missing, extra = set(row_ids) - set(CASES), set(CASES) - set(row_ids)
    if missing or extra:
        raise RuntimeError(f"cases and validation.csv disagree: no case for {sorted(missing)}, "
                           f"no row for {sorted(extra)}")

