"""Integer, comparison and branch instructions counted by the SIMT simulator without the kernel's help
(``launch(auto_instr=True)``, the default): each count derived by hand, per warp.

Fixed per warp (``block.ENTRY_COST``, ``EXIT_COST``): 2 int (MOV of the stack pointer, ULDC), 2 other
(S2R of threadIdx and blockIdx), 1 ctrl (EXIT). A global access adds its 64-bit address (1 int).
"""

import numpy as np
import pytest

from kernellab import launch
from kernellab.errors import KernelValueError
from kernellab.simt import declares_overhead
from kernellab.simt.block import PREDICATE_MAX

from . import sass_twins as T

FIXED = {"int": 2, "other": 2, "ctrl": 1}


def test_index_arithmetic_and_a_comparison():
    def k(blk, out):
        i = blk.bx * blk.bdx + blk.tx          # IMAD, IADD3 (2 int)
        m = (i & 7) < 3                         # LOP3, ISETP (2 int)
        with blk.where(m):
            blk.store(out, i, 1.0)              # STG + its address (1 int), predicated: every warp issues it
    out = np.zeros(64, np.float32)
    c = launch(k, 2, 32, args=(out,))
    assert out.reshape(-1, 8)[:, :3].all() and out.sum() == 24
    assert c.instr_by_kind == {"int": 2 * (2 + 2 + 2 + 1), "other": 2 * 2, "ctrl": 2 * 1, "st.global": 2}


def test_integer_division_costs_an_unsigned_division_sequence():
    def k(blk, out):
        blk.store(out, blk.tx, (blk.tx % 5).astype(np.float32))  # 15 int + 3 other, + the address
    out = np.zeros(32, np.float32)
    c = launch(k, 1, 32, args=(out,))
    assert c.instr_by_kind == {"int": 2 + 15 + 1, "other": 2 + 3, "ctrl": 1, "st.global": 1}


def test_float_arithmetic_is_not_counted_but_float_comparisons_are():
    def k(blk, x, out):
        v = blk.load(x, blk.tx)                 # LDG + address
        w = v * np.float32(2.0)                 # numpy float arithmetic: not counted (use blk.fmul)
        with blk.where(w > 1.0):                # on a loaded float: not Lanes, not counted
            blk.store(out, blk.tx, w)
        with blk.where(blk.tx.astype(np.float32) > 1.5):  # FSETP on lanes: 1 other
            blk.store(out, blk.tx, w)
    x, out = np.arange(32, dtype=np.float32), np.zeros(32, np.float32)
    c = launch(k, 1, 32, args=(x, out))
    assert c.instr_by_kind == {"int": 2 + 1 + 1 + 1, "other": 2 + 1, "ctrl": 1, "ld.global": 1, "st.global": 2}


def test_a_comparison_with_a_python_float_is_a_float_comparison():
    def k(blk, out):
        with blk.where(blk.tx < 3.5):           # int lanes against a Python float: FSETP (1 other), not ISETP
            blk.store(out, blk.tx, 1.0)         # STG + its address (1 int)
    out = np.zeros(32, np.float32)
    c = launch(k, 1, 32, args=(out,))
    assert out.sum() == 4                       # threads 0–3: 3 < 3.5 ≤ 4
    assert c.instr_by_kind == {"int": 2 + 1, "other": 2 + 1, "ctrl": 1, "st.global": 1}


def test_an_in_place_update_keeps_the_lanes_and_counts_its_instruction():
    def k(blk, out):
        v = blk.tx * 2                          # 1 int
        v += 5                                  # in place (out= the lanes themselves): 1 int, still lanes
        np.add(v, 1, out=v)                     # the same through out=: 1 int
        blk.store(out, blk.tx, v.astype(np.float32))
    out = np.zeros(32, np.float32)
    c = launch(k, 1, 32, args=(out,))
    assert out.tolist() == [2.0 * t + 6 for t in range(32)]
    assert c.instr_by_kind["int"] - launch(_two_int_ops, 1, 32, args=(out,)).instr_by_kind["int"] == 1


