"""Triton's axis rules (kernellab.triton.compiler.axis) on facts made by hand: the constant folds, the
comparisons, selects and bit operations, each with its answer derived from the rule of AxisInfo.cpp.

A fact is (contiguity, divisibility, constancy, value) per dimension; ``MAX`` (2^62) is "divisible by
anything", the divisibility of 0.
"""

from kernellab.triton.compiler import axis as A
from kernellab.triton.compiler.axis import MAX, AxisInfo

ONE = (1,)


def test_constant_operands_fold_to_a_constant():
    # C remainder takes the dividend's sign: 7 % 3 = 1, -7 % 3 = -1 (divisibility of ±1: 1)
    assert A.remainder(A.constant(7), A.constant(3), ()) == AxisInfo(ONE, ONE, ONE, 1)
    assert A.remainder(A.constant(-7), A.constant(3), ()) == AxisInfo(ONE, ONE, ONE, -1)
    # 6 & 3 = 2, 6 | 3 = 7, 6 ^ 3 = 5: divisibility of 2 is 2, of 7 and 5 is 1
    assert [A.logical(op, A.constant(6), A.constant(3)) for op in "&|^"] == [
        AxisInfo(ONE, (2,), ONE, 2), AxisInfo(ONE, ONE, ONE, 7), AxisInfo(ONE, ONE, ONE, 5)]
    # min and max of two constants: the constant, its facts all 1 (Triton keeps no divisibility for them)
    assert A.minmax("min", A.constant(4), A.constant(9)) == AxisInfo(ONE, ONE, ONE, 4)
    assert A.minmax("max", A.constant(4), A.constant(9)) == AxisInfo(ONE, ONE, ONE, 9)


def test_comparisons_of_constants_and_of_unknown_scalars():
    # two scalar constants: 2 < 3 is the constant 1, 2 >= 3 the constant 0; equal ones tell < from <=
    assert A.compare("<", A.constant(2), A.constant(3), ()) == AxisInfo(ONE, ONE, ONE, 1)
    assert [A.compare(op, A.constant(3), A.constant(3), ()).value for op in ("<", "<=", ">", ">=", "==", "!=")] == \
        [0, 1, 0, 1, 1, 0]
    # splat to 4 lanes: constancy 4, the value kept
    assert A.compare(">=", A.constant(2, (4,)), A.constant(3, (4,)), (4,)) == AxisInfo(ONE, ONE, (4,), 0)
    # an argument against a constant, as scalars: nothing known
    assert A.compare("<", A.argument(16), A.constant(3), ()) == A.unknown(1)
    # n (divisible by 16) > offs, the constant on the left: runs of gcd(1024, 16, 16) = 16 lanes kept alike
    offs = A.arange(0, 1024)
    n = A.splat(A.argument(16), (1024,))
    assert A.compare(">", n, offs, (1024,)).constancy == (16,)
    assert A.compare("==", n, offs, (1024,)).constancy == (1,)  # == and != learn nothing from the runs


def test_select_with_a_known_condition_a_scalar_condition_and_a_block_condition():
    a, b = A.arange(0, 16), A.splat(A.constant(5), (16,))
    assert A.select(A.constant(0), a, b, True) is b and A.select(A.constant(1), a, b, True) is a
    # a scalar condition picks a whole operand: runs are those both operands have (gcd(16, 1) = 1 contiguous,
    # gcd(1, 16) = 1 constant); divisibility from contiguity: gcd(MAX, 8, 16, 1) = 1 (their runs differ)
    assert A.select(A.UNKNOWN_SCALAR, a, b, True) == AxisInfo(ONE, ONE, ONE)
    # the same operand twice: its own facts; a block condition with runs of 4 cuts them to 4
    assert A.select(A.UNKNOWN_SCALAR, a, a, True) == AxisInfo((16,), (MAX,), ONE)
    cond = AxisInfo(ONE, ONE, (4,))
    assert A.select(cond, a, a, False) == AxisInfo((4,), (MAX,), ONE)
    both_five = A.select(cond, b, b, False)
    assert (both_five.constancy, both_five.value) == ((4,), 5)  # one constant both ways: still that constant


def test_an_operator_the_analysis_does_not_follow():
    assert A.binary("**", A.constant(2), A.constant(3), ()) is None


def test_hints_replace_one_fact():
    # tl.multiple_of, tl.max_contiguous: the hinted fact replaced, the others kept
    offs = A.arange(0, 64)
    assert A.hint(offs, "divisibility", 16).divisibility == (16,)
    assert A.hint(offs, "contiguity", [8]) == AxisInfo((8,), (MAX,), ONE)


