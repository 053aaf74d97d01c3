"""SIMT behaviours no test exercised before issue 15, each with its answer derived by hand.

Nested ``blk.where`` regions and the ``mask=`` argument, a read → barrier → read-modify-write that is
not a race, 64-bit shared-memory phases, padding between shared arrays, 2-D and 3-D grids, and
misaligned full-warp accesses. Every count is read from the public ``Counts`` of a launch.
"""

import numpy as np
import pytest

from kernellab import A6000, LaunchError, MisalignedError, RaceError, allow_float64, launch


def _x(n):
    return np.arange(1, n + 1, dtype=np.float32)  # nonzero everywhere, so a missed load shows as 0


# --- nested where regions and mask= ---------------------------------------------------------------

def nested_kernel(blk, x, y, z):
    t = blk.tx
    with blk.where(t < 40):                  # lanes 0–39
        with blk.where(t % 2 == 0):          # and even: 0, 2, …, 38 (20 lanes)
            blk.store(y, t, blk.load(x, t))
        blk.store(z, t, 1.0)                 # back to the outer region: lanes 0–39 again
    blk.store(z, t + 64, 2.0)                # outside both: all 64 lanes


def test_nested_where_regions_combine_with_and_and_restore_on_exit():
    x, y, z = _x(64), np.zeros(64, np.float32), np.zeros(128, np.float32)
    c = launch(nested_kernel, 1, 64, args=(x, y, z), auto_instr=False)  # memory instructions alone
    t = np.arange(64)
    np.testing.assert_array_equal(y, np.where((t < 40) & (t % 2 == 0), x, 0))
    np.testing.assert_array_equal(z[:64], np.where(t < 40, 1.0, 0.0))
    np.testing.assert_array_equal(z[64:], 2.0)
    # the load: warp 0 has the 16 even lanes 0–30, warp 1 the 4 lanes 32, 34, 36, 38 → 2 requests, 20 lanes × 4 B
    # warp 0 reads bytes 0–127 of x → sectors 0–3 (4), line 0; warp 1 reads bytes 128–155 → sector 4, line 1
    assert (c.gld_instr, c.gld_bytes, c.gld_sectors, c.gld_lines) == (2, 80, 5, 2)
    # stores: y (2 requests, 20 lanes), z inner (warp 0 full, warp 1 lanes 32–39: 2 requests, 40 lanes),
    # z outer (2 requests, 64 lanes) → 6 requests, (20 + 40 + 64) × 4 B = 496 B
    assert (c.gst_instr, c.gst_bytes) == (6, 496)
    # y: 4 + 1 sectors as the load; z inner: 4 + 1 (bytes 128–159); z outer: bytes 256–511 = 8 sectors → 18
    assert c.gst_sectors == 18
    # 2 load + 6 store warp instructions with 20 + 20 + 40 + 64 = 144 active lanes: 144 / (8 × 32) = 0.5625
    assert (c.warp_instr, c.thread_instr) == (8, 144) and c.simt_efficiency() == 0.5625


def mask_kernel(blk, x, y):
    t = blk.tx
    with blk.where(t < 62):                                  # lanes 0–61
        v = blk.load(x, t, mask=t >= 60)                     # and the argument's mask: lanes 60, 61
        blk.store(y, t, v, mask=(t == 61) | (t == 0))        # lanes 0 and 61 (both inside the region)
        blk.store(y, t + 64, v, mask=t >= 62)                # the region leaves no lane: no request


def test_mask_argument_combines_with_the_region():
    x, y = _x(64), np.full(128, -1, np.float32)
    c = launch(mask_kernel, 1, 64, args=(x, y))
    # lane 0 was masked off in the load, so it stores 0; lane 61 stores x[61] = 62
    expected = np.full(128, -1, np.float32)
    expected[0], expected[61] = 0.0, 62.0
    np.testing.assert_array_equal(y, expected)
    # load: 2 lanes of warp 1, bytes 240–247 → 1 request, 1 sector, 8 B
    assert (c.gld_instr, c.gld_sectors, c.gld_bytes) == (1, 1, 8)
    # stores: lane 0 (warp 0) and lane 61 (warp 1) → 2 requests, 2 sectors, 8 B; the third store issues nothing
    assert (c.gst_instr, c.gst_sectors, c.gst_bytes) == (2, 2, 8)


