"""The rest of what Triton's tutorials use: launch_pdl with gdc_wait/gdc_launch_dependents, warmup's compiled
kernel, tl.range's scheduling hints, launch options that change nothing here."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import LaunchError as kernellab_LaunchError
from kernellab import specs
from kernellab.triton.runtime.driver import set_gpu


@triton.jit
def pdl_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, USE_GDC: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if USE_GDC:
        tl.extra.cuda.gdc_wait()
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    if USE_GDC:
        tl.extra.cuda.gdc_launch_dependents()
    tl.store(out_ptr + offs, x + y, mask=mask)


@pytest.mark.parametrize("pdl", [True, False])
def test_launch_pdl_is_accepted_and_counts_as_a_plain_launch(pdl):
    x = np.arange(3000, dtype=np.float32)
    out = np.zeros_like(x)
    c = pdl_add[(3,)](x, x, out, 3000, BLOCK=1024, USE_GDC=pdl, launch_pdl=pdl)
    np.testing.assert_array_equal(out, 2 * x)
    plain = pdl_add[(3,)](x, x, np.zeros_like(x), 3000, BLOCK=1024, USE_GDC=False)
    assert (c.load_bytes, c.store_bytes, c.flops) == (plain.load_bytes, plain.store_bytes, plain.flops)


@triton.jit
def persistent_rows(out_ptr, n_rows, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages, flatten=True,
                        warp_specialize=True):
        tl.store(out_ptr + row * BLOCK + tl.arange(0, BLOCK), row)


def test_warmup_returns_a_compiled_kernel_launched_with_every_argument():
    out = np.full((10, 16), -1, np.int32)
    k = persistent_rows.warmup(out, 10, BLOCK=16, num_stages=4, num_warps=8, grid=(1,))
    k._init_handles()
    assert (out == -1).all()  # warmup ran its program on a copy
    # the tutorial's occupancy arithmetic: int32 stores hold no floating-point value, so the residency's
    # default 32 registers (65536 // (32 × 32 × 8) = 8 programs per SM by registers); one by shared memory
    g = specs.H100
    assert k.n_regs == 32 and g.regs_per_sm // (k.n_regs * 32 * 8) == 8
    assert k.metadata.shared == g.max_smem_per_block and g.max_smem_per_block // k.metadata.shared == 1
    k[(3, 1, 1)](out, 10, 16, 4)
    assert out[:, 0].tolist() == list(range(10)) and (out == np.arange(10)[:, None]).all()


def test_warmup_follows_the_modelled_gpu():
    previous = set_gpu("A6000")
    try:
        k = persistent_rows.warmup(np.zeros((1, 16), np.int32), 1, BLOCK=16, num_stages=2, num_warps=2, grid=(1,))
        assert k.metadata.shared == specs.A6000.max_smem_per_block and k.n_regs == 32
    finally:
        set_gpu(previous)


@triton.jit
def row_scale(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x / tl.sum(x, axis=0))


def test_warmup_reports_the_registers_the_residency_charges():
    from kernellab.model.persm import launch_of

    x, out = np.ones(8192, np.float32), np.zeros(8192, np.float32)
    k = row_scale.warmup(x, out, BLOCK=4096, num_warps=8, grid=(2,))
    # 4096 elements ÷ 256 threads = 16 words a thread: x (16) and its sum (1) live together when x / sum is made
    # (x's last use): 10 fixed + 17 = 27 registers
    assert k.n_regs == 27 and (out == 0).all()
    c = row_scale[(2,)](x, out, BLOCK=4096, num_warps=8)
    np.testing.assert_allclose(out, 1 / 4096)
    k = row_scale.warmup(x, out, BLOCK=8192, num_warps=4, grid=(1,))
    # 8192 ÷ 128 = 64 words + the sum's 1 + 10: 75 registers
    assert k.n_regs == 75
    c = row_scale[(1,)](x, out, BLOCK=8192, num_warps=4)
    # the model's residency of the launch uses the same 75: ⌈75 × 32 ÷ 256⌉ × 256 = 2560 registers a warp,
    # 65536 ÷ 2560 = 25 warps = 6 programs of 4 warps (32 registers a thread would allow 16, the thread limit)
    d = launch_of(c, specs.A100)
    assert d.resources == "launch" and d.occupancy.blocks_per_sm == 6


def test_launch_options_of_triton_change_nothing():
    x = np.ones(64, np.float32)
    out = np.zeros_like(x)
    pdl_add[(1,)](x, x, out, 64, BLOCK=64, USE_GDC=False, num_warps=2, num_stages=1, num_ctas=1, maxnreg=128,
                  extern_libs={"libdevice": "/nowhere/libdevice.10.bc"}, launch_cooperative_grid=False)
    assert (out == 2).all()


@triton.jit
def hinted_scalar(out_ptr, B: tl.constexpr):
    lo = tl.multiple_of(tl.program_id(0) * B, B)  # a hint on a scalar, as tutorial 06's inner loop writes it
    tl.store(out_ptr + lo + tl.arange(0, B), 1)


def test_multiple_of_on_a_scalar():
    out = np.zeros(64, np.int32)
    hinted_scalar[(4,)](out, B=16)
    assert out.sum() == 64


@triton.jit
def read_strided(x_ptr, out_ptr, s0, s1, s2, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    i = tl.arange(0, A)[:, None, None]
    j = tl.arange(0, B)[None, :, None]
    k = tl.arange(0, C)[None, None, :]
    tl.store(out_ptr + (i * B + j) * C + k, tl.load(x_ptr + i * s0 + j * s1 + k * s2))


def test_an_array_with_permuted_axes_is_read_through_its_strides():
    base = np.arange(2 * 16 * 32, dtype=np.float32).reshape(2, 16, 32)
    v = base.transpose(0, 2, 1)  # as tutorial 06 lays out its fp8 V: .permute(0, 1, 3, 2) of a contiguous tensor
    out = np.zeros(v.shape, np.float32)
    st = [s // 4 for s in v.strides]
    read_strided[(1,)](v, out, *st, A=2, B=32, C=16)
    np.testing.assert_array_equal(out, v)
    with pytest.raises(kernellab_LaunchError, match="not contiguous"):
        read_strided[(1,)](base[:, ::2], out, 1, 1, 1, A=2, B=2, C=2)


@triton.jit
def count_rows(out_ptr, n_rows, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for _ in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        acc += 1.0
    tl.store(out_ptr + tl.arange(0, BLOCK), acc)


def test_warmup_s_trial_stops_loops_after_two_iterations_and_is_kept_per_signature():
    from kernellab.triton.executor import loops

    out = np.zeros(64, np.float32)
    with loops.capped(2):
        count_rows[(1,)](out, 1000, BLOCK=64)
    assert (out == 2.0).all()  # 2 of the 1000 iterations
    count_rows[(1,)](out, 1000, BLOCK=64)
    assert (out == 1000.0).all()  # outside the block, every iteration
    # tutorial 02 warms up at every call: the trial runs once per signature (constexprs, options, dtypes)
    k = count_rows.warmup(out, 1000, BLOCK=64, grid=(1,))
    again = count_rows.warmup(np.ones(64, np.float32), 7, BLOCK=64, grid=(1,))
    # acc: 64 elements on 128 threads, one word a thread; acc + 1.0 takes its registers (its last use): 10 + 1
    assert k.n_regs == again.n_regs == 11 and len(count_rows._trial_regs) == 1
    count_rows.warmup(out, 1000, BLOCK=4096, grid=(1,))
    assert len(count_rows._trial_regs) == 2
