"""Write docs/triton_coverage.md: every public name of ``triton.language`` (its ``__all__``) for the
installed Triton, whether kernellab has it, and why not where it does not.

Run by the conformance session (``nox -s conformance``), which installs the pinned Triton; the page it
writes is committed, so the docs build needs no Triton. ``python tests/conformance/coverage.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

PAGE = Path(__file__).parents[2] / "docs" / "triton_coverage.md"

# Triton's own documentation groups (triton.language's API reference), in its order
GROUPS = {
    "Programming model": "program_id num_programs constexpr tensor tensor_descriptor dtype pointer_type block_type "
                         "constexpr_type const tuple slice void pi32_t PropagateNan TRITON_MAX_TENSOR_NUMEL",
    "Types": "int1 int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 bfloat16 "
             "float8e5 float8e5b16 float8e4nv float8e4b8 float8e4b15",
    "Creation": "arange full zeros zeros_like cast to_tensor",
    "Shape manipulation": "broadcast broadcast_to expand_dims interleave join permute ravel reshape split squeeze "
                          "unsqueeze trans view cat",
    "Linear algebra": "dot dot_scaled",
    "Memory and pointers": "load store make_block_ptr advance make_tensor_descriptor load_tensor_descriptor "
                           "store_tensor_descriptor",
    "Indexing": "flip where swizzle2d gather",
    "Math": "abs add sub mul cdiv ceil clamp cos div_rn erf exp exp2 fdiv floor fma log log2 maximum minimum rsqrt "
            "sigmoid sin softmax sqrt sqrt_rn umulhi",
    "Reductions": "argmax argmin max min reduce sum xor_sum reduce_or",
    "Scans and sorts": "associative_scan cumprod cumsum histogram sort topk bitonic_merge",
    "Atomics": "atomic_add atomic_and atomic_cas atomic_load atomic_max atomic_min atomic_or atomic_poll "
               "atomic_store atomic_xchg atomic_xor",
    "Random numbers": "randint randint4x rand rand4x randn randn4x philox philox_impl pair_uniform_to_normal "
                      "uint_to_uniform_float",
    "Iterators": "range static_range condition",
    "Inline assembly and elementwise maps": "inline_asm_elementwise map_elementwise",
    "Compiler hints": "assume debug_barrier max_constancy max_contiguous multiple_of expect_zero",
    "Debugging": "static_print static_assert device_print device_assert",
    "Submodules": "math extra target_info",
}

# Public names a user does not call in a kernel: submodules and pieces of the type system.
INTERNALS = {"math", "extra", "target_info", "block_type", "constexpr_type", "tuple", "slice", "void",
             "pi32_t", "const"}

# Names kernellab defines but does not run, with the reason; and names that run with a difference.
NOT_SUPPORTED = {
    "inline_asm_elementwise": "it runs PTX or GCN assembly; a CPU simulator has no GPU instruction set "
                              "(raises NotImplementedError)",
    "dot_scaled": "block-scaled (mxfp4/mxfp8) products are not emulated (raises NotImplementedError)",
    "extra": "libdevice and the other vendor libraries are GPU bitcode; every call raises NotImplementedError",
}
DIFFERENCES = {
    "atomic_poll": "programs run in launch order, so a wait that would never end raises RuntimeError",
    "bitonic_merge": "sorts the whole block (the result of merging two sorted halves)",
    "cat": "keeps the order of its inputs (allowed for can_reorder=True)",
    "target_info": "kernellab simulates no real target: every query answers False",
    "map_elementwise": "runs element by element in Python: correct, slow",
    "device_assert": "always checked (Triton checks only with TRITON_DEBUG=1)",
    "make_block_ptr": "removed in Triton 3.9; kernellab keeps it for course assignments written for ≤ 3.4",
    "range": "warp_specialize=True raises NotImplementedError: kernellab simulates programs, not warps",
}


def rows(names: list[str], ours) -> list[tuple[str, str, bool, str]]:
    group_of = {n: g for g, names_ in GROUPS.items() for n in names_.split()}
    out = []
    for n in sorted(names, key=str.lower):
        have = hasattr(ours, n) and n not in NOT_SUPPORTED
        note = NOT_SUPPORTED.get(n) or DIFFERENCES.get(n, "")
        out.append((n, group_of.get(n, "Other"), have, note))
    return out


def render(version: str, names: list[str], ours) -> str:
    table = rows(names, ours)
    callable_ = [r for r in table if r[0] not in INTERNALS]
    internals = sorted(n for n in names if n in INTERNALS)
    ok = sum(r[2] for r in callable_)
    pct = 100 * ok / len(callable_)
    lines = [
        "# Coverage of `triton.language`",
        "",
        f"Every public name of `triton.language` in Triton {version} (its `__all__`, {len(names)} names), and "
        "whether `kernellab.triton.language` has it. The conformance session writes this page "
        "(`tests/conformance/coverage.py`); do not edit it by hand.",
        "",
        f"**{ok} of the {len(callable_)} names a kernel calls are supported ({pct:.0f}%).** The other "
        f"{len(table) - len(callable_)} public names are internals, left out of the count: the submodules "
        "and pieces of the type system (" + ", ".join(f"`{n}`" for n in internals) + "). "
        "kernellab defines them too, except where the list below says otherwise.",
        "",
        "Names marked ✗ are not supported; the table after the list says why, and notes where a supported name "
        "behaves differently from Triton.",
        "",
    ]
    for group in GROUPS:
        members = [r for r in table if r[1] == group]
        if members:
            cells = ", ".join(f"`{n}`" + ("" if have else " ✗") for n, _, have, _ in members)
            lines += [f"- **{group}:** {cells}", ""]
    others = [r for r in table if r[1] == "Other"]
    if others:
        lines += ["- **Other:** " + ", ".join(f"`{n}`" + ("" if have else " ✗") for n, _, have, _ in others), ""]
    lines += ["## Not supported, and differences", "", "| name | supported | why, or what differs |", "|---|---|---|"]
    for n, _, have, note in table:
        if note:
            lines.append(f"| `{n}` | {'yes' if have else 'no'} | {note} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    import triton
    import triton.language as real

    import kernellab.triton.language as ours

    PAGE.write_text(render(triton.__version__, list(real.__all__), ours))
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
