"""The source view, the report and its findings, each finding on a kernel built to trigger it."""

import re

import numpy as np
import pytest

import kernellab as kl
from kernellab import H100, launch
from kernellab.metrics import METRICS, fmt, values
from kernellab.profile import findings


def line_of(fn, text):
    """The file line number of the line of ``fn`` that starts with ``text``."""
    import inspect

    lines, first = inspect.getsourcelines(fn)
    hits = [first + i for i, s in enumerate(lines) if s.strip().startswith(text)]
    assert len(hits) == 1
    return hits[0]


def strided(blk, x, y):
    v = blk.load(x, blk.tx * 8)  # lane l reads float 8l: bytes 32l, its own sector
    blk.store(y, blk.tx, v)


def coalesced(blk, x, y):
    v = blk.load(x, blk.tx)
    blk.store(y, blk.tx, v)


def test_uncoalesced_finding_names_the_line_and_its_share():
    x, y = np.ones(256, np.float32), np.empty(32, np.float32)
    c = launch(strided, 1, 32, args=(x, y), lines=True)
    # load: 32 sectors, ideal 32·4 B / 32 = 4; store: 4 sectors, ideal 4; excess 28 of 36, all on the load line
    (f,) = findings(c)
    assert (f.rule, f.line, f.metric) == ("uncoalesced", line_of(strided, "v = blk.load"),
                                          "memory_l2_theoretical_sectors_global_excessive")
    assert f.value == 1.0 and f"line {f.line} causes 100 % of the excess sectors (28 of 36 sectors" in str(f)
    assert "32.0 sectors per request, ideally 4.0" in str(f)
    assert findings(launch(coalesced, 1, 32, args=(x, y), lines=True)) == []
    (g,) = findings(launch(strided, 1, 32, args=(x, y)))  # no lines: the kernel as a whole
    assert g.line is None and "78 % of the 36 sectors are excess" in str(g)  # 28 / 36 = 77.8 %


def conflicted(blk, out, PAD):
    s = blk.shared(32 * (8 + PAD), np.float32, name="s")
    blk.store(s, blk.tx, blk.tx.astype(np.float32))
    blk.syncthreads()
    v = blk.load(s, blk.tx * (8 + PAD))  # stride 8 words: lanes l and l+4 share a bank
    blk.store(out, blk.tx, v)


def test_bank_conflict_finding_before_and_after_padding():
    out = np.empty(32, np.float32)
    c = launch(conflicted, 1, 32, args=(out, 0), lines=True)
    # stride 8 words: bank (8l mod 32) takes 4 values, 8 lanes each: 8 wavefronts, ideal 1, 7 conflicts
    (f,) = findings(c)
    assert (f.rule, f.line, f.value) == ("bank conflicts", line_of(conflicted, "v = blk.load(s"), 8.0)
    assert str(f).startswith(f"8-way bank conflicts on line {f.line}: 7 extra wavefronts, 100 %")
    # stride 9 words: 9l mod 32 is a different bank for every lane (9 is odd): no conflict
    assert findings(launch(conflicted, 1, 32, args=(out, 1), lines=True)) == []


