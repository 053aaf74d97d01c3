"""The launches whose compiled code kernellab's counts are held to (``kernellab/compiled_counts.json``).

Each case names a ``@triton.jit`` kernel (in tests/triton_kernels.py, tests/compiled_kernels.py or a
gallery page), the arguments of one launch, its constexprs and its grid. ``tests/conformance/
compiled_counts.py`` (``nox -s compiled``, needs Triton) compiles each for sm_80 and sm_90 twice: with
nothing known about its arguments, and with the specialisation ``triton.jit`` gives these arguments
(pointers and ints divisible by 16, ints equal to 1). ``tests/test_compiled_counts.py`` launches each in
kernellab both ways and compares the warp-level instructions.
Loops run once (their static count is then their dynamic count), and kernels with loops are compiled
with ``num_stages=1`` (no software pipelining). Left out: ``math2_kernel`` (libdevice's ``sinf`` reads a
table from global memory in its slow path, four loads no kernel line asks for). No Triton is imported here.
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
TK, CK = "tests/triton_kernels.py", "tests/compiled_kernels.py"
GELU, SOFTMAX = "gallery/triton_notes/01_gelu.py", "gallery/triton_notes/02_softmax.py"
L10, FLASH = "gallery/lecture10/06_triton_style.py", "gallery/triton_notes/06_flash_attention.py"


def f32(*shape):
    return ("f32", shape)


def f16(*shape):
    return ("f16", shape)


def i32(*shape):
    return ("i32", shape)


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