def _two_int_ops(blk, out):
    v = blk.tx * 2                              # the kernel above without one of its three adds
    v += 5
    blk.store(out, blk.tx, v.astype(np.float32))


def test_a_loop_charges_its_back_edges():
    def k(blk, out):
        acc = blk.tx * 0                        # 1 int
        for _ in range(4):
            acc = acc + 1                       # 1 int a pass; passes 2–4 each jump back: 3 × (2 int + 1 ctrl)
        blk.store(out, blk.tx, acc.astype(np.float32))
    out = np.zeros(32, np.float32)
    c = launch(k, 1, 32, args=(out,))
    assert (out == 4).all()
    assert c.instr_by_kind == {"int": 2 + 1 + 4 + 3 * 2 + 1, "other": 2, "ctrl": 1 + 3, "st.global": 1}


def test_short_where_is_predicated_long_where_is_a_branch():
    def short(blk, out):
        with blk.where(blk.tx < 32):            # 1 int; warp 1 has no active lane but issues the body
            blk.store(out, blk.tx, 1.0)         # 2 instructions a warp
    def long(blk, out):
        with blk.where(blk.tx < 32):
            for _ in range(PREDICATE_MAX):      # 12 stores + 12 addresses + 11 back edges: a branch
                blk.store(out, blk.tx, 1.0)
    out = np.zeros(64, np.float32)
    s = launch(short, 1, 64, args=(out,))
    # 2 warps × (5 fixed + 1 compare) + warp 0's 2 + warp 1's predicated 2 (no active lane)
    assert s.warp_instr == 2 * 6 + 2 + 2 and s.thread_instr == 2 * 6 * 32 + 2 * 32
    lg = launch(long, 1, 64, args=(out,))
    body = 12 + 12 + 11 * 3  # on warp 0 only
    # 2 warps × 6, warp 0's body, one BRA for each of the 2 warps reaching the branch
    assert lg.warp_instr == 2 * 6 + body + 2 and lg.instr_by_kind["ctrl"] == 2 * 1 + 11 + 2


def test_harris_kernels_by_hand():
    # per warp, kernel 1: prologue 5 fixed + 2 (i) + 1 (i < n) + LDG and its address + STS + BAR = 12;
    # a pass: tid % (2s) 18, == 0 1, the predicated body LDS, tid + s, LDS, FADD, STS 5, BAR 1 = 25;
    # 8 passes and 7 back edges (3 each) = 221; the result: tid == 0 1, LDS, STG, its address 3 = 4 → 237
    # kernel 2: a pass is 2·s·tid 1, < blockDim 1, the body 5, BAR 1 = 8: 12 + 8 × 8 + 21 + 4 = 101
    x = np.ones(4096, np.float32)
    for kernel, per_warp in ((T.reduce1, 237), (T.reduce2, 101)):
        out = np.zeros(16, np.float32)
        c = launch(kernel, 16, 256, args=(x, out, 4096))
        assert (out == 256).all() and c.warp_instr == 16 * 8 * per_warp


def test_declared_kernels_and_auto_instr_false_count_nothing_automatically():
    @declares_overhead
    def k(blk, out):
        blk.count_instr("int", 3)
        blk.store(out, blk.tx * 2, 1.0)
    out = np.zeros(64, np.float32)
    assert launch(k, 1, 32, args=(out,)).instr_by_kind == {"int": 3, "st.global": 1}
    assert launch(T.axpy, 1, 32, args=(out, out, out, 1.0, 32), auto_instr=False).warp_instr == 4
    assert launch(k, 1, 32, args=(out,), auto_instr=True).instr_by_kind["int"] == 3 + 2 + 1 + 1


def test_lanes_stay_usable_as_indices_and_refuse_python_if():
    def k(blk, out):
        if blk.tx < 3:
            blk.store(out, blk.tx, 1.0)
    with pytest.raises(ValueError, match="blk.where"):
        launch(k, 1, 32, args=(np.zeros(32, np.float32),))


