"""``triton.testing`` for mini-Triton: ``do_bench`` with Triton's signature, and ``assert_close``.

``do_bench`` times on the CPU clock (what a mini-Triton launch costs to *simulate*, not what the kernel
would take on a GPU: use the counts and :mod:`kernellab.model` for that). Like Triton's, ``warmup``
and ``rep`` are budgets in milliseconds, and it returns milliseconds. It is built on
``kernellab.bench.do_bench``, which counts calls instead.
"""

from __future__ import annotations

import time

import numpy as np

from kernellab.i18n import _

from ..bench import do_bench as _bench


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Milliseconds per call of ``fn()``: warm up for about ``warmup`` ms, then time calls for about ``rep`` ms.

    ``return_mode`` is ``"min"``, ``"max"``, ``"mean"``, ``"median"`` or ``"all"`` (every sample); with
    ``quantiles`` the quantiles of the samples are returned instead, as Triton's.

    Examples
    --------
    >>> ms = do_bench(lambda: sum(range(1000)), warmup=1, rep=5)
    >>> isinstance(ms, float) and ms > 0
    True
    >>> len(do_bench(lambda: None, warmup=0, rep=1, quantiles=[0.2, 0.5, 0.8]))
    3
    """
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError(_("return_mode must be min, max, mean, median or all, not "
                           "{return_mode!r}").format(
            return_mode=return_mode))
    start = time.perf_counter()
    fn()
    estimate_ms = max((time.perf_counter() - start) * 1e3, 1e-6)
    n_warmup = max(1, int(warmup / estimate_ms)) if warmup > 0 else 0
    n_rep = max(1, int(rep / estimate_ms))
    t = _bench(fn, warmup=n_warmup, repeat=n_rep)
    samples = np.asarray(t.samples) * 1e3
    if quantiles is not None:
        return [float(v) for v in np.quantile(samples, list(quantiles))]
    if return_mode == "all":
        return samples.tolist()
    return float(getattr(np, return_mode)(samples))


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """``numpy.testing.assert_allclose`` with Triton's defaults (atol 1e-2, rtol 0)."""
    np.testing.assert_allclose(np.asarray(x), np.asarray(y), atol=1e-2 if atol is None else atol,
                               rtol=0 if rtol is None else rtol, err_msg=err_msg)


__all__ = ["assert_close", "do_bench"]
