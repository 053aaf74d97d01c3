"""Pointers from int64 addresses (x.to(tl.pointer_type(...))) map back to the arrays they came from."""

import numpy as np
import pytest

import kernellab.triton as triton
import kernellab.triton.language as tl
from kernellab import MisalignedError, OutOfBoundsError


@triton.jit
def gather_groups(addr_ptr, sizes_ptr, out_ptr, G, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for g in range(G):
        p = tl.load(addr_ptr + g).to(tl.pointer_type(tl.float32))
        n = tl.load(sizes_ptr + g)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(p + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), acc)


def test_addresses_of_arrays_never_passed_to_the_launch():
    rng = np.random.default_rng(3)
    arrays = [rng.random(n, dtype=np.float32) for n in (100, 64, 250)]
    for a in arrays:
        triton.register_array(a)
    addrs = np.array([a.ctypes.data for a in arrays], np.int64)
    sizes = np.array([a.size for a in arrays], np.int32)
    out = np.zeros(256, np.float32)
    c = gather_groups[(4,)](addrs, sizes, out, 3, BLOCK=64)
    ref = np.zeros(256)
    for a in arrays:
        ref[:a.size] += a
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    # 4 programs × 3 groups × (an 8-byte address + a 4-byte size), and every element once
    assert c.load_bytes == 4 * 3 * (8 + 4) + 4 * (100 + 64 + 250)


@triton.jit
def per_program_array(addr_ptr, out_ptr):
    p = tl.load(addr_ptr + tl.program_id(0)).to(tl.pointer_type(tl.int32))
    tl.store(out_ptr + tl.program_id(0), tl.load(p + 1))


def test_programs_pointing_into_different_arrays_each_get_theirs():
    arrays = [np.array([i, 10 * i], np.int32) for i in range(5)]
    for a in arrays:
        triton.register_array(a)
    out = np.zeros(5, np.int32)
    per_program_array[(5,)](np.array([a.ctypes.data for a in arrays], np.int64), out)
    assert out.tolist() == [0, 10, 20, 30, 40]


@triton.jit
def first(x_ptr, out_ptr):
    tl.store(out_ptr, tl.load(x_ptr))


def test_an_address_inside_an_array_and_a_launch_argument_found_by_address():
    big = np.arange(64, dtype=np.int32)
    out = np.zeros(1, np.int32)
    first[(1,)](big, out)  # an argument of an earlier launch: known by its address from then on
    per_program_array[(1,)](np.array([big.ctypes.data + 4 * 10], np.int64), out)  # inside `big`, not its start
    assert out.tolist() == [11]


def test_an_address_inside_no_array_names_the_address():
    out = np.zeros(1, np.int32)
    with pytest.raises(OutOfBoundsError, match=r"program \(0,0,0\): address 0x10 is inside no array") as e:
        per_program_array[(1,)](np.array([16], np.int64), out)
    assert e.value.details["address"] == 16


def test_an_address_between_elements_is_misaligned():
    a = np.arange(8, dtype=np.int32)
    triton.register_array(a)
    with pytest.raises(MisalignedError, match="2 bytes into its array, not a multiple of the 4-byte int32"):
        per_program_array[(1,)](np.array([a.ctypes.data + 2], np.int64), np.zeros(1, np.int32))


def test_torch_tensors_found_by_their_data_ptr():
    torch = pytest.importorskip("torch")
    ts = [torch.arange(3, dtype=torch.int32) * (i + 1) for i in range(3)]
    out = torch.zeros(3, dtype=torch.int32)
    per_program_array[(3,)](torch.tensor([t.data_ptr() for t in ts]), out)
    assert out.tolist() == [1, 2, 3]


@triton.jit
def _double_into(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


@triton.jit
def _count_into(out_ptr, BLOCK: tl.constexpr):
    tl.atomic_add(out_ptr + tl.arange(0, BLOCK) % 2, 1)


@triton.jit
def _block_ptr_copy(x_ptr, out_ptr, N: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (N,), (0,))
    dst = tl.make_block_ptr(out_ptr, (N,), (1,), (0,), (N,), (0,))
    tl.store(dst, tl.load(src))


def _read_only(a):
    a.flags.writeable = False
    return a


@pytest.mark.filterwarnings("ignore::kernellab.errors.BlockPointerWarning")  # block pointers: Triton 3.9 removed them
def test_a_store_to_a_read_only_array_names_the_kernel_program_and_array():
    from kernellab.errors import KernelValueError

    x = _read_only(np.arange(70, dtype=np.float32))  # loads from a read-only array are fine
    out = np.zeros(70, np.float32)
    _double_into[(2,)](x, out, 70, BLOCK=64)
    np.testing.assert_array_equal(out, 2 * x)
    # the same signature but for the output's flag: not a replay of the launch above, a fresh one that raises
    with pytest.raises(KernelValueError, match=r"kernel _double_into, program \(0,0,0\): a store to out_ptr, "
                                               r"a read-only array") as err:
        _double_into[(2,)](x, _read_only(np.zeros(70, np.float32)), 70, BLOCK=64)
    assert err.value.details["array"] == "out_ptr" and err.value.details["kernel"] == "_double_into"
    with pytest.raises(KernelValueError, match="a store to out_ptr, a read-only array"):
        _count_into[(1,)](_read_only(np.zeros(2, np.int32)), BLOCK=8)  # an atomic writes too
    with pytest.raises(KernelValueError, match="a store to out_ptr, a read-only array"):
        _block_ptr_copy[(1,)](x[:16], _read_only(np.zeros(16, np.float32)), N=16)


def test_a_column_major_array_is_read_in_memory_order():
    # a 2 × 3 Fortran array holds its columns one after another: memory order 0, 3, 1, 4, 2, 5
    a = np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    triton.register_array(a)
    out = np.zeros(1, np.int32)
    per_program_array[(1,)](np.array([a.ctypes.data + 4 * 2], np.int64), out)  # p + 1: memory element 3
    assert out.tolist() == [4]


def test_an_array_subclass_is_registered_by_its_address():
    class Tagged(np.ndarray):
        pass

    a = np.array([5, 6, 7], np.int32).view(Tagged)
    assert triton.register_array(a) == a.ctypes.data
    out = np.zeros(1, np.int32)
    per_program_array[(1,)](np.array([a.ctypes.data], np.int64), out)
    assert out.tolist() == [6]


def test_only_arrays_and_tensors_are_registered():
    with pytest.raises(TypeError, match="register_array takes a numpy array or a CPU torch tensor, not a list"):
        triton.register_array([1, 2, 3])


def test_an_address_past_a_known_array_or_in_a_freed_one_is_inside_no_array():
    import gc

    buf = np.zeros(64, np.int32)
    head = buf[:32]  # registered: bytes 0 … 127 of buf; buf itself is not
    triton.register_array(head)
    out = np.zeros(1, np.int32)
    with pytest.raises(OutOfBoundsError, match="inside no array"):
        per_program_array[(1,)](np.array([head.ctypes.data + head.nbytes], np.int64), out)  # p + 1 is buf[33]
    freed = np.zeros(1 << 20, np.int32)  # 4 MB: its memory goes back to the system when it is freed
    triton.register_array(freed)
    address = freed.ctypes.data + 4096
    del freed
    gc.collect()
    with pytest.raises(OutOfBoundsError, match="inside no array"):
        per_program_array[(1,)](np.array([address], np.int64), out)
