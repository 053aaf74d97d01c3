"""The compiler's MMA rules (kernellab.triton.compiler.mma) on dots whose work is derived by hand."""

from kernellab.triton.compiler.mma import tensor_flops, wgmma_n


def test_an_ieee_float32_dot_does_no_tensor_core_work():
    # input_precision="ieee": FMAs on the SIMT pipes, no mma.sync nor wgmma on either target
    assert tensor_flops(64, 64, 64, "fp32", "ieee", 4) == (0, 0)


def test_a_dot_too_small_for_wgmma_runs_mma_sync_on_sm90_too():
    # 2 warps (not a warpgroup): mma.sync m16n8k16 on both targets, 2·16·8·16 = 4096 FLOPs each; 32 × 32 × 16:
    # 2 × 4 × 1 = 8 instructions a program, 8 × 4096 = 32768 = 2·32·32·16 on each target
    assert tensor_flops(32, 32, 16, "fp16", None, 2) == (32768, 32768)


def test_wgmma_n_with_more_warps_than_a_warpgroup_column_needs():
    # 16 warps on 64 rows: 64 ÷ 16 = 4 warps down M, 16 ÷ 4 = 4 across N, so 256 ÷ 4 = 64 columns a warp column;
    # the largest valid N dividing 256 and at most 64 is 64
    assert wgmma_n(64, 256, 16) == 64


def test_a_chain_of_three_dots_takes_its_warps_from_the_last():
    from kernellab.triton.compiler.mma import DotChain

    # q·kᵀ (64 × 64) → p·v (64 × 32) → a third dot (64 × 128): the whole chain lays its 8 warps by its last dot, which
    # is wider than tall (64 < 128): all along N on sm_80, (1, 8), for the first dot as for the last
    c = DotChain()
    for m, n in ((64, 64), (64, 32), (64, 128)):
        c.add(m, n)
    assert c.plan(0, "fp16", 8).sm80 == c.plan(2, "fp16", 8).sm80 == (1, 8)
