"""The L2 term of both engines and the mini-Triton's shared-memory term (issue 32 items 1 and 5), derived by hand.

Rates used (kernellab.specs): H100 L2 loads 9.9 TB/s [RRZE gpu-l2-cache, H200], stores 4.5 TB/s [RRZE
gpu-l2-stream, GH200]; A100 5.4 and 2.42 TB/s; shared memory one wavefront per SM per cycle on both [CCtab];
H100 132 SMs at 1.98 GHz, A100 108 at 1.41 GHz.
"""

import warnings

import numpy as np
import pytest

from kernellab import H100, launch, predict
from kernellab.counters import Counts
from kernellab.errors import ModelWarning
from kernellab.model.estimate import l2_seconds, l2_traffic
from kernellab.specs import A100, PERF_A100, PERF_H100
from kernellab.triton import TritonCounts


def _quiet(counts, gpu=H100, timer="do_bench"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return predict(counts, gpu, timer=timer)


def test_the_rates_this_file_derives_from():
    assert (PERF_H100.l2_bw, PERF_H100.l2_write_bw, PERF_A100.l2_bw, PERF_A100.l2_write_bw) == (
        9.9e12, 4.5e12, 5.4e12, 2.42e12)
    assert (H100.sms, H100.clock_hz, A100.sms, A100.clock_hz) == (132, 1.98e9, 108, 1.41e9)


def test_a_triton_launch_sends_l2_its_loads_at_the_read_rate_and_stores_and_atomics_at_the_write_rate():
    # 10 load sectors × 32 B = 320 B ÷ 9.9 TB/s = 32.32 ps; 6 store + 2 atomic sectors × 32 B = 256 B ÷ 4.5 TB/s
    # = 56.89 ps; in turn: 89.21 ps
    c = TritonCounts(programs=1, load_requests=1, load_sectors=10, store_sectors=6, atomic_sectors=2,
                     launch={"grid": (1, 1, 1), "num_warps": 4})
    assert l2_traffic(c) == (320, 256)
    assert _quiet(c)["t_l2"] == pytest.approx(320 / 9.9e12 + 256 / 4.5e12, rel=1e-12)
    assert _quiet(c)["t_l2"] == pytest.approx(89.21e-12, abs=0.01e-12)


def _transpose_naive(blk, A, B, M, N):
    row = blk.by * blk.bdy + blk.ty
    col = blk.bx * blk.bdx + blk.tx
    with blk.where((row < M) & (col < N)):
        blk.store(B, col * M + row, blk.load(A, row * N + col))


def _transpose_tiled(blk, A, B, M, N, W):
    tile = blk.shared(32 * W, np.float32, name="tile")
    row, col = blk.by * 32 + blk.ty, blk.bx * 32 + blk.tx
    with blk.where((row < M) & (col < N)):
        blk.store(tile, blk.ty * W + blk.tx, blk.load(A, row * N + col))
    blk.syncthreads()
    row_out, col_out = blk.bx * 32 + blk.ty, blk.by * 32 + blk.tx
    with blk.where((row_out < N) & (col_out < M)):
        blk.store(B, row_out * M + col_out, blk.load(tile, blk.tx * W + blk.ty))


def test_a_simt_store_sends_l2_a_sector_for_every_4_useful_bytes():
    # the naive transpose of 64 × 64 floats: each warp loads a row segment (32 floats = 4 sectors) and stores a
    # column (32 rows, one sector each): 128 warps × 4 = 512 load sectors, 128 × 32 = 4096 store sectors. Every
    # loaded sector is distinct (A: 64·64·4 B ÷ 32 = 512), so L2 gets 512 × 32 = 16 384 B of loads and
    # 4096 × 32 = 131 072 B of stores (L1 writes through): 16 384 ÷ 9.9e12 + 131 072 ÷ 4.5e12 = 1.655 + 29.127 ns
    A = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    B = np.zeros_like(A)
    c = launch(_transpose_naive, (2, 2), (32, 32), args=(A, B, 64, 64))
    assert np.array_equal(B, A.T)
    assert (c.gld_sectors, c.gst_sectors, c.dram_sectors) == (512, 4096, {"A": 512, "B": 512})
    assert l2_traffic(c) == (16_384, 131_072)
    assert _quiet(c)["t_l2"] == pytest.approx(16_384 / 9.9e12 + 131_072 / 4.5e12, rel=1e-12)
    assert _quiet(c)["t_l2"] == pytest.approx(30.78e-9, abs=0.01e-9)


def test_a_simt_launch_that_re_reads_from_l1_is_charged_its_distinct_sectors():
    # 1024 threads, 32 warps, each loads the same 32 floats (4 sectors): 128 sectors requested, 4 distinct; each
    # stores 32 floats of its own row of `out` (4 sectors). Σ dram_sectors = 4 + 128 = 132 ≥ 128 requested, so the
    # loads are charged as requested (128 × 32 B; the counts cannot tell that L1 serves 124 of them)...
    def reread(blk, x, out):
        blk.store(out, blk.ty * 32 + blk.tx, blk.load(x, blk.tx))

    x, out = np.ones(32, np.float32), np.zeros(1024, np.float32)
    c = launch(reread, 1, (32, 32), args=(x, out))
    assert (c.gld_sectors, c.gst_sectors, sum(c.dram_sectors.values())) == (128, 128, 132)
    assert l2_traffic(c) == (128 * 32, 128 * 32)
    # ...while 32 warps re-reading 4 sectors 8 times each and storing one sector: 32 × 8 × 4 = 1024 requested,
    # Σ dram_sectors = 4 + 32 = 36: 36 sectors charged, the same data 28 times fewer than requested
    def reread8(blk, x, out):
        acc = blk.load(x, blk.tx)
        for _ in range(7):
            acc = acc + blk.load(x, blk.tx)
        with blk.where(blk.tx == 0):
            blk.store(out, blk.ty * 8, acc)

    c8 = launch(reread8, 1, (32, 32), args=(x, np.zeros(256, np.float32)))
    assert (c8.gld_sectors, c8.gst_sectors, sum(c8.dram_sectors.values())) == (1024, 32, 36)
    assert l2_traffic(c8) == (36 * 32, 32 * 32)


def test_a_warm_launch_reads_at_least_its_footprint_from_l2():
    # a copy of 1 MiB, warm (timer "stream"): 1 MiB loaded ÷ 9.9e12 + 1 MiB stored ÷ 4.5e12 = 105.9 + 233.0 ns;
    # its 2 MiB footprint ÷ 9.9e12 = 211.8 ns is less, so the sum stands; a launch that only stores 1 MiB
    # (233.0 ns) over a 4 MiB footprint it read before (423.7 ns at the read rate) is charged the footprint
    mib = 1 << 20
    copy = Counts(gld_sectors=mib // 32, gst_sectors=mib // 32, dram_sectors={"src": mib // 32, "dst": mib // 32})
    assert l2_seconds(copy, PERF_H100, 2 * mib) == pytest.approx(mib / 9.9e12 + mib / 4.5e12, rel=1e-12)
    store_only = Counts(gst_sectors=mib // 32, dram_sectors={"dst": mib // 32})
    assert l2_seconds(store_only, PERF_H100) == pytest.approx(mib / 4.5e12, rel=1e-12)
    assert l2_seconds(store_only, PERF_H100, 4 * mib) == pytest.approx(4 * mib / 9.9e12, rel=1e-12)


def test_the_naive_transpose_is_slower_than_the_conflicted_tile_and_the_padded_tile_fastest():
    # 1024 × 1024 floats on the H100, the run alone. 1024 blocks of 32 × 32 on 132 SMs: the busiest SM runs 8.
    # naive: 1024²/8 = 131 072 load sectors and 1024² = 1 048 576 store sectors: L2 = 131 072 × 32 ÷ 9.9e12 +
    #   1 048 576 × 32 ÷ 4.5e12 = 0.424 + 7.457 = 7.880 µs, above its L1 lines (32 768 + 1 048 576 = 1 081 344,
    #   × 8/1024 ÷ 1.98e9 = 4.267 µs) and DRAM (8 MiB ÷ (3.35 TB/s × 3174/4000) = 3.156 µs);
    # tiled: 32 wavefronts a column read, 32 768 × 32 + 32 768 stores = 1 081 344 wavefronts, × 8/1024 ÷ 1.98e9
    #   = 4.267 µs ÷ η 0.66 = 6.465 µs, + a 688-cycle round trip (0.347 µs) = 6.812 µs (2 blocks resident: while
    #   one waits for its loads the other's shared-memory work runs, so the later turns' round trips are hidden);
    # padded: 65 536 wavefronts; DRAM would take 3.156 + 0.347 = 3.503 µs, but the blocks wait longer for their
    #   loads: 2 of 1024 threads resident, so the busiest SM runs its 8 blocks in 4 rounds of one round trip and a
    #   block's own work (0.2082 µs), the round trip loaded by the launch's DRAM traffic (kernellab.model.loaded):
    #   T = 4 × (347.47 ns + q(ρ) + 208.2 ns) with ρ = 3.1557 µs ÷ T; at T = 4.061 µs, ρ = 0.7771, between
    #   gpu-stream's rows at ρ 0.76402 (449.34 ns) and 0.79017 (470.03 ns): q = 449.34 + 0.01308 ÷ 0.02615 × 20.69
    #   = 459.69 ns, and 4 × (347.47 + 459.69 + 208.2) ns = 4.061 µs (the latency path). Each block's load round
    #   is also served at the SM's share of the L2 (kernellab.model.l2queue): 4 MiB ÷ 1024 blocks = 4096 B at
    #   9.9 TB/s ÷ 132 = 54.61 ns, its 2 resident blocks thinking Z = 807.16 + 208.14 = 1015.30 ns (every byte a
    #   first touch: 8 MiB of DRAM bytes ≥ the 4 MiB loaded); MVA: n = 1, Q = 54.61 ÷ 1069.91 = 0.05104; n = 2,
    #   R = 54.61 × 1.05104 = 57.40 ns, X = 2 ÷ (57.40 + 1015.30) ns; 8 rounds ÷ X = 4 × 1072.70 ns = 4.291 µs
    n = 1024
    A = np.ones((n, n), np.float32)
    kernels = {"naive": (_transpose_naive, ()), "tiled": (_transpose_tiled, (32,)), "padded": (_transpose_tiled, (33,))}
    p = {name: _quiet(launch(k, (n // 32, n // 32), (32, 32), args=(A, np.zeros_like(A), n, n, *extra), gpu=H100),
                      timer="kernel")
         for name, (k, extra) in kernels.items()}
    assert p["naive"]["estimate_bound"] == "L2" and p["naive"]["estimate_time"] == pytest.approx(7.880e-6, abs=1e-9)
    assert p["tiled"]["estimate_bound"] == "shared" and p["tiled"]["estimate_time"] == pytest.approx(6.812e-6, abs=1e-9)
    assert p["tiled"]["t_starts"] == pytest.approx(347.47e-9, abs=0.05e-9)
    assert p["padded"]["t_latency_path"] == pytest.approx(4.061e-6, abs=1e-9)
    assert p["padded"]["t_round"] == pytest.approx(807.16e-9, abs=0.05e-9)
    assert p["padded"]["estimate_bound"] == "L2 queue" and p["padded"]["estimate_time"] == pytest.approx(4.291e-6, abs=1e-9)
    assert p["padded"]["estimate_time"] < p["tiled"]["estimate_time"] < p["naive"]["estimate_time"]


def test_a_triton_launch_charges_its_shared_wavefronts_at_its_targets_count():
    # no launch recorded: the busiest SM's share is 1 ÷ SMs. A100 (sm_80): 108 × 1410 = 152 280 wavefronts,
    # × 1/108 ÷ (1 a cycle × 1.41 GHz) = 1.000 µs; H100 (sm_90) its sm_90 count, 132 × 1980 = 261 360,
    # × 1/132 ÷ 1.98 GHz = 1.000 µs. The estimate divides the shared pipe by η (A100 0.81, H100 0.66)
    c = TritonCounts(shared_wavefronts_sm80=108 * 1410, shared_wavefronts_sm90=132 * 1980, load_requests=1,
                     load_sectors=1, load_lines=1, dram_sectors={"x": 1})
    a, h = _quiet(c, A100), _quiet(c, H100)
    assert a["t_smem"] == pytest.approx(1e-6) and h["t_smem"] == pytest.approx(1e-6)
    assert a["bound"] == h["bound"] == "shared"
    assert a["estimate_bound"] == h["estimate_bound"] == "shared"
    # the pipes' estimate: 1 µs ÷ η + the first round trip (A100 552 cycles ÷ 1.41 GHz, H100 688 ÷ 1.98 GHz)
    assert a["estimate_time"] == pytest.approx(1e-6 / 0.81 + 552 / 1.41e9)
    assert h["estimate_time"] == pytest.approx(1e-6 / 0.66 + 688 / 1.98e9)