# --- read → barrier → read-modify-write ---------------------------------------------------------

def rmw_kernel(barrier_between: bool):
    def rmw(blk, out):
        s = blk.shared(64, np.float32, name="s")
        t = blk.tx
        blk.store(s, t, t.astype(np.float32))                # each thread writes its own element
        blk.syncthreads()
        v = blk.load(s, (t + 1) % 64)                        # reads its right neighbour's element
        if barrier_between:
            blk.syncthreads()
        blk.store(s, t, blk.load(s, t) + v)                  # read-modify-write of its own element
        blk.syncthreads()
        blk.store(out, t, blk.load(s, t))
    return rmw


def test_read_barrier_read_modify_write_is_not_a_race():
    out, hazards = np.zeros(64, np.float32), []
    c = launch(rmw_kernel(True), 1, 64, args=(out,), hazards=hazards)
    assert hazards == []
    t = np.arange(64)
    np.testing.assert_array_equal(out, t + (t + 1) % 64)     # s[t] = t + (t + 1) mod 64
    assert c.barriers == 3  # three syncthreads × one block


def test_without_the_barrier_the_write_after_read_is_reported():
    # thread 63 read s[0] ((63 + 1) mod 64); thread 0 then writes s[0] with no barrier between. The store is
    # one instruction; its first offending lane is thread 0: write-after-read on s[0], byte 0
    message = ("kernel rmw, block (0,0,0), thread (0,0,0): write-after-read hazard on shared s[0] (byte 0): "
               "thread (0,0,0) writes what thread (63,0,0) read, with no syncthreads between")
    with pytest.raises(RaceError) as e:
        launch(rmw_kernel(False), 1, 64, args=(np.zeros(64, np.float32),))
    assert str(e.value) == message
    hazards = []
    launch(rmw_kernel(False), 1, 64, args=(np.zeros(64, np.float32),), hazards=hazards)
    assert [str(h) for h in hazards] == [message]  # one report per offending instruction, and the launch finishes


# --- 64-bit shared-memory phases ------------------------------------------------------------------

def test_64_bit_shared_loads_of_consecutive_words_take_two_wavefronts():
    # 32 lanes × 8 B = 256 B; shared memory serves 128 B per wavefront, so 256 / 128 = 2 wavefronts, and
    # lane l's 8-byte word is the 32-bit words 2l, 2l+1 in banks 2l mod 32, 2l+1 mod 32: no bank serves two
    # distinct words within a half-warp, so 2 is also the ideal (0 conflicts). (The same answer under the
    # half-warp phase rule and the measured "uniform pair" rule, which only changes pairs sharing an address.)
    def k(blk, out):
        d = blk.shared(32, np.float64, name="d")
        blk.store(d, blk.tx, blk.tx.astype(np.float64))
        f = blk.shared(64, np.float32, name="f")
        blk.store(f, blk.tx * 2, 1.0, vec=2)                  # float2 stores: 8 B per lane, the same pattern
        blk.syncthreads()
        blk.store(out, blk.tx, blk.load(d, blk.tx) + blk.load(f, blk.tx * 2, vec=2)[:, 0])

    out = np.zeros(32, np.float64)
    with allow_float64():  # 8-byte words on purpose
        c = launch(k, 1, 32, args=(out,))
    np.testing.assert_array_equal(out, np.arange(32) + 1.0)
    assert (c.shld_instr, c.shld_wavefronts, c.shld_ideal, c.shld_conflicts) == (2, 4, 4, 0)
    assert (c.shst_instr, c.shst_wavefronts, c.shst_ideal, c.shst_conflicts) == (2, 4, 4, 0)


# --- padding between shared arrays ----------------------------------------------------------------

