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
}
DIFFERENCES = {
    "atomic_poll": "programs run in launch order, so a wait that would never end raises RuntimeError",
    "bitonic_merge": "sorts the whole block (the result of merging two sorted halves)",
    "cat": "keeps the order of its inputs (allowed for can_reorder=True)",
    "target_info": "kernellab simulates no real target: every query answers False",
    "map_elementwise": "runs element by element in Python: correct, slow",
    "device_assert": "always checked (Triton checks only with TRITON_DEBUG=1)",
    "cast": "a float converted to an integer type (also by .to and by a store into an integer array) saturates "
            "and gives 0 for NaN, as the GPU's cvt.rzi does; Triton's interpreter converts with numpy "
            "(NaN → INT_MIN, −1.0 → uint32 4294967295)",
    "make_block_ptr": "removed in Triton 3.9 (it refuses to compile a kernel that makes one); kernellab keeps it "
                      "for course assignments written for ≤ 3.4, and its first use warns once (BlockPointerWarning)",
    "advance": "as make_block_ptr: removed in Triton 3.9, kept here, its first use warns once",
    "dot_scaled": "exact products of the dequantised values, summed in fp32; FLOPs counted as tl.dot's",
    "extra": "libdevice computed with numpy within CUDA's ulp bounds; its Bessel functions (j0, j1, jn, y0, y1, "
             "yn, cyl_bessel_i1) and rcp64h raise NotImplementedError",
}


