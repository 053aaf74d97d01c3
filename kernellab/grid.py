"""Grid arithmetic shared by both engines: ceiling division and 1–3-dimensional launch shapes."""

from __future__ import annotations

from kernellab.i18n import _

from .errors import LaunchError

#: blockDim.{x,y,z} limits, every compute capability [CCtab]
MAX_BLOCK_DIM = (1024, 1024, 64)
#: gridDim.{x,y,z} limits [CCtab]
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)


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


def check_limits(kernel: str, shape: tuple, what: str = "grid") -> None:
    """LaunchError naming the kernel, the dimension and the limit when an ``(x, y, z)`` grid or block is larger
    than CUDA allows (:data:`MAX_GRID_DIM`, :data:`MAX_BLOCK_DIM`), as ``cudaLaunchKernel`` refuses it.

    Examples
    --------
    >>> check_limits("k", (2**31 - 1, 65535, 65535))
    >>> check_limits("k", (2**31, 1, 1))
    Traceback (most recent call last):
    ...
    kernellab.errors.LaunchError: kernel k: grid dimension x = 2147483648 exceeds the limit 2147483647
    """
    limits = MAX_GRID_DIM if what == "grid" else MAX_BLOCK_DIM
    for axis, d, lim in zip("xyz", shape, limits):
        if d > lim:
            raise LaunchError((_("kernel {kernel}: block dimension {axis} = {size} exceeds the limit {limit}")
                               if what == "block" else
                               _("kernel {kernel}: grid dimension {axis} = {size} exceeds the limit {limit}"))
                              .format(kernel=kernel, axis=axis, size=d, limit=lim),
                              kernel=kernel, dimension=f"{what}.{axis}", size=d, limit=lim)