def test_shared_arrays_start_on_16_byte_boundaries():
    seen = {}

    def k(blk):
        a = blk.shared(3, np.float32, name="a")    # 12 B at 0
        b = blk.shared(5, np.float32, name="b")    # 12 → next multiple of 16 = 16; 20 B → ends at 36
        c = blk.shared(3, np.float16, name="c")    # 36 → 48; 6 B → ends at 54
        d = blk.shared(1, np.int8, name="d")       # 54 → 64; 1 B → ends at 65
        seen.update(offsets=[s.offset for s in (a, b, c, d)], total=blk.smem_bytes)
        # the offset decides the bank: b[0] is byte 16, the 32-bit word 4, so lanes reading b[0..3]
        # and a[0..2] fall in banks 4–7 and 0–2: a wavefront each, no conflict
        blk.store(b, blk.tx % 5, 1.0, mask=blk.tx < 5)

    c = launch(k, 1, 32)
    assert seen == {"offsets": [0, 16, 48, 64], "total": 65}
    assert (c.shst_instr, c.shst_wavefronts, c.shst_conflicts) == (1, 1, 0)


def test_padding_counts_against_the_shared_memory_limit():
    limit = A6000.max_smem_per_block  # 99 KB = 101376 B, the opt-in limit per block

    def fits(second_bytes):
        def k(blk):
            blk.shared(3, np.float32, name="a")                # 12 B, padded to 16
            blk.shared(second_bytes, np.uint8, name="b")
        launch(k, 1, 32, gpu=A6000)

    fits(limit - 16)  # 16 + (101376 − 16) = 101376: exactly the limit
    with pytest.raises(LaunchError, match=r"shared memory 101377 bytes per block \(with b\) exceeds the limit of 101376"):
        fits(limit - 15)  # 12 B + 101361 B would fit unpadded; padded it is 16 + 101361 = 101377


# --- 2-D and 3-D grids ----------------------------------------------------------------------------

def test_three_dimensional_grid_and_block_indices():
    # grid (3, 2, 2) of blocks (4, 2, 2): 12 blocks × 16 threads; each thread writes its global (x, y, z)
    def k(blk, out):
        gx = blk.blockIdx.x * blk.blockDim.x + blk.threadIdx.x    # 0–11
        gy = blk.blockIdx.y * blk.blockDim.y + blk.threadIdx.y    # 0–3
        gz = blk.blockIdx.z * blk.blockDim.z + blk.threadIdx.z    # 0–3
        i = (gz * 4 + gy) * 12 + gx
        blk.store(out, i, (gx + 100 * gy + 10000 * gz).astype(np.int32))

    out = np.full(4 * 4 * 12, -1, np.int32)
    c = launch(k, (3, 2, 2), (4, 2, 2), args=(out,))
    z, y, x = np.meshgrid(np.arange(4), np.arange(4), np.arange(12), indexing="ij")
    np.testing.assert_array_equal(out.reshape(4, 4, 12), x + 100 * y + 10000 * z)
    # 16 threads per block are one warp with lanes 16–31 padding: 12 requests of 16 lanes each
    assert (c.gst_instr, c.gst_bytes) == (12, 12 * 16 * 4)
    assert c.simt_efficiency() == 0.5  # 16 of 32 lanes in every warp instruction


# --- misaligned full-warp accesses ----------------------------------------------------------------

def test_full_warp_load_one_element_off_a_line():
    # x[1 .. 32]: bytes 4–131 of a 256-byte aligned array → sectors 0–4 (5) and lines 0–1 (2), 1 request
    def k(blk, x, y):
        blk.store(y, blk.tx, blk.load(x, blk.tx + 1))

    x, y = _x(64), np.zeros(32, np.float32)
    c = launch(k, 1, 32, args=(x, y))
    np.testing.assert_array_equal(y, x[1:33])
    assert (c.gld_instr, c.gld_sectors, c.gld_lines, c.gld_bytes) == (1, 5, 2, 128)
    assert (c.gst_instr, c.gst_sectors, c.gst_lines) == (1, 4, 1)  # the aligned store: 4 sectors, 1 line


def test_full_warp_vector_load_at_a_misaligned_index_is_an_error():
    # float2 at element 2t + 1: byte 8t + 4 is not a multiple of 8 on every lane; the first is thread 0
    def k(blk, x):
        blk.load(x, blk.tx * 2 + 1, vec=2)

    with pytest.raises(MisalignedError, match=r"thread \(0,0,0\): load float2 x\[1\] misaligned \(byte address 4 "
                                              r"is not a multiple of 8\)"):
        launch(k, 1, 32, args=(_x(128),))