def test_ufunc_forms_on_lanes_count_as_their_instructions():
    def k(blk, out):
        q, r = np.divmod(blk.tx, 5)             # one unsigned-division sequence: 15 int + 3 other
        buf = np.empty(32, np.int64)
        np.add(q, r, out=buf)                   # an out= array: IADD3 (1 int), the result is the plain array
        s = np.sin(blk.tx)                      # a float result: not counted here (blk.fmul and the like are)
        blk.store(out, blk.tx, (buf + s * 0).astype(np.float32))  # + the address (1 int)
    out = np.zeros(32, np.float32)
    c = launch(k, 1, 32, args=(out,))
    # buf + (float) on a plain array: not Lanes, not counted (a reduction over the lanes is refused: below)
    assert out.tolist() == [t // 5 + t % 5 for t in range(32)]
    assert c.instr_by_kind == {"int": 2 + 15 + 1 + 1, "other": 2 + 3, "ctrl": 1, "st.global": 1}


def test_atomics_with_plain_indices_and_arithmetic_on_scalars():
    def k(blk, out, res):
        blk.atomic_add(out, np.arange(32) % 4, 1.0)  # a plain int64 index per lane: 8 lanes a bin
        r = blk.fadd(2.0, 0.5) + blk.expf(0.0)          # two scalars: one value a lane, counted a lane each
        blk.store(res, blk.tx, r)
    out, res = np.zeros(4, np.float32), np.zeros(32, np.float32)
    c = launch(k, 1, 32, args=(out, res), auto_instr=False)
    assert out.tolist() == [8.0] * 4 and (res == 3.5).all()
    # auto_instr=False: no integer work counted, only what the kernel does: 1 FADD and 1 MUFU.EX2 (with its
    # FMUL) on the one warp
    assert (c.fadd, c.fmul, c.atomic_requests) == (32, 32, 1)
    assert c.instr_by_kind.get("int", 0) == 0


def _one_load(body, x, out, threads=64):
    """Launch a kernel that loads a vector of 4 a lane from ``x`` (lane i: x[4i … 4i+3], its ``(lanes, 4)``
    value ``v``) and stores ``body(v, blk)`` to ``out[lane]``: the counts and the type of what body returned."""
    got = {}

    def k(blk, x, out):
        r = body(blk.load(x, blk.tx * 4, vec=4), blk)
        got["type"] = type(r).__name__
        blk.store(out, blk.tx, r)
    c = launch(k, 1, threads, args=(x, out))
    return c.instr_by_kind, got["type"]


def _extra(body, x, out, threads=64):
    """What ``body`` counts beyond storing the first component (``v[:, 0]``, a view: nothing counted)."""
    base, _t = _one_load(lambda v, blk: v[:, 0], x, np.zeros_like(out), threads)
    got, kind = _one_load(body, x, out, threads)
    return {k: got.get(k, 0) - base.get(k, 0) for k in set(got) | set(base) if got.get(k, 0) != base.get(k, 0)}, kind


def test_a_reduce_along_a_lanes_own_axis_counts_k_minus_1_and_later_arithmetic_is_still_counted():
    x, out = np.arange(256, dtype=np.int32), np.zeros(64, np.int64)
    extra, kind = _extra(lambda v, blk: v.sum(axis=1) + 1, x, out)
    # an int4 a lane summed: 4 − 1 = 3 IADD3 a lane, then the + 1: one more (it is lane values again);
    # 64 threads = 2 warps, all active: (3 + 1) · 2 = 8 warp instructions
    assert (extra, kind) == ({"int": 8}, "Lanes")
    assert out.tolist() == [16 * i + 6 + 1 for i in range(64)]  # 4i + 4i+1 + 4i+2 + 4i+3 + 1
    extra, kind = _extra(lambda v, blk: v.cumsum(axis=1)[:, 3] * 2, x, out)
    # a prefix sum of 4: 3 IADD3 a lane (the first component is the operand), the * 2 one IMAD: 4 · 2 warps
    assert (extra, kind) == ({"int": 8}, "Lanes")
    assert out.tolist() == [2 * (16 * i + 6) for i in range(64)]


def test_a_float4_sum_on_32_lanes_counts_no_integer_work_and_a_float_lane_reduce_stays_lane_values():
    x, out = (np.arange(128) / 8).astype(np.float32), np.zeros(32, np.float32)
    extra, kind = _extra(lambda v, blk: v.sum(axis=1), x, out, threads=32)
    # a float4 load is floating-point data, not lane values (blk.load makes Lanes of integers only): its 3 FADDs a
    # lane are blk.fadd's to count, as for a plain float +; nothing counted here
    assert (extra, kind) == ({}, "ndarray")
    assert out.tolist() == [(16 * i + 6) / 8 for i in range(32)]  # (4i + 4i+1 + 4i+2 + 4i+3) / 8
    flags = np.zeros(32, bool)
    extra, kind = _extra(lambda v, blk: np.add.outer(blk.tx * 0.5, [0.0, 0.25]).max(axis=1) < 3, x, flags, 32)
    # float lane values (tx · 0.5, an I2F and FMUL not counted here): the outer's 2 FADDs and the max's FMNMX a
    # lane are floating-point, not counted; the < afterwards is one FSETP ("other") on the one warp, counted since
    # the max is lane values again
    assert (extra, kind) == ({"other": 1}, "Lanes")
    assert flags.tolist() == [t * 0.5 + 0.25 < 3 for t in range(32)]  # lanes 0 … 5 (2.75 < 3)


def test_an_outer_product_counts_one_instruction_a_product():
    x, out = np.arange(256, dtype=np.int32), np.zeros(64, np.int64)
    extra, kind = _extra(lambda v, blk: np.multiply.outer(v, np.arange(3)).sum(axis=(1, 2)), x, out)
    # a lane's 4 values times 3 constants: 12 IMAD; their sum over both of a lane's axes: 12 − 1 = 11 IADD3;
    # 23 a lane on 2 warps = 46
    assert (extra, kind) == ({"int": 46}, "Lanes")
    assert out.tolist() == [(16 * i + 6) * 3 for i in range(64)]  # (0 + 1 + 2) · the lane's sum
    extra, kind = _extra(lambda v, blk: np.multiply.outer(blk.tx, np.arange(3)).max(axis=1), x, out)
    # tx times 3 constants: 3 IMAD, their maximum: 2 IMNMX; 5 a lane on 2 warps = 10
    assert (extra, kind) == ({"int": 10}, "Lanes")
    assert out.tolist() == [2 * i for i in range(64)]


@pytest.mark.parametrize("body, call", [
    (lambda v, blk: np.add.reduce(blk.tx), "np.add.reduce(axis=0)"),        # over the lanes: shuffles in CUDA
    (lambda v, blk: v.sum(), "np.add.reduce(axis=None)"),                   # every lane's every value
    (lambda v, blk: v.cumsum(axis=0)[:, 0], "np.add.accumulate(axis=0)"),   # a scan over the lanes
    (lambda v, blk: np.add.outer(np.arange(3), blk.tx), "np.add.outer"),    # lane axis not first
    (lambda v, blk: np.multiply.outer(blk.tx, blk.tx)[:, 0], "np.multiply.outer"),  # pairs lanes with lanes
    (lambda v, blk: v.sum(axis=1, where=v > 1), "np.add.reduce(axis=1)"),  # a masked reduce
    (lambda v, blk: np.add.reduceat(v, [0, 2], axis=1)[:, 0], "np.add.reduceat"),
])
def test_a_ufunc_method_that_is_not_one_instruction_a_lane_is_refused_by_name(body, call):
    x, out = np.arange(256, dtype=np.int32), np.zeros(64, np.int64)
    with pytest.raises(KernelValueError) as e:
        _one_load(body, x, out)
    assert e.value.details == {"kernel": "k", "block": "(0,0,0)", "call": call}
    assert str(e.value).startswith(f"kernel k, block (0,0,0): {call} on lane values is not counted")