# What Triton 3.9 refuses to compile, and kernellab too in @triton.jit kernels (kernellab.triton.compiler.limits):
# (what is checked, the exception Triton's own code raises, its message), in English and in Chinese.
CHECKS = [
    ("a block's shape: every dimension a power of two (`tl.arange`, `tl.zeros`, `tl.full`, broadcasting, "
     "`tl.reshape`, `tl.join`, `tl.histogram`'s bins, …)", "ValueError", "Shape element 0 must be a power of 2"),
    ("a block's size: at most `TRITON_MAX_TENSOR_NUMEL` = 2^20 elements", "ValueError",
     "numel (2097152) exceeds triton maximum tensor numel (1048576)"),
    ("`tl.arange`'s bounds: compile-time ints", "ValueError", "arange's arguments must be of type tl.constexpr"),
    ("`tl.arange`'s length: a power of two", "ValueError", "arange's range must be a power of 2"),
    ("`tl.arange`: the end greater than the start", "ValueError",
     "arange's end argument must be greater than the start argument"),
    ("shapes of `zeros`, `full`, `reshape`, `view`, `broadcast_to`: compile-time ints", "TypeError",
     "Shape element 0 must have type `constexpr[int]`, got `constexpr[<class 'triton.language.core.tensor'>]"),
    ("`tl.static_range`'s bounds: compile-time ints", "AssertionError",
     "int32[] used as tl.static_range start value is not a constexpr"),
    ("a `range` or `tl.range` loop's start, end and step: integer scalars", "TypeError",
     "For loop bounds and step must all be ints, are (int32, fp32, int32)"),
    ("`tl.static_assert`'s condition: known at compile time", "NotImplementedError",
     "Assertion condition could not be determined at compile-time. Make sure that it depends only on `constexpr` "
     "values"),
    ("`tl.static_assert`: the condition holds (`CompileTimeAssertionFailure`)", "AssertionError",
     "Static assert failed"),
    ("`tl.dot`: equal ranks of at least 2", "AssertionError", "input and other must have equal ranks >= 2"),
    ("`tl.dot`: equal reduction dimensions", "AssertionError", "input and other must have equal reduction dimensions"),
    ("`tl.dot`: operands of one type", "AssertionError", "Both operands must be same dtype. Got fp16 and fp32"),
    ("`tl.dot`: int8, fp16, bf16, fp32, fp64 or fp8 operands", "AssertionError", "Unsupported lhs dtype int32"),
    ("`tl.dot`: integer operands are int8", "AssertionError", "only int8 supported!"),
    ("`tl.dot`: K at least 16 (32 for 8-bit types, 8 for fp32, 4 for fp64)", "AssertionError",
     "Input shapes should have M >= 1, N >= 1 and K >= 16"),
    ("`tl.dot`: no bfloat16 `out_dtype`", "ValueError",
     "out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and cast with `.to(tl.bfloat16)`"),
    ("`tl.dot`: the accumulator of `out_dtype`", "AssertionError",
     "expected accumulator dtype fp32, got fp16; pass out_dtype=fp16 to use this accumulator dtype"),
    ("`tl.dot`: not both `input_precision` and `allow_tf32`", "AssertionError",
     "Only one of input_precision and allow_tf32 can be specified"),
    ("`tl.dot`: an `input_precision` (or `TRITON_F32_DEFAULT`) the NVIDIA backend allows", "AssertionError",
     "input_precision must be one of ('tf32', 'tf32x3', 'ieee', 'bf16x3', 'bf16x6'). Got tf16"),
    ("`tl.exp`, `tl.sqrt`, … : fp32 or fp64 operands", "ValueError", "Expected dtype ['fp32', 'fp64'] but got fp16"),
    ("names Triton 3.9 lacks: `tl.math.tanh` and the other libdevice functions of pre-3.0 `tl.math`",
     "AttributeError", "module 'triton.language.math' has no attribute 'tanh'"),
]
ZH_CHECKS = [
    "块的形状：每一维都是 2 的幂（`tl.arange`、`tl.zeros`、`tl.full`、广播、`tl.reshape`、`tl.join`、`tl.histogram` 的桶数……）",
    "块的大小：至多 `TRITON_MAX_TENSOR_NUMEL` = 2^20 个元素",
    "`tl.arange` 的端点：编译期整数",
    "`tl.arange` 的长度：2 的幂",
    "`tl.arange`：终点大于起点",
    "`zeros`、`full`、`reshape`、`view`、`broadcast_to` 的形状：编译期整数",
    "`tl.static_range` 的端点：编译期整数",
    "`range` 或 `tl.range` 循环的起点、终点和步长：整数标量",
    "`tl.static_assert` 的条件：编译期可知",
    "`tl.static_assert`：条件成立（`CompileTimeAssertionFailure`）",
    "`tl.dot`：两个操作数的维数相等且至少为 2",
    "`tl.dot`：归约维相等",
    "`tl.dot`：两个操作数类型相同",
    "`tl.dot`：操作数为 int8、fp16、bf16、fp32、fp64 或 fp8",
    "`tl.dot`：整数操作数必须是 int8",
    "`tl.dot`：K 至少为 16（8 位类型 32，fp32 为 8，fp64 为 4）",
    "`tl.dot`：`out_dtype` 不能是 bfloat16",
    "`tl.dot`：累加器的类型是 `out_dtype`",
    "`tl.dot`：不能同时给出 `input_precision` 和 `allow_tf32`",
    "`tl.dot`：`input_precision`（或 `TRITON_F32_DEFAULT`）是 NVIDIA 后端允许的值",
    "`tl.exp`、`tl.sqrt` 等：操作数为 fp32 或 fp64",
    "Triton 3.9 没有的名称：`tl.math.tanh` 以及 3.0 之前 `tl.math` 里的其他 libdevice 函数",
]
CHECKS_INTRO = ("In a `@triton.jit` kernel, kernellab raises `triton.CompilationError` where Triton 3.9 refuses to "
                "compile: the error names the kernel and the line, and its `__cause__` is the exception Triton's own "
                "code raises there, of the same type and with the same message (below, as Triton 3.9 words them). "
                "The lecture form `kernel(tl, ...)` is not checked. All the checks are in "
                "`kernellab.triton.compiler.limits`.")
ZH_CHECKS_INTRO = ("在 `@triton.jit` 内核中，凡是 Triton 3.9 拒绝编译的地方，kernellab 都抛出 `triton.CompilationError`："
                   "错误信息指出内核和行，其 `__cause__` 是 Triton 自己的代码在该处抛出的异常，类型和信息都相同（下表按 "
                   "Triton 3.9 的原话给出）。讲义写法 `kernel(tl, ...)` 不做这些检查。所有检查都在 "
                   "`kernellab.triton.compiler.limits` 中。")


def _code(message: str) -> str:
    """Triton's message as inline code: between two backticks where it holds one itself."""
    return f"`` {message} ``" if "`" in message else f"`{message}`"


