"""Bad input to the performance model (issue 32): an unknown GPU, peak (dtype) or pipe raises an error that
names it; a prediction outside what the model was checked on carries a ModelWarning that says why."""

import warnings

import pytest

from kernellab import A100, H100, predict
from kernellab.errors import ModelWarning, UnknownGPUError
from kernellab.model import estimate_label, resource_label
from kernellab.model.bounds import launch_seconds
from kernellab.specs import A100_PCIE, PERF_H100, gpu_named
from kernellab.triton import TritonCounts


def _dot(fp8: bool = False) -> TritonCounts:
    # 264 programs of one 128×128×4096 dot: 2·128·128·4096 = 134 217 728 FLOPs each = 32 768 mma.sync,
    # 8192 wgmma warp instructions; long enough (2 programs an SM: 35.8 µs on the H100) to pass the launch
    n = 264
    launch = {"grid": (n, 1, 1), "num_warps": 4, **({"fp8": True} if fp8 else {})}
    return TritonCounts(flops=n * 134_217_728, dot_flops=n * 134_217_728, mma_sm80=n * 32_768,
                        mma_sm90=n * 8192, wgmma_sm90=n * 8192, launch=launch)


def _quiet(*args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return predict(*args)


def test_an_unknown_gpu_name_is_an_error_that_names_it():
    with pytest.raises(UnknownGPUError, match=r"^unknown GPU 'V100': kernellab models RTX A6000, A100 SXM 80GB, "
                                              r"H100 SXM, H200 SXM, A100 PCIe 80GB$"):
        predict(_dot(), "V100")
    assert issubclass(UnknownGPUError, ValueError)
    # a known name, in any case, is its GPU: the same prediction as the spec itself
    assert _quiet(_dot(), "h100")["estimate_time"] == _quiet(_dot(), H100)["estimate_time"]
    assert gpu_named("A100") is A100 and gpu_named("a100 pcie 80gb") is A100_PCIE
    with pytest.raises(TypeError, match="got a float"):
        predict(_dot(), 1.5)


def test_an_unknown_pipe_or_peak_is_an_error_that_names_it():
    with pytest.raises(ValueError, match=r"unknown resource 'tensr'"):
        resource_label("tensr")
    with pytest.raises(ValueError, match=r"unknown resource 'serialised'"):
        estimate_label("serialised")
    with pytest.raises(ValueError, match=r"unknown peak 'fp64'"):
        PERF_H100.peak_flops("fp64")


def test_fp8_on_a_gpu_without_fp8_tensor_cores_warns_why():
    # the H100 has fp8 Tensor Cores (1978.9 TFLOP/s dense): no warning; the A100 has none: Triton converts the
    # operands to fp16, the model charges the FP16 rate, and says that no measurement checked it
    _quiet(_dot(fp8=True), H100)
    fp8_on_a100 = r"fp8 dots on the A100 SXM 80GB, which has no fp8 Tensor Cores"
    with pytest.warns(ModelWarning, match=fp8_on_a100) as caught:
        p = predict(_dot(fp8=True), A100)
    # the warning points at the line that called predict (not into the model, nor past the caller)
    assert [w.filename for w in caught if "fp8 dots" in str(w.message)] == [__file__]
    assert p["tensor_kind"] == "mma"  # sm_80: mma.sync, at the FP16 rate
    # 264 programs on 108 SMs: ⌈264 ÷ 108⌉ = 3 on the busiest, each 134 217 728 FLOPs at 312e12 ÷ 108 FLOP/s an SM
    assert p["t_tensor"] == pytest.approx(3 * 134_217_728 / (312e12 / 108))


def test_a_kernel_compiled_for_sm_80_runs_its_dots_as_mma_sync_on_the_h100():
    # FlashAttention-2's CUDA kernels are sm_80 code on every GPU (their MMA atom is SM80_16x8x16): on an H100 their
    # dots are mma.sync, at 2/3 of the dense peak [FA3]. 264 programs on 132 SMs: 2 on the busiest, each
    # 134 217 728 FLOPs; as wgmma 2 × 134 217 728 ÷ (989.4e12 ÷ 132) = 35.81 µs, as mma.sync ÷ (2/3): 53.72 µs
    own = _quiet(_dot(), H100)
    sm80 = predict(_dot(), H100, target="sm_80")
    assert (own["target"], own["tensor_kind"], sm80["target"], sm80["tensor_kind"]) == ("sm_90", "wgmma", "sm_80", "mma")
    per_sm = 989.4e12 / 132
    assert own["t_tensor"] == pytest.approx(2 * 134_217_728 / per_sm) == pytest.approx(35.81e-6, abs=0.01e-6)
    assert sm80["t_tensor"] == pytest.approx(2 * 134_217_728 / (per_sm * 2 / 3)) == pytest.approx(53.72e-6, abs=0.01e-6)
    assert launch_seconds(_dot(), H100, target="sm_80") == sm80["estimate_total_time"]
    pair = predict([_dot(), _dot()], H100, target="sm_80")
    assert [q["tensor_kind"] for q in pair["launches"]] == ["mma", "mma"]
    # the A100 runs sm_80 code anyway: naming its own target changes nothing
    assert predict(_dot(), A100, target="sm_80")["t_tensor"] == predict(_dot(), A100)["t_tensor"]
    with pytest.raises(ValueError, match=r"compiled for sm_90 cannot run on the A100 SXM 80GB \(sm_80\)"):
        predict(_dot(), A100, target="sm_90")
    with pytest.raises(ValueError, match="unknown target 'sm_75'"):
        predict(_dot(), H100, target="sm_75")
