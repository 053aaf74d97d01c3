"""The runner's stand-ins for ``torch.cuda`` (kernellab/triton/runner/cuda.py) and its CUDA device names
(runner/devices.py), called as the runner installs them, without torch: their answers are kernellab.specs' GPU,
streams and events are the one modelled queue, and what they do not stand in for names the call.

tests/test_runner_torch.py runs the same stand-ins inside ``torch.cuda`` (needs torch); the answers here are the
functions' own, so a wrong number or a missing refusal fails in the fast session too."""

import contextvars
import textwrap
import types

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.specs import A100, A6000, H100, H200
from kernellab.triton import launches, timing
from kernellab.triton.runner import cuda, devices


@pytest.fixture
def modelled():
    """Model ``which`` for the test, then the GPU before it again."""
    before = []

    def set_gpu(which):
        before.append(triton.set_gpu(which))

    yield set_gpu
    for previous in reversed(before):
        triton.set_gpu(previous)


@pytest.mark.parametrize("name, spec, capability", [
    ("H100", H100, (9, 0)), ("H200", H200, (9, 0)), ("A100", A100, (8, 0)), ("A6000", A6000, (8, 6))])
def test_device_queries_answer_for_the_modelled_gpu(modelled, name, spec, capability):
    modelled(name)
    # compute capability by die: GH100 9.0, GA100 8.0, GA102 8.6; "sm_" + major + minor
    assert cuda.get_device_capability() == cuda.get_device_capability("cuda:0") == capability
    assert cuda.get_arch_list() == [f"sm_{capability[0]}{capability[1]}"]
    assert cuda.get_device_name(0) == "NVIDIA " + spec.name
    assert cuda.is_bf16_supported() and cuda.is_tf32_supported()  # every modelled GPU is 8.0 or later
    assert (cuda.is_available(), cuda.device_count(), cuda.current_device()) == (True, 1, 0)
    p = cuda.get_device_properties("cuda")
    assert (p.name, p.major, p.minor, p.multi_processor_count) == ("NVIDIA " + spec.name, *capability, spec.sms)
    assert (p.total_memory, p.L2_cache_size, p.warp_size) == (spec.dram_capacity, spec.l2_bytes, 32)
    assert p.shared_memory_per_block == 48 * 1024  # without opting in
    assert (p.shared_memory_per_block_optin, p.shared_memory_per_multiprocessor) == (
        spec.max_smem_per_block, spec.max_smem_per_sm)
    assert (p.max_threads_per_multi_processor, p.max_threads_per_block, p.regs_per_multiprocessor) == (
        spec.max_threads_per_sm, 1024, 65536)
    assert p.clock_rate == int(spec.clock_hz) // 1000  # kHz
    assert (p.is_integrated, p.is_multi_gpu_board, p.gcnArchName) == (0, 0, "")
    assert p.uuid == "kernellab-" + spec.name.lower().replace(" ", "-")


def test_the_h100s_properties_by_hand(modelled):
    modelled("H100")
    p = cuda.get_device_properties(0)
    # 132 SMs, 80 GiB = 85 899 345 920 B, 50 MiB of L2, 1.98 GHz = 1 980 000 kHz, 227 KiB a block opted in
    assert (p.multi_processor_count, p.total_memory, p.L2_cache_size, p.clock_rate) == (
        132, 85_899_345_920, 52_428_800, 1_980_000)
    assert p.shared_memory_per_block_optin == 232_448 and p.shared_memory_per_multiprocessor == 233_472
    # repr as torch's: MiB of memory and of L2
    assert repr(p) == ("_CudaDeviceProperties(name='NVIDIA H100 SXM', major=9, minor=0, total_memory=81920MB, "
                       "multi_processor_count=132, L2_cache_size=50MB)")
    for field in ("memory_clock_rate", "memory_bus_width"):  # not modelled: the DRAM bandwidth is
        with pytest.raises(cuda.NotStoodIn, match=rf"get_device_properties\(\.\.\.\)\.{field}.*bus width"):
            getattr(p, field)
    with pytest.raises(AttributeError, match="no_such_field") as e:
        _ = p.no_such_field
    assert not isinstance(e.value, NotImplementedError)  # a name torch has not either: no "not stood in"


