"""Every function of the language says what it does where it is defined (kernellab.triton.executor.kinds), as
Triton's ``@builtin`` marks its builtins: a new function without a mark fails here, not in a replay."""

import types

import numpy as np

import kernellab.triton.language as tl
from kernellab.triton.executor import kinds
from kernellab.triton.executor.tensor import pointer, tensor
from kernellab.triton.language.extra import libdevice
from kernellab.triton.replay import trace


def test_every_function_of_triton_language_is_marked():
    unmarked = [n for n in tl.__all__ if isinstance(getattr(tl, n), types.FunctionType)
                and kinds.of(getattr(tl, n)) not in kinds.KINDS]
    assert unmarked == []
    assert all(kinds.of(getattr(libdevice, n)) == "pure" for n in ("exp", "float2int_rz", "popc", "pow"))


def test_every_method_of_a_block_is_marked():
    for cls in (tensor, pointer):
        unmarked = [n for n, f in vars(cls).items()
                    if isinstance(f, types.FunctionType) and n != "__init__" and not (n.startswith("_") and not n.endswith("__"))
                    and kinds.of(f) is None]
        assert unmarked == [], cls.__name__


def test_the_marks_say_what_each_function_does():
    assert [kinds.of(f) for f in (tl.load, tl.store, tl.atomic_add, tl.atomic_cas, tl.load_tensor_descriptor)] == \
        ["memory"] * 5
    assert [kinds.of(f) for f in (tl.device_print, tl.static_print, tl.inline_asm_elementwise)] == ["effect"] * 3
    assert [kinds.of(f) for f in (tl.device_assert, tl.static_assert, tl.assume)] == ["host"] * 3
    assert kinds.of(tl.gather) == "checked"  # raises on an index out of range, a value computed from data
    assert [kinds.of(f) for f in (tl.exp, tl.dot, tl.program_id, tl.arange, tl.where, tl.reduce)] == ["pure"] * 6
    # a block's own: arithmetic is pure; what hands its values to Python is the host's
    assert [kinds.of(vars(tensor)[n]) for n in ("__add__", "__lt__", "__getitem__", "to")] == ["pure"] * 4
    assert [kinds.of(vars(tensor)[n]) for n in ("__bool__", "__int__", "__index__", "data")] == ["host"] * 4
    assert pointer._host == ("flat",)


def test_a_recording_wraps_the_marked_functions_and_nothing_else():
    wrapped = {(getattr(owner, "__name__", owner), name) for owner, name, _fn in trace._targets()}
    assert ("kernellab.triton.language", "load") in wrapped and ("tensor", "__bool__") in wrapped
    assert ("tensor", "__init__") not in wrapped and ("tensor", "_item") not in wrapped
    assert all(kinds.of(fn) is not None for _owner, _name, fn in trace._targets())
    x = tensor(np.ones((1, 4), np.float32), tl.float32, (4,))
    trace.install()  # (outside a recording the wrappers call straight through)
    try:
        assert isinstance(vars(tensor)["__add__"].__wrapped__, types.FunctionType)
        one = tensor(np.ones(1, np.float32), tl.float32, ())
        assert (x + x).data.tolist() == [[2.0] * 4] and bool(one > 0)
    finally:
        trace.uninstall()
    assert not hasattr(vars(tensor)["__add__"], "__wrapped__")
