"""Boehm's SGEMM kernels k1–k10 on the SIMT simulator: a study that sits above the engines.

``KERNELS`` holds each kernel's code, launch configuration and Boehm's A6000 measurement;
:func:`~kernellab.run_kernel` runs one on the simulator. The kernels' code is in
:mod:`~kernellab.sgemm.basic` (k1–k5) and :mod:`~kernellab.sgemm.tiled` (k6–k10); their CUDA C++
twins are in ``cuda/`` at the repository root. :func:`~kernellab.sgemm.mix.kstep_mix` and
:func:`~kernellab.sgemm.mix.sass_mix` compare one pass of each kernel's K loop on the simulator
with the SASS of its twin.
"""

from .kernels import KERNELS, KernelSpec, run_kernel
from .mix import kstep_mix, sass_mix

__all__ = ["KERNELS", "KernelSpec", "kstep_mix", "run_kernel", "sass_mix"]
