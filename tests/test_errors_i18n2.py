"""The plain errors (ValueError, TypeError, NotImplementedError, LaunchError of the model) follow the reader's
language too (kernellab/locale/zh_CN-errors2.po), and still name what was wrong.

One representative error per module: mini-Triton's language checks, ``grid.py``, the lecture-form front end
(``triton/seed.py``), the SIMT block, the performance model, ``specs.py`` and ``claims.py``.
"""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import A6000, Claims, LaunchError, as_perf, launch, occupancy
from kernellab.triton.language.extra import libdevice
from kernellab.triton.seed import triton_launch


@pytest.fixture
def zh(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")


@pytest.fixture
def en(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "en")


@triton.jit
def arange_of_a_runtime_value(x_ptr, N):
    tl.arange(0, N)


@triton.jit
def mismatched_blocks(x_ptr, B: tl.constexpr):
    a = tl.zeros((B, 2 * B), tl.float32)
    a + tl.zeros((B, 4 * B), tl.float32)


@triton.jit
def branch_on_a_block(x_ptr, B: tl.constexpr):
    if tl.arange(0, B) > 0:
        tl.store(x_ptr, 1.0)


@triton.jit
def inline_asm(x_ptr):
    tl.inline_asm_elementwise("mov.b32 $0, 1;", "=r", [], dtype=tl.int32, is_pure=True, pack=1)


@triton.jit
def vendor_library(x_ptr):
    libdevice.j0(tl.load(x_ptr))  # numpy has no Bessel J0; tanh and the rest are computed


def test_mini_triton_language_checks_in_chinese(zh):
    x = np.zeros(16, np.float32)
    # every error inside a kernel names its place first (内核 …，程序实例 …：), as the sanitizer's do
    # the length of tl.arange must be known at compile time: N is a runtime argument. Triton 3.9 refuses to compile
    # it: the CompilationError names the kernel and the line in Chinese, then Triton's own (English) words
    with pytest.raises(triton.CompilationError, match=r"^内核 arange_of_a_runtime_value，\S+test_errors_i18n2.py:30：\n"
                                                      r"at 2:4:\n(.*\n)+arange's arguments must be of type "
                                                      r"tl.constexpr$") as info:
        arange_of_a_runtime_value[(1,)](x, 6)
    assert type(info.value.__cause__) is ValueError
    # [4, 8] + [4, 16]: the last dimensions differ and neither is 1
    with pytest.raises(ValueError, match=r"^内核 mismatched_blocks，程序实例 \(0,0,0\)：无法广播，块形状 \[4, 8\] 与 \[4, 16\] 不兼容$"):
        mismatched_blocks[(1,)](x, B=4)
    # an `if` needs one truth value; the block name ("truth value") is translated inside the sentence
    with pytest.raises(TypeError, match=r"^内核 branch_on_a_block，程序实例 \(0,0,0\)：形状为 \[4\] 的块没有单一的真值；请使用 tl\.where"):
        branch_on_a_block[(1,)](x, B=4)


def test_mini_triton_unsupported_features_in_chinese(zh):
    x = np.zeros(4, np.float32)
    with pytest.raises(NotImplementedError, match=r"^kernellab 不支持 tl\.inline_asm_elementwise：它运行 PTX 或 GCN 汇编"):
        inline_asm[(1,)](x)
    with pytest.raises(NotImplementedError,
                       match=r"^kernellab 不支持 libdevice\.j0：numpy 没有第一类和第二类 Bessel 函数"):
        vendor_library[(1,)](x)


def test_the_same_triton_errors_keep_their_english_wording(en):
    x = np.zeros(16, np.float32)
    # after the place, Triton's own words; details["error"] holds them alone
    with pytest.raises(ValueError, match=r"^kernel mismatched_blocks, program \(0,0,0\): Cannot broadcast, the block "
                                         r"shapes \[4, 8\] and \[4, 16\] are incompatible$") as info:
        mismatched_blocks[(1,)](x, B=4)
    assert info.value.details == {"kernel": "mismatched_blocks", "program": "(0,0,0)",
                                  "error": "Cannot broadcast, the block shapes [4, 8] and [4, 16] are incompatible"}
    with pytest.raises(NotImplementedError, match=r"^tl\.inline_asm_elementwise is not supported by kernellab: it runs PTX"):
        inline_asm[(1,)](x)


def test_launch_shape_in_chinese(zh):
    def k(blk):
        pass

    # grid.py checks the shape; the launcher names the kernel; "grid" itself is translated (网格)
    with pytest.raises(LaunchError, match=r"^内核 k：网格的各维必须是正整数，得到的是 \(2, 0\)$"):
        launch(k, (2, 0), 32)
    with pytest.raises(LaunchError, match=r"^内核 k：线程块必须有 1 到 3 个维度，得到的是 4 个：\(1, 1, 1, 1\)$"):
        launch(k, 1, (1, 1, 1, 1))


def test_seed_front_end_in_chinese(zh):
    def k(tl, x, N):
        tl.load(None, tl.arange(0, N))

    # names the kernel, the program instance and the operation
    with pytest.raises(TypeError, match=r"^内核 k，程序实例 \(0,0,0\)：tl\.load 得到的是 None 而不是数组$"):
        triton_launch(k, (1,), np.zeros(4, np.float32), 4)


def test_simt_index_errors_in_chinese(zh, monkeypatch):
    def k(blk, x):
        blk.load(x, blk.tx * 0.5)

    with pytest.raises(TypeError, match=r"^内核 k：内存下标必须是整数，得到的是 float64$"):
        launch(k, 1, 32, args=(np.zeros(32, np.float32),))

    def wide(blk, x):
        blk.load(x, blk.tx, vec=8)  # 8 × 4 B = 32 B per lane, over the 16 B of the widest access

    with pytest.raises(ValueError, match=r"^内核 wide：向量访问每个 lane 移动 1–16 字节；8 × 4 B 是 32$"):
        launch(wide, 1, 32, args=(np.zeros(256, np.float32),))
    monkeypatch.setenv("KERNELLAB_LANG", "en")
    with pytest.raises(TypeError, match=r"^kernel k: memory indices must be integers, got float64$"):
        launch(k, 1, 32, args=(np.zeros(32, np.float32),))


def test_model_errors_in_chinese(zh):
    with pytest.raises(TypeError, match=r"^应为 GPU（kernellab\.H100、A6000、…）或其速率（kernellab\.PERF_H100、…），得到的是 int$"):
        as_perf(100)
    with pytest.raises(ValueError, match=r"^未知的 GPU 'V100'：kernellab 建模的 GPU 是 RTX A6000, A100 SXM 80GB, "):
        as_perf("V100")
    # the A6000 allows at most 1024 threads per block
    with pytest.raises(LaunchError, match=r"^2048 个线程的线程块无法在 RTX A6000 上启动（须为 1 到 1024）$"):
        occupancy(A6000, 2048)


def test_claims_errors_in_chinese(zh):
    # a list is neither a number, text nor a boolean
    with pytest.raises(TypeError, match=r"^论断 'speed-up'：只能比较数、文本或布尔值，而不是 list 和 int$"):
        Claims().add("speed-up", [2], 2)
    with pytest.raises(ValueError, match=r"^论断 'speed-up'：容差必须 ≥ 0 且 sig ≥ 1，得到的是 rtol=-1"):
        Claims().add("speed-up", 2.0, 2.0, rtol=-1)