def render_checks() -> list[str]:
    """The page's part on what Triton 3.9 refuses to compile, and kernellab too."""
    lines = ["## What Triton 3.9 refuses to compile", "", CHECKS_INTRO, "",
             "| check | exception | Triton 3.9's message |", "|---|---|---|"]
    for what, exc, message in CHECKS:
        lines.append(f"| {what} | `{exc}` | {_code(message)} |")
    return lines


# The host-side modules of Triton 3.9 a user's script imports, and how to list their public names.
HOST_MODULES = ("triton", "triton.runtime", "triton.testing", "triton.profiler", "triton.tools.tensor_descriptor",
                "triton.tools.mxfp")
# Host-side names kernellab defines but does not run, and host-side names that behave differently.
HOST_NOTES = {
    "triton.compile": "kernellab runs kernels in Python and builds no GPU binary (raises NotImplementedError)",
    "triton.aggregate": "aggregate classes of kernel values are not emulated (raises NotImplementedError)",
    "triton.AsyncCompileMode": "kernellab compiles nothing, asynchronously or not (raises NotImplementedError)",
    "triton.FutureKernel": "kernellab compiles nothing, asynchronously or not (raises NotImplementedError)",
    "triton.runtime.RemoteCacheBackend": "kernellab compiles nothing to cache (raises NotImplementedError)",
    "triton.runtime.RedisRemoteCacheBackend": "kernellab compiles nothing to cache (raises NotImplementedError)",
    "triton.testing.cublas": "it opens a cuBLAS handle on a GPU (raises NotImplementedError)",
    "triton.testing.cuda_graph_without_gc": "it captures a CUDA graph on a GPU (raises NotImplementedError)",
    "triton.profiler.configure_runtime": "proton's ROCm runtime selection: kernellab loads no runtime; returns None",
    "triton.reinterpret": "pass the array viewed as the type instead (raises NotImplementedError)",
    "triton.TensorWrapper": "pass the array viewed as the type instead (raises NotImplementedError)",
    "triton.MockTensor": "kernellab launches take the real arrays (raises NotImplementedError)",
    "triton.runtime.reinterpret": "as triton.reinterpret (raises NotImplementedError)",
    "triton.runtime.TensorWrapper": "as triton.TensorWrapper (raises NotImplementedError)",
    "triton.runtime.MockTensor": "as triton.MockTensor (raises NotImplementedError)",
    "triton.testing.nvsmi": "it queries nvidia-smi (raises NotImplementedError)",
    "triton.testing.set_gpu_clock": "it locks a real GPU's clocks (raises NotImplementedError)",
    "triton.testing.cuda_memcheck": "kernellab checks every access itself (raises NotImplementedError)",
    "triton.autotune": "chooses the config the model predicts fastest on the modelled GPU, from sampled trials",
    "triton.runtime.autotune": "as triton.autotune",
    "triton.runtime.driver": "describes the modelled GPU (H100 unless KERNELLAB_GPU says otherwise)",
    "triton.testing.do_bench": "the model's predicted GPU time of the kernellab launches (set_measure('cpu') for "
                               "CPU time)",
    "triton.testing.do_bench_cudagraph": "as do_bench",
    "triton.testing.perf_report": "its tables and plots say they show predicted GPU time",
    "triton.profiler.start": "records counts and predicted times, not measurements",
    "triton.set_allocator": "kept and never called: kernellab's descriptors need no scratch memory",
}
ZH_HOST_NOTES = {
    "triton.compile": "kernellab 用 Python 运行内核，不构建 GPU 二进制文件（抛出 NotImplementedError）",
    "triton.aggregate": "不模拟由内核值组成的 aggregate 类（抛出 NotImplementedError）",
    "triton.AsyncCompileMode": "kernellab 不编译任何东西，无论是否异步（抛出 NotImplementedError）",
    "triton.FutureKernel": "kernellab 不编译任何东西，无论是否异步（抛出 NotImplementedError）",
    "triton.runtime.RemoteCacheBackend": "kernellab 没有可缓存的编译结果（抛出 NotImplementedError）",
    "triton.runtime.RedisRemoteCacheBackend": "kernellab 没有可缓存的编译结果（抛出 NotImplementedError）",
    "triton.testing.cublas": "它在 GPU 上打开 cuBLAS 句柄（抛出 NotImplementedError）",
    "triton.testing.cuda_graph_without_gc": "它在 GPU 上捕获 CUDA graph（抛出 NotImplementedError）",
    "triton.profiler.configure_runtime": "proton 对 ROCm 运行时的选择：kernellab 不使用任何运行时，返回 None",
    "triton.reinterpret": "请改为传入按该类型查看的数组（抛出 NotImplementedError）",
    "triton.TensorWrapper": "请改为传入按该类型查看的数组（抛出 NotImplementedError）",
    "triton.MockTensor": "kernellab 的启动使用真实数组（抛出 NotImplementedError）",
    "triton.runtime.reinterpret": "同 triton.reinterpret（抛出 NotImplementedError）",
    "triton.runtime.TensorWrapper": "同 triton.TensorWrapper（抛出 NotImplementedError）",
    "triton.runtime.MockTensor": "同 triton.MockTensor（抛出 NotImplementedError）",
    "triton.testing.nvsmi": "它查询 nvidia-smi（抛出 NotImplementedError）",
    "triton.testing.set_gpu_clock": "它锁定真实 GPU 的时钟（抛出 NotImplementedError）",
    "triton.testing.cuda_memcheck": "kernellab 自己检查每次访问（抛出 NotImplementedError）",
    "triton.autotune": "根据抽样试运行，选择模型预测在被建模 GPU 上最快的配置",
    "triton.runtime.autotune": "同 triton.autotune",
    "triton.runtime.driver": "描述被建模的 GPU（默认 H100，可由 KERNELLAB_GPU 指定）",
    "triton.testing.do_bench": "kernellab 内核启动的模型预测 GPU 时间（set_measure('cpu') 则为 CPU 时间）",
    "triton.testing.do_bench_cudagraph": "同 do_bench",
    "triton.testing.perf_report": "其表格和图注明显示的是预测的 GPU 时间",
    "triton.profiler.start": "记录计数与预测时间，而非实测",
    "triton.set_allocator": "会被保存但从不调用：kernellab 的描述符不需要临时内存",
}


