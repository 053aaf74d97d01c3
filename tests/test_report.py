"""The reporting layer: HTML escaping, terminal alignment by display width, number formats."""

import re
import sys
import types

import pytest

from kernellab.tables import (
    Table,
    display_width,
    fmt_bytes,
    fmt_num,
    fmt_time,
    print_table,
    rich_display,
    show,
)


def test_html_escapes_every_cell_and_header():
    t = Table(["<th>&", "b"], [["<script>alert(1)</script>", 'x"y']])
    html = t._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "&lt;th&gt;&amp;" in html and "x&quot;y" in html
    assert html.count("<tr>") == 2 and html.startswith('<table class="kernellab-table">')


def test_html_text_left_and_numbers_right_inline_for_notebooks():
    """JupyterLab (and sphinx-gallery's stylesheet) right-align every cell; a notebook never sees the site's CSS."""
    html = Table(["kernel", "FLOPs"], [["sgemm_naive", "2.1 G"]])._repr_html_()
    assert '<th style="text-align:left">kernel</th>' in html and '<td style="text-align:left">sgemm_naive</td>' in html
    assert "<td class=num>2.1 G</td>" in html


def test_terminal_columns_align_by_display_width_with_chinese():
    t = Table(["内核", "最大误差", "GFLOP/s"], [["朴素版", "1.2e-05", 293], ["合并访存版（coalesced）", "3e-06", 4838]])
    lines = t.to_text().splitlines()
    widths = {display_width(line) for line in lines[2:]}
    assert len(widths) == 1, lines  # every row ends at the same display column
    # the second (numeric, right-aligned) column ends at the same display column on every line
    ends = {display_width(line[: line.index(cell) + len(cell)]) for line, cell in zip(lines[2:], ["1.2e-05", "3e-06"])}
    assert len(ends) == 1
    # len() would disagree: CJK characters are two columns wide
    assert len({len(line) for line in lines[2:]}) > 1


def test_numeric_columns_right_aligned():
    text = Table(["n"], [[1], [1000]]).to_text().splitlines()
    assert text[2] == "   1" and text[3] == "1000"


def test_ragged_rows_are_an_error():
    with pytest.raises(ValueError, match="row 1 has 1 cells, the header has 2"):
        Table(["a", "b"], [[1, 2], [3]])


def test_show_prints_in_a_terminal_and_returns_for_a_page(monkeypatch, capsys):
    monkeypatch.setenv("KERNELLAB_DISPLAY", "text")
    assert print_table(["a"], [[1]]) is None
    assert "a" in capsys.readouterr().out
    monkeypatch.setenv("KERNELLAB_DISPLAY", "html")
    t = show(Table(["a"], [[1]]))
    assert isinstance(t, Table) and capsys.readouterr().out == ""


@pytest.mark.parametrize("value,expected", [(0, "0 B"), (999, "999 B"), (1000, "1 kB"), (201326592, "201.3 MB"),
                                            (768e9, "768 GB"), (1.5e12, "1.5 TB")])
def test_fmt_bytes(value, expected):
    assert fmt_bytes(value) == expected


@pytest.mark.parametrize("value,expected", [(1.0, "1 s"), (0.0355, "35.5 ms"), (2.62e-4, "262 µs"), (1e-9, "1 ns")])
def test_fmt_time(value, expected):
    assert fmt_time(value) == expected


def test_fmt_num_uses_si_prefixes():
    assert fmt_num(2 * 4096**3) == "137.4 G"
    assert re.fullmatch(r"\d+(\.\d+)?", fmt_num(12.5))


def test_display_width_of_zero_width_text():
    # a zero-width space takes no column; an unprintable control character falls back to its length
    assert display_width("\u200b") == 0 and display_width("a\u200bb") == 2
    assert display_width("\x07") == 1


def test_rich_display_inside_sphinx_gallery_and_jupyter(monkeypatch):
    monkeypatch.delenv("KERNELLAB_DISPLAY", raising=False)
    monkeypatch.delitem(sys.modules, "sphinx_gallery.gen_rst", raising=False)
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert rich_display() is False  # a plain terminal
    monkeypatch.setitem(sys.modules, "sphinx_gallery.gen_rst", types.ModuleType("sphinx_gallery.gen_rst"))
    assert rich_display() is True  # a gallery build
    monkeypatch.delitem(sys.modules, "sphinx_gallery.gen_rst")
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: types.SimpleNamespace(kernel=object())  # a Jupyter kernel
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    assert rich_display() is True
    ipython.get_ipython = lambda: types.SimpleNamespace()  # a terminal IPython: no kernel
    assert rich_display() is False
    del ipython.get_ipython  # IPython half imported (a module of it importing kernellab): no shell to ask
    assert rich_display() is False
    monkeypatch.setenv("KERNELLAB_DISPLAY", "html")
    assert rich_display() is True


def test_si_prefixes_start_exactly_at_their_power_of_1000():
    # 1000 is 1 k, 999 stays 999; 10⁹ is 1 G; the same boundaries for bytes and for negative numbers
    assert (fmt_num(1000), fmt_num(999), fmt_num(1e9), fmt_num(-1e6)) == ("1 k", "999", "1 G", "-1 M")
    assert (fmt_bytes(1000), fmt_bytes(999), fmt_bytes(1e12)) == ("1 kB", "999 B", "1 TB")


def test_float_cells_keep_four_significant_digits_and_a_table_reads_as_its_text():
    t = Table(["x", "y"], [[1 / 3, 2.0], [12345.678, 7]])
    assert [row.split() for row in t.to_text().splitlines()[2:]] == [["0.3333", "2"], ["1.235e+04", "7"]]
    assert repr(t) == t.to_text()
