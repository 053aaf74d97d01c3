"""Small public pieces the larger tests pass by, each on a case derived by hand: the compiled-code records,
``triton.language``'s type classes and target info, the modelled driver, launch shapes, the SIMT engine's
arrays as a kernel prints them, and the source view's note."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import LaunchError, launch
from kernellab.compiled import compiled_code, compiled_metadata
from kernellab.grid import dim3
from kernellab.triton.runtime import driver


def test_compiled_records_name_what_they_hold():
    with pytest.raises(KeyError, match="no compiled code for kernel 'nope'; there is for: .*triton_gelu_kernel"):
        compiled_code("nope")
    with pytest.raises(KeyError, match="no sm_70 build of 'tutorial03_128x128x32_s4_w4'"):
        compiled_metadata("tutorial03_128x128x32_s4_w4", "sm_70")
    with pytest.raises(KeyError, match="no compiled code for 'nope'"):
        compiled_metadata("nope", "sm_80")


def test_a_case_s_metadata_is_its_jit_launch_s():
    from kernellab.compiled import _counts

    name = next(iter(_counts()["cases"]))
    assert compiled_metadata(name, "sm_80") == _counts()["cases"][name]["sm_80/jit"]


def test_a_configuration_is_read_without_the_cases(monkeypatch):
    # compiled_metadata.json holds every configuration tests/compiled_cases.py's METADATA compiles, and a configuration
    # is read from it alone: the cases (458 KB of compiled_counts.json) are not parsed, which cost the waves page 5 ms
    import sys
    from pathlib import Path

    import kernellab.compiled as compiled

    sys.path.insert(0, str(Path(__file__).parent))
    from compiled_cases import METADATA

    compiled._metadata.cache_clear()
    monkeypatch.setattr(compiled, "_counts", lambda: pytest.fail("the cases were parsed for a configuration"))
    assert sorted(compiled._metadata()) == sorted(case.id for case in METADATA)
    m80, m90 = (compiled_metadata("tutorial03_128x128x32_s4_w4", t) for t in ("sm_80", "sm_90"))
    # as the waves page states them: 250 and 174 registers, 48 KB and 64 KB of shared memory, 4 warps, 4 stages
    assert (m80["registers"], m90["registers"], m80["shared_bytes"] // 1024, m90["shared_bytes"] // 1024) == (250, 174, 48, 64)
    assert (m90["num_warps"], m90["num_stages"]) == (4, 4)


def test_type_classes_of_the_language():
    assert repr(tl.constexpr_type(4)) == "constexpr_type[4]"
    b = tl.block_type(tl.float32, [tl.constexpr(64), 2])
    assert (b.element_ty, b.shape, b.name) == (tl.float32, (64, 2), "fp32")
    with pytest.raises(TypeError, match="0d block_type is forbidden"):
        tl.block_type(tl.float32, [])
    # kernellab simulates no real target: every query is False, the target None
    info = tl.target_info
    assert (info.current_target(), info.is_cuda(), info.is_hip(), info.cuda_capability_geq(8)) == (None, False, False, False)


def test_the_modelled_driver():
    d = driver.active
    assert d.is_active() and d.get_current_device() == 0 and d.get_current_stream() == 0
    d.set_current_device(0)
    with pytest.raises(LaunchError, match="kernellab models one GPU, device 0; device 1 does not exist"):
        d.set_current_device(1)
    assert d.get_benchmarker() is triton.testing.do_bench
    assert d.get_empty_cache_for_benchmark().size == 0 and d.clear_cache(None) is None
    other = driver.ModelledDriver()
    driver.set_active(other)
    try:
        assert driver.active is other
    finally:
        driver.reset_active()
    assert driver.active is driver.default


def test_the_modelled_driver_s_torch_device_is_the_cpu():
    try:
        import torch  # noqa: F401
    except ImportError:
        assert driver.active.get_active_torch_device() == "cpu"  # the string, where torch is not installed
    else:
        assert str(driver.active.get_active_torch_device()) == "cpu"


@pytest.mark.parametrize(("shape", "message"), [
    ((4, "a"), "grid dimensions must be integers, got \\(4, 'a'\\)"),
    ((4, None), "grid dimensions must be integers"),
    ((2.5,), "grid dimensions must be positive integers"),
])
def test_launch_shapes_must_be_positive_integers(shape, message):
    with pytest.raises(LaunchError, match=message):
        dim3(shape)
    assert dim3((np.int64(3), 2.0)) == (3, 2, 1)  # numbers that are integers are taken as such


def test_arrays_a_simt_kernel_prints_show_their_values():
    seen = []

    def k(blk, x):
        sh = blk.shared(8, np.float32, name="sh")
        seen.extend([repr(x), str(x), repr(sh)])

    launch(k, 1, 32, args=(np.arange(3, dtype=np.float32),))
    assert seen == ["array([0., 1., 2.], dtype=float32)", "[0. 1. 2.]",
                    "SharedArray('sh', shape=(8,), dtype=float32, offset=0)"]


def test_a_simt_kernel_s_shared_memory_is_readable_per_block():
    kept = []

    def k(blk, out):
        sh = blk.shared(4, np.int32, name="sh")
        blk.store(sh, blk.tx, blk.tx * 10 + blk.bx, mask=blk.tx < 4)
        kept.append(sh)

    launch(k, 2, 32, args=(np.zeros(1, np.float32),))
    sh = kept[-1]
    assert sh.block(0).tolist() == [0, 10, 20, 30] and sh.block(1).tolist() == [1, 11, 21, 31]