def host_names(module) -> list[str]:
    """The public names of one of Triton's host modules: ``__all__``, else what the module itself defines."""
    import inspect

    if hasattr(module, "__all__"):
        return list(module.__all__)
    return sorted(n for n, v in vars(module).items() if not n.startswith("_") and (inspect.isfunction(v) or
                  inspect.isclass(v)) and getattr(v, "__module__", "").startswith(module.__name__))


def render_host(real: dict, ours: dict) -> list[str]:
    """The page's second part: every public name of Triton's host modules, and whether kernellab has it."""
    total = sum(len(v) for v in real.values())
    ok = sum(1 for m, names in real.items() for n in names if hasattr(ours[m], n) and f"{m}.{n}" not in
             HOST_UNSUPPORTED)
    lines = ["## Coverage of `triton`, `triton.runtime`, `triton.testing`, `triton.profiler`, `triton.tools`", "",
             f"**{ok} of the {total} public names of Triton's host modules are supported.** `kernellab.triton."
             "__version__` is the Triton release the engine follows (\"3.9.0\").", ""]
    for m, names in real.items():
        cells = ", ".join(f"`{n}`" + ("" if hasattr(ours[m], n) and f"{m}.{n}" not in HOST_UNSUPPORTED else " ✗")
                          for n in sorted(names, key=str.lower))
        lines += [f"- **`{m}`:** {cells}", ""]
    lines += ["| name | supported | why, or what differs |", "|---|---|---|"]
    for key, note in HOST_NOTES.items():
        m, n = key.rsplit(".", 1)
        if m in real and n in real[m]:
            have = hasattr(ours[m], n) and key not in HOST_UNSUPPORTED
            lines.append(f"| `{key}` | {'yes' if have else 'no'} | {note} |")
    return lines


HOST_UNSUPPORTED = {k for k, v in HOST_NOTES.items() if "NotImplementedError" in v}


