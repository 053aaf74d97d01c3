"""The runner with torch: CUDA-detection paths see the modelled GPU, tensors made on "cuda" live on the CPU and
say they are on cuda:0, a launch takes them, and deactivating gives torch back as it was.

Needs torch (``nox -s conformance`` installs the CPU build); skipped without it."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the runner's torch side needs torch (nox -s conformance installs it)")

import kernellab.triton  # noqa: E402
from kernellab.specs import A100, H100  # noqa: E402
from kernellab.triton import runner  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "KERNELLAB_LANG": "en", "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}


@pytest.fixture
def on():
    with runner.activate():
        yield
    assert not torch.cuda.is_available()  # this is the CPU build: torch's own answer is back
    assert torch._C._len_torch_function_stack() == 0


def test_cuda_detection_paths_see_the_modelled_gpu(on):
    import triton

    # what libraries ask before choosing their CUDA path
    assert torch.cuda.is_available() and torch.cuda.device_count() == 1 and torch.cuda.current_device() == 0
    assert triton.runtime.driver.active.get_current_target().backend == "cuda"
    assert torch.cuda.get_device_name(0) == "NVIDIA H100 SXM" and torch.cuda.get_device_capability() == (9, 0)
    props = torch.cuda.get_device_properties("cuda")
    assert (props.multi_processor_count, props.major, props.minor) == (H100.sms, 9, 0)  # 132 SMs on the H100
    assert props.total_memory == 80 * 2**30 and props.L2_cache_size == 50 * 2**20 and props.warp_size == 32
    assert torch.cuda.is_bf16_supported()
    with torch.cuda.device(torch.empty(1, device="cuda").device.index):  # cuda:0's index, 0
        torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    torch.cuda.set_stream(stream)  # tutorial 02's getattr(torch, DEVICE.type).set_stream(...)
    with torch.cuda.stream(stream):
        assert torch.cuda.current_stream() == stream
    with pytest.raises(ValueError, match="device 1 does not exist"):
        torch.cuda.set_device(1)


def test_the_modelled_gpu_follows_set_gpu(on):
    previous = kernellab.triton.set_gpu("A100")
    try:
        assert torch.cuda.get_device_capability() == (8, 0)
        assert torch.cuda.get_device_properties(0).multi_processor_count == A100.sms  # 108
    finally:
        kernellab.triton.set_gpu(previous)


def test_a_tensor_made_on_cuda_lives_on_the_cpu_and_says_cuda(on):
    import triton

    device = triton.runtime.driver.active.get_active_torch_device()
    assert device == torch.device("cuda", 0)
    x = torch.rand(1000, device="cuda")
    y = torch.empty_like(x)
    z = torch.zeros(3, device=torch.device("cuda:0")).to("cuda").cuda()
    assert x.device == device and y.device == device and z.device == device  # tutorial 01's check
    assert x.is_cuda and not x.is_cpu and x.get_device() == 0  # tutorial 07's check
    assert x.untyped_storage().device.type == "cpu"  # the data itself: CPU memory
    assert torch.cuda.get_device_properties(x.device).multi_processor_count == H100.sms
    with pytest.raises(ValueError, match="cuda:1 does not exist"):
        torch.empty(2, device="cuda:1")


def test_a_launch_takes_tensors_made_on_cuda(on):
    import triton
    import triton.language as tl

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, B: tl.constexpr):
        offs = tl.program_id(0) * B + tl.arange(0, B)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(y_ptr + offs, mask=offs < n),
                 mask=offs < n)

    x = torch.arange(300, dtype=torch.float32, device="cuda")
    out = torch.empty_like(x)
    add[(triton.cdiv(300, 128),)](x, x, out, 300, B=128)
    assert torch.equal(out, 2 * x)


def test_events_time_the_launches_between_them(on):
    import triton
    import triton.language as tl

    @triton.jit
    def fill(out_ptr, B: tl.constexpr):
        tl.store(out_ptr + tl.program_id(0) * B + tl.arange(0, B), 1.0)

    out = torch.zeros(4096, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    with kernellab.triton.launches.recording() as launches:
        fill[(4,)](out, B=1024)
    end.record()
    torch.cuda.synchronize()
    # the predicted time of the one launch between them (kernellab.model's estimate on the H100): one DRAM round
    # trip fills the pipe (688 cycles ÷ 1.98 GHz = 0.347 µs), then the busiest SM's 4096 stored bytes pass its L1
    # at 128 B a cycle (4096 ÷ (128 × 1.98e9) = 16.2 ns), + the 4.28 µs launch do_bench reads
    assert start.elapsed_time(end) == pytest.approx(kernellab.triton.timing.predicted_seconds(launches) * 1e3)
    assert start.elapsed_time(end) == pytest.approx((688 / 1.98e9 + 4096 / (128 * 1.98e9) + 4.28e-6) * 1e3)


def test_what_the_runner_cannot_stand_in_for_names_the_call(on):
    with pytest.raises(NotImplementedError, match="torch.cuda.CUDAGraph"):
        torch.cuda.CUDAGraph()
    with pytest.raises(NotImplementedError, match="torch.cuda.get_rng_state"):
        torch.cuda.get_rng_state()
    with pytest.raises(NotImplementedError, match="memory_bus_width"):
        _ = torch.cuda.get_device_properties(0).memory_bus_width


def test_without_the_runner_torch_is_untouched():
    out = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import numpy as np, torch
        import kernellab.triton as triton
        import kernellab.triton.language as tl
        @triton.jit
        def one(x_ptr, B: tl.constexpr):
            tl.store(x_ptr + tl.arange(0, B), 1.0)
        x = torch.zeros(4)
        one[(1,)](x, B=4)
        print(torch.cuda.is_available(), x.device, triton.runtime.driver.active.get_active_torch_device(),
              torch._C._len_torch_function_stack(), x.tolist())
    """)], env=ENV, capture_output=True, text=True, timeout=300, check=True).stdout
    assert out.split() == ["False", "cpu", "cpu", "0", "[1.0,", "1.0,", "1.0,", "1.0]"]


