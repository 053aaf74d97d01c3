"""Per-FMA views of counts, and scaling counts from the simulated size to a large one.

Simulate small (128³) and scale analytically, as the seeds do: for a kernel whose blocks all do
the same work, every count is a sum over blocks and K steps, so it grows as n³ (work in the K
loop) or n² (work once per output element, or once per input element).
"""

from __future__ import annotations

from dataclasses import fields, replace

from ..counters import Counts

#: Counts that grow with M·N only — the epilogue's global stores (C is written once).
N2_FIELDS = ("gst_instr", "gst_sectors", "gst_lines", "gst_bytes")
#: Instruction kinds that grow with M·N only.
N2_KINDS = ("st.global",)
#: The operand each DRAM array name stands for, for :func:`~kernellab.scale_counts` (A is M×K, B is K×N, C is M×N).
OPERAND_DIMS = {"A": (0, 2), "B": (2, 1), "C": (0, 1)}


def per_fma(counts: Counts) -> dict[str, float]:
    """Every integer count divided by the FMAs, and ``dram_bytes`` per FMA.

    Examples
    --------
    >>> pf = per_fma(Counts(fma=64, warp_instr=6, gld_lines=66))
    >>> pf["warp_instr"], pf["gld_lines"]
    (0.09375, 1.03125)
    """
    if not counts.fma:
        raise ValueError("per_fma needs counts with at least one FMA")
    out = {f.name: getattr(counts, f.name) / counts.fma for f in fields(counts)
           if isinstance(getattr(counts, f.name), int)}
    out["dram_bytes"] = counts.dram_bytes / counts.fma
    return out


def scale_counts(counts: Counts, n) -> Counts:
    """Scale counts simulated at ``counts.shape = (M, N, K)`` to an ``n × n × n`` (or ``(M', N', K')``) problem.

    Which counts grow how, with r_d = new size / simulated size along each dimension:

    * n³ (× r_M·r_N·r_K): ``fma``, global loads (``gld_*``), shared loads and stores (``shld_*``,
      ``shst_*``), ``barriers`` (per block per K tile), and every instruction kind but ``st.global``;
    * n² (× r_M·r_N): global stores (``gst_*``) and ``st.global`` instructions (C is written once);
    * ``dram_sectors``: A × r_M·r_K, B × r_K·r_N, C × r_M·r_N (any other array × r_M·r_N);
    * ``warp_instr`` is the sum of its kinds, scaled kind by kind; ``thread_instr`` keeps the
      simulated SIMT efficiency (thread_instr / warp_instr).

    Exact when both sizes are multiples of the kernel's tiles (every block does the same work);
    results are rounded to integers.

    Examples
    --------
    >>> c = Counts(fma=8, warp_instr=3, thread_instr=96, gld_instr=2, gst_instr=1,
    ...            instr_by_kind={"fma": 1, "ld.global": 1, "st.global": 1}, dram_sectors={"C": 4}, shape=(2, 2, 2))
    >>> big = scale_counts(c, 4)
    >>> big.fma, big.gld_instr, big.gst_instr, big.warp_instr, big.dram_sectors
    (64, 16, 4, 20, {'C': 16})
    """
    if len(counts.shape) != 3:
        raise ValueError(f"scale_counts needs counts.shape = (M, N, K), got {counts.shape!r}")
    new = tuple(int(v) for v in n) if isinstance(n, (tuple, list)) else (int(n),) * 3
    r = [b / a for a, b in zip(counts.shape, new)]
    r3, r2 = r[0] * r[1] * r[2], r[0] * r[1]
    out = {}
    for f in fields(counts):
        v = getattr(counts, f.name)
        if isinstance(v, int) and f.name not in ("warp_instr", "thread_instr"):
            out[f.name] = round(v * (r2 if f.name in N2_FIELDS else r3))
    kinds = {k: round(v * (r2 if k in N2_KINDS else r3)) for k, v in counts.instr_by_kind.items()}
    warp = sum(kinds.values()) if kinds else round(counts.warp_instr * r3)
    out["warp_instr"] = warp
    out["thread_instr"] = round(counts.thread_instr * warp / counts.warp_instr) if counts.warp_instr else 0
    dram = {}
    for name, s in counts.dram_sectors.items():
        i, j = OPERAND_DIMS.get(name, (0, 1))
        dram[name] = round(s * r[i] * r[j])
    return replace(counts, **out, instr_by_kind=kinds, dram_sectors=dram, shape=new)
