"""Compile the gallery's GeLU and softmax kernels with real Triton for an sm_86 GPU, on a machine with no
GPU, and write the memory instructions of their PTX and SASS to kernellab/compiled_code.json.

``triton.compile(ASTSource(fn, signature, constexprs, attrs), target=GPUTarget("cuda", 86, 32))``
runs the whole pipeline (ttir → ttgir → llir → ptx → cubin, with the ptxas Triton ships);
``cuobjdump -sass`` (also shipped with Triton, or ``nvidia-cuda-cuobjdump`` from PyPI) disassembles
the cubin. Each kernel is compiled twice: with nothing known about its arguments, and with Triton's
divisibility specialisation (pointers and ``n`` multiples of 16, as ``triton.jit`` infers at launch
for aligned tensors and sizes, or ``tl.multiple_of`` asserts). The pages read the JSON, so building
the docs needs no Triton; the conformance session reruns this script. Usage:
``python tests/conformance/compiled.py`` (needs ``triton``).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from conftest import load_source

ROOT = Path(__file__).parents[2]
OUT = ROOT / "kernellab" / "compiled_code.json"
TARGET = ("cuda", 86, 32)
NUM_WARPS = 4

# page, kernel, signature, constexprs, which arguments the aligned variant marks divisible by 16
KERNELS = [
    ("01_gelu.py", "triton_gelu_kernel", {"x_ptr": "*fp32", "y_ptr": "*fp32", "num_elements": "i32"},
     {"BLOCK_SIZE": 1024}, [0, 1, 2]),
    ("02_softmax.py", "triton_softmax_kernel",
     {"x_ptr": "*fp32", "y_ptr": "*fp32", "x_row_stride": "i32", "y_row_stride": "i32", "num_cols": "i32"},
     {"BLOCK_SIZE": 1024}, [0, 1, 2, 3, 4]),
]
PTX_MEMORY = re.compile(r"\b(ld|st)\.global[\w.]*|\bex2\.approx[\w.]*")
SASS_MEMORY = re.compile(r"\b(LDG|STG)[\w.]*|\bMUFU\.EX2")


def kernel_source(page: str, name: str) -> str:
    """The source of ``@triton.jit def name`` in a gallery page, with real Triton's imports."""
    text = (ROOT / "gallery" / "triton_notes" / page).read_text()
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            lines = text.splitlines()[node.decorator_list[0].lineno - 1:node.end_lineno]
            return "import triton\nimport triton.language as tl\n\n\n" + "\n".join(lines) + "\n"
    raise LookupError(f"no kernel {name} in {page}")


def cuobjdump() -> str | None:
    import triton

    shipped = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    return str(shipped) if shipped.exists() else shutil.which("cuobjdump")


def excerpt(text: str, pattern: re.Pattern) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if pattern.search(line)]


def compile_one(fn, signature: dict, constexprs: dict, divisible: list[int]) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    sig = {**signature, **dict.fromkeys(constexprs, "constexpr")}
    attrs = {(i,): [["tt.divisibility", 16]] for i in divisible}
    k = triton.compile(ASTSource(fn, sig, constexprs, attrs), target=GPUTarget(*TARGET),
                       options={"num_warps": NUM_WARPS})
    ptx = excerpt(k.asm["ptx"], PTX_MEMORY)
    sass = []
    tool = cuobjdump()
    if tool is not None:
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(k.asm["cubin"])
            f.flush()
            out = subprocess.run([tool, "-sass", f.name], capture_output=True, text=True, check=True).stdout
        sass = [re.sub(r"\s*;?\s*/\*.*?\*/", "", line).rstrip(" ;") for line in excerpt(out, SASS_MEMORY)]
    layout = next((line.strip() for line in k.asm["ttgir"].splitlines() if line.startswith("#blocked")), "")
    return {"ptx": ptx, "sass": sass, "layout": layout}


def main() -> int:
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import triton

    result = {"triton": triton.__version__, "target": f"sm_{TARGET[1]}", "num_warps": NUM_WARPS, "kernels": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for page, name, signature, constexprs, divisible in KERNELS:
            fn = getattr(load_source(name, kernel_source(page, name), Path(tmp)), name)
            result["kernels"][name] = {
                "constexprs": constexprs,
                "unaligned": compile_one(fn, signature, constexprs, []),
                "aligned": compile_one(fn, signature, constexprs, divisible),
            }
    OUT.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