@pytest.mark.parametrize("device", [None, 0, -1, "cuda", "cuda:0", types.SimpleNamespace(type="cuda", index=0),
                                    types.SimpleNamespace(type="cuda", index=None)])
def test_device_zero_in_every_form_is_the_one_gpu(device):
    # None, "cuda", a negative index (torch's "current") and a device without an index all mean device 0
    assert cuda._index(device, "call") == 0
    cuda.set_device(device)
    cuda.synchronize(device)
    with cuda.device(device) as d:
        assert d.idx == 0
    assert cuda.current_stream(device) is cuda.default_stream(device)


@pytest.mark.parametrize("device, index", [(1, 1), ("cuda:3", 3), (types.SimpleNamespace(type="cuda", index=2), 2)])
def test_any_other_device_is_an_error_naming_the_call_and_the_index(device, index):
    with pytest.raises(ValueError, match=rf"torch.cuda.set_device: kernellab models one GPU, device 0; "
                                         rf"device {index} does not exist"):
        cuda.set_device(device)
    for call, name in ((cuda.get_device_name, "get_device_name"), (cuda.get_device_capability,
                       "get_device_capability"), (cuda.get_device_properties, "get_device_properties"),
                       (cuda.synchronize, "synchronize"), (cuda.current_stream, "current_stream"),
                       (cuda.Stream, "Stream"), (cuda.device, "device")):
        with pytest.raises(ValueError, match=rf"torch.cuda.{name}: .* device {index} does not exist"):
            call(device)


@pytest.mark.parametrize("device, index", [(True, None), (False, None), ("cpu", None), ("meta", None), (None, None),
                                           (2.0, None), (types.SimpleNamespace(type="cpu", index=None), None),
                                           (0, 0), ("cuda", 0), ("cuda:0", 0)])
def test_what_the_device_mode_takes_for_cuda(device, index):
    # a bool is not an index (True == 1 would be "cuda:1"); a device is known by its class's name, "device"
    if isinstance(device, types.SimpleNamespace):
        device = type("device", (), {"type": device.type, "index": device.index})()
    assert devices._cuda_index(device, "torch.empty") == index


def test_a_torch_device_of_cuda_by_class_name():
    dev = type("device", (), {})
    zero, none, three = dev(), dev(), dev()
    zero.type, zero.index, none.type, none.index, three.type, three.index = "cuda", 0, "cuda", None, "cuda", 3
    assert devices._cuda_index(zero, "x.to") == devices._cuda_index(none, "x.to") == 0
    with pytest.raises(ValueError, match=r"torch.Tensor.to: kernellab models one GPU, cuda:0; cuda:3 does not exist"):
        devices._cuda_index(three, "torch.Tensor.to")
    with pytest.raises(ValueError, match=r"torch.empty: .*cuda:1 does not exist"):
        devices._cuda_index(1, "torch.empty")
    with pytest.raises(ValueError, match=r"cuda:2 does not exist"):
        devices._cuda_index("cuda:2", "torch.zeros")


def test_call_names_say_whose_function_it_is():
    method = types.SimpleNamespace(__objclass__=object, __name__="to")  # a method descriptor's two attributes
    assert devices._name(method) == "torch.Tensor.to"
    assert devices._name(np.empty) == "torch.empty"


def test_streams_are_the_one_queue():
    s = cuda.Stream(priority=-1)
    assert (s.device_index, s.priority, s.cuda_stream) == (0, -1, 0)
    assert s == cuda.current_stream() == cuda.ExternalStream() and s != "stream" and hash(s) == hash(cuda.Stream())
    assert s.query() and repr(s) == "<torch.cuda.Stream device=cuda:0 cuda_stream=0x0 (kernellab)>"
    s.wait_stream(cuda.default_stream())
    s.synchronize()
    with s as entered:
        assert entered is s
    before = cuda.current_stream()
    try:
        cuda.set_stream(s)
        assert cuda.current_stream() is s
        cuda.set_stream("not a stream")  # kept: only a Stream becomes current
        assert cuda.current_stream() is s
        with cuda.stream(before) as inner:
            assert inner is before
        assert cuda.StreamContext is cuda.stream
    finally:
        cuda.set_stream(before)
    with cuda.device_of(object()) as d:  # a tensor's device is device 0
        assert d.idx == 0
    cuda.init()


