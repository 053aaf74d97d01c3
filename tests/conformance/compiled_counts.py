"""Compile every case of tests/compiled_cases.py with real Triton for sm_80 and sm_90, on a machine with
no GPU, and write what the compiled code does per program to kernellab/compiled_counts.json (the configurations
of ``METADATA``: their registers, shared memory, warps, stages and MMA instructions, to
kernellab/compiled_metadata.json).

Each case is compiled twice: ``"none"`` (nothing known: every parameter in ``do_not_specialize`` and
``do_not_specialize_on_alignment``) and ``"jit"`` (the specialisation ``triton.jit``'s launcher gives the
case's arguments: pointers and ints divisible by 16 marked ``tt.divisibility = 16``, ints equal to 1
made constants). The launcher's own binder computes that specialisation (from CPU torch tensors), and
``triton.compile(ASTSource(...), target=GPUTarget("cuda", cc, 32))`` runs the whole pipeline to PTX and
a cubin with the ptxas Triton ships. Counted from the PTX, statically (every block once: a loop's body
as if it ran once) and as executed for the launch (``executed``: each block times how often its warps
run it for the case's arguments, warp instructions per program, tests/conformance/ptx_trips.py; absent
where the arguments do not fix the trip counts): global loads and stores by width and predication, ``cp.async`` copies, shared-memory loads and
stores (``ld.shared``, ``st.shared``, ``ldmatrix``, ``stmatrix``), ``mma``/``wgmma`` instructions, global
atomics (``atom.global``, ``red.global``: ``atom_global``), TMA copies (``cp.async.bulk.tensor``: ``tma``); from
``cuobjdump -res-usage`` of the cubin: registers per thread; from the metadata: shared bytes,
``num_warps``, ``num_stages``. Usage: ``python tests/conformance/compiled_counts.py [CASE_ID ...]`` (needs
triton and torch; ``nox -s compiled`` installs them); with case ids, only those cases are compiled again
and merged into the committed file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import ptx_trips  # noqa: E402  (tests/conformance/ptx_trips.py)
from compiled_cases import CASES, METADATA, source  # noqa: E402

from conftest import load_source  # noqa: E402  (tests/conformance/conftest.py)

ROOT = HERE.parents[1]
OUT = ROOT / "kernellab" / "compiled_counts.json"
META_OUT = ROOT / "kernellab" / "compiled_metadata.json"  # apart: a page reading a configuration parses 1 KB, not 458
TARGETS = (80, 90)
GLOBAL = re.compile(r"^\s*(@!?%p\d+\s+)?(ld|st)\.global((?:\.[a-z0-9]+)*)")
CP_ASYNC = re.compile(r"^\s*(@!?%p\d+\s+)?cp\.async\.(ca|cg)\.shared\.global")
SHARED = re.compile(r"^\s*(@!?%p\d+\s+)?(ld\.shared|st\.shared|ldmatrix|stmatrix)")
MMA = re.compile(r"^\s*(@!?%p\d+\s+)?(mma\.sync|wgmma\.mma_async)")
ATOM = re.compile(r"^\s*(@!?%p\d+\s+)?(atom|red)\.global")
TMA = re.compile(r"^\s*(@!?%p\d+\s+)?cp\.async\.bulk\.tensor")
REGS = re.compile(r"REG:(\d+)")
BITS = {"b8": 8, "b16": 16, "b32": 32, "b64": 64, "u8": 8, "u16": 16, "u32": 32, "u64": 64, "s8": 8, "s16": 16,
        "s32": 32, "s64": 64, "f32": 32, "f16": 16, "f64": 64}


def ptx_counts(ptx: str) -> dict:
    """Global loads and stores by ``kind.width`` (bits a thread moves) and predication, and the others."""
    ld, st, pred = Counter(), Counter(), Counter()
    cp = shared_ld = shared_st = mma = atom = tma = 0
    for line in ptx.splitlines():
        m = GLOBAL.match(line)
        if m:
            mods = m.group(3).split(".")[1:]
            vec = next((int(x[1:]) for x in mods if re.fullmatch(r"v\d", x)), 1)
            bits = vec * next(BITS[x] for x in mods if x in BITS)
            (ld if m.group(2) == "ld" else st)[str(bits)] += 1
            pred[m.group(2) + (".predicated" if m.group(1) else ".always")] += 1
            continue
        if CP_ASYNC.match(line):
            cp += 1
        elif (s := SHARED.match(line)):
            if s.group(2) in ("ld.shared", "ldmatrix"):
                shared_ld += 1
            else:
                shared_st += 1
        elif MMA.match(line):
            mma += 1
        elif ATOM.match(line):
            atom += 1
        elif TMA.match(line):
            tma += 1
    return {"ld_global": dict(ld), "st_global": dict(st), "predication": dict(pred), "cp_async": cp,
            "shared_ld": shared_ld, "shared_st": shared_st, "mma": mma, "atom_global": atom,
            "tma": tma}


def registers(cubin: bytes) -> int | None:
    import triton

    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    tool = str(tool) if tool.exists() else shutil.which("cuobjdump")
    if tool is None:
        return None
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run([tool, "-res-usage", f.name], capture_output=True, text=True, check=True).stdout
    m = REGS.search(out)
    return int(m.group(1)) if m else None


def compile_case(jf, case, cc: int, spec: str) -> dict:
    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler.compiler import make_backend
    from triton.runtime.jit import JITFunction, create_function_from_signature

    if spec == "none":
        plain = [p.name for p in jf.params if not p.is_constexpr]
        jf = JITFunction(jf.fn, do_not_specialize=plain, do_not_specialize_on_alignment=plain)
    target = GPUTarget("cuda", cc, 32)
    backend = make_backend(target)
    args = [torch.from_numpy(a) if hasattr(a, "dtype") and hasattr(a, "shape") else a for a in case.arrays()]
    options = {"num_warps": case.num_warps}
    if case.num_stages is not None:
        options["num_stages"] = case.num_stages
    binder = create_function_from_signature(jf.signature, jf.params, backend)
    bound, specialization, opts = binder(*args, **case.meta, **options)
    _opts, signature, constexprs, attrs = jf._pack_args(backend, {**case.meta, **options}, bound, specialization, opts)
    k = triton.compile(ASTSource(jf, signature, constexprs, attrs), target=target, options=options)
    layouts = sorted({line.split("=", 1)[1].strip() for line in k.asm["ttgir"].splitlines()
                      if line.startswith(("#blocked", "#mma", "#shared", "#linear"))})
    marks = {n: v for n, v in zip(jf.arg_names, [s[1] for s in specialization]) if v}
    executed = ptx_trips.weighted(k.asm["ptx"], ptx_counts, ptx_arguments(jf, case, marks), case.grid,
                                  k.metadata.num_warps)
    return {**ptx_counts(k.asm["ptx"]), "registers": registers(k.asm["cubin"]), "shared_bytes": k.metadata.shared,
            "num_warps": k.metadata.num_warps, "num_stages": k.metadata.num_stages, "layouts": layouts,
            "specialised": marks, **({"executed": executed} if executed is not None else {})}


def ptx_arguments(jf, case, marks: dict) -> list:
    """The kernel's PTX parameters for the case's launch, in order: an array's address (distinct, 1 MiB
    apart), an int's value, None for a float; constexprs and ints specialised to 1 are not parameters.
    Triton's scratch pointers that follow are None."""
    out, address = [], 1 << 20
    for p, v in zip(jf.params, case.arrays()):
        if p.is_constexpr or marks.get(p.name) == 1:
            continue
        if hasattr(v, "dtype") and hasattr(v, "shape"):
            out.append(address)
            address += 1 << 20
        elif isinstance(v, bool) or not isinstance(v, int):
            out.append(None)
        else:
            out.append(int(v))
    return out + [None] * 4


