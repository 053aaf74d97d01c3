"""The launches whose compiled code kernellab's counts are held to (``kernellab/compiled_counts.json``).

Each case names a ``@triton.jit`` kernel (in tests/triton_kernels.py, tests/compiled_kernels.py or a
gallery page), the arguments of one launch, its constexprs and its grid. ``tests/conformance/
compiled_counts.py`` (``nox -s compiled``, needs Triton) compiles each for sm_80 and sm_90 twice: with
nothing known about its arguments, and with the specialisation ``triton.jit`` gives these arguments
(pointers and ints divisible by 16, ints equal to 1). ``tests/test_compiled_counts.py`` launches each in
kernellab both ways and compares the warp-level instructions.
The first set's loops run once and its kernels with loops are compiled with ``num_stages=1``; the
second (``SHARED``, kernels of tests/shared_kernels.py and the tutorials' matmul with their autotune
configurations) pipelines its loops with Triton's ``num_stages`` and lets some run several times, their
PTX weighted by how often each block runs (``executed``, tests/conformance/ptx_trips.py). Left out:
``math2_kernel`` (libdevice's ``sinf`` reads a table from global memory in its slow path, four loads no
kernel line asks for). No Triton is imported here.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Case:
    id: str
    source: str  # a path from the repository's root
    kernel: str
    args: tuple  # ("f32", shape) for a fresh array, or a number
    meta: dict = field(default_factory=dict)  # constexprs
    grid: tuple = (1,)
    num_warps: int = 4
    num_stages: int | None = None  # None: Triton's default
    targets: tuple = (80, 90)  # the targets it compiles for (fp8 has no MMA on sm_80)
    ours: str = ""  # the kernel kernellab runs, when not ``kernel``: a block-pointer kernel, whose tensor-of-
    # pointers twin ``kernel`` real Triton 3.9 compiles (it rejects tl.make_block_ptr)

    def options(self) -> dict:
        """The launch options: ``num_warps``, and ``num_stages`` when the case names one (else Triton's 3)."""
        return {"num_warps": self.num_warps, **({} if self.num_stages is None else {"num_stages": self.num_stages})}

    def arrays(self, seed: int = 0) -> list:
        """The launch's arguments, arrays filled from ``seed``."""
        rng = np.random.default_rng(seed)
        out = []
        for a in self.args:
            if isinstance(a, tuple):
                dt, shape = a
                if dt.startswith("i"):
                    out.append(rng.integers(1, 7, size=shape).astype(DTYPES[dt]))
                else:
                    out.append(rng.standard_normal(shape).astype(DTYPES[dt]))
            else:
                out.append(a)
        return out


DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "i8": np.int8, "u8": np.uint8}
TK, CK, SK = "tests/triton_kernels.py", "tests/compiled_kernels.py", "tests/shared_kernels.py"
GELU, SOFTMAX = "gallery/triton_notes/01_gelu.py", "gallery/triton_notes/02_softmax.py"
L10, FLASH = "gallery/lecture10/06_triton_style.py", "gallery/triton_notes/06_flash_attention.py"


def f32(*shape):
    return ("f32", shape)


def f16(*shape):
    return ("f16", shape)


def i32(*shape):
    return ("i32", shape)


def i8(*shape):
    return ("i8", shape)


def u8(*shape):
    return ("u8", shape)