# Chinese for what this page generates (docs/locale/zh_CN/LC_MESSAGES/triton_coverage.po):
# ``python tests/conformance/coverage.py --fill todo.json`` fills a ``po_tools.py export`` file.
ZH_GROUPS = {
    "Programming model": "编程模型", "Types": "类型", "Creation": "创建", "Shape manipulation": "形状操作",
    "Linear algebra": "线性代数", "Memory and pointers": "内存与指针", "Indexing": "索引", "Math": "数学函数",
    "Reductions": "归约", "Scans and sorts": "扫描与排序", "Atomics": "原子操作", "Random numbers": "随机数",
    "Iterators": "迭代器", "Inline assembly and elementwise maps": "内联汇编与逐元素映射",
    "Compiler hints": "编译器提示", "Debugging": "调试", "Submodules": "子模块", "Other": "其他",
}
ZH_NOTES = {
    "inline_asm_elementwise": "它运行 PTX 或 GCN 汇编，而 CPU 模拟器没有可执行它的 GPU 指令集（抛出 NotImplementedError）",
    "dot_scaled": "对反量化后的值做精确乘积，以 fp32 累加；FLOP 按 tl.dot 的方式计入",
    "extra": "libdevice 用 numpy 计算，误差在 CUDA 给出的 ulp 上界之内；其中的 Bessel 函数（j0、j1、jn、y0、y1、"
             "yn、cyl_bessel_i1）和 rcp64h 抛出 NotImplementedError",
    "atomic_poll": "程序实例按启动顺序运行，因此永远等不到的等待会抛出 RuntimeError",
    "bitonic_merge": "对整个块排序（即合并两个已排序的半块的结果）",
    "cat": "保持输入的顺序（can_reorder=True 允许这样做）",
    "target_info": "kernellab 不模拟真实的目标硬件：每个查询都回答 False",
    "map_elementwise": "在 Python 中逐元素运行：结果正确，但很慢",
    "device_assert": "总是检查（Triton 只在 TRITON_DEBUG=1 时检查）",
    "cast": "浮点数转换为整数类型（.to 以及向整数数组的 store 也是如此）时饱和截断，NaN 得 0，与 GPU 的 cvt.rzi "
            "相同；Triton 的解释器用 numpy 转换（NaN → INT_MIN，−1.0 → uint32 4294967295）",
    "make_block_ptr": "Triton 3.9 已移除（它拒绝编译创建块指针的内核）；kernellab 为针对 ≤ 3.4 编写的课程作业保留它，"
                      "首次使用时警告一次（BlockPointerWarning）",
    "advance": "同 make_block_ptr：Triton 3.9 已移除，这里保留，首次使用时警告一次",
}


