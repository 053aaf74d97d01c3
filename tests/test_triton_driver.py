"""triton.runtime.driver for the modelled GPU, triton.__version__, set_allocator and the import paths of 3.9."""

import importlib

import pytest

import kernellab
import kernellab.triton as triton
from kernellab import specs
from kernellab.triton.runtime import driver as D


@pytest.fixture
def restore_gpu():
    previous = D.gpu()
    yield
    D.set_gpu(previous)


def test_version_is_the_triton_release_followed_and_kernellab_keeps_its_own():
    assert triton.__version__ == "3.9.0"
    assert getattr(kernellab, "__version__", None) != "3.9.0"


@pytest.mark.parametrize("path", ["kernellab.triton.runtime", "kernellab.triton.testing", "kernellab.triton.tools",
                                  "kernellab.triton.tools.tensor_descriptor", "kernellab.triton.profiler",
                                  "kernellab.triton.runtime.jit", "kernellab.triton.runtime.autotuner"])
def test_import_paths_resolve(path):
    assert importlib.import_module(path) is not None


def test_runtime_names_as_triton_3_9_has_them():
    from kernellab.triton.runtime import Autotuner, Config, Heuristics, JITFunction, OutOfResources, driver
    assert driver is triton.runtime.driver and Config is triton.Config and JITFunction is triton.JITFunction
    assert issubclass(OutOfResources, triton.TritonError) and Autotuner and Heuristics
    err = OutOfResources(262144, 232448, "shared memory")  # Triton 3.9's constructor and message
    assert (err.required, err.limit, err.name) == (262144, 232448, "shared memory")
    assert str(err) == ("out of resource: shared memory, Required: 262144, Hardware limit: 232448. Reducing block "
                        "sizes or `num_stages` may help.")


@pytest.mark.parametrize(("name", "gpu", "arch"), [("H100", specs.H100, 90), ("H200", specs.H200, 90),
                                                   ("A100", specs.A100, 80), ("A6000", specs.A6000, 86),
                                                   ("RTX A6000", specs.A6000, 86)])
def test_target_and_properties_follow_the_modelled_gpu(restore_gpu, name, gpu, arch):
    D.set_gpu(name)
    active = triton.runtime.driver.active
    t = active.get_current_target()
    assert (t.backend, t.arch, t.warp_size) == ("cuda", arch, 32)
    assert active.get_device_capability() == divmod(arch, 10)
    props = active.utils.get_device_properties(active.get_current_device())
    # Triton's keys, each from kernellab.specs
    assert props["multiprocessor_count"] == gpu.sms
    assert props["max_shared_mem"] == gpu.max_smem_per_block
    assert props["max_num_regs"] == gpu.regs_per_sm == 65536
    assert props["warpSize"] == 32 and props["sm_clock_rate"] == gpu.clock_hz / 1000


def test_h100_by_default_and_kernellab_gpu_env(fresh_interpreter):
    import os
    import subprocess
    import sys
    code = "import kernellab.triton as t; print(t.runtime.driver.active.utils.get_device_properties(0)['multiprocessor_count'])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ,
                         "KERNELLAB_GPU": "A100"}, check=True).stdout
    assert out.strip() == "108"
    assert fresh_interpreter["sms"] == 132  # a new interpreter without KERNELLAB_GPU (tests/conftest.py): the H100


def test_unknown_gpu_is_a_clear_error(restore_gpu):
    with pytest.raises(ValueError, match="unknown GPU 'B200'.*H100"):
        D.set_gpu("B200")


def test_torch_device_is_the_cpu():
    dev = triton.runtime.driver.active.get_active_torch_device()
    assert str(dev) == "cpu"


def test_set_allocator_keeps_a_function_and_rejects_anything_else():
    def alloc(size, alignment, stream):
        return bytearray(size)
    triton.set_allocator(alloc)
    assert D.get_allocator() is alloc
    with pytest.raises(TypeError, match="set_allocator takes a function"):
        triton.set_allocator(3)


def test_unsupported_runtime_names_say_why():
    with pytest.raises(NotImplementedError, match="triton.compile.*builds no GPU binary"):
        triton.compile(None)
    with pytest.raises(NotImplementedError, match="fill_1d_tma_descriptor"):
        triton.runtime.driver.active.utils.fill_1d_tma_descriptor(0, 1, 1, 4, 0)