CASES = [
    Case("add", TK, "add_kernel", (f32(4096), f32(4096), f32(4096), 4096), {"BLOCK_SIZE": 1024}, (4,)),
    Case("add_odd", TK, "add_kernel", (f32(1000), f32(1000), f32(1000), 1000), {"BLOCK_SIZE": 1024}),
    Case("softmax", TK, "softmax_kernel", (f32(4, 1000), f32(4, 1000), 1000, 1000, 1000), {"BLOCK_SIZE": 1024}, (4,)),
    Case("softmax_1024", TK, "softmax_kernel", (f32(4, 1024), f32(4, 1024), 1024, 1024, 1024),
         {"BLOCK_SIZE": 1024}, (4,)),
    Case("math", TK, "math_kernel", (f32(1024), f32(1024), 1024), {"BLOCK": 256}, (4,)),
    Case("intdiv", TK, "intdiv_kernel", (i32(512), i32(512), i32(512), i32(512), 500), {"BLOCK": 512}),
    Case("transpose", TK, "transpose_kernel", (f32(64, 64), f32(64, 64), 64, 64), {"BM": 32, "BN": 32}, (2, 2)),
    Case("half", TK, "half_kernel", (f16(2048), f16(2048), 2048), {"BLOCK": 1024}, (2,)),
    Case("shifted_copy", TK, "shifted_copy_kernel", (f32(1100), f32(1024), 1024, 3), {"BLOCK": 1024}),
    Case("intmath", TK, "intmath_kernel", (i32(256), i32(256), i32(768)), {"BLOCK": 256}),
    Case("reduce_axis0", TK, "reduce_kernel", (f32(16, 32), f32(32), f32(32), f32(32), i32(32), 16, 32),
         {"AXIS": 0, "BR": 16, "BC": 32}),
    Case("reduce_axis1", TK, "reduce_kernel", (f32(16, 32), f32(16), f32(16), f32(16), i32(16), 16, 32),
         {"AXIS": 1, "BR": 16, "BC": 32}),
    Case("layer_norm", TK, "_layer_norm_fwd_fused",
         (f32(4, 1024), f32(4, 1024), f32(1024), f32(1024), f32(4), f32(4), 1024, 1024, 1e-5),
         {"BLOCK_SIZE": 1024}, (4,), num_stages=1),
    Case("axpy", CK, "axpy_kernel", (f32(4096), f32(4096), f32(4096), 2.0, 4096), {"BLOCK": 1024}, (4,)),
    Case("copy", CK, "copy_kernel", (f32(2048), f32(2048)), {"BLOCK": 1024}, (2,)),
    Case("copy_fp16", CK, "copy_kernel", (f16(2048), f16(2048)), {"BLOCK": 1024}, (2,)),
    Case("copy_8warps", CK, "copy_kernel", (f32(2048), f32(2048)), {"BLOCK": 2048}, num_warps=8),
    Case("copy_small", CK, "copy_kernel", (f32(64), f32(64)), {"BLOCK": 64}),
    Case("hinted_copy", CK, "hinted_copy_kernel", (f32(1024), f32(1024), 1000), {"BLOCK": 1024}),
    Case("stride2", CK, "stride2_kernel", (f32(2048), f32(1024), 1024), {"BLOCK": 1024}),
    Case("tile_copy", CK, "tile_copy_kernel", (f32(64, 64), f32(64, 64), 64), {"BM": 16, "BN": 64}, (4,)),
    Case("tile_copy_narrow", CK, "tile_copy_kernel", (f32(64, 16), f32(64, 16), 16), {"BM": 64, "BN": 16}),
    Case("column", CK, "column_kernel", (f32(64, 64), f32(64, 64), 64), {"BM": 64, "BN": 16}, (4,)),
    Case("scalar", CK, "scalar_kernel", (f32(8), f32(8), 3.0), {}, (8,)),
    Case("gelu", GELU, "triton_gelu_kernel", (f32(4096), f32(4096), 4096), {"BLOCK_SIZE": 1024}, (4,)),
    Case("gelu_odd", GELU, "triton_gelu_kernel", (f32(1000), f32(1000), 1000), {"BLOCK_SIZE": 1024}),
    Case("mul_scalar", GELU, "mul_scalar_kernel", (f32(4096), f32(4096), 0.5, 4096), {"BLOCK_SIZE": 1024}, (4,)),
    Case("softmax_page", SOFTMAX, "triton_softmax_kernel", (f32(4, 1024), f32(4, 1024), 1024, 1024, 1024),
         {"BLOCK_SIZE": 1024}, (4,)),
    Case("softmax_page_odd", SOFTMAX, "triton_softmax_kernel", (f32(4, 1000), f32(4, 1000), 1000, 1000, 1000),
         {"BLOCK_SIZE": 1024}, (4,)),
    Case("row_max", SOFTMAX, "row_max_kernel", (f32(4, 1024), f32(4), 1024), {"BLOCK_SIZE": 1024}, (4,)),
    Case("sub_row", SOFTMAX, "sub_row_kernel", (f32(4, 1024), f32(4), f32(4, 1024), 1024), {"BLOCK_SIZE": 1024}, (4,)),
    Case("softmax_looped", SOFTMAX, "softmax_looped_kernel", (f32(4, 1024), f32(4, 1024), 1024, 1024, 1024),
         {"BLOCK_SIZE": 1024}, (4,), num_stages=1),
    Case("l10_softmax", L10, "softmax_kernel", (f32(4, 1000), f32(4, 1000), 1000), {"BLOCK": 1024}, (4,)),
    Case("l10_elementwise", L10, "elementwise_kernel", (f32(4, 1024), f32(4), f32(4, 1024), 1024),
         {"OP": "sub", "BLOCK": 1024}, (4,)),
    Case("matmul", TK, "matmul_kernel", (f16(64, 32), f16(32, 64), f16(64, 64), 64, 64, 32, 32, 1, 64, 1, 64, 1),
         {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8, "ACTIVATION": ""},
         num_stages=1),
    Case("l10_matmul", L10, "matmul_kernel", (f32(64, 32), f32(32, 64), f32(64, 64), 64, 64, 32),
         {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8, "MASK_K": True}, num_stages=1),
    Case("scores", FLASH, "scores_kernel", (f32(1, 64, 32), f32(1, 64, 32), f32(1, 64, 64), 64, 0.125),
         {"HEAD_DIM": 32, "BLOCK": 64}, (1, 1, 1)),
    Case("dot_fp16_64", CK, "dot_kernel", (f16(64, 32), f16(32, 64), f32(64, 64)), {"M": 64, "N": 64, "K": 32}),
    Case("dot_fp16_128", CK, "dot_kernel", (f16(128, 32), f16(32, 128), f32(128, 128)),
         {"M": 128, "N": 128, "K": 32}),
    Case("dot_fp16_128_8warps", CK, "dot_kernel", (f16(128, 64), f16(64, 128), f32(128, 128)),
         {"M": 128, "N": 128, "K": 64}, num_warps=8),
    Case("dot_fp16_32", CK, "dot_kernel", (f16(32, 16), f16(16, 32), f32(32, 32)), {"M": 32, "N": 32, "K": 16}),
    Case("dot_fp16_64x256", CK, "dot_kernel", (f16(64, 16), f16(16, 256), f32(64, 256)),
         {"M": 64, "N": 256, "K": 16}),
    Case("dot_tf32", CK, "dot_kernel", (f32(64, 32), f32(32, 64), f32(64, 64)), {"M": 64, "N": 64, "K": 32}),
    Case("dot_ieee", CK, "dot_ieee_kernel", (f32(32, 32), f32(32, 32), f32(32, 32)), {"M": 32, "N": 32, "K": 32}),
    Case("dot_ieee_small", CK, "dot_ieee_kernel", (f32(16, 16), f32(16, 16), f32(16, 16)), {"M": 16, "N": 16, "K": 16}),
    Case("dot_ieee_wide", CK, "dot_ieee_kernel", (f32(64, 16), f32(16, 128), f32(64, 128)), {"M": 64, "N": 128, "K": 16},
         num_warps=8),
    # dots smaller than 16 in M, N or K where Triton 3.9's min_dot_size allows them (M, N >= 1; K >= 16 for
    # 16-bit, 8 for fp32): its tensor cores with the block padded, or FMAs
    Case("dot_fp16_8x8", CK, "dot_kernel", (f16(8, 16), f16(16, 8), f32(8, 8)), {"M": 8, "N": 8, "K": 16}),
    Case("dot_fp16_16x8", CK, "dot_kernel", (f16(16, 16), f16(16, 8), f32(16, 8)), {"M": 16, "N": 8, "K": 16}),
    Case("dot_fp16_2x32", CK, "dot_kernel", (f16(2, 16), f16(16, 32), f32(2, 32)), {"M": 2, "N": 32, "K": 16}),
    Case("dot_tf32_k8", CK, "dot_kernel", (f32(16, 8), f32(8, 16), f32(16, 16)), {"M": 16, "N": 16, "K": 8}),
    Case("dot_ieee_8", CK, "dot_ieee_kernel", (f32(8, 8), f32(8, 8), f32(8, 8)), {"M": 8, "N": 8, "K": 8}),
    Case("softmax_rows", FLASH, "softmax_rows_kernel", (f32(64, 64), f32(64, 64), 64), {"BLOCK_N": 64}, (64,)),
    Case("atomic_add", CK, "atomic_add_kernel", (f32(4096), f32(4096), 4096), {"BLOCK": 1024}, (4,)),
    Case("atomic_add_odd", CK, "atomic_add_kernel", (f32(1000), f32(1000), 1000), {"BLOCK": 1024}),
    Case("atomic_old", CK, "atomic_old_kernel", (f32(4096), f32(4096), f32(4096), 4096), {"BLOCK": 1024}, (4,)),
    Case("atomic_scalar", CK, "atomic_scalar_kernel", (f32(4096), f32(1), 4096), {"BLOCK": 1024}, (4,)),
    Case("atomic_ops", CK, "atomic_ops_kernel", (f32(4096), i32(4096), f16(4096), 4096), {"BLOCK": 1024}, (4,)),
    Case("desc_copy", CK, "desc_copy_kernel", (f32(64, 64), f32(64, 64), 64, 64), {"BM": 16, "BN": 64}, (4,)),
    Case("desc_dot", CK, "desc_dot_kernel", (f16(64, 32), f16(32, 64), f32(64, 64)), {"M": 64, "N": 64, "K": 32}),
    Case("desc_scale", CK, "desc_scale_kernel", (f32(64, 256), f32(64, 256), 64, 256), {"BM": 16, "BN": 256}, (4,)),
    Case("desc_scale_f16", CK, "desc_scale_kernel", (f16(512, 64), f16(512, 64), 512, 64), {"BM": 512, "BN": 64},
         num_warps=8),
]



