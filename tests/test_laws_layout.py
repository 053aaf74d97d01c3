"""Laws of the blocked layouts (kernellab.triton.compiler.layout) that hold for every input: a vector never exceeds
the contiguity, the alignment, the mask's constancy or 128 bits, and the warp instructions cover every
element of the block, each owned by exactly one lane."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernellab.triton.compiler import layout
from kernellab.triton.compiler.axis import AxisInfo
from kernellab.triton.compiler.layout import lanes, plan

# Strategies built once: built inside a draw, each is validated again at every draw
pow2 = st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 256, 1024])
RANKS = st.integers(1, 2)
SIDES = st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 256])
ELEMS = st.sampled_from([1, 2, 4, 8])
WARPS = st.sampled_from([1, 2, 4, 8])
WANTED = st.one_of(st.none(), st.sampled_from([1, 2, 4, 8, 16]))


@st.composite
def accesses(draw):
    rank = draw(RANKS)
    shape = tuple(draw(SIDES) for _ in range(rank))
    contig = tuple(min(draw(pow2), s) for s in shape)
    div = tuple(draw(pow2) for _ in range(rank))  # bytes
    const = tuple(min(draw(pow2), s) for s in shape)
    ptr = AxisInfo(contig, div, (1,) * rank)
    mask = AxisInfo((1,) * rank, (1,) * rank, const) if draw(st.booleans()) else None
    elem = draw(ELEMS)
    warps = draw(WARPS)
    wanted = draw(WANTED)
    return ptr, mask, shape, elem, warps, wanted


@settings(max_examples=300, deadline=None)
@given(accesses())
def test_vector_width_never_exceeds_contiguity_alignment_constancy_or_128_bits(a):
    ptr, mask, shape, elem, warps, wanted = a
    p = plan(ptr, mask, shape, elem, warps, wanted)
    o = p.order[0]
    assert p.vec * elem <= 16                                   # at most one 128-bit access a lane
    assert p.vec <= max(ptr.contiguity[o], 1)                   # never past a run of consecutive addresses
    assert p.vec == 1 or p.vec * elem <= ptr.divisibility[o]    # the first address aligned to the vector
    if mask is not None:
        assert p.vec <= mask.constancy[o]                       # the mask the same over the vector
    assert p.size_per_thread[o] % p.vec == 0                    # a thread's run splits into whole vectors
    assert p.vec & (p.vec - 1) == 0                             # a power of two


@settings(max_examples=200, deadline=None)
@given(accesses())
def test_instructions_cover_the_block_once(a):
    ptr, mask, shape, elem, warps, wanted = a
    p = plan(ptr, mask, shape, elem, warps, wanted)
    first, owner = lanes(p)
    assert first.shape == (p.instructions, 32)
    numel = int(np.prod(shape))
    o = p.order[0]
    step = int(np.prod(shape[o + 1:]))  # row-major stride of the fastest dimension
    cover = (first[..., None] + np.arange(p.vec) * step)
    own = np.ones(first.shape, bool) if owner is None else owner
    owned = cover[own].ravel()
    # every element of the block is moved by exactly one owning lane, and nothing outside the block
    assert owned.min() >= 0 and owned.max() < numel
    assert np.array_equal(np.sort(owned), np.arange(numel))


def test_a_plan_whose_lanes_wrap_rows_is_not_affine():
    # a 4 × 16 block, 4 × 8 lanes a warp, one element a lane: lane l holds element 16·(l // 8) + l % 8, so lanes
    # 0–7 step by one and lane 8 jumps to 16: no (bases, step) describes them. 8 lanes along a row of 8 do.
    wrapped = layout.Plan((4, 16), (1, 1), (4, 8), (1, 1), (1, 0), 1, 2)
    assert layout.affine(wrapped) is None
    fits = layout.Plan((4, 8), (1, 1), (4, 8), (1, 1), (1, 0), 1, 1)
    bases, step = layout.affine(fits)
    assert (bases.tolist(), step) == ([0], 1)


def test_the_lanes_of_a_three_dimensional_block_by_hand():
    # a (2, 4, 8) block, 2 elements a lane along the last dimension, lanes 4 along it, 4 down the rows, 2 across the
    # batch (order (2, 1, 0)), one warp: lane l starts at element (l // 16, l // 4 % 4, 2 · (l % 4)), row-major
    # index 32 · (l // 16) + 8 · (l // 4 % 4) + 2 · (l % 4); one instruction, 32 × 2 = 64 elements, each owned once
    first, owner = lanes(layout.Plan((2, 4, 8), (1, 1, 2), (2, 4, 4), (1, 1, 1), (2, 1, 0), 2, 1))
    assert first.tolist() == [[32 * (lane // 16) + 8 * (lane // 4 % 4) + 2 * (lane % 4) for lane in range(32)]]
    assert owner is None


def test_sliced_instructions_vectorise_only_the_leading_run_of_registers():
    from kernellab.triton.compiler import axis, convert

    # 256 floats from a 16-byte aligned pointer (4 floats a vector at most), 2 warps of 32 lanes, 2 floats a lane:
    # registers (1,) then (128,): the run of consecutive registers is 1 bit long, vectors of 2, 4 registers a
    # thread in 2 instructions (not 1: elements 0, 1 and 128, 129 are not 4 in a row)
    ptr = axis.add(axis.splat(axis.argument(16), (256,)), axis.arange(0, 256), (256,), elem_bytes=4)
    lay = convert.blocked((256,), (2,), (32,), (2,), (0,))
    assert lay.registers == ((1,), (128,)) and layout.sliced_instructions(lay, ptr, None, 4) == 2
    # registers in the order (2,), (1,): register 1 holds element 2, so no two registers in a row are consecutive
    # elements: one element an instruction, 4
    swapped = convert.Linear((256,), ((2,), (1,)), tuple((4 << i,) for i in range(5)), ((128,),))
    assert layout.sliced_instructions(swapped, ptr, None, 4) == 4


def test_a_scalar_store_of_a_one_warp_program():
    import kernellab.triton as triton
    import kernellab.triton.language as tl

    @triton.jit
    def total(x_ptr, out_ptr):
        tl.store(out_ptr, tl.sum(tl.load(x_ptr + tl.arange(0, 32))))

    # one warp issues the scalar store (1 instruction), lane 0 of it owns the element: 4 bytes; 0 + 1 + … + 31 = 496
    x, out = np.arange(32, dtype=np.float32), np.zeros(1, np.float32)
    c = total[(1,)](x, out, num_warps=1)
    assert out[0] == 496 and (c.store_instructions, c.store_bytes) == (1, 4)
    first, owner = lanes(plan(None, None, (), 4, 1))
    assert first.shape == (1, 32) and owner[0].tolist() == [True] + [False] * 31
