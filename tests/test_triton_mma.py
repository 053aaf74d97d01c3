"""The compiler's MMA rules (kernellab.triton.compiler.mma) on dots whose work is derived by hand."""

from kernellab.triton.compiler.mma import dot_plan, tensor_flops, wgmma_n


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


def test_an_int8_dot_gets_the_wgmma_n_the_ptx_isa_lists_for_8_bit_integers():
    # PTX ISA, wgmma.mma_async, "Integer type" (.atype/.btype .s8 or .u8, k32): .shape is m64nNk32 with N in
    # {8, 16, 24, 32, 48, 64, 80, 96, …, 224} (steps of 16 from 32 on; no 40, 56, …, 240, 256 as the 16-bit types have).
    # Triton 3.9's mmaVersionToInstrShape takes that list for an 8-bit integer element. One warpgroup on 64 rows:
    # 4 warps ÷ (64 ÷ 16 = 4 warps down M) = 1 warp column, so the most N is the block's N, and a block N on the list
    # is its own instruction's N (every larger N on the list exceeds it)
    listed = (8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224)
    assert [wgmma_n(64, n, 4, "int8") for n in listed] == list(listed)
    # a block N not on the list: the largest listed N dividing it. 256 = 2 · 128 (224, 208, 192, 176, 160, 144 do not
    # divide 256) → 128; 240 = 3 · 80 (240 ÷ 96 = 2.5; 112 … 224 do not divide it) → 80; 40 = 5 · 8 (32, 24, 16 do not)
    # → 8; a 16-bit dot takes each whole (256, 240, 40 are fp16 shapes). Real Triton 3.9, int8 64 × 256 × 32 on 4 warps
    # for sm_90: two wgmma.m64n128k32 in its PTX (instrShape [16, 128, 32]); fp16 64 × 256 × 16: one m64n256k16
    assert [wgmma_n(64, n, 4, "int8") for n in (256, 240, 40)] == [128, 80, 8]
    assert [wgmma_n(64, n, 4) for n in (256, 240, 40)] == [256, 240, 40]
    # the sm_90 plan of an int8 dot of 64 × 224 on 4 warps: one warpgroup down M, m64n224k32
    assert dot_plan(64, 224, "int8", 4).sm90 == ("wgmma", 4, 1, 224)


def test_a_chain_of_three_dots_takes_its_warps_from_the_last():
    from kernellab.triton.compiler.mma import DotChain

    # q·kᵀ (64 × 64) → p·v (64 × 32) → a third dot (64 × 128): the whole chain lays its 8 warps by its last dot, which
    # is wider than tall (64 < 128): all along N on sm_80, (1, 8), for the first dot as for the last
    c = DotChain()
    for m, n in ((64, 64), (64, 32), (64, 128)):
        c.add(m, n)
    assert c.plan(0, "fp16", 8).sm80 == c.plan(2, "fp16", 8).sm80 == (1, 8)