def chinese(msgid: str) -> str | None:
    """The Chinese of one message of the generated page, or None if the page did not generate it."""
    import re

    fixed = {"Coverage of `triton.language`": "`triton.language` 的覆盖情况",
             "Not supported, and differences": "不支持的名称与行为差异",
             "name": "名称", "supported": "是否支持", "why, or what differs": "原因，或差异所在",
             "yes": "是", "no": "否",
             "What Triton 3.9 refuses to compile": "Triton 3.9 拒绝编译的代码",
             "check": "检查", "exception": "异常", "Triton 3.9's message": "Triton 3.9 的信息",
             CHECKS_INTRO: ZH_CHECKS_INTRO,
             "Names marked ✗ are not supported; the table after the list says why, and notes where a supported "
             "name behaves differently from Triton.":
             "标有 ✗ 的名称不受支持；列表后的表格说明原因，并注明哪些受支持的名称与 Triton 的行为不同。"}
    if msgid in fixed:
        return fixed[msgid]
    if re.fullmatch(r"`[\w.]+`", msgid):
        return msgid
    if msgid == "Coverage of `triton`, `triton.runtime`, `triton.testing`, `triton.profiler`, `triton.tools`":
        return "`triton`、`triton.runtime`、`triton.testing`、`triton.profiler`、`triton.tools` 的覆盖情况"
    for (what, exc, message), zh in zip(CHECKS, ZH_CHECKS):
        if msgid == what:
            return zh
        if msgid in (f"`{exc}`", _code(message), message):  # Triton's own words stay English
            return msgid
    notes = {**NOT_SUPPORTED, **DIFFERENCES}
    for name, note in notes.items():
        if msgid == note:
            return ZH_NOTES[name]
    for name, note in HOST_NOTES.items():
        if msgid == note:
            return ZH_HOST_NOTES[name]
    m = re.fullmatch(r"\*\*(\d+) of the (\d+) public names of Triton's host modules are supported\.\*\* (.*)", msgid, re.S)
    if m:
        return (f"**Triton 主机端模块的 {m.group(2)} 个公开名称中，{m.group(1)} 个受支持。** "
                "`kernellab.triton.__version__` 是引擎所遵循的 Triton 版本（“3.9.0”）。")
    m = re.fullmatch(r"\*\*`(triton[\w.]*)`:\*\* (.*)", msgid, re.S)
    if m:
        return f"**`{m.group(1)}`：** " + m.group(2).replace(", ", "、")
    m = re.fullmatch(r"\*\*(.+?):\*\* (.*)", msgid, re.S)
    if m and m.group(1) in ZH_GROUPS:
        return f"**{ZH_GROUPS[m.group(1)]}：** " + m.group(2).replace(", ", "、")
    m = re.fullmatch(r"Every public name of `triton.language` in Triton (\S+) \(its `__all__`, (\d+) names\), and whether "
                     r"`kernellab.triton.language` has it\. The conformance session writes this page "
                     r"\(`tests/conformance/coverage.py`\); do not edit it by hand\.", msgid)
    if m:
        return (f"Triton {m.group(1)} 中 `triton.language` 的每个公开名称（即其 `__all__`，共 {m.group(2)} 个），"
                "以及 `kernellab.triton.language` 是否提供它。本页由 conformance 会话生成"
                "（`tests/conformance/coverage.py`），请勿手工编辑。")
    m = re.fullmatch(r"\*\*(\d+) of the (\d+) names a kernel calls are supported \((\d+)%\)\.\*\* The other (\d+) public "
                     r"names are internals, left out of the count: the submodules and pieces of the type system "
                     r"\((.*)\)\. kernellab defines them too, except where the list below says otherwise\.", msgid, re.S)
    if m:
        return (f"**内核会调用的 {m.group(2)} 个名称中，{m.group(1)} 个受支持（{m.group(3)}%）。** 其余 {m.group(4)} 个"
                f"公开名称属于内部实现，不计入统计：子模块和类型系统的组成部分（{m.group(5).replace(', ', '、')}）。"
                "除下方列表另有说明外，kernellab 也定义了它们。")
    return None


def fill(todo: str) -> int:
    """Fill the coverage page's entries of a ``po_tools.py export`` JSON file in place."""
    import json

    data = json.loads(Path(todo).read_text())
    filled = 0
    for catalog, entries in data.items():
        if catalog.endswith("triton_coverage.po"):
            for msgid in entries:
                zh = chinese(msgid)
                if zh is not None:
                    entries[msgid] = zh
                    filled += 1
    Path(todo).write_text(json.dumps(data, ensure_ascii=False, indent=1))
    print(f"filled {filled} entries of triton_coverage.po")
    return 0


def rows(names: list[str], ours) -> list[tuple[str, str, bool, str]]:
    group_of = {n: g for g, names_ in GROUPS.items() for n in names_.split()}
    out = []
    for n in sorted(names, key=str.lower):
        have = hasattr(ours, n) and n not in NOT_SUPPORTED
        note = NOT_SUPPORTED.get(n) or DIFFERENCES.get(n, "")
        out.append((n, group_of.get(n, "Other"), have, note))
    return out


def render(version: str, names: list[str], ours, host=None) -> str:
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
    lines += [""] + render_checks()
    if host is not None:
        lines += [""] + render_host(*host)
    return "\n".join(lines) + "\n"


def main() -> int:
    import importlib

    import triton
    import triton.language as real

    import kernellab.triton.language as ours

    host_real = {m: host_names(importlib.import_module(m)) for m in HOST_MODULES}
    host_ours = {m: importlib.import_module("kernellab." + m) for m in HOST_MODULES}
    PAGE.write_text(render(triton.__version__, list(real.__all__), ours, (host_real, host_ours)))
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(fill(sys.argv[2]) if sys.argv[1:2] == ["--fill"] else main())