def test_with_a_real_triton_installed_the_runner_answers_kernellabs():
    real = pytest.importorskip("triton", reason="needs a real triton installed beside kernellab")
    if real is kernellab.triton:
        pytest.skip("the runner is on")
    with runner.activate():
        import importlib.metadata

        import triton

        assert triton is kernellab.triton and importlib.metadata.version("triton") == "3.9.0"
    import triton

    assert triton is real  # the real one comes back


def test_torch_s_own_probes_see_no_triton_so_its_compiler_imports(tmp_path):
    # a library's pattern (Liger-Kernel): @torch.compiler.disable imports torch._dynamo, whose inductor imports
    # triton.backends.compiler when torch.utils._triton says Triton is installed; kernellab's triton has none
    script = tmp_path / "library_style.py"
    script.write_text(textwrap.dedent("""
        import torch
        import torch.utils._triton as probes
        import triton

        @torch.compiler.disable
        def host(x):
            return x + 1

        print(probes.has_triton_package(), probes.has_triton(), triton.__version__,
              host(torch.zeros(1, device="cuda")).tolist())
    """))
    out = subprocess.run([sys.executable, "-m", "kernellab", "run", str(script)], env=ENV, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False", "3.9.0", "[1.0]"]


def test_torch_s_probes_come_back_after_the_runner():
    import torch.utils._triton as probes

    before = probes.has_triton_package
    with runner.activate():
        assert probes.has_triton_package() is False and probes.has_triton() is False
    assert probes.has_triton_package is before



def test_a_slice_and_an_expanded_tensor_are_passed_as_a_gpu_passes_them(on):
    # A GPU launch passes a tensor's data pointer and the kernel walks the strides it is given: mamba_ssm passes
    # dA_cumsum[:, :, :, -1] and xy[:, :d], unsloth the expanded gradient of a sum (stride 0). kernellab refused
    # each as "not contiguous in memory".
    import triton
    import triton.language as tl

    @triton.jit
    def scale_rows(x_ptr, s_ptr, out_ptr, stride_x, stride_s, N: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, N)
        tl.store(out_ptr + row * N + cols, tl.load(x_ptr + row * stride_x + cols) * tl.load(s_ptr + row * stride_s))

    @triton.jit
    def write_column(c_ptr, stride_c):
        row = tl.program_id(0)
        tl.store(c_ptr + row * stride_c, row + 100.0)

    base = torch.arange(24, dtype=torch.float32, device="cuda").reshape(3, 8)
    x = base[:, 2:6]  # 4 columns of rows 8 apart, from element 2: x[r, c] = 8r + 2 + c
    s = torch.tensor([2.0], device="cuda").expand(3)  # one number, stride 0
    out = torch.zeros(3, 4, device="cuda")
    scale_rows[(3,)](x, s, out, x.stride(0), s.stride(0), N=4)
    assert out.tolist() == [[2 * (8 * r + 2 + c) for c in range(4)] for r in range(3)]
    col = base[:, -1]  # the last column, stride 8: written through, the base sees it
    write_column[(3,)](col, col.stride(0))
    assert base[:, -1].tolist() == [100.0, 101.0, 102.0] and base[:, 0].tolist() == [0.0, 8.0, 16.0]
    # bfloat16 (passed as its bits): an expanded bf16 number reads as itself
    sb = torch.tensor([0.5], dtype=torch.bfloat16, device="cuda").expand(3)
    scale_rows[(3,)](x, sb, out, x.stride(0), 0, N=4)
    assert out.tolist() == [[0.5 * (8 * r + 2 + c) for c in range(4)] for r in range(3)]
