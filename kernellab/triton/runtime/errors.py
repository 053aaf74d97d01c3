"""``triton.runtime.errors``: the run-time errors of Triton 3.9, with its constructors and messages.

>>> err = OutOfResources(262144, 232448, "shared memory")
>>> print(err)
out of resource: shared memory, Required: 262144, Hardware limit: 232448. Reducing block sizes or `num_stages` may help.
>>> (err.required, err.limit, err.name), isinstance(err, TritonError)
((262144, 232448, 'shared memory'), True)
"""

from __future__ import annotations

from ..errors import TritonError


class InterpreterError(TritonError):
    """Raised by Triton's interpreter (``TRITON_INTERPRET=1``); kernellab reports a kernel's faults as
    :mod:`kernellab.errors` classes instead."""

    def __init__(self, error_message: str | None = None):
        self.error_message = error_message

    def __str__(self) -> str:
        return self.error_message or ""


class OutOfResources(TritonError):
    """A kernel needing more of a resource (``name``: shared memory, registers) than the GPU has."""

    def __init__(self, required, limit, name):
        self.required = required
        self.limit = limit
        self.name = name

    def __str__(self) -> str:
        return (f"out of resource: {self.name}, Required: {self.required}, Hardware limit: {self.limit}. "
                "Reducing block sizes or `num_stages` may help.")

    def __reduce__(self):
        return (type(self), (self.required, self.limit, self.name))


class PTXASError(TritonError):
    """ptxas failed on the generated PTX (kernellab compiles nothing, so it never raises it)."""

    def __init__(self, error_message: str | None = None):
        self.error_message = error_message

    def __str__(self) -> str:
        return f"PTXAS error: {self.error_message or ''}"


class AutotunerError(TritonError):
    """The autotuner has nothing to run (``early_config_prune`` returned no config)."""

    def __init__(self, error_message: str | None = None):
        self.error_message = error_message

    def __str__(self) -> str:
        return f"Autotuner error: {self.error_message or ''}"


__all__ = ["AutotunerError", "InterpreterError", "OutOfResources", "PTXASError", "TritonError"]
