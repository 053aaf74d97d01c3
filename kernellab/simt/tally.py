"""The running counts of a launch: every access and instruction is added here, then frozen into ``Counts``.

The memory counts are the pure functions of :mod:`kernellab.access` applied to each warp
instruction's :class:`~kernellab.Access`, so the SIMT simulator and mini-Triton agree.
Instruction kinds are PTX-like names: ``ld.global``, ``st.global``, ``ld.shared``, ``st.shared``
(``.v2``/``.v4`` appended for 64/128-bit accesses), ``fma``, ``bar.sync``, and any kind a kernel counts
itself with :meth:`kernellab.Block.count_instr` (see :class:`~kernellab.Counts`).
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from ..access import (
    Access,
    bytes_requested,
    ideal_sectors,
    lines,
    merged_updates,
    requests,
    sectors,
    shared_ideal_wavefronts,
    shared_wavefronts,
)
from ..counters import Counts, memory_kind
from .special import is_xu

_INT_FIELDS = tuple(f.name for f in fields(Counts) if f.type in ("int", int))
_GLOBAL_FIELDS = {op: tuple(f"{pre}_{k}" for k in ("instr", "sectors", "ideal_sectors", "lines", "bytes"))
                  for op, pre in (("load", "gld"), ("store", "gst"))}


class Tally:
    """Mutable counters for one launch.

    Examples
    --------
    >>> import numpy as np
    >>> t = Tally()
    >>> t.global_access("load", Access.from_lanes(np.arange(32) * 4), warps=1, lanes=32)
    >>> c = t.counts()
    >>> c.gld_instr, c.gld_sectors, c.gld_lines, c.warp_instr, c.instr_by_kind
    (1, 4, 1, 1, {'ld.global': 1})
    """

    def __init__(self):
        self.n = dict.fromkeys(_INT_FIELDS, 0)
        self.kinds: dict[str, int] = {}
        self.dram: dict[str, int] = {}  # array name → sectors first touched by what this tally recorded
        self.updates: dict[int, np.ndarray] = {}  # global array base address → atomic updates per element
        self.chains = [0, 0]  # the longest chain of dependent loads seen, global and shared

    def instr(self, kind: str, warps: int, lanes: int) -> None:
        """Count ``warps`` warp instructions of ``kind`` executed by ``lanes`` active lanes in all."""
        if warps:
            self.n["warp_instr"] += warps
            self.n["thread_instr"] += lanes
            self.kinds[kind] = self.kinds.get(kind, 0) + warps
            if kind in ("fadd", "fmul"):  # thread-level, as fma: Counts.flops adds them
                self.n[kind] += lanes
            elif is_xu(kind):  # a MUFU: warp-level, Nsight Compute's sm__inst_executed_pipe_xu
                self.n["xu_instr"] += warps

    def barrier(self, blocks: int, warps: int, lanes: int) -> None:
        """Count one ``__syncthreads()`` reached by ``blocks`` blocks: a ``bar.sync`` per active warp, a barrier per block."""
        self.instr("bar.sync", warps, lanes)
        self.n["barriers"] += blocks

    def fma(self, per_lane: int, warps: int, lanes: int) -> None:
        """Count ``per_lane`` fused multiply-adds on each of ``lanes`` active lanes (in ``warps`` active warps)."""
        self.n["fma"] += lanes * per_lane
        self.instr("fma", warps * per_lane, lanes * per_lane)

    def global_access(self, op: str, acc: Access, warps: int, lanes: int) -> None:
        """Count one or more global load (``op="load"``) or store instructions described by ``acc``."""
        self.global_counted(op, acc.width, warps, lanes, requests(acc), sectors(acc), ideal_sectors(acc), lines(acc),
                            bytes_requested(acc))

    def global_counted(self, op: str, width: int, warps: int, lanes: int, req: int, sec: int, ideal: int, lin: int,
                       nbytes: int) -> None:
        """Count global instructions of ``width`` bytes a lane whose counts are known: requests, sectors,
        ideal sectors, lines and bytes, as :meth:`global_access` finds them from an access."""
        self.instr(memory_kind(op, "global", width), warps, lanes)
        n = self.n
        k_instr, k_sectors, k_ideal, k_lines, k_bytes = _GLOBAL_FIELDS[op]
        n[k_instr] += req
        n[k_sectors] += sec
        n[k_ideal] += ideal
        n[k_lines] += lin
        n[k_bytes] += nbytes

    def chain(self, chain: tuple) -> None:
        """A load at the end of ``chain`` = (global, shared) dependent loads: keep the longest of each."""
        self.chains[0] = max(self.chains[0], chain[0])
        self.chains[1] = max(self.chains[1], chain[1])

    def first_touch(self, name: str, sectors: int) -> None:
        """Count ``sectors`` sectors of array ``name`` touched for the first time in the launch (per line only:
        the launch's ``dram_sectors`` is the union :class:`~kernellab.simt.memory.GlobalMemory` keeps)."""
        self.dram[name] = self.dram.get(name, 0) + sectors

    def atomic_access(self, acc: Access, warps: int, lanes: int, base: int, size: int, elements,
                      warp_of) -> None:
        """Count global atomic instructions described by ``acc``: requests, sectors, lines, bytes, and the
        updates of each element (``elements``: the active lanes' element indices into the array at ``base``,
        of ``size`` elements; ``warp_of``: each of those lanes' warp), whose largest total is
        ``atomic_same_address``. The L1 merges a warp's lanes that update the same address, 16 at a time,
        before the L2 (:func:`kernellab.access.merged_updates`), so an element gets ⌈k ÷ 16⌉ updates from a warp whose k lanes
        update it."""
        self.instr("atom.global", warps, lanes)
        self.n["atomic_requests"] += requests(acc)
        self.n["atomic_sectors"] += sectors(acc)
        self.n["atomic_lines"] += lines(acc)
        self.n["atomic_bytes"] += bytes_requested(acc)
        per_element = self.updates.get(base)
        if per_element is None:
            per_element = self.updates[base] = np.zeros(max(size, 1), np.int64)
        element, updates = merged_updates(np.asarray(elements, np.int64), np.asarray(warp_of, np.int64))
        np.add.at(per_element, element, updates)

    def shared_access(self, op: str, acc: Access, warps: int, lanes: int) -> None:
        """Count shared-memory load or store instructions: requests, wavefronts, ideal wavefronts."""
        self.shared_counted(op, acc.width, warps, lanes, requests(acc), shared_wavefronts(acc),
                            shared_ideal_wavefronts(acc))

    def shared_counted(self, op: str, width: int, warps: int, lanes: int, req: int, wavefronts: int, ideal: int) -> None:
        """Count shared-memory instructions whose requests, wavefronts and ideal wavefronts are known."""
        pre = "shld" if op == "load" else "shst"
        self.instr(memory_kind(op, "shared", width), warps, lanes)
        n = self.n
        n[pre + "_instr"] += req
        n[pre + "_wavefronts"] += wavefronts
        n[pre + "_ideal"] += ideal

    def merge(self, other: Tally) -> None:
        """Add another tally's counts into this one."""
        for k, v in other.n.items():
            self.n[k] += v
        for k, v in other.kinds.items():
            self.kinds[k] = self.kinds.get(k, 0) + v
        for k, v in other.dram.items():
            self.dram[k] = self.dram.get(k, 0) + v
        for k, v in other.updates.items():
            mine = self.updates.get(k)
            self.updates[k] = v.copy() if mine is None else mine + v
        self.chain(other.chains)

    def counts(self, dram_sectors: dict | None = None, shape: tuple = ()) -> Counts:
        """Freeze into :class:`~kernellab.Counts`."""
        n = dict(self.n)
        n["atomic_same_address"] += max((int(u.max()) for u in self.updates.values()), default=0)
        n["load_chain_global"], n["load_chain_shared"] = self.chains
        return Counts(**n, dram_sectors=dict(dram_sectors or {}), instr_by_kind=dict(self.kinds), shape=tuple(shape))

    def _row_counts(self, dram_sectors: dict | None = None, shape: tuple = ()) -> Counts:
        """A line's counts (:mod:`kernellab.lines`): its DRAM sectors are those it touched first."""
        return self.counts(self.dram, shape)
