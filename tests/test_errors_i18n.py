"""Error messages follow the reader's language, as tables and labels do (kernellab/locale/zh_CN-errors.po).

The seed's own use, demo 4 of 002 splitting a message on "：", is in test_seed_api.py.
"""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import (
    A6000,
    BarrierError,
    LaunchError,
    MisalignedError,
    OutOfBoundsError,
    RaceError,
    launch,
)


@pytest.fixture
def zh(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")


def test_the_same_error_in_english(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "en")

    def k(blk, x):
        blk.load(x, blk.tx + 30)

    with pytest.raises(OutOfBoundsError) as e:
        launch(k, 1, 32, args=(np.zeros(32, np.float32),))
    # thread 2 is the first to read x[32] of a 32-element array
    assert str(e.value) == "kernel k, block (0,0,0), thread (2,0,0): load x[32] out of bounds (size 32)"
    assert "：" not in str(e.value)


def test_sanitizer_errors_in_chinese(zh):
    def race(blk):
        s = blk.shared(32, np.float32, name="s")
        blk.store(s, blk.tx, 1.0)
        blk.load(s, (blk.tx + 1) % 32)

    with pytest.raises(RaceError, match=r"^内核 race，线程块 \(0,0,0\)，线程 \(0,0,0\)：共享内存 s\[1\]（字节 4）上的写后读"
                                        r"（RAW）冒险：线程 \(0,0,0\) 读取了线程 \(1,0,0\) 写入的值"):
        launch(race, 1, 32)

    def barrier(blk):
        with blk.where(blk.tx < 8):
            blk.syncthreads()

    with pytest.raises(BarrierError, match=r"线程 \(8,0,0\)：没有到达 syncthreads，而线程块的 32 个线程中有 8 个到达"):
        launch(barrier, 1, 32)

    def misaligned(blk, x):
        blk.load(x, 1, vec=4)

    with pytest.raises(MisalignedError, match=r"load float4 x\[1\] 未对齐（字节地址 4 不是 16 的倍数）"):
        launch(misaligned, 1, 32, args=(np.zeros(64, np.float32),))

    def oob_shared(blk):
        blk.store(blk.shared(16, np.float32, name="t"), blk.tx, 0.0)

    with pytest.raises(OutOfBoundsError, match=r"线程 \(16,0,0\)：store 共享内存 t\[16\] 越界（大小 16）"):
        launch(oob_shared, 1, 32)


def test_launch_errors_in_chinese(zh):
    def k(blk, x):
        pass

    with pytest.raises(LaunchError, match=r"^内核 k：线程块 \(2048,1,1\) 有 2048 个线程；RTX A6000 每个线程块最多允许 1024 个$"):
        launch(k, 1, 2048, args=(np.zeros(1, np.float32),))
    with pytest.raises(LaunchError, match=r"^内核 k：参数 x 的类型是 list；内存请传 numpy 数组，标量请传数字$"):
        launch(k, 1, 32, args=([1.0],))

    def big(blk):
        blk.shared(A6000.max_smem_per_block // 4 + 1, np.float32, name="huge")

    with pytest.raises(LaunchError, match=r"^内核 big：每个线程块的共享内存为 101380 字节（含 huge），超过上限 101376 字节$"):
        launch(big, 1, 32)


def test_mini_triton_out_of_bounds_in_chinese(zh):
    @triton.jit
    def k(x_ptr, BLOCK: tl.constexpr):
        tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))

    # program 2 reads offsets 8–11 of an 10-element array: offset 10 (lane 2) is the first outside
    with pytest.raises(OutOfBoundsError, match=r"^内核 k，程序实例 \(2,0,0\)：load x_ptr\[10\] 越界（大小 10）；"
                                               r"块中的 lane 2 没有被 mask 掉$"):
        k[(3,)](np.zeros(10, np.float32), BLOCK=4)
    with pytest.raises(OutOfBoundsError) as e:
        k[(3,)](np.zeros(10, np.float32), BLOCK=4)
    assert e.value.details == {"kernel": "k", "program": "(2,0,0)", "op": "load", "array": "x_ptr", "index": 10,
                               "size": 10, "lane": 2}


def test_details_do_not_depend_on_the_language(monkeypatch):
    # code reads the fields of an error from .details, never from its message (whose language varies)
    def race(blk):
        s = blk.shared(32, np.float32, name="s")
        blk.store(s, blk.tx, 1.0)
        blk.load(s, (blk.tx + 1) % 32)

    def oob(blk):
        blk.store(blk.shared(16, np.float32, name="t"), blk.tx, 0.0)

    found = {}
    for lang in ("en", "zh_CN"):
        monkeypatch.setenv("KERNELLAB_LANG", lang)
        with pytest.raises(RaceError) as r:
            launch(race, 1, 32)
        with pytest.raises(OutOfBoundsError) as o:
            launch(oob, 1, 32)
        found[lang] = (r.value.details, o.value.details)
    assert found["en"] == found["zh_CN"]
    # thread 0 reads s[1] (byte 4), which thread 1 wrote; thread 16 is the first to store past t[15]
    assert found["en"][0] == {"kernel": "race", "block": "(0,0,0)", "thread": "(0,0,0)", "other": "(1,0,0)",
                              "kind": "read-after-write", "array": "s", "index": 1, "byte": 4}
    assert found["en"][1] == {"kernel": "oob", "block": "(0,0,0)", "thread": "(16,0,0)", "array": "t", "shared": True,
                              "op": "store", "index": 16, "size": 16}


def test_launch_errors_have_details_too():
    def k(blk, x):
        pass

    with pytest.raises(LaunchError) as e:
        launch(k, 1, 2048, args=(np.zeros(1, np.float32),))
    assert e.value.details == {"kernel": "k", "block": "(2048,1,1)", "threads": 2048, "limit": 1024}
    with pytest.raises(LaunchError) as e:
        launch(k, 1, 32, args=([1.0],))
    assert e.value.details == {"kernel": "k", "argument": "x"}
    with pytest.raises(LaunchError) as e:
        launch(k, (1, 65536), 32, args=(np.zeros(1, np.float32),))
    assert e.value.details == {"kernel": "k", "dimension": "grid.y", "size": 65536, "limit": 65535}
