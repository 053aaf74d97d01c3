"""Errors raised inside a kernel, shown at the kernel's own lines: kernellab's frames cut from the traceback.

A launch runs the kernel through several layers of kernellab (and numpy). When the kernel fails, the
student needs the line of *their* code that failed, not the simulator's: :func:`user_traceback` keeps
only the frames outside kernellab and numpy, so the traceback ends at the kernel's line. A launch that
fails before the kernel runs (a bad argument, too many threads) keeps no frame at all, and ends at
the user's launch line.

Each launch entry point (``launch``, ``kernel[grid](...)``, ``triton_launch``) catches what the launch
raised, trims it with :func:`user_traceback` and re-raises it with a bare ``raise``, which adds no
frame of its own: the traceback then holds the caller's frames and the kernel's, nothing of kernellab.
Set ``KERNELLAB_TRACEBACK=full`` to keep every frame (to debug kernellab itself).
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import numpy as np

_LIBRARY = (str(Path(__file__).resolve().parent) + os.sep, str(Path(np.__file__).resolve().parent) + os.sep)


def _library(filename: str) -> bool:
    """Whether ``filename`` (a code object's) lies in kernellab or numpy, its symbolic links resolved. An absolute
    name is resolved once (resolving reads the file system, and an error's traceback asks for every frame); a
    relative one (a script run as ``python script.py``) names a file of the current directory, so it is resolved
    again each time, as the directory may have changed."""
    return _library_absolute(filename) if os.path.isabs(filename) else _resolved_in_library(filename)


@functools.lru_cache(maxsize=4096)
def _library_absolute(filename: str) -> bool:
    return _resolved_in_library(filename)


def _resolved_in_library(filename: str) -> bool:
    try:
        path = str(Path(filename).resolve())
    except (OSError, ValueError):
        return False
    return path.startswith(_LIBRARY)


def user_traceback(exc: BaseException) -> BaseException:
    """``exc`` with its traceback reduced to the frames outside kernellab and numpy (none when none is).

    The exception is changed in place and returned, so that ``user_traceback(exc); raise`` re-raises it
    with no frame of the function that re-raises.

    Examples
    --------
    >>> def kernel_line():
    ...     np.broadcast_shapes((2,), (3,))      # fails inside numpy
    >>> try:
    ...     kernel_line()
    ... except ValueError as e:
    ...     frames = [tb.tb_frame.f_code.co_name for tb in _frames(user_traceback(e).__traceback__)]
    >>> frames[-1]
    'kernel_line'
    """
    if os.environ.get("KERNELLAB_TRACEBACK") == "full":
        return exc
    keep = [tb for tb in _frames(exc.__traceback__) if not _library(tb.tb_frame.f_code.co_filename)]
    if not keep:
        return exc.with_traceback(None)
    for a, b in zip(keep, keep[1:]):
        a.tb_next = b
    keep[-1].tb_next = None
    return exc.with_traceback(keep[0])


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes ``warnings.warn``, called by the function that calls this, point at the
    first frame outside kernellab: the user's line that launched the kernel.

    Examples
    --------
    >>> user_stacklevel() >= 1
    True
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and _library(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def _frames(tb):
    out = []
    while tb is not None:
        out.append(tb)
        tb = tb.tb_next
    return out