def _t03(bm: int, bn: int, bk: int, stages: int, warps: int, k_steps: int = 1) -> Case:
    """Tutorial 03's matmul under one of its autotune configurations (``k_steps`` K iterations)."""
    m, n, k = bm, bn, bk * k_steps
    return Case(f"t03_{bm}x{bn}x{bk}_s{stages}_w{warps}" + (f"_k{k_steps}" if k_steps > 1 else ""), TK,
                "matmul_kernel", (f16(m, k), f16(k, n), f16(m, n), m, n, k, k, 1, n, 1, n, 1),
                {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8, "ACTIVATION": ""},
                num_warps=warps, num_stages=stages)


def _attention(d: int, bm: int, warps: int, causal: bool, blocks: int = 1, stages: int = 3) -> Case:
    """Attention forward: head dim ``d``, ``bm`` query rows a program, 64 keys a step; ``blocks`` query
    blocks (a causal launch's programs then run 1 … ``blocks`` steps)."""
    n = bm * blocks
    return Case(f"attn_d{d}_m{bm}_w{warps}_{'causal' if causal else 'full'}" + (f"_x{blocks}" if blocks > 1 else ""),
                SK, "attention_kernel", (f16(1, n, d), f16(1, n, d), f16(1, n, d), f16(1, n, d), n, 0.125),
                {"D": d, "BM": bm, "BN": 64, "CAUSAL": causal}, (blocks, 1), num_warps=warps, num_stages=stages)


