"""``launch(..., regs=, smem=)``: the registers and dynamic shared memory a SIMT launch records for the
residency per SM, and the CUDA twins' ptxas resource usage the SGEMM kernels pass as ``regs=``."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from kernellab.errors import LaunchError
from kernellab.model.persm import DEFAULT_REGS, launch_of
from kernellab.sgemm import KERNELS, run_kernel, sass_mix
from kernellab.simt.launcher import launch
from kernellab.specs import A6000, H100


def copy(blk, x, y):
    i = blk.bx * blk.bdx + blk.tx
    blk.store(y, i, blk.load(x, i))


def tiled(blk, x, y):
    s = blk.shared(2048, np.float32, name="tile")  # 2048 × 4 B = 8192 B of static shared memory
    i = blk.bx * blk.bdx + blk.tx
    blk.store(s, blk.tx, blk.load(x, i))
    blk.syncthreads()
    blk.store(y, i, blk.load(s, blk.tx))


def arrays(n):
    return np.arange(n, dtype=np.float32), np.zeros(n, np.float32)


def test_regs_64_fit_one_1024_thread_block_per_h100_sm():
    x, y = arrays(2048)
    c = launch(copy, 2, 1024, args=(x, y), gpu=H100, regs=64)
    assert c.launch["regs"] == 64 and np.array_equal(x, y)
    d = launch_of(c, H100)
    # a warp holds ⌈64 × 32 / 256⌉ × 256 = 2048 registers; 65536 // 2048 = 32 warps = one block of 32 warps;
    # threads alone would allow 64 // 32 = 2 blocks
    assert d.blocks_per_sm == 1 and "registers" in d.occupancy.limiters and d.resources == "launch"


def test_no_regs_records_none_and_the_model_assumes_the_default():
    x, y = arrays(2048)
    c = launch(copy, 2, 1024, args=(x, y), gpu=H100)
    assert "regs" not in c.launch and c.launch["smem_per_block"] == 0
    d = launch_of(c, H100)
    # 32 registers: 1024 per warp, 65536 // 1024 = 64 warps = 2 blocks; threads: 64 // 32 = 2
    assert DEFAULT_REGS == 32 and d.blocks_per_sm == 2 and d.resources == "default"


def test_smem_adds_to_the_declared_shared_memory_and_limits():
    x, y = arrays(512)
    c = launch(tiled, 2, 256, args=(x, y), gpu=H100, smem=40960)
    assert c.launch["smem_per_block"] == 8192 + 40960 and np.array_equal(x, y)
    d = launch_of(c, H100)
    # shared: 233472 B per SM // (49152 + 1024 reserved) B = 4 blocks; threads: 64 warps // 8 = 8
    assert d.blocks_per_sm == 4 and d.occupancy.limiters == ("shared",)


def test_smem_beyond_the_block_limit_names_kernel_and_bytes():
    x, y = arrays(512)
    extra = A6000.max_smem_per_block - 8192 + 1  # 101376 − 8192 + 1 = 93185 B: one byte over with the tile
    with pytest.raises(LaunchError, match=r"kernel tiled: 8192 B .* smem=93185 B is 101377 B .* at most 101376 B"):
        launch(tiled, 2, 256, args=(x, y), smem=extra)
    c = launch(tiled, 2, 256, args=(x, y), smem=extra - 1)  # exactly the limit launches
    assert c.launch["smem_per_block"] == A6000.max_smem_per_block


@pytest.mark.parametrize("regs", [0, 256, -3, 3.5, True, "64"])
def test_bad_regs_name_kernel_and_argument(regs):
    x, y = arrays(32)
    with pytest.raises(LaunchError, match=r"kernel copy: regs=.* registers per thread; .* from 1 to 255"):
        launch(copy, 1, 32, args=(x, y), regs=regs)


@pytest.mark.parametrize("smem", [-1, A6000.max_smem_per_block + 1, 1.5])
def test_bad_smem_names_kernel_and_argument(smem):
    x, y = arrays(32)
    with pytest.raises(LaunchError, match=r"kernel copy: smem=.* bytes of dynamic shared memory"):
        launch(copy, 1, 32, args=(x, y), smem=smem)


def test_sgemm_launch_carries_its_twins_registers():
    A, B = np.ones((64, 32), np.float32), np.ones((32, 64), np.float32)
    k3 = KERNELS[2]
    _, c = run_kernel(k3, A, B)
    twin = sass_mix(k3.name)
    assert c.launch["regs"] == twin["registers"]
    assert c.launch["smem_per_block"] == twin["smem_static"] == k3.smem_bytes  # 2 × 32 × 32 × 4 B = 8192 B
    _, c = run_kernel(k3, A, B, regs=40)  # the caller's regs= wins
    assert c.launch["regs"] == 40


def test_k5_small_tiles_have_no_twin_and_no_registers():
    k5 = KERNELS[4]
    A, B = np.ones((64, 8), np.float32), np.ones((8, 64), np.float32)
    _, c = run_kernel(k5, A, B)  # below 128 Boehm's runner shrinks the tiles to 64×64: not what the twin compiles
    assert "regs" not in c.launch


@pytest.mark.parametrize("spec", KERNELS, ids=lambda s: s.name)
def test_twin_static_smem_is_the_declared_shared_memory(spec):
    assert sass_mix(spec.name)["smem_static"] == spec.smem_bytes


def test_ptxas_resource_usage_parsing():
    path = Path(__file__).resolve().parents[1] / "cuda" / "sass_mix.py"
    spec = importlib.util.spec_from_file_location("sass_mix_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    line = "ptxas info    : Used 37 registers, used 1 barriers, 8192 bytes smem, 348 bytes cmem[0]"
    assert mod.resource_usage(line) == (37, 8192)
    assert mod.resource_usage("ptxas info    : Used 36 registers, used 0 barriers, 380 bytes cmem[0]") == (36, 0)
