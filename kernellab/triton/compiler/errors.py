r"""``triton.compiler.errors``: what Triton raises when it cannot compile a kernel, with its constructor
``CompilationError(src, node, error_message)`` and its message (``at LINE:COL:``, the kernel's source up to
that line, a caret under the column, then the error).

kernellab compiles nothing: it raises these where the line that Triton 3.9 would reject runs
(:mod:`kernellab.triton.compiler.limits`), with ``src`` the kernel's source and ``node`` that line and
column. ``kernel`` and ``file_line`` (``path:line``) name where, and the error Triton's own code raises
there (``ValueError``, ``AssertionError``, ``AttributeError``, …) is its ``__cause__``.

>>> from types import SimpleNamespace
>>> err = CompilationError("def k(x):\n    o = tl.arange(0, 1000)\n", SimpleNamespace(lineno=2, col_offset=8),
...                        "arange's range must be a power of 2")
>>> print(err)
at 2:8:
def k(x):
    o = tl.arange(0, 1000)
        ^
arange's range must be a power of 2
"""

from __future__ import annotations

from ...i18n import _
from ..errors import TritonError


class CompilationError(TritonError):
    """Base class for all errors raised during compilation (``triton.CompilationError``)."""

    source_line_count_max_in_message = 12

    def _format_message(self) -> str:
        node = self.node
        if self.src is None:
            source_excerpt = " <source unavailable>"
        elif hasattr(node, "lineno"):
            lines = self.src.split("\n")[:node.lineno][-self.source_line_count_max_in_message:]
            if lines:
                lines.append(" " * node.col_offset + "^")
                source_excerpt = "\n".join(lines)
            else:
                source_excerpt = " <source empty>"
        else:
            source_excerpt = self.src
        message = f"at {node.lineno}:{node.col_offset}:\n{source_excerpt}" if hasattr(node, "lineno") \
            else source_excerpt
        if self.error_message:
            message += "\n" + self.error_message
        if self.kernel is not None:  # kernellab names the kernel and the file's line first
            message = _("kernel {kernel}, {place}:").format(kernel=self.kernel, place=self.file_line) + "\n" + message
        return message

    def __init__(self, src: str | None, node, error_message: str | None = None):
        self.src = src
        self.node = node
        self.error_message = error_message
        self.kernel = getattr(node, "kernel", None)  # kernellab: the kernel whose line it is
        self.file_line = getattr(node, "file_line", None)  # kernellab: "path:line" of that line
        self.message = self._format_message()

    def __str__(self):
        return self.message

    def __reduce__(self):
        return type(self), (self.src, self.node, self.error_message)


class CompileTimeAssertionFailure(CompilationError):
    """A ``tl.static_assert`` that does not hold."""


class UnsupportedLanguageConstruct(CompilationError):
    """Python that Triton's code generator does not translate."""


__all__ = ["CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct"]