@triton.jit
def _fill(out_ptr, B: tl.constexpr):
    tl.store(out_ptr + tl.program_id(0) * B + tl.arange(0, B), 1.0)


def test_events_time_the_launches_between_them(modelled):
    modelled("H100")
    out = np.zeros(4096, np.float32)
    start, end, untimed = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True), cuda.Event()
    try:
        with pytest.raises(ValueError, match="both events must be recorded first"):
            start.elapsed_time(end)
        start.record()
        with launches.recording() as made:
            _fill[(4,)](out, B=1024)
        event = cuda.current_stream().record_event(cuda.Event(enable_timing=True))  # a stream records too
        end.record()
        event.wait()
        end.synchronize()
        assert end.query() and (out == 1).all()
        # the model's time of the one launch between them (as do_bench reads it), in milliseconds; nothing ran
        # between the stream's event and the end's
        t = timing.predicted_seconds(made) * 1e3
        assert t > 4e-3 and start.elapsed_time(end) == pytest.approx(t, rel=1e-12)
        assert start.elapsed_time(event) == start.elapsed_time(end) and event.elapsed_time(end) == 0
        with launches.recording() as again:
            _fill[(4,)](out, B=1024)
            _fill[(2,)](out, B=1024)
        later = cuda.Event(enable_timing=True)
        later.record()
        # two launches more: their times add, each as do_bench reads a call of that launch alone (4.28 µs of cold
        # launch each; a call of both would pay the second only the stream's 2.43 µs), and a later event minus an
        # earlier one is negative the other way
        each = sum(timing.predicted_seconds([launch]) for launch in again) * 1e3
        assert end.elapsed_time(later) == pytest.approx(each, rel=1e-12)
        assert each == pytest.approx(timing.predicted_seconds(again) * 1e3 + (4.28e-6 - 2.43e-6) * 1e3, rel=1e-12)
        assert later.elapsed_time(start) == pytest.approx(-(t + end.elapsed_time(later)), rel=1e-12)
        untimed.record()
        with pytest.raises(ValueError, match="enable_timing=True"):
            start.elapsed_time(untimed)
        with pytest.raises(ValueError, match="enable_timing=True"):
            untimed.elapsed_time(end)
        with pytest.raises(cuda.NotStoodIn, match="torch.cuda.Event.ipc_handle"):
            end.ipc_handle()
        assert isinstance(cuda.Stream().record_event(), cuda.Event)
    finally:
        cuda._stop_clock()
    assert cuda._CLOCK == {}
    cuda._stop_clock()  # stopping a stopped clock does nothing
    clock = cuda._clock()
    assert cuda._clock() is clock and clock in launches._RECORDERS.get()  # started once, recording launches
    cuda._stop_clock()
    assert cuda._CLOCK == {} and clock not in launches._RECORDERS.get()


def test_a_clock_stopped_from_another_context_leaves_that_contexts_recorders():
    clock = cuda._clock()  # started here: its token belongs to this context

    def stop():
        cuda._stop_clock()  # the token cannot reset another context's variable: the clock is dropped from this one's
        return launches._RECORDERS.get()

    try:
        assert clock in launches._RECORDERS.get()
        left = contextvars.copy_context().run(stop)
        assert clock not in left and cuda._CLOCK == {}
    finally:
        launches._RECORDERS.set(tuple(r for r in launches._RECORDERS.get() if r is not clock))


@pytest.mark.parametrize("name", ["CUDAGraph", "graph", "make_graphed_callables"])
def test_cuda_graphs_are_refused_naming_the_call(name):
    refuse = cuda.STAND_INS[name]
    assert refuse.__name__ == name
    with pytest.raises(cuda.NotStoodIn, match=rf"torch.cuda.{name}: kernellab's runner does not stand in for it "
                                              r"\(kernellab records no CUDA graph"):
        refuse()


