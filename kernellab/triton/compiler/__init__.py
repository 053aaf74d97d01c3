"""What Triton's compiler decides for a kernel, on kernellab's blocks: specialisation, axis facts, layouts,
layout conversions and tensor-core instructions.

:mod:`~kernellab.triton.compiler.specialize` (the launch's specialisation),
:mod:`~kernellab.triton.compiler.axis` (the axis facts of every block), :mod:`~kernellab.triton.compiler.layout`
(the blocked layout and vector width of each load and store), :mod:`~kernellab.triton.compiler.convert` (the
shared-memory traffic of layout conversions) and :mod:`~kernellab.triton.compiler.mma` (the MMA of ``tl.dot``);
:mod:`~kernellab.triton.compiler.errors` (``triton.CompilationError``) and
:mod:`~kernellab.triton.compiler.limits` (what Triton 3.9 refuses to compile, refused here too).
"""

from .errors import CompilationError, CompileTimeAssertionFailure, UnsupportedLanguageConstruct

__all__ = ["CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct"]