def main(only: list[str]) -> int:
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import triton

    unknown = set(only) - {case.id for case in CASES}
    if unknown:
        print(f"no such case: {sorted(unknown)}")
        return 2

    result = {"triton": triton.__version__,
              "counted_from": "PTX: static instructions (every block once) per thread; executed: each block times "
                              "its warps' runs for the launch's arguments, warp instructions per program",
              "registers_from": "cuobjdump -res-usage of the cubin", "cases": {}}
    with tempfile.TemporaryDirectory() as tmp:
        modules = {}
        old = json.loads(OUT.read_text())["cases"] if only else {}
        for case in CASES:
            if only and case.id not in only:
                if case.id in old:
                    result["cases"][case.id] = old[case.id]
                continue
            if case.source not in modules:
                stem = Path(case.source).stem.lstrip("0123456789_") or "kernels"
                modules[case.source] = load_source(f"compiled_{stem}", source(case, ours=False), Path(tmp))
            jf = getattr(modules[case.source], case.kernel)
            entry = {"source": case.source, "kernel": case.kernel}
            for cc in TARGETS:
                if cc not in case.targets:
                    continue
                for spec in ("none", "jit"):
                    entry[f"sm_{cc}/{spec}"] = compile_case(jf, case, cc, spec)
            result["cases"][case.id] = entry
            print(case.id, {k: (v["ld_global"], v["st_global"]) for k, v in entry.items() if "/" in k}, flush=True)
        metadata = json.loads(META_OUT.read_text())["metadata"] if only else {}
        for case in METADATA if not only else ():
            if case.source not in modules:
                modules[case.source] = load_source("compiled_meta", source(case, ours=False), Path(tmp))
            jf = getattr(modules[case.source], case.kernel)
            entry = {"source": case.source, "kernel": case.kernel, "meta": case.meta}
            for cc in TARGETS:
                full = compile_case(jf, case, cc, "jit")
                entry[f"sm_{cc}"] = {k: full[k] for k in ("registers", "shared_bytes", "num_warps", "num_stages", "mma")}
            metadata[case.id] = entry
            print(case.id, {k: v for k, v in entry.items() if k.startswith("sm_")}, flush=True)
    OUT.write_text(json.dumps(result, indent=1, sort_keys=False) + "\n")
    META_OUT.write_text(json.dumps({"triton": result["triton"], "registers_from": result["registers_from"],
                                    "metadata": metadata}, indent=1, sort_keys=False) + "\n")
    print(f"wrote {OUT} and {META_OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
