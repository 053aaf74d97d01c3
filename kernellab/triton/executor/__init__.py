"""The mini-Triton's executor: runs a launch's programs on blocks of values, moves data between blocks and
arrays, and counts what each program does.

:mod:`~kernellab.triton.executor.engine` runs the programs under a launch's
:mod:`~kernellab.triton.executor.policy`, :mod:`~kernellab.triton.executor.program` holds one step's state,
:mod:`~kernellab.triton.executor.tensor` the blocks, :mod:`~kernellab.triton.executor.view` the offsets of an
access, :mod:`~kernellab.triton.executor.memory` the loads and stores, :mod:`~kernellab.triton.executor.counts`
the counts.
"""