# The second set (issue 35): shared memory and pipelining as Triton 3.9 compiles them
SHARED = [
    *(_t03(*c) for c in ((128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                         (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2))),
    _t03(128, 128, 32, 4, 4, k_steps=4), _t03(64, 32, 32, 5, 2, k_steps=3),
    *(_attention(d, bm, w, c) for d in (64, 128) for bm, w in ((64, 4), (64, 8), (128, 8)) for c in (False, True)),
    _attention(64, 64, 4, True, blocks=3), _attention(128, 64, 8, False, blocks=2),
    Case("kloop_s2", SK, "kloop_kernel", (f16(64, 32), f16(32, 64), f16(64, 64), 64, 64, 32),
         {"BM": 64, "BN": 64, "BK": 32}, (1, 1), num_stages=2),
    Case("kloop_s3_k4", SK, "kloop_kernel", (f16(64, 128), f16(128, 64), f16(64, 64), 64, 64, 128),
         {"BM": 64, "BN": 64, "BK": 32}, (1, 1), num_stages=3),
    Case("kloop_trans_s3", SK, "kloop_trans_kernel", (f16(64, 96), f16(64, 96), f16(64, 64), 64, 64, 96),
         {"BM": 64, "BN": 64, "BK": 32}, (1, 1), num_stages=3),
    Case("kloop_trans_a_s3", SK, "kloop_trans_a_kernel", (f16(96, 64), f16(96, 64), f16(64, 64), 64, 64, 96),
         {"BM": 64, "BN": 64, "BK": 32}, (1, 1), num_stages=3),
    Case("kloop32", SK, "kloop32_kernel", (f32(64, 32), f32(32, 64), f32(64, 64), 64, 64, 32),
         {"BM": 64, "BN": 64, "BK": 32}, num_stages=3),
    Case("scaled_sum_s3", SK, "scaled_row_sum_kernel", (f32(16, 256), f32(2), f32(16), 256),
         {"BM": 16, "BN": 128, "STAGES": 3}),
    Case("scaled_sum16_s3", SK, "scaled_row_sum_kernel", (f32(16, 256), f16(2), f32(16), 256),
         {"BM": 16, "BN": 128, "STAGES": 3}),
    Case("row_sum_s3", SK, "row_sum_kernel", (f32(64, 256), f32(64), 256), {"BM": 16, "BN": 128, "STAGES": 3}, (4,)),
    Case("row_sum_s1", SK, "row_sum_kernel", (f32(64, 128), f32(64), 128), {"BM": 16, "BN": 128, "STAGES": 1}, (4,)),
    Case("row_sum_plain", SK, "row_sum_plain_kernel", (f32(64, 256), f32(64), 256), {"BM": 16, "BN": 128}, (4,)),
    Case("column_sums", SK, "column_sums_kernel", (f32(96, 128), f32(128), 96, 128), {"BM": 32, "BN": 128},
         num_stages=1),
    Case("cumsum_1024", SK, "cumsum_kernel", (f32(1024), f32(1024)), {"BLOCK": 1024}),
    Case("cumsum_256_i32", SK, "cumsum_kernel", (i32(256), i32(256)), {"BLOCK": 256}),
    Case("cumsum2d_axis0", SK, "cumsum2d_kernel", (f32(64, 32), f32(64, 32)), {"R": 64, "C": 32, "AXIS": 0}),
    Case("cumsum2d_axis1", SK, "cumsum2d_kernel", (f32(32, 64), f32(32, 64)), {"R": 32, "C": 64, "AXIS": 1}),
    Case("sort_1024", SK, "sort_kernel", (f32(1024), f32(1024)), {"BLOCK": 1024}),
    Case("sort_128", SK, "sort_kernel", (f32(128), f32(128)), {"BLOCK": 128}),
    Case("sort_rows", SK, "sort_rows_kernel", (f32(16, 64), f32(16, 64)), {"R": 16, "C": 64}),
    Case("bins", SK, "bins_kernel", (i32(4096), i32(16), 4096), {"BLOCK": 1024}, (4,)),
    Case("block_histogram", SK, "block_histogram_kernel", (i32(4096), i32(16)), {"NUM_BINS": 16, "BLOCK": 1024}, (4,)),
    Case("spin_lock", SK, "spin_lock_kernel", (f32(4, 1000), f32(1000), i32(1), 1000), {"BLOCK": 1024}, (4,)),
    Case("batched_dot", SK, "batched_dot_kernel", (f16(2, 32, 16), f16(2, 16, 32), f32(2, 32, 32)),
         {"B": 2, "M": 32, "N": 32, "K": 16}),
    Case("batched_dot_64", SK, "batched_dot_kernel", (f16(2, 64, 32), f16(2, 32, 64), f32(2, 64, 64)),
         {"B": 2, "M": 64, "N": 64, "K": 32}),
    Case("fp8_dot", SK, "fp8_dot_kernel", (u8(64, 64), u8(64, 64), f32(64, 64)), {"M": 64, "N": 64, "K": 64},
         targets=(90,)),
    Case("fp8_dot_128", SK, "fp8_dot_kernel", (u8(128, 128), u8(128, 64), f32(128, 64)), {"M": 128, "N": 64, "K": 128},
         targets=(90,)),
    Case("dequant", SK, "dequant_kernel", (i8(64, 64), f32(64), f16(64, 64), 64, 64), {"BM": 16, "BN": 64}, (4,)),
    Case("transpose16", SK, "transpose16_kernel", (f16(64, 64), f16(64, 64), 64, 64), {"BM": 32, "BN": 32}, (2, 2)),
    Case("transpose16_64", SK, "transpose16_kernel", (f16(128, 128), f16(128, 128), 128, 128), {"BM": 64, "BN": 64},
         (2, 2)),
    Case("rmsnorm_odd", SK, "rmsnorm_kernel", (f16(4, 1000), f16(1000), f16(4, 1000), 1000, 1e-5), {"BLOCK": 1024},
         (4,)),
    Case("rmsnorm_1024", SK, "rmsnorm_kernel", (f16(4, 1024), f16(1024), f16(4, 1024), 1024, 1e-5), {"BLOCK": 1024},
         (4,)),
    Case("masked_dot", SK, "masked_dot_kernel", (f16(60, 30), f16(30, 50), f16(60, 50), 60, 50, 30),
         {"BM": 64, "BN": 64, "BK": 32}),
    Case("masked_dot_128", SK, "masked_dot_kernel", (f16(100, 60), f16(60, 120), f16(100, 120), 100, 120, 60),
         {"BM": 128, "BN": 128, "BK": 64}),
    Case("bp_copy_rows", SK, "tile_copy_top", (f16(100, 96), f16(100, 96), 100, 96, 96, 1),
         {"BM": 32, "BN": 32, "COLS": 0}, (4, 3), ours="tile_copy_bp"),
    Case("bp_copy_cols", SK, "tile_copy_top", (f16(96, 100), f16(96, 100), 100, 96, 1, 100),
         {"BM": 32, "BN": 32, "COLS": 1}, (4, 3), ours="tile_copy_bp"),
    Case("bp_matmul", SK, "matmul_top", (f16(64, 64), f16(64, 64), f32(64, 64), 64, 64, 64, 64, 1, 64, 1),
         {"BM": 64, "BN": 64, "BK": 32, "B_COLS": 0, "FP8": 0}, (1, 1), ours="matmul_bp"),
    Case("bp_matmul_bcols", SK, "matmul_top", (f16(64, 64), f16(64, 64), f32(64, 64), 64, 64, 64, 64, 1, 1, 64),
         {"BM": 64, "BN": 64, "BK": 32, "B_COLS": 1, "FP8": 0}, (1, 1), ours="matmul_bp"),
    Case("bp_matmul_fp8", SK, "matmul_top", (u8(64, 128), u8(64, 128), f32(64, 64), 64, 64, 128, 128, 1, 1, 128),
         {"BM": 64, "BN": 64, "BK": 64, "B_COLS": 1, "FP8": 1}, (1, 1), targets=(90,), ours="matmul_bp"),
    Case("bp_attention_fp8", SK, "attention_fp8_top", (u8(128, 64), u8(128, 64), u8(64, 128), f16(128, 64), 128, 0.125),
         {"D": 64, "BM": 64, "BN": 64}, (2, 1), targets=(90,), ours="attention_fp8_bp"),
    Case("invariant_a_s1", SK, "invariant_a_kernel", (f16(64, 64), f16(192, 64), f32(64, 64), 192),
         {"BM": 64, "BN": 64, "BK": 64}, num_stages=1),
    Case("invariant_a_s3", SK, "invariant_a_kernel", (f16(64, 64), f16(192, 64), f32(64, 64), 192),
         {"BM": 64, "BN": 64, "BK": 64}),
]
CASES += SHARED

# Configurations compiled for their metadata only (registers, shared memory, stages): the waves pages'
# programs per SM. Their loops run many times and are software-pipelined, so their static instruction
# counts are not a program's: they are not held to kernellab's counts.
METADATA = [
    Case(f"tutorial03_{bm}x{bn}x{bk}_s{stages}_w{warps}", TK, "matmul_kernel",
         (f16(4096, 4096), f16(4096, 4096), f16(4096, 4096), 4096, 4096, 4096, 4096, 1, 4096, 1, 4096, 1),
         {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8, "ACTIVATION": ""},
         num_warps=warps, num_stages=stages)
    for bm, bn, bk, stages, warps in ((128, 128, 32, 4, 4), (128, 256, 64, 3, 8))
]

GALLERY_IMPORTS = "import triton\nimport triton.language as tl\n\n\n"


def gallery_source(page: str) -> str:
    """Every ``@triton.jit`` function of a gallery page, as a module of real Triton syntax (kernellab's
    imports replaced by Triton's, for the compiler; kernellab loads the same functions with its own)."""
    text = (ROOT / page).read_text()
    lines = text.splitlines()
    parts = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            parts.append("\n".join(lines[node.decorator_list[0].lineno - 1:node.end_lineno]))
    return GALLERY_IMPORTS + "\n\n\n".join(parts) + "\n"


def source(case: Case, ours: bool) -> str:
    """The module text of a case's kernel: with kernellab's imports (``ours``) or Triton's."""
    kl = "import kernellab.triton as triton\nimport kernellab.triton.language as tl\n"
    text = gallery_source(case.source) if case.source.startswith("gallery/") else (ROOT / case.source).read_text()
    text = text.replace(kl, GALLERY_IMPORTS)
    return text.replace(GALLERY_IMPORTS, kl) if ours else text
