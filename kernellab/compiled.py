"""The compiled code of the gallery's Triton kernels: PTX and SASS excerpts that real Triton emitted.

``tests/conformance/compiled.py`` (run by ``nox -s conformance``, which installs Triton) compiles the
GeLU and softmax pages' kernels for an sm_86 GPU, with and without Triton's 16-byte divisibility
specialisation, and writes their memory instructions to ``compiled_code.json`` beside this module.
The pages read them here, so neither the site build nor a downloaded script needs Triton.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from kernellab.i18n import _

_DATA = Path(__file__).with_name("compiled_code.json")


@cache
def _record() -> dict:
    return json.loads(_DATA.read_text(encoding="utf-8"))


def compiled_code(kernel: str) -> dict:
    """The excerpts of one kernel: ``{"unaligned": {"ptx": [...], "sass": [...]}, "aligned": {...}, ...}``,
    with ``num_warps`` (warps per program), ``target`` and ``triton`` (the compiler's version) beside them.

    >>> code = compiled_code("triton_gelu_kernel")
    >>> code["num_warps"], any("ld.global" in line for line in code["unaligned"]["ptx"])
    (4, True)
    """
    record = _record()
    if kernel not in record["kernels"]:
        raise KeyError(_("no compiled code for kernel {kernel!r}; there is for: {known}").format(
            kernel=kernel, known=', '.join(sorted(record['kernels']))))
    return {**record["kernels"][kernel], **{k: record[k] for k in ("num_warps", "target", "triton")}}


_COUNTS = Path(__file__).with_name("compiled_counts.json")
_METADATA = Path(__file__).with_name("compiled_metadata.json")


@cache
def _counts() -> dict:
    return json.loads(_COUNTS.read_text(encoding="utf-8"))


@cache
def _metadata() -> dict:
    """The configurations' builds, kept apart from the cases (1 KB against 458: a page that asks for a configuration
    does not parse every case)."""
    return json.loads(_METADATA.read_text(encoding="utf-8"))["metadata"]


def compiled_metadata(name: str, target: str) -> dict:
    """What real Triton 3.9 compiled a configuration into, for ``target`` (``"sm_80"``, ``"sm_90"``):
    ``registers`` per thread, ``shared_bytes`` per program, ``num_warps``, ``num_stages`` and ``mma``
    (MMA instructions per thread, one iteration of the K loop).

    ``name`` is a configuration of ``kernellab/compiled_metadata.json`` (the tutorial's matmul,
    ``"tutorial03_128x128x32_s4_w4"``, …) or one of the ``cases`` of ``kernellab/compiled_counts.json`` (then
    the launch's jit specialisation). ``tests/conformance/compiled_counts.py`` (``nox -s compiled``) writes both.

    >>> m = compiled_metadata("tutorial03_128x128x32_s4_w4", "sm_90")
    >>> m["num_warps"], m["num_stages"], m["registers"] > 128                # the accumulator alone: 128
    (4, 4, True)
    """
    metadata = _metadata()
    if name in metadata:
        entry = metadata[name]
        if target not in entry:
            raise KeyError(_("no {target} build of {name!r}").format(target=target, name=name))
        return dict(entry[target])
    cases = _counts()["cases"]
    if name in cases:
        return dict(cases[name][f"{target}/jit"])
    raise KeyError(_("no compiled code for {name!r}; there is for: {known}").format(
        name=name, known=", ".join(sorted(metadata))))
