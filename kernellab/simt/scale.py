"""Old home of :func:`~kernellab.per_fma` and :func:`~kernellab.scale_counts`, now in :mod:`kernellab.counters`."""

from ..counters import N2_FIELDS, N2_KINDS, OPERAND_DIMS, per_fma, scale_counts

__all__ = ["N2_FIELDS", "N2_KINDS", "OPERAND_DIMS", "per_fma", "scale_counts"]
