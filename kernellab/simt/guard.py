"""What a SIMT kernel may not do with plain Python, and the messages that say what to do instead.

* Array arguments reach the kernel as :class:`KernelArray` views of the caller's arrays: indexing one
  directly (``B[i] = A[i]``) raises a :class:`TypeError` that says to use ``blk.load`` / ``blk.store``,
  since a plain numpy access would skip the ``blk.where`` mask, the sanitizer and the counts.
* A Python ``if`` (``while``, ``and``, ``or``) on lane values has no single truth value: numpy's
  "truth value … is ambiguous" gets a hint to use ``with blk.where(cond):`` (:func:`lane_hint`);
  ``range(i)``, ``int(i)`` or a list index of lane values gets a hint to use a value every lane shares.
"""

from __future__ import annotations

import numpy as np

from ..i18n import _


class KernelArray(np.ndarray):
    """An array argument as a SIMT kernel sees it: its shape, dtype and size, but no direct indexing.

    Examples
    --------
    >>> from kernellab.simt import launch
    >>> def copy(blk, A, B):
    ...     B[blk.tx] = A[blk.tx]
    >>> launch(copy, 1, 32, args=(np.ones(32, np.float32), np.zeros(32, np.float32)))
    Traceback (most recent call last):
    ...
    kernellab.errors.KernelTypeError: kernel copy: A[...] indexes the kernel argument A directly, which skips blk.where, the bounds check and the counts: read with blk.load(A, i) and write with blk.store(A, i, value)
    """

    def __array_finalize__(self, obj):
        self._kl_where = getattr(obj, "_kl_where", ("kernel", "array"))

    def _refuse(self):
        kernel, name = self._kl_where
        raise TypeError(_("kernel {kernel}: {array}[...] indexes the kernel argument {array} directly, which skips "
                          "blk.where, the bounds check and the counts: read with blk.load({array}, i) and write "
                          "with blk.store({array}, i, value)").format(kernel=kernel, array=name))

    def __getitem__(self, key):
        self._refuse()

    def __repr__(self) -> str:  # printing an argument in a kernel shows its values (numpy indexes to format)
        return repr(np.asarray(self))

    def __str__(self) -> str:
        return str(np.asarray(self))

    def __setitem__(self, key, value):
        self._refuse()


def guard_arguments(params: list, name: str, args: tuple, memory) -> tuple:
    """``args`` with every numpy array replaced by a :class:`KernelArray` view that ``memory`` knows as it (named
    by ``params``, the kernel's parameters after ``blk``)."""
    out = []
    for i, a in enumerate(args):
        if type(a) is np.ndarray:
            view = a.view(KernelArray)
            view._kl_where = (name, params[i] if i < len(params) else f"arg{i}")
            memory.alias(view, a)
            a = view
        out.append(a)
    return tuple(out)


def lane_hint(exc: BaseException, kernel: str) -> BaseException:
    """``exc``, or the same kind of error with a hint when numpy refused to turn lane values into one value."""
    if isinstance(exc, ValueError) and "truth value of an array" in str(exc):
        hint = ValueError(_("kernel {kernel}: a Python if (or while, and, or) on lane values needs one truth value, "
                            "but each lane has its own: use `with blk.where(cond):` to run a region on the lanes "
                            "where cond holds, or np.where(cond, a, b) to choose a value per lane").format(
            kernel=kernel))
        return hint.with_traceback(exc.__traceback__)
    if isinstance(exc, TypeError) and ("can be converted to a scalar index" in str(exc)
                                       or "can be converted to Python scalars" in str(exc)):
        hint = TypeError(_("kernel {kernel}: a Python number (a range bound, an index, int() or float()) was "
                           "asked of lane values, which hold one number per lane: use a value every lane shares "
                           "(blk.bdx, a kernel argument), or keep the lane vector and index memory with "
                           "blk.load").format(kernel=kernel))
        return hint.with_traceback(exc.__traceback__)
    return exc
