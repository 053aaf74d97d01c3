"""Triton 3.9's shared-memory buffer for a layout conversion (kernellab.triton.compiler.swizzle), on
conversions whose buffer is worked out by hand below; each was also compiled by Triton 3.9 (a Gluon
``convert_layout`` between the same two layouts), and the instructions named here are its PTX's."""

from kernellab.triton.compiler import swizzle as S
from kernellab.triton.compiler.swizzle import Flat


def test_gf2_helpers():
    # span{1^2, 2} = span{1, 2}: the nullspace of {3, 2} in 3 bits is {4}; ∩ with span{1, 4} is {1}
    assert S.nullspace([3, 2], 3) == [4]
    assert S.intersection([3, 2], [1, 4], 3) == [1]
    assert S.intersection([1, 2, 8], [8, 1], 4) == [1, 8]       # powers of two: b1's order
    assert S.complement([3, 4], 4) == [2, 8]                   # pivots of 3 (bit 0) and 4 (bit 2)
    assert S.represent(6, ((1, 2), (4,))) == (2, 1)            # 6 = 2 ^ 4: register 1, lane 0
    assert S.represent(8, ((1, 2), (4,))) is None


def test_fp16_transpose_is_one_store_and_one_transposing_ldmatrix():
    # 32×32 fp16 read along rows (8 a thread, columns j: elements 32j) and written along columns (8 a
    # thread down rows i: elements i). No register in common, so no plain vector; ldmatrix.trans
    # needs its destination's lanes 2-4 (elements 32, 64, 128) to be registers of the source: they are
    # its three register bases, which become the buffer's vector: the source stores its 8 halves in
    # one st.shared.v4; the destination reads 8 × 8 halves a matrix, 4 matrices: one ldmatrix.x4.trans
    src = Flat(regs=(32, 64, 128), lanes=(256, 512, 1, 2, 4), warps=(8, 16))
    dst = Flat(regs=(1, 2, 4), lanes=(8, 16, 32, 64, 128), warps=(256, 512))
    for target in ("sm80", "sm90"):
        p = S.plan(src, dst, 16, target)
        assert (p.store, p.stores, p.load, p.loads) == ("st.shared", 1, "ldmatrix.trans", 1)
        assert p.buffer.vector == (32, 64, 128)
        # segment: bases neither side's lanes use (2, 4), then each source lane XOR a destination lane
        # (256 ^ 8, 512 ^ 16): the swizzle that keeps both sides' lanes in distinct banks
        assert p.buffer.segment == (2, 4, 264, 528)


def test_eight_halves_to_one_by_target():
    # a 1024-element fp16 row: 8 a thread (registers 1, 2, 4) to one a thread (registers 128, 256,
    # 512: the 128-lane tile repeated). sm_80: no tile fits, so plain loads and stores; below 32 bits
    # the vector is filled with a destination register that is a source warp (256): the loads read
    # pairs (ld.shared.v2.b16, 8 / 2 = 4), the stores, whose registers are not the buffer's first bit,
    # go one half at a time (8). sm_90: stmatrix (source lanes 0, 1 are elements 8, 16, matching the
    # destination's lanes 3, 4) with ldmatrix.trans: 8 halves a thread, one instruction each way.
    src = Flat(regs=(1, 2, 4), lanes=(8, 16, 32, 64, 128), warps=(256, 512))
    dst = Flat(regs=(128, 256, 512), lanes=(1, 2, 4, 8, 16), warps=(32, 64))
    p80, p90 = S.plan(src, dst, 16, "sm80"), S.plan(src, dst, 16, "sm90")
    assert (p80.store, p80.stores, p80.load, p80.loads, p80.vec_load) == ("st.shared", 8, "ld.shared", 4, 2)
    assert (p90.store, p90.stores, p90.load, p90.loads) == ("stmatrix", 1, "ldmatrix.trans", 1)


