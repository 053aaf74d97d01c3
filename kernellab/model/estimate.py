"""The times of one launch on each resource of its busiest SM and of the device, and the estimate built from them.

``predict`` (:mod:`kernellab.model.bounds`) parses its arguments, then calls :func:`sm_times` and :func:`estimate_terms`. Every time
here is charged on the **busiest SM** (:mod:`kernellab.model.persm`: the share of the launch's work the SM
that runs the most programs does, ``Distribution.share``) at the rate of the sub-partitions its warps
occupy, except DRAM, L2 and the atomic units, which every SM shares.

**The bound** (``times``, no fitted constant): each resource's events on the busiest SM ÷ its rate. Nothing
runs faster than its busiest resource allows, so a measurement above the bound proves the model wrong.

**The estimate** adds what a real launch pays besides (each term below has its mechanism and source):

* a program's ``tl.dot`` work and the SIMT work on its results wait for each other, one after the other
  (``serial``); a warp-specialised loop of sm_90 ``wgmma`` is pipelined in two stages (``pipelined``), as
  FlashAttention-3's consumer warpgroup is (Shah et al. 2024, Algorithm 2): the softmax runs beside the dots
  fed by a dot's result (p·v), not beside the q·kᵀ it waits for (``_serial``), and each program pays the
  pipeline's two ends, its first softmax and its last p·v with nothing beside them (``_ends``). (A candidate not chosen,
  ``OVERLAP = ["async"]``, runs those dots beside the SIMT work without warp specialisation too: an
  asynchronous ``wgmma`` waited at its next use, Triton's ``asyncLaunchDots``);
* the pipes the warp schedulers feed run at a fitted efficiency per family: ``Perf.eta`` for the SIMT
  pipes (FP32, XU, issue, shared memory, MIO; Boehm's SGEMMs), ``Perf.eta_mma`` for ``mma.sync`` and
  ``Perf.eta_wgmma`` for ``wgmma`` Tensor Core work;
* DRAM delivers its measured sustained share of the spec sheet (``Perf.dram_efficiency``), and only what
  a cold L2 cannot supply: a warm launch (``timer="cudagraph"``, ``"stream"``) whose footprint fits in L2
  reads it from L2 (``Perf.l2_bw``);
* L2 serves the sectors the SMs send it (:func:`l2_traffic`, Nsight Compute's ``lts__t_sectors``): loads at
  ``Perf.l2_bw``, stores and atomics at ``Perf.l2_write_bw``, one after the other (the L2's slices serve both);
* latency, by Little's law: a program waits for its loads ``rounds`` times (a round: loads issued together,
  then used), each a round trip (``Perf.dram_latency_cycles`` for data from DRAM, ``l2_latency_cycles``
  from L2), plus its own pipe time at the share of the SM its warps can use; the busiest SM holds
  ``resident`` programs at once, so it runs ``⌈per_sm ÷ resident⌉`` such critical paths one after another
  (``t_latency_path``). A round trip from DRAM is loaded: the unloaded one plus the queueing delay measured on
  the same memory system at the utilisation the launch's own DRAM bytes make over its time
  (:mod:`kernellab.model.loaded`; ``t_round`` is that round trip). A launch whose pipes or DRAM bind still
  waits one unloaded round trip before its first bytes arrive (``t_fill``); where one program fills an SM
  (``resident`` 1), each later program on it waits a round trip for its first loads too, with nothing else on
  the SM to run, so the pipes pay ``t_starts`` = ``t_fill`` + (⌈per_sm ÷ resident⌉ − 1) × ``t_round`` (with two or
  more resident, one program's work covers another's wait: the latency path's Little's law);
* a spin lock's critical sections one after another (``t_lock``, :mod:`kernellab.model.locks`): the longest
  chain of hand-overs, round trips and bytes of the programs that take one lock;
* with a ``LoopShape`` (the SIMT SGEMMs), the K loop's exposed latency of :mod:`kernellab.model.latency`.

* the L2 as a closed queue of each SM's load rounds (``t_l2_queue``, :mod:`kernellab.model.l2queue`): the
  bandwidth is reached only if the programs keep enough rounds in flight (the bound name ``"L2 queue"``);
* what a program pays outside its steady state (``t_edges``, :mod:`kernellab.model.edges`): the bytes of the busiest
  SM's first wave's first loads and of its last turn's last stores (not its hand-overs: the module says why).

``estimate_time`` = max(pipes + starts + edges, latency path + edges, DRAM + fill, L2, L2 queue, atomics, lock chain),
or the pipes plus the K loop's exposed latency with a ``LoopShape``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..grid import cdiv
from ..specs import Perf
from .edges import edges
from .l2queue import hit_round_trip, sm_queue
from .loaded import loaded_time
from .locks import t_lock
from .persm import Distribution

__all__ = ["estimate_terms", "l2_seconds", "l2_traffic", "sm_times", "tensor_kind"]

#: The resources in the order ties are broken, as bound name → (result key, what is counted, rate field);
#: :mod:`kernellab.model.bounds` exports it.
RESOURCES = {
    "FMA": ("t_fma", "FP32 FMA, add and multiply instructions (thread level)", "fma_per_sm_cycle"),
    "tensor": ("t_tensor", "Tensor Core FLOPs of tl.dot (mma.sync / wgmma), FP16-equivalent", "tensor_flops"),
    "XU": ("t_xu", "special-function (MUFU) results: warp instructions × 32 lanes", "xu_per_sm_cycle"),
    "issue": ("t_issue", "warp instructions, every kind", "issue_per_sm_cycle"),
    "L1": ("t_l1", "128-byte global lines loaded and stored", "l1_lines_per_sm_cycle"),
    "shared": ("t_smem", "shared-memory wavefronts, loads and stores", "smem_wavefronts_per_sm_cycle"),
    "MIO": ("t_mio", "load and store instructions, global and shared (LSU)", "mio_per_sm_cycle"),
    "DRAM": ("t_dram", "DRAM bytes (compulsory, or the wave model's with a LoopShape)", "dram_bw"),
    "atomic": ("t_atomic", "atomic updates of the most-updated address (the L2 serialises them)",
               "atomic_same_address_per_cycle"),
}


def tensor_kind(counts, target: str) -> str | None:
    """Which Tensor Core instruction a launch's dots compiled to: ``"wgmma"``, ``"mma"`` (``mma.sync``) or None.

    sm_80 and sm_86 have ``mma.sync`` only. On sm_90 Triton emits ``wgmma`` for a dot of at least 4 warps and 64
    rows and ``mma.sync`` otherwise; ``mma_sm90`` counts either, per warp, and ``wgmma_sm90`` the ``wgmma`` among
    them, so a launch that holds any is ``wgmma``. (Fewer sm_90 than sm_80 instructions does not tell: an fp8
    ``mma.sync`` on sm_90 is m16n8k32, half the count of sm_80's m16n8k16 on the inputs converted to fp16.)
    """
    mma80 = getattr(counts, "mma_sm80", 0)
    if not mma80:
        return None
    if target != "sm_90":
        return "mma"
    kind = "wgmma" if getattr(counts, "wgmma_sm90", 0) > 0 else "mma"
    fp8 = bool((getattr(counts, "launch", None) or {}).get("fp8"))
    return ("fp8-" + kind) if fp8 else kind


def _rate(resource: str, perf: Perf, clock_hz: float, kind: str | None) -> float:
    """Events per second one SM (all four sub-partitions) serves on ``resource``."""
    if resource == "tensor":  # the spec sheet's peak at its own clock, per SM
        return perf.tensor_flops / perf.sms * (perf.mma_sync_share if kind in ("mma", "fp8-mma") else 1.0) * \
            (perf.gpu.fp8_tensor_peak / perf.gpu.fp16_tensor_peak if kind in ("fp8-wgmma",) else 1.0)
    return getattr(perf, RESOURCES[resource][2]) * clock_hz  # per SM per cycle × cycles a second


def _subpartition_share(resource: str, subpartitions: int, kind: str | None) -> float:
    """The share of an SM's rate on ``resource`` that warps on ``subpartitions`` of the four sub-partitions get."""
    if resource in ("FMA", "XU", "issue") or (resource == "tensor" and kind not in ("wgmma", "fp8-wgmma")):
        return subpartitions / 4
    return 1.0


SM_RESOURCES = ("FMA", "tensor", "XU", "issue", "L1", "shared", "MIO")
#: The overlap model, one of the candidates the validation decides between. With "max" every pipe overlaps every
#: other; with "serial" a program's Tensor Core work and its SIMT work (FP32, XU, issue) wait for each other
#: unless it is warp-specialised; "async" is "serial" with sm_90's dots fed by a dot's result beside the SIMT work
#: (``_serial``). Validation (47 scored rows, the harness of e84eab2): "serial" 55 % / 87 % within
#: [0.8, 1.25] / [0.5, 2], geometric mean 0.767; "async" the same shares, 0.720; on the five rows whose kernel
#: is the measured Triton tutorial (AF-03, -04, -13, -14, -17) the mean absolute log of the ratio is 0.15 with "serial" and 0.29
#: with "async" (long sequences better, short ones worse): "serial" is kept. Either way a warp-specialised loop
#: of ``wgmma`` is pipelined (FlashAttention-3's two stages): against the four FlashAttention-3 forward rows
#: AF-05, -06, -08, -11 the ratios were 0.578, 0.741, 0.860, 0.975 when it overlapped everything, and are
#: 0.792, 1.06, 1.20, 1.22 pipelined (validation of 2026-12-07, nothing fitted).
OVERLAP = ["serial"]


def sm_times(events: dict, perf: Perf, clock_hz: float, dram_bytes: int, dist: Distribution,
             kind: str | None) -> dict:
    """Seconds on each resource (``predict``'s ``t_*`` keys): the busiest SM's share of the events ÷ the SM's
    rate at the sub-partitions it uses; DRAM bytes ÷ the spec sheet's bandwidth; same-address atomics ÷ the
    L2's one update of an address per clock."""
    out = {}
    for resource, (key, _what, rate) in RESOURCES.items():
        if resource == "DRAM":
            out[key] = dram_bytes / perf.dram_bw
        elif resource == "atomic":
            out[key] = events[resource] / (getattr(perf, rate) * clock_hz)
        else:
            share = _subpartition_share(resource, dist.subpartitions, kind)
            out[key] = events[resource] * dist.share / (_rate(resource, perf, clock_hz, kind) * share)
    return out


def _eta(resource: str, perf: Perf, eta_simt: float, kind: str | None) -> float:
    if resource == "tensor":
        return perf.eta_wgmma if kind in ("wgmma", "fp8-wgmma") else perf.eta_mma
    return 1.0 if resource == "L1" else eta_simt


@dataclass(frozen=True)
class LatencyPath:
    """The busiest SM's latency path as a function of the round trip (seconds to seconds): ``in_turn`` critical
    paths of one program one after another, each the longer of the round trips its loads leave exposed
    (``_exposed``) and its longest chain of dependent loads, plus its own pipe time ``t_alone``. Frozen and
    compared by value: the loaded round trip of equal paths is computed once (``_loaded_round_trip``), so
    everything the path reads is a field.

    A program of 3 rounds, none at a ``tl.dot``, 1 µs of its own work and no load chain, 2 programs in turn,
    at a 500 ns round trip: 2 × (3 × 0.5 µs + 1 µs) = 5 µs; a chain of 8 dependent global loads and 100 ns of
    shared ones is longer: 2 × (8 × 0.5 µs + 0.1 µs + 1 µs) = 10.2 µs:

    >>> LatencyPath(3.0, 0.0, 1, True, 1e-6, 0, 0.0, 2.0)(500e-9) * 1e6
    5.0
    >>> round(LatencyPath(3.0, 0.0, 1, True, 1e-6, 8, 100e-9, 2.0)(500e-9) * 1e6, 9)
    10.2
    """

    rounds: float  # round trips one program waits for (see the module)
    dot_rounds: float  # of those, a K loop's trips at a tl.dot (the pipeliner's)
    stages: int  # the K loop's num_stages (1: not pipelined)
    loads: bool  # whether the launch loads at all (without loads no round trip is exposed)
    t_alone: float  # s, one program's own pipe time on the sub-partitions its warps occupy
    chain_global: int  # global loads in one thread's longest chain of dependent loads (Counts.load_chain_global)
    t_chain_shared: float  # s, that chain's shared loads (Counts.load_chain_shared) × Perf.shared_latency_cycles ÷ clock
    in_turn: float  # critical paths the busiest SM runs one after another: ⌈per_sm ÷ resident⌉ − 1 + the heaviest's share

    def chain(self, round_trip: float) -> float:
        """Seconds of one thread's longest chain of dependent loads (a load waiting for the load that gave its
        address) when a global round trip takes ``round_trip``: its global loads × ``round_trip`` + its shared
        loads' time. The engines record the chain (``Counts.load_chain_global``/``_shared``)."""
        return self.chain_global * round_trip + self.t_chain_shared

    def critical(self, round_trip: float) -> float:
        """One program's critical path when a round trip takes ``round_trip``."""
        exposed = _exposed(self.rounds, self.dot_rounds, self.stages, round_trip if self.loads else 0.0,
                           self.t_alone)
        return max(exposed, self.chain(round_trip)) + self.t_alone

    def __call__(self, round_trip: float) -> float:
        return self.in_turn * self.critical(round_trip)


@dataclass(frozen=True)
class WithStarts:
    """The busiest SM's time as a function of the round trip (seconds to seconds): the longer of its latency path
    and its pipes with the round trips its programs' starts leave it idle, ``t_pipes + t_fill + turns × round trip``
    (``turns``: the later programs of an SM that holds one at a time, else 0). The loaded round trip is the fixed
    point over this (``_loaded_path``); frozen and compared by value, as :class:`LatencyPath` is.

    Pipes and fill 10 µs, 3 later turns, a latency path of 2 programs × (1 µs + the round trip): at a 500 ns round
    trip the pipes and starts, 10 + 3 × 0.5 = 11.5 µs; with no later turn the path would not reach the pipes:

    >>> path = LatencyPath(1.0, 0.0, 1, True, 1e-6, 0, 0.0, 2.0)
    >>> round(WithStarts(path, 10e-6, 3)(500e-9) * 1e6, 9), round(WithStarts(path, 1e-6, 0)(500e-9) * 1e6, 9)
    (11.5, 3.0)
    """

    path: LatencyPath  # the busiest SM's latency path
    t_pipes_fill: float  # s, the busiest SM's pipes (their overlap included) and the launch's first round trip
    turns: int  # later programs whose first loads leave the SM idle (one program a SM at a time), else 0

    def __call__(self, round_trip: float) -> float:
        return max(self.path(round_trip), self.t_pipes_fill + self.turns * round_trip)


def estimate_terms(counts, events: dict, times: dict, perf: Perf, clock_hz: float, dist: Distribution,
                   kind: str | None, eta_simt: float, cold: bool, dram_bytes: int) -> dict:
    """The estimate's terms, seconds, at ``clock_hz`` (see the module): ``t_pipes`` (the busiest SM's slowest
    pipe at its fitted efficiency), ``t_dram_est`` (DRAM at its sustained share, or 0 from a warm L2),
    ``t_l2``, ``t_round`` (one round trip of this launch's loads), ``t_critical`` (one program's critical path),
    ``t_latency_path``, ``t_fill`` and ``estimate_time``; and ``estimate_bound``, the term that sets it."""
    pipes = {r: times[RESOURCES[r][0]] / _eta(r, perf, eta_simt, kind) for r in SM_RESOURCES}
    t_pipes = max(pipes.values())
    info = getattr(counts, "launch", None) or {}
    specialised = bool(info.get("warp_specialize"))
    if OVERLAP[0] in ("serial", "async") and pipes["tensor"] and dist.programs and \
            (not specialised or kind in ("wgmma", "fp8-wgmma")):
        simt = _dependent_simt(info, perf, clock_hz, dist, eta_simt)
        share = _accumulated_share(counts, info, dist) if (specialised or OVERLAP[0] == "async") else 0.0
        serial = _serial(pipes["tensor"], simt, share, kind)
        serial += _ends(pipes["tensor"] * share, simt, info.get("dot_trips", 0.0), kind)
        if serial > t_pipes:  # the Tensor Core and SIMT phases of a program wait for each other
            key = "pipelined" if specialised else "serial"
            pipes[key] = serial
            t_pipes = serial
    footprint = dram_bytes
    warm_hit = (not cold) and perf.gpu.l2_bytes and footprint <= perf.gpu.l2_bytes
    t_dram = 0.0 if warm_hit else dram_bytes / (perf.dram_bw * perf.dram_efficiency)
    t_l2 = l2_seconds(counts, perf, footprint if warm_hit else 0)
    loads = events["MIO"] > 0
    latency = (perf.l2_latency_cycles if warm_hit else perf.dram_latency_cycles) / clock_hz
    t_round = latency if loads else 0.0
    rounds, dot_rounds = _rounds(info, loads)
    heavy = max(1.0, info.get("rounds_max", rounds) / rounds) if rounds else 1.0  # the slowest program's share
    # one program alone: its share of the launch's events, on the sub-partitions its own warps occupy
    programs = dist.programs
    if programs is None:
        t_alone = 0.0
    else:
        alone = min(4, dist.warps)
        t_alone = max((events[r] / programs) / (_rate(r, perf, clock_hz, kind) * _subpartition_share(r, alone, kind))
                      / _eta(r, perf, eta_simt, kind) for r in SM_RESOURCES)
    stages = int(info.get("loop_stages") or info.get("num_stages", 1))
    n_rounds = cdiv(dist.per_sm, dist.resident) if programs is not None else 1

    path = LatencyPath(rounds, dot_rounds, stages, loads, t_alone, getattr(counts, "load_chain_global", 0),
                       getattr(counts, "load_chain_shared", 0) * perf.shared_latency_cycles / clock_hz,
                       n_rounds - 1 + heavy)
    t_fill = t_round  # the first round trip, before anything queues

    # one program a SM: each later program waits for its first loads with nothing else on the SM to run
    alone_on_sm = programs is not None and dist.resident == 1
    others = {"DRAM": t_dram + t_fill if t_dram else 0.0, "L2": t_l2,
              "atomic": times["t_atomic"], "lock": t_lock(counts, perf, clock_hz)}
    turns = n_rounds - 1 if loads and alone_on_sm else 0
    _t, round_trip = _loaded_path(WithStarts(path, t_pipes + t_fill, turns), max(others.values()), latency, perf,
                                  dram_bytes if loads and not warm_hit else 0)
    t_path, t_starts = path(round_trip), t_fill + turns * round_trip
    t_critical, chain = path.critical(round_trip), path.chain(round_trip)
    t_round = round_trip if loads else 0.0
    t_queue = _l2_queue(counts, perf, clock_hz, dist, rounds, dot_rounds, stages, t_alone,
                        0 if warm_hit else dram_bytes, round_trip) if loads and programs is not None else 0.0
    others["L2 queue"] = t_queue
    t_edges = edges(info, perf, dist) if rounds > 1 else 0.0
    terms = {"pipes": t_pipes + t_starts + t_edges, "latency": t_path + t_edges, **others}
    bound = max(terms, key=terms.get)
    binding = max(pipes, key=pipes.get) if bound == "pipes" else bound
    waits = t_starts if bound == "pipes" else t_fill
    if bound in ("pipes", "DRAM") and waits > terms[bound] - waits:  # the round trips outweigh the work
        binding = "latency"
    return {"t_pipes": t_pipes, "t_dram_est": t_dram, "t_l2": t_l2, "t_round": t_round, "rounds": rounds,
            "t_chain": chain, "t_lock": terms["lock"], "t_starts": t_starts,
            "t_critical": t_critical, "t_latency_path": t_path, "t_fill": t_fill, "t_l2_queue": t_queue,
            "t_edges": t_edges,
            "estimate_time": terms[bound],
            "estimate_bound": binding}


def _l2_queue(counts, perf: Perf, clock_hz: float, dist: Distribution, rounds: float, dot_rounds: float,
              stages: int, t_alone: float, dram_bytes: int, dram_trip: float) -> float:
    """``t_l2_queue``: the busiest SM's rounds at the throughput of its closed queue at the L2
    (:mod:`kernellab.model.l2queue`); 0 where the GPU's L2 rate was not measured or nothing is loaded through it.
    ``dram_trip`` is the launch's (loaded) DRAM round trip, paid by the share of round trips that first touch a
    byte (``dram_bytes`` of the loaded bytes), the rest at ``Perf.l2_latency_cycles``."""
    loaded = l2_traffic(counts)[0]
    if not perf.l2_bw or not loaded or not rounds:
        return 0.0
    trip = hit_round_trip(loaded, dram_bytes, perf.l2_latency_cycles / clock_hz, dram_trip)
    queue = sm_queue(dist, rounds, dot_rounds, stages, loaded, perf.l2_bw, t_alone, trip)
    return queue.time(dist.per_sm * rounds)


def l2_traffic(counts) -> tuple[int, int]:
    """Bytes the SMs send the L2 (Nsight Compute's ``lts__t_sectors_srcunit_tex``, 32-byte sectors × 32): (loaded,
    stored), atomics counted with the stores.

    * A store moves a sector to L2 whatever share of it the lanes write: L1 is write-through for global stores
      on sm_70 and later, so every stored sector of every request reaches the L2 (``store_sectors``), a warp
      that writes 4 useful bytes into each of 32 sectors sends 32 sectors. Atomics (``atomic_sectors``) are
      performed at the L2.
    * Loads: a mini-Triton launch's requested sectors (``load_sectors``: its programs share tiles through L2,
      ``tl.dot`` operands go through shared memory). A SIMT launch's loads are cached in L1, whose hits the
      counts do not separate from its misses. What L1 sends lies between the distinct sectors the launch loads
      (each crosses L2 at least once: L1 starts a launch empty) and the requested ones (``load_sectors``); the
      counts hold the distinct sectors of every array, loaded or stored (``dram_sectors``), so the sectors
      charged are the fewer of those and the requested ones. Exact for a launch that loads each sector once
      and stores elsewhere (a copy, a transpose, an elementwise kernel); too few for blocks that re-read what
      L1 no longer holds (a tiled SGEMM's panels, read by many blocks), too many for a launch that re-reads a
      small array from L1 while storing a large one.

    >>> from kernellab import Counts
    >>> naive_transpose_warp = Counts(gld_sectors=4, gst_sectors=32, dram_sectors={"A": 4, "B": 32})
    >>> l2_traffic(naive_transpose_warp)      # 4 sectors loaded, 32 stored (4 useful bytes each) × 32 B
    (128, 1024)
    """
    if hasattr(counts, "dot_flops"):
        loaded = counts.load_sectors
    else:
        loaded = min(counts.gld_sectors, sum(counts.dram_sectors.values()))
    return 32 * loaded, 32 * (counts.store_sectors + counts.atomic_sectors)


def l2_seconds(counts, perf: Perf, resident: int = 0) -> float:
    """Seconds the L2 takes to serve a launch (``t_l2``): its loaded bytes (:func:`l2_traffic`) at ``Perf.l2_bw``
    plus its stored bytes at ``Perf.l2_write_bw`` (``l2_bw`` where no store rate was measured), in turn, as the
    L2's slices serve both; at least ``resident`` bytes (a warm launch's footprint, read from L2) at
    ``l2_bw``. 0 on a GPU whose L2 rate was not measured.

    On the H100 (9.9 TB/s loads, 4.5 TB/s stores), a warp of the naive transpose, 4 sectors loaded and 32
    stored: 128 B ÷ 9.9 TB/s + 1024 B ÷ 4.5 TB/s = 0.01293 + 0.22756 = 0.24048 ns:

    >>> from kernellab import Counts
    >>> from kernellab.specs import PERF_H100
    >>> f"{l2_seconds(Counts(gld_sectors=4, gst_sectors=32, dram_sectors={'A': 4, 'B': 32}), PERF_H100) * 1e9:.4f} ns"
    '0.2405 ns'
    """
    if not perf.l2_bw:
        return 0.0
    loaded, stored = l2_traffic(counts)
    t = loaded / perf.l2_bw + stored / (perf.l2_write_bw or perf.l2_bw)
    return max(t, resident / perf.l2_bw)


def _loaded_path(path: LatencyPath | WithStarts, t_other: float, latency: float, perf: Perf,
                 dram_bytes: int) -> tuple[float, float]:
    """``(latency path, round trip)``: the busiest SM's latency path ``path(round trip)`` with a DRAM round trip
    under the launch's own load (:func:`kernellab.model.loaded.loaded_time`: ``latency`` plus the queueing delay
    measured at the utilisation its ``dram_bytes`` make of the sustained bandwidth over its time, the other
    terms' ``t_other`` or longer); without DRAM bytes (nothing from DRAM, or a warm L2's hits) the round trip is
    ``latency``."""
    if not dram_bytes:
        return path(latency), latency
    round_trip = _loaded_round_trip(path, t_other, dram_bytes, perf.dram_bw * perf.dram_efficiency, latency,
                                    perf.gpu.name)
    return path(round_trip), round_trip


@lru_cache(maxsize=4096)
def _loaded_round_trip(path: LatencyPath | WithStarts, t_other: float, dram_bytes: int, sustained_bw: float, latency: float,
                       gpu_name: str) -> float:
    """:func:`~kernellab.model.loaded.loaded_time`'s round trip, remembered. It is a pure function of these values
    (``path`` is frozen and compared by value; the measured curves are constants), and its fixed point costs 60
    evaluations of the path, which the same launch asks for again and again: ``predict`` at three clocks, the SGEMM
    study once per table and per refitted η, and ``latency_window``'s scan of ``Perf.latency_s`` (which the
    round trip does not read) 91 times. Lecture 10's autotuning page asks 1,260 times for 218 round trips.
    Equal keys give equal results: ``==`` on floats and ints is value equality, the only equal floats that could
    differ are ±0, and nothing here is negative."""
    # with the starts, the path is never below the pipes and the first round trip (turns × round trip ≥ 0)
    floor = path.t_pipes_fill if isinstance(path, WithStarts) else None
    return loaded_time(path, t_other, dram_bytes, sustained_bw, latency, gpu_name, floor)[1]


def _rounds(info: dict, loads: bool) -> tuple[float, float]:
    """Round trips a program waits for (see the module), and those at a ``tl.dot``: the launch's ``rounds`` and
    ``dot_rounds`` per program when the engine recorded them (:mod:`kernellab.triton.executor.rounds`), else one for a
    program that loads (it loads, then uses what it loaded), none of them at a dot."""
    r = info.get("rounds")
    if r is not None:
        return float(r), float(info.get("dot_rounds", 0.0))
    return (1.0 if loads else 0.0), 0.0


def _exposed(rounds: float, dot_rounds: float, stages: int, t_round: float, t_alone: float) -> float:
    """The round-trip time one program's loads leave uncovered by its own work.

    A round that is not a ``tl.dot``'s costs its round trip in full. The rounds at a ``tl.dot`` are a K loop's
    trips, whose loads Triton's software pipeliner issues ``stages − 1`` trips ahead (``num_stages``): after
    the first round trip fills the pipeline, a trip waits only for what ``stages − 1`` trips of work did not
    cover, ``max(0, L ÷ (stages − 1) − C)``, with C the program's work per trip. One stage is no pipelining.
    """
    plain = max(0.0, rounds - dot_rounds) * t_round
    if dot_rounds <= 0:
        return plain
    if stages <= 1:
        return plain + dot_rounds * t_round
    work = t_alone / dot_rounds
    return plain + t_round + dot_rounds * max(0.0, t_round / (stages - 1) - work)


def _accumulated_share(counts, info: dict, dist: Distribution) -> float:
    """The share of a program's ``tl.dot`` FLOPs in dots fed by a dot's result (an operand or the accumulator)
    (``dot_accumulated_flops`` per program, :func:`kernellab.triton.executor.rounds.accumulated`), 0 without a record."""
    per_program = getattr(counts, "dot_flops", 0) / dist.programs
    return min(1.0, info.get("dot_accumulated_flops", 0.0) / per_program) if per_program else 0.0


def _serial(t_tensor: float, t_simt: float, accumulated: float, kind: str | None) -> float:
    """A program's Tensor Core time ``t_tensor`` and its SIMT work on dot results ``t_simt`` in turn. On sm_90
    (``wgmma``) the dots fed by a dot's result (share ``accumulated``) are asynchronous, waited at
    their next use (:func:`kernellab.triton.executor.rounds.accumulated`): they run beside the SIMT work,
    ``t_tensor·(1 − a) + max(t_tensor·a, t_simt)``; ``mma.sync`` is synchronous, ``t_tensor + t_simt``.

    A warp-specialised loop is charged so (``estimate_terms`` passes its share): FlashAttention-3's consumer
    warpgroup (Shah et al. 2024, Algorithm 2, "intra-warpgroup overlapping GEMMs and softmax") issues the next
    block's q·kᵀ with this block's p·v, waits for q·kᵀ and computes the softmax while p·v runs; p·v is the dot
    fed by a dot's result. Without warp specialisation the share is 0 (``OVERLAP``): the dots, then the SIMT work.

    >>> _serial(10.0, 8.0, 0.5, "wgmma"), _serial(10.0, 8.0, 0.5, "mma")      # attention: p·v beside the softmax
    (13.0, 18.0)
    """
    if kind not in ("wgmma", "fp8-wgmma"):
        return t_tensor + t_simt
    beside = t_tensor * accumulated
    return t_tensor - beside + max(beside, t_simt)


def _ends(t_fed: float, t_simt: float, trips: float, kind: str | None) -> float:
    """What a pipelined ``wgmma`` loop's first and last trips add to :func:`_serial`'s steady state: one
    trip's shorter half, ``min(t_fed, t_simt) ÷ trips`` (``t_fed``: the busiest SM's time in the dots fed by a
    dot's result, 0 for a loop run in turn; ``trips``: a program's trips of its loops holding a dot, ``dot_trips``;
    0 without a record). ``mma.sync`` is synchronous: nothing runs beside it, so it has no ends to pay.

    FlashAttention-3's Algorithm 2 (Shah et al. 2024, arXiv 2407.08608) starts with a prologue that nothing overlaps: q·kᵀ of the
    first key block, waited, then its softmax with no p·v beside it; and it ends with the last p·v, waited, with
    no softmax beside it. In between, each of the n − 1 trips costs q·kᵀ + max(p·v, softmax). A program of n
    trips therefore costs n·q·kᵀ + (n − 1)·max + softmax + p·v = n·(q·kᵀ + max) + min(p·v, softmax): one
    trip's shorter half more than n steady trips, which weighs 1/n of the loop.

    >>> _ends(2.0, 8.0, 4, "wgmma"), _ends(2.0, 8.0, 0, "wgmma"), _ends(2.0, 8.0, 4, "mma")
    (0.5, 0.0, 0.0)
    """
    if kind not in ("wgmma", "fp8-wgmma") or trips <= 0:
        return 0.0
    return min(t_fed, t_simt) / trips


def _dependent_simt(info: dict, perf: Perf, clock_hz: float, dist: Distribution, eta_simt: float) -> float:
    """Seconds the busiest SM spends on the SIMT work that depends on ``tl.dot`` results (the launch's
    ``dot_dependent_flops`` and ``dot_dependent_xu`` per program, :func:`kernellab.triton.executor.rounds.dependent`):
    the slowest of its FP32 pipe, its XU and the issue of both, at the SIMT efficiency."""
    flops = info.get("dot_dependent_flops", 0.0) * dist.per_sm
    xu = info.get("dot_dependent_xu", 0.0) * dist.per_sm
    share = dist.subpartitions / 4
    t_fma = flops / (perf.fma_per_sm_cycle * clock_hz * share)
    t_xu = xu * 32 / (perf.xu_per_sm_cycle * clock_hz * share)
    t_issue = (flops / 32 + xu) / (perf.issue_per_sm_cycle * clock_hz * share)
    return max(t_fma, t_xu, t_issue) / eta_simt
