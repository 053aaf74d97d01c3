"""Compile the CUDA twins in ``cuda/`` for sm_86, disassemble them, and write each kernel's K-loop mix.

Run by ``nox -s sass`` (which installs nvcc, cuobjdump and nvdisasm from PyPI); needs no GPU.
For each kernel it finds the main K loop — the backward branch whose body holds the most FFMAs —
and counts that body's warp instructions by class (:func:`classify`). One pass of the loop is one
K step of the kernel: a BK-wide tile for k3–k10, and for k1/k2, whose K loop nvcc unrolls by four,
four values of k. ``k_per_pass`` records how many values of k one pass covers.

Usage: ``python cuda/sass_mix.py OUT.json`` (nvcc and cuobjdump on ``PATH``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARCH = "sm_86"  # the A6000's compute capability, as Boehm's CMake sets it
FLAGS = ["-O3", "-DNDEBUG", f"-arch={ARCH}", "-cubin", "-Xptxas", "-v"]
#: C elements each thread of a twin computes: FFMAs per thread per value of k.
OUTPUTS_PER_THREAD = {
    "sgemm_naive": 1, "sgemm_global_mem_coalesce": 1, "sgemm_shared_mem_block": 1, "sgemm1DBlocktiling": 8,
    "sgemm2DBlocktiling": 64, "sgemmVectorize": 64, "sgemmResolveBankConflicts": 64,
    "sgemmResolveBankExtraCol": 64, "sgemmAutotuned": 64, "sgemmWarptiling": 128,
}
INT_OPS = {"IMAD", "IADD3", "IADD", "LEA", "LOP3", "SHF", "ISETP", "MOV", "SEL", "PRMT", "IABS", "IMNMX",
           "FLO", "POPC", "BREV", "SGXT", "BMSK", "LOP", "SHL", "SHR", "P2R", "R2P", "PLOP3", "VIADD"}
CTRL_OPS = {"BRA", "BRX", "JMP", "EXIT", "RET", "CALL", "BSSY", "BSYNC", "WARPSYNC", "YIELD", "BREAK"}
_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)\s*([^;]*);")


def classify(op: str) -> str:
    """The class of a SASS opcode, as kernellab counts instructions.

    ``FFMA``; ``LDS.32``/``LDS.64``/``LDS.128`` and ``STS.*`` (shared loads and stores by width);
    ``LDG.*``, ``STG.*`` (global); ``BAR``; ``INT`` (integer and address arithmetic, moves,
    comparisons, uniform-datapath integer ops ``U*``); ``CTRL`` (branches); ``OTHER`` (anything
    else, e.g. ``S2R``, ``NOP``, floating-point ops other than FFMA).

    >>> [classify(o) for o in ("FFMA", "LDS.U.128", "LDS", "STG.E.128", "IMAD.WIDE", "UIADD3", "BRA", "S2R")]
    ['FFMA', 'LDS.128', 'LDS.32', 'STG.128', 'INT', 'INT', 'CTRL', 'OTHER']
    """
    parts = op.split(".")
    base = parts[0]
    if base in ("LDS", "STS", "LDG", "STG"):
        width = next((p for p in parts[1:] if p in ("64", "128", "U8", "S8", "U16", "S16")), "32")
        return f"{base}.{width}"
    if base == "FFMA":
        return "FFMA"
    if base == "BAR":
        return "BAR"
    if base in CTRL_OPS:
        return "CTRL"
    if base in INT_OPS or (base.startswith("U") and base[1:] in INT_OPS | {"LDC", "MOV"}) or base == "ULDC":
        return "INT"
    return "OTHER"


def functions(sass: str) -> dict[str, list[tuple[int, str, str]]]:
    """Each function's instructions as (address, opcode, operands), from ``cuobjdump -sass`` text."""
    out, name = {}, None
    for line in sass.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1)
            out[name] = []
            continue
        m = _LINE.search(line)
        if m and name:
            out[name].append((int(m.group(1), 16), m.group(3), m.group(4).strip()))
    return out


def main_loop(code: list[tuple[int, str, str]]) -> list[str]:
    """Opcodes of the backward branch's body with the most FFMAs (the main K loop), branch included."""
    best = []
    for addr, op, args in code:
        if op.split(".")[0] == "BRA":
            m = re.match(r"(?:`\(\.L_x_\d+\)|0x([0-9a-f]+))", args)
            target = int(m.group(1), 16) if m and m.group(1) else None
            if target is not None and target <= addr:
                body = [o for a, o, _ in code if target <= a <= addr]
                if body.count("FFMA") > best.count("FFMA"):
                    best = body
    if not best:
        raise RuntimeError("no backward branch with an FFMA found")
    return best


def resource_usage(ptxas_v: str) -> tuple[int, int]:
    """Registers per thread and static shared memory per block (bytes) from ``ptxas -v``'s line
    ``Used 37 registers, used 1 barriers, 8192 bytes smem, 348 bytes cmem[0]`` (no ``smem``: 0 bytes)."""
    regs = int(re.search(r"Used (\d+) registers", ptxas_v).group(1))
    smem = re.search(r"(\d+) bytes smem", ptxas_v)
    return regs, int(smem.group(1)) if smem else 0


def mix_of(cu: Path, nvcc: str = "nvcc", cuobjdump: str = "cuobjdump") -> tuple[str, dict]:
    """Compile one twin; return its kernel's name and its K-loop record."""
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / (cu.stem + ".cubin")
        ptxas = subprocess.run([nvcc, *FLAGS, str(cu), "-o", str(cubin)], check=True, capture_output=True, text=True)
        sass = subprocess.run([cuobjdump, "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout
    regs, smem = resource_usage(ptxas.stdout + ptxas.stderr)
    (name, code), = functions(sass).items()
    body = main_loop(code)
    counts = Counter(classify(o) for o in body)
    k_per_pass = counts["FFMA"] // OUTPUTS_PER_THREAD[name]
    return name, {"source": f"cuda/{cu.name}", "registers": regs, "smem_static": smem,
                  "k_per_pass": k_per_pass,
                  "loop": dict(sorted(counts.items()))}


def main(out: str) -> None:
    version = subprocess.run(["nvcc", "--version"], check=True, capture_output=True, text=True).stdout
    release = re.search(r"release [^\n]*", version).group(0)
    kernels = dict(mix_of(cu) for cu in sorted(HERE.glob("k*.cu")))
    record = {
        "about": "Warp instructions per pass of each CUDA twin's main K loop (sm_86 SASS), by class; "
                 "written by `nox -s sass` (cuda/sass_mix.py). A pass covers k_per_pass values of k; registers "
                 "(per thread) and smem_static (bytes per block) are ptxas -v's resource usage.",
        "nvcc": release, "flags": " ".join(FLAGS), "kernels": kernels,
    }
    Path(out).write_text(json.dumps(record, indent=1) + "\n")
    for name, k in kernels.items():
        print(f"{name:28s} k/pass {k['k_per_pass']:3d}  regs {k['registers']:3d}  smem {k['smem_static']:6d}  {k['loop']}")


if __name__ == "__main__":
    main(sys.argv[1])
