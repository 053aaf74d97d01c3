"""Python's min/max on blocks inside a kernel mean tl.minimum/tl.maximum, and keep the launch vectorised."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab.triton.executor import engine
from kernellab.triton.executor.policy import Policy, using


@pytest.fixture
def fallbacks(monkeypatch):
    calls = []
    original = engine._one_by_one

    def counting(*args, **kwargs):
        calls.append(len(args[1]))  # programs rerun one by one (engine._one_by_one(launch, pids, …))
        return original(*args, **kwargs)

    monkeypatch.setattr(engine, "_one_by_one", counting)
    return calls


@triton.jit
def grouped_pids(out_m, out_n, M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    tl.store(out_m + pid, first_pid_m + ((pid % num_pid_in_group) % group_size_m))
    tl.store(out_n + pid, (pid % num_pid_in_group) // group_size_m)


def grouped_reference(M, N, BM, BN, G):
    num_m, num_n = -(-M // BM), -(-N // BN)
    out = []
    for pid in range(num_m * num_n):
        first = pid // (G * num_n) * G
        size = min(num_m - first, G)
        out.append((first + pid % (G * num_n) % size, pid % (G * num_n) // size))
    return out


@pytest.mark.parametrize(("M", "N", "G"), [(9 * 16, 9 * 16, 3), (1000, 300, 8), (16, 16, 4), (500, 1000, 1)])
def test_grouped_ordering_with_python_min_matches_and_stays_vectorised(fallbacks, M, N, G):
    P = triton.cdiv(M, 16) * triton.cdiv(N, 16)
    pm, pn = np.full(P, -1, np.int32), np.full(P, -1, np.int32)
    grouped_pids[(P,)](pm, pn, M, N, BM=16, BN=16, GROUP_SIZE_M=G)
    assert list(zip(pm.tolist(), pn.tolist())) == grouped_reference(M, N, 16, 16, G)
    assert sorted(zip(pm.tolist(), pn.tolist())) == sorted(set(zip(pm.tolist(), pn.tolist())))  # each tile once
    assert fallbacks == []  # no step fell back to running its programs one by one


@triton.jit
def clamp_kernel(x_ptr, out_ptr, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, max(min(x, hi), lo, x * 0 - 5.0))


def test_min_max_on_blocks_are_elementwise_and_fold_over_many(fallbacks):
    x = np.random.default_rng(1).standard_normal(4096).astype(np.float32) * 3
    out = np.empty_like(x)
    clamp_kernel[(4,)](x, out, -1.0, 1.5, BLOCK=1024)
    np.testing.assert_array_equal(out, np.maximum(np.maximum(np.minimum(x, np.float32(1.5)), np.float32(-1)), -5))
    assert fallbacks == []


@triton.jit
def helper_min(a, b):
    return min(a, b)


@triton.jit
def uses_helper(out_ptr, n):
    tl.store(out_ptr + tl.program_id(0), helper_min(tl.program_id(0), n))


def test_jit_helpers_see_the_same_builtins_and_python_values_keep_python_semantics(fallbacks):
    out = np.zeros(6, np.int32)
    uses_helper[(6,)](out, 3)
    assert out.tolist() == [0, 1, 2, 3, 3, 3] and fallbacks == []
    from kernellab.triton.language.pybuiltins import max as kmax
    from kernellab.triton.language.pybuiltins import min as kmin
    assert (kmin(3, 1, 2), kmax("ab", "b"), kmin([4, 2]), kmax([], default=7)) == (1, "b", 2, 7)


def test_module_globals_are_read_live():
    ns = {}
    exec("import kernellab.triton as triton\nimport kernellab.triton.language as tl\n"
         "@triton.jit\ndef k(o):\n    tl.store(o + tl.arange(0, 16), later(tl.arange(0, 16)))\n", ns)
    exec("import kernellab.triton as triton\n@triton.jit\ndef later(x):\n    return max(x, 3)\n", ns)
    out = np.zeros(16, np.int32)
    ns["k"][(1,)](out)
    assert out.tolist() == [3, 3, 3, 3] + list(range(4, 16))


@triton.jit
def diverges(out_ptr):
    if tl.program_id(0) % 2 == 1:  # Python control flow on per-program values: no vectorised step can run it
        tl.store(out_ptr + tl.program_id(0), 1)


def test_the_fallback_counter_sees_a_step_that_falls_back(fallbacks):
    out = np.zeros(4, np.int32)
    with using(Policy(groups=False)):  # by default the step reruns in groups (kernellab.triton.executor.groups)
        diverges[(4,)](out)
    assert out.tolist() == [0, 1, 0, 1] and fallbacks == [4]