def test_pointers_move_as_64_bit_words():
    # a histogram's pointers (8 a thread: registers 1, 2 and the repetition 512) to the atomic's
    # layout (one a thread, repeated: registers 128, 256, 512): 512 is common, so both sides move
    # pairs of 64-bit pointers (st/ld.shared.v2.b64): 8 / 2 = 4 each
    src = Flat(regs=(1, 2, 512), lanes=(4, 8, 16, 32, 64), warps=(128, 256))
    dst = Flat(regs=(128, 256, 512), lanes=(1, 2, 4, 8, 16), warps=(32, 64))
    p = S.plan(src, dst, 64, "sm80")
    assert (p.stores, p.loads, p.vec_store, p.vec_load) == (4, 4, 2, 2)


def test_bank_bases_of_the_vectorising_side_go_first():
    # 16 partial results, 4 a warp (registers: elements 4, 8), every lane a copy, to 16 lanes: no
    # common register, 32 bits fill a bank word already; the bank bases that are source registers (4,
    # 8) are put first, so the source stores its 4 values in one st.shared.v4 and each lane loads one
    src = Flat(regs=(4, 8), lanes=(0, 0, 0, 0, 0), warps=(1, 2))
    dst = Flat(regs=(), lanes=(1, 2, 4, 8, 0), warps=(0, 0))
    p = S.plan(src, dst, 32, "sm80")
    assert p.buffer.bank[:2] == (4, 8) and (p.stores, p.loads) == (1, 1)


def test_intersection_keeps_the_first_lists_order_and_the_whole_span():
    # unit vectors (bits of elements): the common ones in b1's order, as the plan's vector keeps them
    assert S.intersection([8, 1], [1, 8], 4) == [8, 1]
    # span{3, 5} = {0, 3, 5, 6} = span{6, 5}: the intersection is all of it, though only 5 is in both lists
    got = S.intersection([3, 5], [6, 5], 3)
    assert len(got) == 2 and {0, got[0], got[1], got[0] ^ got[1]} == {0, 3, 5, 6}


def test_below_32_bits_the_vector_takes_the_register_the_other_side_has_as_a_warp():
    # 1024 fp16 elements, 8 a thread to 3 registers a thread; sm_80 (no stmatrix), no tile fits: plain accesses.
    # No common register; dst's register 512 is a src warp (src's registers 1, 2, 4 are dst lanes, not warps):
    # it is the vector, not src's first warp 256. dst then reads e and e ^ 512 in one ld.shared.b32: 8 / 2 = 4
    # loads; src's registers are not the buffer's first bit: 8 st.shared.b16. A 4-byte load of 32 lanes on
    # distinct banks: 1 wavefront each, 4 × 4 warps = 16; a 2-byte store: lanes 0–15 at bytes 0–60 (banks 0–15),
    # lanes 16–31 at 1088 B more (272 words: banks 16–31), 1 wavefront, 8 × 4 = 32
    src = Flat(regs=(1, 2, 4), lanes=(8, 16, 32, 64, 128), warps=(256, 512))
    dst = Flat(regs=(128, 512, 16), lanes=(1, 2, 4, 8, 256), warps=(32, 64))
    p = S.plan(src, dst, 16, "sm80")
    assert p.buffer.vector == (512,) and (p.store, p.stores, p.load, p.loads, p.vec_load) == \
        ("st.shared", 8, "ld.shared", 4, 2)
    assert S.banks(src, dst, 16, "sm80") == ((32, 32), (16, 16))
    # nothing to fill it with from the registers (dst's registers 16, 32, 64 are src lanes, src's are dst lanes,
    # no warp in common): src's first warp, 256, then dst's (getVecBasisLdSt); neither holds it in a register: one
    # half an access each way, 8 and 8
    dst = Flat(regs=(16, 32, 64), lanes=(1, 2, 4, 256, 512), warps=(8, 128))
    p = S.plan(src, dst, 16, "sm80")
    assert p.buffer.vector == (256,) and (p.stores, p.loads) == (8, 8)
