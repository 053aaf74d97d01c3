"""The float64 check of a launch: numpy's default dtype reaching a kernel, said once per launch.

``np.random.rand(n)``, ``np.zeros(n)`` and ``np.linspace`` make float64 arrays. A GPU kernel written
for float32 then moves 8 bytes per element instead of 4, so every byte count and every predicted time
doubles, and nothing else looks wrong. Each launch (``launch``, ``kernel[grid](...)``,
``triton_launch``) therefore warns once, with a :class:`~kernellab.errors.Float64Warning` naming the
float64 arrays, when any of its array arguments is float64. A launch meant in float64 says so with
``with kernellab.allow_float64():`` (or an ordinary ``warnings`` filter on ``Float64Warning``).
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from .errors import Float64Warning
from .i18n import _
from .tracebacks import user_stacklevel


def float64_names(named) -> list[str]:
    """The names of the float64 arrays among ``named`` (pairs of name and argument), in order, once each.

    Examples
    --------
    >>> float64_names([("x", np.zeros(2)), ("y", np.zeros(2, np.float32)), ("n", 2), ("x", np.zeros(2))])
    ['x']
    """
    out = []
    for name, value in named:
        if getattr(value, "dtype", None) == np.float64 and name not in out:
            out.append(name)
    return out


def warn_float64(kernel: str, named) -> None:
    """Warn once (a :class:`~kernellab.errors.Float64Warning` at the caller's launch line) when an array
    of ``named`` (pairs of parameter name and argument) is float64.

    Examples
    --------
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_float64("axpy", [("x", np.zeros(4)), ("y", np.zeros(4)), ("a", 2.0)])
    >>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
    kernel axpy: float64 arrays (numpy's default dtype): x, y. Each element moves 8 bytes, so the counts and
    the predicted time are those of float64; pass float32 arrays (x.astype(np.float32)) if the kernel
    means float32, or launch inside `with kernellab.allow_float64():` if float64 is meant
    >>> with allow_float64():
    ...     warn_float64("axpy", [("x", np.zeros(4))])   # float64 is meant: no warning
    """
    names = float64_names(named)
    if names:
        warnings.warn(_("kernel {kernel}: float64 arrays (numpy's default dtype): {arrays}. Each element moves 8 "
                        "bytes, so the counts and the predicted time are those of float64; pass float32 arrays "
                        "({first}.astype(np.float32)) if the kernel means float32, or launch inside "
                        "`with kernellab.allow_float64():` if float64 is meant").format(
            kernel=kernel, arrays=", ".join(names), first=names[0]), Float64Warning, stacklevel=user_stacklevel())


@contextlib.contextmanager
def allow_float64():
    """Say that float64 is meant: launches inside the ``with`` block do not warn about float64 arrays.

    It ignores :class:`~kernellab.errors.Float64Warning` (and nothing else) while the block runs, as
    ``warnings.catch_warnings`` does.

    Examples
    --------
    >>> from kernellab import launch
    >>> def double(blk, x):
    ...     blk.store(x, blk.tx, 2 * blk.load(x, blk.tx))
    >>> x = np.ones(32)                       # float64, on purpose
    >>> with allow_float64():
    ...     c = launch(double, 1, 32, args=(x,))
    >>> float(x[0]), c.gld_bytes              # 32 lanes × 8 bytes
    (2.0, 256)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Float64Warning)
        yield
