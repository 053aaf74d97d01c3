"""Grid arithmetic shared by both engines: ceiling division and 1–3-dimensional launch shapes."""

from __future__ import annotations

from kernellab.i18n import _

from .errors import LaunchError


def cdiv(a: int, b: int) -> int:
    """Ceiling division, ⌈a / b⌉, as ``triton.cdiv``: the blocks needed to cover ``a`` items.

    Examples
    --------
    >>> cdiv(100, 32), cdiv(64, 32), cdiv(1, 1024)
    (4, 2, 1)
    """
    return -(-int(a) // int(b))


def dim3(shape, what: str = "grid") -> tuple[int, int, int]:
    """A launch shape of 1–3 positive ints as an ``(x, y, z)`` triple, as CUDA's ``dim3``.

    Examples
    --------
    >>> dim3(4), dim3((4, 3)), dim3((2, 2, 2))
    ((4, 1, 1), (4, 3, 1), (2, 2, 2))
    """
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if 1 <= len(dims) <= 3 and all(type(d) is int and d >= 1 for d in dims):  # the usual case, checked fast
        return (*dims, 1, 1)[:3]
    what = {"grid": _("grid"), "block": _("block")}.get(what, what)
    if not 1 <= len(dims) <= 3:
        raise LaunchError(_("{what} must have 1 to 3 dimensions, got {n_dims}: {shape!r}").format(
            what=what, n_dims=len(dims), shape=shape))
    try:
        ints = tuple(int(d) for d in dims)
    except (TypeError, ValueError) as exc:
        raise LaunchError(_("{what} dimensions must be integers, got {shape!r}").format(
            what=what, shape=shape)) from exc
    if any(d != raw for d, raw in zip(ints, dims)) or any(d < 1 for d in ints):
        raise LaunchError(_("{what} dimensions must be positive integers, got {shape!r}").format(
            what=what, shape=shape))
    return (*ints, 1, 1)[:3]