def _a_cuda_module():
    """A module laid out as ``torch`` and ``torch.cuda``: functions of its own, one imported from elsewhere, a
    private one, a value, one stand-in name already there (``synchronize``) and none of the others."""
    torch = types.ModuleType("torch")
    mod = types.ModuleType("torch.cuda")

    def manual_seed(seed):
        return seed

    def get_rng_state():
        raise RuntimeError("Torch not compiled with CUDA enabled")

    def synchronize():
        return "torch's"

    for f in (manual_seed, get_rng_state, synchronize):
        f.__module__ = "torch.cuda.random"
        setattr(mod, f.__name__, f)
    def _lazy_init():
        return None

    _lazy_init.__module__ = "torch.cuda"
    mod._lazy_init = _lazy_init
    mod.cast = textwrap.dedent  # a helper imported from elsewhere (a function of another module)
    mod.version = "12.4"
    torch.cuda = mod
    return torch, mod


def test_install_stands_in_wraps_the_rest_and_uninstall_puts_everything_back():
    torch, mod = _a_cuda_module()
    before = dict(vars(mod))
    undo = cuda.install(torch)
    try:
        for name, value in cuda.STAND_INS.items():
            assert getattr(mod, name) is value
        assert mod.manual_seed(7) == 7 and mod.manual_seed._kernellab_original is before["manual_seed"]
        with pytest.raises(cuda.NotStoodIn, match=r"torch.cuda.get_rng_state: kernellab's runner does not stand in "
                                                  r"for it \(RuntimeError: Torch not compiled with CUDA enabled\)") as e:
            mod.get_rng_state()
        assert isinstance(e.value.__cause__, RuntimeError)
        # a refusal inside a wrapped call comes out as it is, not wrapped in a second "(NotStoodIn: …)"
        with pytest.raises(cuda.NotStoodIn, match=r"^torch.cuda.graph: kernellab's runner does not stand in for it "
                                                  r"\(kernellab records no CUDA graph") as e:
            cuda._named("graph", cuda.STAND_INS["graph"])()
        assert e.value.__cause__ is None
        # untouched: the private function, the helper from elsewhere, the value
        assert (mod._lazy_init, mod.cast, mod.version) == (before["_lazy_init"], textwrap.dedent, "12.4")
    finally:
        cuda.uninstall(undo)
    assert vars(mod) == before  # synchronize back to torch's, every stand-in name it lacked gone again
    assert mod.synchronize() == "torch's" and not hasattr(mod, "Event")
    assert cuda._CLOCK == {} and isinstance(cuda.current_stream(), cuda.Stream)


def test_cuda_graph_classes_stay_classes_that_refuse_to_be_made():
    # transformers annotates `torch.cuda.CUDAGraph | None` in a class body, at import: a function there is a
    # TypeError (unsupported operand type(s) for |), which stopped unsloth's import under the runner
    for name in ("CUDAGraph", "graph"):
        cls = cuda.STAND_INS[name]
        assert isinstance(cls, type) and (cls | None).__args__ == (cls, type(None)) and not isinstance(object(), cls)
        with pytest.raises(cuda.NotStoodIn, match=rf"^torch.cuda.{name}: kernellab's runner does not stand in"):
            cls()
    assert not isinstance(cuda.STAND_INS["make_graphed_callables"], type)


def test_the_raw_stream_is_the_one_queues_and_only_device_zero_has_one():
    # unsloth reads torch._C._cuda_getCurrentRawStream(i) for each device at import: device 0's handle is 0
    assert cuda._cuda_getCurrentRawStream() == cuda._cuda_getCurrentRawStream(0) == cuda.current_stream().cuda_stream == 0
    with pytest.raises(ValueError, match=r"torch._C._cuda_getCurrentRawStream: kernellab models one GPU, device 0; "
                                         r"device 1 does not exist"):
        cuda._cuda_getCurrentRawStream(1)


def test_install_gives_torch_C_the_raw_stream_and_uninstall_takes_it_back():
    torch, mod = _a_cuda_module()
    torch._C = types.ModuleType("torch._C")
    torch._C._cuda_getDeviceCount = len  # something torch._C has, left alone
    before = dict(vars(torch._C))
    undo = cuda.install(torch)
    try:
        assert torch._C._cuda_getCurrentRawStream(0) == 0 and torch._C._cuda_getDeviceCount is len
    finally:
        cuda.uninstall(undo)
    assert vars(torch._C) == before