def test_a_division_of_two_constants_truncates_toward_zero_as_c_does():
    # arith.divsi: 7 // 2 = 3, -7 // 2 = -3 (Python's floor would give -4), 7 // -2 = -3, -7 // -2 = 3, 0 // -5 = 0
    got = [A.divide(A.constant(a), A.constant(b), ()).value for a, b in ((7, 2), (-7, 2), (7, -2), (-7, -2), (0, -5))]
    assert got == [3, -3, -3, 3, 0]


def test_constants_fold_and_a_lower_rank_block_gains_leading_dimensions():
    # two known values add (a pointer's offset counted in elements of 4 bytes): 5 + 3 = 8, 64 + 3 × 4 = 76
    assert A.add(A.constant(5), A.constant(3), ()).value == 8
    assert A.add(A.constant(64), A.constant(3), (), elem_bytes=4).value == 76
    # arange(0, 8) made (4, 8), as Triton's frontend broadcasts: a leading dimension of 4 equal rows (constancy 4,
    # contiguity 1), the 8 consecutive values along the last (contiguity 8)
    b = A.to_shape(A.arange(0, 8), (8,), (4, 8))
    assert (b.contiguity, b.constancy) == ((1, 8), (4, 1))
    # the new dimension of x[None, :]: the gcd of 1 for each contiguous dimension (consecutive values share no factor)
    assert A.expand_dims(A.arange(0, 8), 0).divisibility[0] == 1
    # so even of arange(0, 2), the shortest run (contiguity 2 > 1: Triton's `getContiguity(d) > 1 ? 1 : divisibility`),
    # whose own divisibility is the largest (it starts at 0); a block contiguous nowhere keeps its divisibility
    assert A.expand_dims(A.arange(0, 2), 0).divisibility[0] == 1
    assert A.expand_dims(A.constant(16, (4,))._replace(value=None), 0).divisibility[0] == 16


def test_a_folded_constant_block_and_a_range_times_a_constant():
    # 5 + a block of eight 3s: a block of eight 8s, constant over all 8
    assert A.add(A.constant(5), A.constant(3, (8,)), (8,)).constancy == (8,)
    # arange(0, 8) × 4 = 0, 4, …, 28: every value a multiple of 4 and not all of 8 (the range alone divides by 1)
    assert A.binary_mul(A.arange(0, 8), A.constant(4, (8,))).divisibility == (4,)


def test_a_constant_times_a_range_and_a_folded_quotient():
    # 4 × arange(0, 8): the same products as arange(0, 8) × 4, every one a multiple of 4
    assert A.binary_mul(A.constant(4, (8,)), A.arange(0, 8)).divisibility == (4,)
    # 7 // 2 = 3 (C division), an int, which shifts: 3 >> 1 = 1
    q = A.divide(A.constant(7), A.constant(2), ())
    assert q.value == 3 and A.shift(">>", q, A.constant(1)).value == 1


def test_shift_divisibility_by_hand():
    rng8 = A.arange(0, 8)
    by2 = A.constant(2, (8,))
    mult16, mult4 = A.splat(A.argument(16), (8,)), A.splat(A.argument(4), (8,))
    # arange << 2 = 0, 4, …, 28: the range divides by 1, shifted by 2: 4
    assert A.shift("<<", rng8, by2).divisibility == (4,)
    # a block of multiples of 16, not contiguous: << 2 → multiples of 64; >> 2 → of 4; multiples of 4 >> 2 → of 1
    assert A.shift("<<", mult16, by2).divisibility == (64,)
    assert A.shift(">>", mult16, by2).divisibility == (4,)
    assert A.shift(">>", mult4, by2).divisibility == (1,)
    # shifted right by an unknown amount: nothing known but 1
    assert A.shift(">>", mult16, A.splat(A.argument(1), (8,))).divisibility == (1,)


def test_divide_and_logical_rules_by_hand():
    mult16 = A.splat(A.argument(16), (8,))
    # multiples of 16 divided by 4 (a power of two, the block not contiguous): multiples of 4
    assert A.divide(mult16, A.constant(4, (8,)), (8,)).divisibility == (4,)
    # 64 … 71 divided by 8 … 15: 64 // 8 = 8, 65 // 9 = 7, … no run of equal quotients (the divisor is not constant)
    assert A.divide(A.arange(64, 72), A.arange(8, 16), (8,)).constancy == (1,)
    # a bitwise and keeps no divisibility nor contiguity, only the operands' common runs of equal values
    got = A.logical("&", A.arange(0, 8), mult16)
    assert (got.contiguity, got.divisibility) == ((1,), (1,))


def test_minmax_divisibility_by_hand():
    # max of 16 … 23 and 32 … 39: whichever run each element comes from starts at a multiple of 16: 16
    assert A.minmax("max", A.arange(16, 24), A.arange(32, 40)).divisibility == (16,)
    # max of 16 … 23 and multiples of 16 (not contiguous): an element may be 17: nothing but 1
    assert A.minmax("max", A.arange(16, 24), A.splat(A.argument(16), (8,))).divisibility == (1,)