def divergent(blk, x, y):
    i = blk.tx
    with blk.where(i % 4 == 0):  # one lane in four
        v = blk.load(x, i // 4)
        for _ in range(8):
            v = blk.fma(v, 2.0, 1.0)
        blk.store(y, i // 4, v)


def test_divergence_finding_names_the_line_with_the_most_idle_lanes():
    x, y = np.ones(64, np.float32), np.empty(64, np.float32)
    c = launch(divergent, 1, 64, args=(x, y), lines=True)
    # 2 warps × 8 FMAs with 8 of 32 lanes each: 25 % on the FMA line, which idles 16 × 24 lanes
    (f,) = [f for f in findings(c) if f.rule == "divergence"]
    assert (f.line, f.value) == (line_of(divergent, "v = blk.fma"), 0.25)
    assert str(f) == f"divergent branch at line {f.line}: 25 % SIMT efficiency (8.0 of 32 threads active per warp instruction)"
    assert not [f for f in findings(launch(coalesced, 1, 32, args=(x[:32], y[:32]), lines=True)) if f.rule == "divergence"]


def test_report_sections_and_metric_names():
    x, y = np.ones(256, np.float32), np.empty(32, np.float32)
    c = launch(strided, 1, 32, args=(x, y), lines=True)
    r = kl.report(c, H100)
    assert [s.title for s in r.sections] == ["GPU Speed Of Light (predicted)", "Predicted duration", "Memory Workload Analysis",
                                             "Instruction Statistics (SIMT efficiency)", "Launch Statistics", "Occupancy"]
    text = r.to_text()
    assert "l1tex__t_sectors_pipe_lsu_mem_global.sum" in text and "Findings" in text and "H100" in text
    assert "77.8 %" in text  # excess sectors, 28 / 36
    assert "<table" in r._repr_html_() and "uncoalesced" in r._repr_html_()
    assert c.report(H100).to_text() == text
    cs = launch(conflicted, 1, 32, args=(np.empty(32, np.float32), 0))
    shared = next(s for s in cs.report().sections if s.title == "Shared Memory")
    assert ["Bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "7"] in shared.table.rows


def test_report_and_source_in_chinese(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    c = launch(strided, 1, 32, args=(np.ones(256, np.float32), np.empty(32, np.float32)), lines=True)
    text = c.report().to_text()
    assert "访存负载分析" in text and "结论" in text and "全局访存未合并" in text
    view = c.source().to_text()
    assert "行号" in view and "源码" in view and "多余 sector 数" in view


def test_source_view_columns_marks_and_html():
    c = launch(strided, 1, 32, args=(np.ones(256, np.float32), np.empty(32, np.float32)), lines=True)
    view = c.source(columns=["Requests", "Sectors", "Ideal sectors"])
    load = line_of(strided, "v = blk.load")
    row = next(r for r in view.rows if r[1] == str(load))
    assert row[0] == "●" and row[2] == ["1", "32", "4"]
    lines = view.to_text().splitlines()
    assert lines[0].split()[:4] == ["Line", "Requests", "Sectors", "Ideal"]
    assert len(lines) == 2 + 3  # header, rule, the def line and two statements
    html = view._repr_html_()
    assert html.count('class="kernellab-hot"') == 2 and "&quot;" not in html.split("<tbody>")[0]
    # a notebook sees no stylesheet: the source reads as code, and a marked row sets both its colours
    # (its light background under a dark theme's white text was 1.22:1)
    assert html.count('<td class="kernellab-code" style="text-align:left"><code style="white-space:pre;') == len(view.rows)
    assert html.count('style="background:#fde2e2;color:#1f2328"') == 2
    assert "<code style=\"white-space:pre;color:inherit;background:transparent;border:0;padding:0;font-family:" \
        "SFMono-Regular,Menlo,Consolas,'Liberation Mono',monospace\">    v = blk.load(" in html  # indentation kept
    with pytest.raises(ValueError, match="lines=True"):
        launch(strided, 1, 32, args=(np.ones(256, np.float32), np.empty(32, np.float32))).source()
    with pytest.raises(ValueError, match="unknown column"):
        c.source(columns=["Sectorz"])


def test_every_metric_reads_both_engines():
    import kernellab.triton as triton
    import kernellab.triton.language as tl

    @triton.jit
    def k(x_ptr, n, B: tl.constexpr):
        offs = tl.arange(0, B)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)

    x = np.zeros(64, np.float32)
    ct = k[(1,)](x, 64, B=64, lines=True)
    vt = values(ct)
    # a block of 64 over 4 warps (compiled: copy_small): every warp loads (warps 2 and 3 hold copies of
    # warps 0 and 1's elements), only warps 0 and 1 store: 4 + 2 requests
    assert vt["l1tex__t_requests_pipe_lsu_mem_global.sum"] == 6 and "smsp__inst_executed.sum" not in vt
    # the line's DRAM bytes: x's 64 floats = 8 sectors, first touched by this one line's load
    assert values(next(iter(ct.by_line.values())), row=True)["dram__bytes.sum"] == 8 * 32
    vs = values(launch(coalesced, 1, 32, args=(x[:32], x[32:])))
    assert set(vs) == {m.name for m in METRICS}
    assert ct.report().sections[0].title == "GPU Speed Of Light (predicted)"


def test_a_triton_report_shows_its_shared_memory():
    import kernellab.triton as triton
    import kernellab.triton.language as tl

    @triton.jit
    def transpose(x_ptr, y_ptr, N: tl.constexpr):
        r = tl.arange(0, N)
        tl.store(y_ptr + r[None, :] * N + r[:, None], tl.load(x_ptr + r[:, None] * N + r[None, :]))

    x = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    c = transpose[(1,)](x, np.zeros_like(x), N=32)
    shared = next(s for s in c.report(H100).sections if s.title == "Shared Memory")
    # the transposed store converts through shared memory: 8 st + 8 ld a thread × 4 warps, either target
    assert ["Shared stores (sm_90)", "smsp__inst_executed_op_shared_st.sum", "32"] in shared.table.rows
    assert ["Shared loads (sm_80)", "smsp__inst_executed_op_shared_ld.sum", "32"] in shared.table.rows
    # each a 32-bit access of 32 lanes (128 bytes), through the conversion's swizzle one wavefront: 64 a
    # target, no bank conflict
    assert ["Shared wavefronts (sm_80)", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "64"] in shared.table.rows
    assert ["Bank conflicts (sm_90)", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "0"] in shared.table.rows
    y = np.zeros(64, np.float32)

    @triton.jit
    def copy(x_ptr, y_ptr, B: tl.constexpr):
        tl.store(y_ptr + tl.arange(0, B), tl.load(x_ptr + tl.arange(0, B)))

    assert "Shared Memory" not in [s.title for s in copy[(1,)](y, np.zeros_like(y), B=64).report().sections]


def test_speed_of_light_of_a_tl_dot_shows_the_tensor_core_pipe():
    import kernellab.triton as triton
    import kernellab.triton.language as tl

    @triton.jit
    def mm(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
        r = tl.arange(0, N)
        a = tl.load(a_ptr + r[:, None] * N + r[None, :])
        b = tl.load(b_ptr + r[:, None] * N + r[None, :])
        tl.store(c_ptr + r[:, None] * N + r[None, :], tl.dot(a, b))

    a = np.ones((64, 64), np.float16)
    c = mm[(1,)](a, a, np.zeros((64, 64), np.float32), N=64)
    rows = c.report(H100).sections[0].table.rows
    # an fp16 64×64×64 dot: 2·64³ = 524 288 FLOPs = 128 mma.sync of 4096, on the Tensor Cores, none on FMA
    tensor = next(r for r in rows if r[0] == "Tensor Core pipe")
    assert tensor[1] == "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"
    assert c.mma_sm80 == 128 and not any(r[0] == "FMA pipe" for r in rows)
    compute = next(s for s in c.report(H100).sections if s.title == "Compute Workload Analysis").table.rows
    # 128 mma.sync on sm_80; on sm_90 one warpgroup's wgmma m64n64k16, K 64: 4 instructions, run by each of
    # its 4 warps: 16, all of them wgmma; the FLOPs all fp16
    assert ["Tensor Core instructions (sm_80)", "sm__inst_executed_pipe_tensor.sum", "128"] in compute
    assert ["Tensor Core instructions (sm_90)", "sm__inst_executed_pipe_tensor.sum", "16"] in compute
    assert ["of which wgmma (sm_90)", "", "16"] in compute
    assert [r[2] for r in compute if r[0].startswith("Dot FLOPs")] == ["524,288"]


def test_metric_cells_by_unit():
    # a missing value is an empty cell; a percentage has one decimal, a ratio two; an integral count gets
    # thousands separators whatever its type, any other number 4 significant digits
    by_name = {m.name: m for m in METRICS}
    sectors, ratio = by_name["l1tex__t_sectors_pipe_lsu_mem_global.sum"], \
        by_name["l1tex__average_t_sectors_per_request_pipe_lsu_mem_global.ratio"]
    efficiency = by_name["warp_execution_efficiency"]
    assert fmt(sectors, None) == "" and fmt(efficiency, 87.25) == "87.2 %" and fmt(ratio, 4.0) == "4.00"
    assert (fmt(sectors, 1234567), fmt(sectors, 3.0), fmt(sectors, 2.5), fmt(sectors, 1 / 3)) == \
        ("1,234,567", "3", "2.5", "0.3333")


def test_a_chinese_report_names_each_resource_one_way(monkeypatch):
    """显存 and 共享内存, as the glossary writes them, in every row and the verdict: not DRAM in one row and
    显存 in another, nor the model's key ("瓶颈：shared") in the verdict (issue 36)."""
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")

    def stream(blk, x, y):
        i = blk.bx * blk.bdx + blk.tx
        blk.store(y, i, blk.load(x, i))

    def transpose_tile(blk, x, y):  # a column read of a 32×32 shared tile: 32-way conflicts, bound by shared
        s = blk.shared(32 * 32, np.float32, name="s")
        for r in range(32):
            blk.store(s, r * 32 + blk.tx, blk.load(x, r * 32 + blk.tx))
        blk.syncthreads()
        for r in range(32):
            blk.store(y, r * 32 + blk.tx, blk.load(s, blk.tx * 32 + r))

    n = 1 << 16
    dram = launch(stream, n // 256, 256, args=(np.ones(n, np.float32), np.empty(n, np.float32)), lines=True)
    shared = launch(transpose_tile, 1, 32, args=(np.ones(1024, np.float32), np.empty(1024, np.float32)), lines=True)
    for counts, verdict in ((dram, "吞吐瓶颈：显存"), (shared, "吞吐瓶颈：共享内存")):
        report = counts.report(H100)
        cells = [c for s in report.sections for row in [s.table.headers, *s.table.rows] for c in row]
        chinese = [c for c in cells if re.search(r"[\u4e00-\u9fff]", c)]
        assert verdict in chinese, chinese
        mixed = [c for c in chinese if re.search(r"DRAM|(?i:shared)", c)]
        assert not mixed, f"English resource names beside Chinese ones: {mixed}"


def test_a_chinese_text_report_underlines_each_title_across_its_width(monkeypatch):
    """A CJK character takes two terminal columns: an underline of len(title) characters stopped halfway."""
    from kernellab.tables import display_width

    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    c = launch(strided, 1, 32, args=(np.ones(256, np.float32), np.empty(32, np.float32)), lines=True)
    lines = c.report().to_text().splitlines()
    ruled = [(title, rule) for title, rule in zip(lines, lines[1:]) if rule and set(rule) <= set("=-")]
    assert len(ruled) >= 3 and any(re.search(r"[\u4e00-\u9fff]", t) for t, _ in ruled)
    assert all(len(rule) == display_width(title) for title, rule in ruled), ruled


def test_lines_that_tie_are_all_named():
    """Three loads at stride 8 floats: 32 sectors a request where 4 would do, 28 excess each, a third of the
    kernel's excess each (the store is coalesced). Naming only the first sent a reader to fix one of three."""

    def three(blk, x, y, z, out):
        a = blk.load(x, blk.tx * 8)
        b = blk.load(y, blk.tx * 8)
        c = blk.load(z, blk.tx * 8)
        blk.store(out, blk.tx, a + b + c)

    args = (np.ones(256, np.float32), np.ones(256, np.float32), np.ones(256, np.float32), np.empty(32, np.float32))
    found = [f for f in findings(launch(three, 1, 32, args=args, lines=True)) if f.rule == "uncoalesced"]
    lines = [line_of(three, f"{v} = blk.load") for v in "abc"]
    assert [f.line for f in found] == lines
    assert all(abs(f.value - 1 / 3) < 1e-12 for f in found)  # 28 of 84 excess sectors each
    assert all(f"line {line} causes 33 %" in str(f) for f, line in zip(found, lines))


def test_a_kernel_made_by_exec_reports_its_worst_conflict_not_an_average():
    """exec'd source cannot be read: every access counts on the exec line. A conflict-free shared store (32
    wavefronts of 1) beside a 32-way load (32 of 32) averaged to "16-way"; the load is 32-way."""
    namespace = {}
    exec("def tile(blk, x, y):\n"
         "    s = blk.shared(32 * 32, np.float32, name='s')\n"
         "    for r in range(32):\n"
         "        blk.store(s, r * 32 + blk.tx, blk.load(x, r * 32 + blk.tx))\n"
         "    blk.syncthreads()\n"
         "    for r in range(32):\n"
         "        blk.store(y, r * 32 + blk.tx, blk.load(s, blk.tx * 32 + r))\n", {"np": np}, namespace)
    c = launch(namespace["tile"], 1, 32, args=(np.ones(1024, np.float32), np.empty(1024, np.float32)), lines=True)
    (conflict,) = [f for f in findings(c) if f.rule == "bank conflicts"]
    # 32 column reads of 32 lanes, one bank: 32 wavefronts each, 1 ideal; the 32 row writes: 1 each
    assert conflict.value == 32 and str(conflict).startswith("32-way bank conflicts")


def test_a_divergent_kernel_without_lines_is_one_finding_for_the_kernel():
    def half(blk, out):
        with blk.where(blk.tx < 8):  # 8 of 32 lanes store: the store issues with a quarter of its lanes
            for _ in range(20):
                blk.store(out, blk.tx, 1.0)

    c = launch(half, 1, 32, args=(np.zeros(32, np.float32),), auto_instr=False)
    assert c.simt_efficiency() == 0.25  # 20 stores, 8 lanes each: 160 / (20 × 32)
    assert [str(f) for f in findings(c)] == [
        "divergent branches: 25 % SIMT efficiency over the kernel (launch with lines=True to see the line)"]


def test_the_report_of_counts_with_no_memory_access_and_no_launch():
    r = kl.report(kl.Counts(fma=64, warp_instr=2, thread_instr=64))
    titles = [s.title for s in r.sections]
    assert "Memory Workload Analysis" in titles and r.findings == []
    memory = next(s for s in r.sections if s.title == "Memory Workload Analysis")
    assert not any("Excess sectors %" in str(row[0]) for row in memory.table.rows)  # no sectors: no share
    launch_ = next(s for s in r.sections if s.title == "Launch Statistics")
    assert [row[0] for row in launch_.table.rows] == ["Barriers"]  # no grid or block recorded
    assert "Occupancy" not in titles  # no launch: nothing to hold on an SM
    empty = kl.report(kl.Counts())  # nothing at all to price: no Speed Of Light section
    assert "GPU Speed Of Light (predicted)" not in [s.title for s in empty.sections]


def test_a_divergent_line_at_exactly_the_share_that_earns_a_finding():
    def k(blk, out):
        for _ in range(19):
            blk.store(out, blk.tx, 1.0)   # 19 full warp instructions
        with blk.where(blk.tx < 8):
            blk.store(out, blk.tx, 2.0)   # 1 of the 20 (DIVERGENCE_SHARE: 5 %, at least), 8 of 32 lanes

    c = launch(k, 1, 32, args=(np.zeros(32, np.float32),), auto_instr=False, lines=True)
    assert (c.warp_instr, c.thread_instr) == (20, 19 * 32 + 8)
    line = line_of(k, "blk.store(out, blk.tx, 2.0)")
    assert [str(f) for f in findings(c)] == [
        f"divergent branch at line {line}: 25 % SIMT efficiency (8.0 of 32 threads active per warp instruction)"]


def test_the_divergent_line_named_is_the_one_that_idles_most_lanes_not_the_busiest():
    def k(blk, out):
        with blk.where(blk.tx < 1):
            for _ in range(10):
                blk.store(out, blk.tx, 1.0)   # 10 warp instructions × 1 lane: 10 × 31 = 310 lanes idle, 3 %
        with blk.where(blk.tx < 20):
            for _ in range(11):
                blk.store(out, blk.tx, 2.0)   # 11 × 20 lanes: 11 × 12 = 132 idle, 62.5 % (more instructions)

    c = launch(k, 1, 32, args=(np.zeros(32, np.float32),), auto_instr=False, lines=True)
    assert (c.warp_instr, c.thread_instr) == (21, 10 + 220)
    line = line_of(k, "blk.store(out, blk.tx, 1.0)")
    assert [str(f) for f in findings(c)] == [
        f"divergent branch at line {line}: 3 % SIMT efficiency (1.0 of 32 threads active per warp instruction)"]


def test_a_line_at_exactly_the_efficiency_of_a_finding_earns_none():
    def k(blk, out):
        with blk.where(blk.tx < 24):   # 24 of 32 lanes: 75 %, below 80 %: a finding
            blk.store(out, blk.tx, 1.0)

    def k80(blk, out):
        for n in (32, 32, 32, 16, 16):  # one line, 5 warp instructions of 128 lanes: 128 ÷ 160 = 80 % exactly
            with blk.where(blk.tx < n):
                blk.store(out, blk.tx, 1.0)

    c = launch(k, 1, 32, args=(np.zeros(32, np.float32),), auto_instr=False, lines=True)
    assert [f.rule for f in findings(c)] == ["divergence"]
    c80 = launch(k80, 1, 32, args=(np.zeros(32, np.float32),), auto_instr=False, lines=True)
    assert c80.simt_efficiency() == 0.8 and findings(c80) == []


def test_excess_sectors_earn_a_finding_from_a_tenth_of_all_sectors():
    # 10 warps read 32 consecutive floats from byte 0 of a line: 4 sectors each, all ideal; then one warp reads
    # 32 floats from byte 4: 5 sectors, 4 ideal. Excess 1 of 45 sectors (2 %): none. With lane l at float 8l
    # (32 sectors, 4 ideal, 28 excess) instead: 28 of 68 (41 %): a finding
    def k(blk, x, STRIDE):
        for w in range(10):
            blk.load(x, 32 * w + blk.tx)
        blk.load(x, 1 + blk.tx * STRIDE if STRIDE > 1 else 1 + blk.tx)

    few = launch(k, 1, 32, args=(np.zeros(512, np.float32), 1), auto_instr=False)
    assert (few.sectors, few.load_ideal_sectors) == (45, 44) and findings(few) == []
    many = launch(k, 1, 32, args=(np.zeros(512, np.float32), 8), auto_instr=False)
    assert (many.sectors, many.load_ideal_sectors) == (72, 44)
    assert [f.rule for f in findings(many)] == ["uncoalesced"]


def test_bank_conflicts_without_lines_are_a_share_of_the_shared_wavefronts():
    # the store of row 0: 1 wavefront, ideal 1; the stride-8 load: 8 wavefronts, ideal 1; 7 of 9 extra = 78 %
    c = launch(conflicted, 1, 32, args=(np.empty(32, np.float32), 0))
    assert [str(f) for f in findings(c)] == ["bank conflicts: 7 of the 9 shared wavefronts are extra (78 %; launch "
                                             "with lines=True to see the line)"]


def test_a_line_whose_shared_store_and_load_both_conflict():
    def both(blk, out):
        s = blk.shared(32 * 8, np.float32, name="s")
        t = blk.shared(32 * 8, np.float32, name="t")
        blk.store(s, blk.tx * 8, blk.tx.astype(np.float32))
        blk.syncthreads()
        blk.store(t, blk.tx * 8, blk.load(s, blk.tx * 8))  # the load and the store: stride 8 words, 8-way each
        blk.syncthreads()
        blk.store(out, blk.tx, blk.load(t, blk.tx * 8))

    c = launch(both, 1, 32, args=(np.empty(32, np.float32),), lines=True)
    # each stride-8 access: 8 wavefronts, ideal 1, 7 extra; 4 of them: 28 extra. The middle line has a load and a
    # store: 14 extra, half the kernel's; the first line's store 7 (25 %), the last line's load 7 (25 %)
    got = [str(f) for f in findings(c) if f.rule == "bank conflicts"]
    middle = line_of(both, "blk.store(t, blk.tx * 8")
    assert got[0] == f"8-way bank conflicts on line {middle}: 14 extra wavefronts, 50 % of the kernel's bank conflicts"
    assert len(got) == 3 and all("7 extra wavefronts, 25 %" in g for g in got[1:])


def test_a_divergent_line_below_the_share_that_earns_a_finding_earns_none():
    def k(blk, out):
        for _ in range(20):
            blk.store(out, blk.tx, 1.0)   # 20 full warp instructions
        with blk.where(blk.tx < 8):
            blk.store(out, blk.tx, 2.0)   # 1 of 21: 4.8 %, under DIVERGENCE_SHARE (5 %)

    c = launch(k, 1, 32, args=(np.zeros(32, np.float32),), auto_instr=False, lines=True)
    assert (c.warp_instr, c.thread_instr) == (21, 20 * 32 + 8) and findings(c) == []
