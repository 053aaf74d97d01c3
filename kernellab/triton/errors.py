"""``triton.errors``: ``TritonError``, the base of Triton's own errors (:mod:`kernellab.triton.compiler.errors`,
:mod:`kernellab.triton.runtime.errors`). kernellab reports a kernel's run-time faults as :mod:`kernellab.errors` classes."""


class TritonError(Exception):
    """Base class for all errors raised by Triton (``triton.TritonError``)."""


__all__ = ["TritonError"]
