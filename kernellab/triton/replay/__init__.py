"""Record once, replay per signature: the recorder of a launch's data flow and the cache that replays it.

:mod:`~kernellab.triton.replay.trace` records, :mod:`~kernellab.triton.replay.cache` keys and replays.
"""
