"""The tiles a tensor descriptor's ``load`` left in shared memory (sm_90), for the ``wgmma`` or ``store`` that
reads them there: their loads into the registers are taken back, once.

:mod:`~kernellab.triton.language.descriptors` notes each tile it loads (:func:`loaded`); ``tl.dot``
(:mod:`~kernellab.triton.language.core`) asks :func:`tma_tile` of its operands.
"""

from __future__ import annotations

from kernellab import lines

from ..executor.program import current


def loaded(t, n: int, prog) -> None:
    """Note on ``t`` that it is a ``desc.load``'s tile, read into the registers with ``n`` ld.shared a thread.

    The note is the tile's own (``t._tma``): it lasts as long as the tile, whatever else the launch loads (a
    table of notes kept across steps and launches would tie the counts to how many tiles came before)."""
    t._tma = (n, lines.here(prog.tally))


def stored(t) -> tuple | None:
    """The note of ``t`` if it is a ``desc.load``'s tile, unchanged (a ``desc.store`` of it keeps it in shared
    memory), else None."""
    return getattr(t, "_tma", None)


def tma_tile(t) -> bool:
    """Whether ``t`` is a ``desc.load``'s tile, unchanged, that a ``wgmma`` then reads where the TMA copy
    left it in shared memory (sm_90): its loads into the registers are taken back (once)."""
    note = getattr(t, "_tma", None)
    if note is None:
        return False
    t._tma = None
    give_back(current(), note)
    return True


def give_back(prog, note) -> None:
    """Take back the ld.shared a ``desc.load`` counted for its tile (``note``: loads a thread, line), on the
    load's own line when counting per line, so no line shows a negative count."""
    args = (0, -note[0] * prog.num_warps * prog.P)
    if not lines.take_back(prog.tally, note[1], "shared_sm90", *args):
        prog.tally.shared_sm90(*args)
