"""What a program pays outside its steady-state loop: its first loads' bytes before it can start, and its last
stores' bytes before it can retire (``t_edges``).

A program starts with loads it must wait for before its first instruction that uses them (a K loop's first tiles,
attention's Q with its first key block), and it ends with stores nothing waits for but the SM: a block's warps
retire only when their stores are acknowledged (GPGPU-Sim and Accel-Sim, whose configurations are correlated
against NVIDIA GPUs, call a warp done when ``functional_done() && stores_done()``, ``shd_warp_t::hardware_done``),
and a kernel ends only when its last block has. NVIDIA's CUTLASS documentation says of a GEMM whose SMs "process
multiple output tiles in series" that this is "completely exposing the overhead of prologue and epilogue", which
its persistent kernels hide (CUTLASS, "Blackwell Cluster Launch Control"). The Triton engine counts both edges of
each program (:mod:`kernellab.triton.executor.rounds`): ``first_round_bytes``, the bytes it loads before its first
wait, and ``last_store_bytes``, the bytes it stores or updates atomically after its last.

The estimate already pays an edge's *latency*: the launch's first round trip (``t_fill``), a round trip for each
later program of an SM that holds one at a time (``t_starts``), and the launch's end in the measured cost of a
launch (``Perf.launch_cold_s``, a whole tiny kernel, its stores' acknowledgement included). It did not pay an
edge's *bytes*, which move while no program's loop runs on the SM. The busiest SM moves them at its share of the
L2 when every SM is busy (``Perf.l2_bw`` and ``Perf.l2_write_bw`` ÷ the GPU's SMs: the condition the rates were
measured in; what one SM draws alone is not measured):

* its first wave's first rounds (``resident`` programs), before any loop on it starts;
* its last turn's last stores, after every loop on it has ended.

Between them nothing is charged. Where an SM holds two programs or more, one program's loop covers another's edges,
as in a persistent kernel. Where it holds one at a time, each hand-over (the finished program's last stores, their
acknowledgement, the next one's first round) would leave the SM idle only if the other SMs' programs keep the L2 as
busy as the rate assumes at that moment, and how many SMs hand over together is not in the counts: equal tiles of
a GEMM hand over nearly in lockstep, programs serialised by a spin lock do not. Charged at an SM's share of a busy
L2, the hand-overs put tutorial 05's layer-norm backward dx kernel at N 8192 on an A100 (38 programs an SM, one at a
time) above Triton's own measurement of the whole call, dx and dW/dB together (``docs/model.md``, *Outside the
loop*), so they are not charged.

Only a program of more than one round has a loop to be outside of: a program of one round (an elementwise kernel, a
softmax row) is all edge, and the latency path and the L2 queue already price its one round (the caller,
:func:`kernellab.model.estimate.estimate_terms`, charges none). The term is added to the paths that follow a
program's timeline (the pipes with their starts, and the latency path), not to the bandwidth terms, which count
these bytes among the launch's. A launch whose engine did not record its edges (the SIMT engine, counts made by
hand) pays none.
"""

from __future__ import annotations

from ..specs import Perf
from .persm import Distribution

__all__ = ["edges"]


def edges(info: dict, perf: Perf, dist: Distribution) -> float:
    """``t_edges``, seconds (see the module): on the busiest SM, its first ``resident`` programs' first rounds at
    ``Perf.l2_bw`` ÷ SMs and its last turn's programs' last stores at ``Perf.l2_write_bw`` ÷ SMs. 0 without the
    launch's record (``info``: ``counts.launch``) or a measured L2 rate.

    A 1024³ fp16 matmul in 128 × 64 tiles on an H100 (132 SMs; 9.9 TB/s reads, 4.5 TB/s writes): 128 programs,
    one an SM, each loading a 12,288-byte round (128 × 32 + 32 × 64 halves) before its first dot and storing its
    16,384-byte tile (128 × 64 halves) last: 12,288 B ÷ (9.9 TB/s ÷ 132) + 16,384 B ÷ (4.5 TB/s ÷ 132)
    = 0.16384 + 0.48060 = 0.6444 µs. Twice as many programs, with 200 KB of shared memory each (two an SM, one at a
    time), pay the same: the first one's first round and the second one's last stores, and nothing for the
    hand-over between them (see the module). Three an SM, two at a time (100 KB each; turns of 2 and 1): the first
    two's first rounds and the last one's stores, 2 × 0.16384 + 0.48060 = 0.8083 µs:

    >>> from kernellab.model.persm import distribute
    >>> from kernellab.specs import H100, PERF_H100
    >>> info = {"first_round_bytes": 12288.0, "last_store_bytes": 16384.0}
    >>> one = distribute(H100, 128, threads=128, regs=174, smem=4 * 12288)
    >>> round(edges(info, PERF_H100, one) * 1e6, 4)
    0.6444
    >>> two = distribute(H100, 256, threads=128, regs=174, smem=200_000)
    >>> two.per_sm, two.resident, round(edges(info, PERF_H100, two) * 1e6, 4)
    (2, 1, 0.6444)
    >>> three = distribute(H100, 3 * 132, threads=128, regs=174, smem=100_000)
    >>> three.per_sm, three.resident, round(edges(info, PERF_H100, three) * 1e6, 4)
    (3, 2, 0.8083)
    >>> edges({}, PERF_H100, one)                                      # no record: nothing charged
    0.0
    """
    head, tail = info.get("first_round_bytes"), info.get("last_store_bytes")
    if head is None or tail is None or dist.programs is None or not perf.l2_bw:
        return 0.0
    read = perf.l2_bw / perf.sms  # an SM's share of the L2 when every SM is busy
    write = (perf.l2_write_bw or perf.l2_bw) / perf.sms
    resident = dist.resident
    last = dist.per_sm - (-(-dist.per_sm // resident) - 1) * resident  # the programs of the SM's last turn
    return resident * head / read + last * tail / write
