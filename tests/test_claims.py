"""kernellab.claims: a claim table that shows every row and raises, naming the claim, on a mismatch."""

import numpy as np
import pytest

from kernellab import ClaimError, Claims
from kernellab.claims import check


def test_rows_are_recorded_in_order_and_shown_as_text(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "en")
    # 32 lanes × 4 B = 128 B = 4 sectors of 32 B; a 4096³ GEMM does 2·4096³ = 137438953472 FLOPs
    claims = Claims().add("sectors per request", 32 * 4 // 32, 4).add("GEMM FLOPs", 2 * 4096**3, 137438953472)
    assert [r.claim for r in claims] == ["sectors per request", "GEMM FLOPs"]
    lines = claims.to_text().splitlines()
    assert lines[0].split() == ["Claim", "Computed", "Stated"]  # no tolerance column when none is used
    assert lines[2].split()[-2:] == ["4", "4"] and lines[3].split()[-2:] == ["137438953472"] * 2
    assert len({len(line) for line in lines[1:]}) == 1  # columns aligned: all rows equally wide


def test_a_mismatch_raises_naming_the_claim_and_both_values(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "en")
    claims = Claims().add("ok", 1, 1)
    with pytest.raises(ClaimError, match=r'claim "bank conflicts" does not hold: computed 31, stated 0') as info:
        claims.add("bank conflicts", 31, 0)
    assert isinstance(info.value, AssertionError)
    assert len(claims) == 1  # the failed row is not recorded


@pytest.mark.parametrize("computed,stated,tol,holds", [
    (1.0713, 1.07, {"sig": 3}, True),      # 1.0713 → 1.07 at 3 significant digits
    (1.0753, 1.07, {"sig": 3}, False),     # 1.0753 → 1.08
    (1234.0, 1200, {"sig": 2}, True),      # both 1.2e3
    (0.0, 0.0, {"sig": 3}, True),
    (101.0, 100, {"rtol": 0.01}, True),    # |101 − 100| = 1 ≤ 0.01 · 100
    (101.5, 100, {"rtol": 0.01}, False),   # 1.5 > 1
    (100.4, 100, {"atol": 0.5}, True),
    (100.6, 100, {"atol": 0.5}, False),
    (0.1 + 0.2, 0.3, {}, False),           # exact by default: 0.30000000000000004 ≠ 0.3
    (0.1 + 0.2, 0.3, {"rtol": 1e-12}, True),
    (np.int64(8), 8, {}, True),            # numpy scalars compare as numbers
    (np.float32(0.5), 0.5, {}, True),
    (float("nan"), float("nan"), {"atol": 1.0}, False),  # NaN never matches
    (float("nan"), 1.0, {"sig": 3}, False),              # not even once rounded
    (1.0, float("nan"), {"sig": 3}, False),
])
def test_tolerances(computed, stated, tol, holds):
    if holds:
        assert len(check("x", computed, stated, **tol)) == 1
    else:
        with pytest.raises(ClaimError, match='"x"'):
            check("x", computed, stated, **tol)


def test_text_and_booleans_match_exactly():
    check("bound", "DRAM", "DRAM")
    check("matches numpy", bool(np.allclose([1.0], [1.0])), True)
    check("all equal", (np.ones(3) == np.ones(3)).all(), True)  # a numpy bool is a boolean
    with pytest.raises(ClaimError):
        check("bound", "DRAM", "compute")
    with pytest.raises(ClaimError):
        check("flag", 1, True)  # a number is not a boolean, even if 1 == True in Python


def test_bad_input_is_refused_with_the_claim_named():
    with pytest.raises(ValueError, match="claim 'x'.*tolerances"):
        check("x", 1, 1, rtol=-0.1)
    with pytest.raises(ValueError, match="sig"):
        check("x", 1, 1, sig=0)
    with pytest.raises(TypeError, match="claim 'x'.*ndarray"):
        check("x", np.ones(3), 1)


def test_tolerance_column_appears_when_a_row_has_one(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "en")
    claims = Claims().add("exact", 4, 4).add("rounded", 1.0713, 1.07, sig=3).add("relative", 101, 100, rtol=0.01)
    text = claims.to_text()
    assert text.splitlines()[0].split()[-1] == "Tolerance"
    assert "3 significant digits" in text and "± 1%" in text


def test_html_is_one_collapsed_escaped_block_in_both_languages(monkeypatch):
    claims = Claims().add("<b> & co", 2, 2).add("matches numpy", True, True).add("t", 1.0713, 1.07, sig=3)
    monkeypatch.setenv("KERNELLAB_LANG", "en")
    html = claims._repr_html_()
    assert html.startswith('<details class="kernellab-checks"><summary>What this cell checks')
    assert html.count("<details") == 1 and "open" not in html.split(">")[0]  # collapsed
    assert " (3)</span></summary>" in html
    # each claim as the prose states it, not as "computed / stated: yes / yes" columns
    assert "<li>&lt;b&gt; &amp; co: 2</li>" in html and "<b>" not in html
    assert "<li>matches numpy</li>" in html and "yes" not in html
    assert "<li>t: 1.07 (computed 1.0713, 3 significant digits)</li>" in html
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    html = claims._repr_html_()
    assert "本单元检查的论断" in html and "<li>t：1.07（计算值 1.0713，3 位有效数字）</li>" in html
    assert "（3）</span>" in html  # full-width punctuation in Chinese text


def test_a_page_collects_its_claims_and_shows_them_once_at_the_end(monkeypatch, capsys):
    from kernellab.claims import begin_page, checks_html, end_page

    monkeypatch.setenv("KERNELLAB_LANG", "en")
    monkeypatch.setenv("KERNELLAB_DISPLAY", "html")
    begin_page()
    try:
        first = Claims().add("warps", 256 // 32, 8)  # 256 threads / 32 lanes = 8 warps
        assert first.show() is None and first._repr_html_() == ""  # nothing mid-page
        check("sectors", 128 // 32, 4)  # 128 B / 32 B = 4 sectors
        with pytest.raises(ClaimError):
            check("conflicts", 31, 0)  # a failed claim still raises, and is not listed
    finally:
        rows = end_page()
    assert [r.claim for r in rows] == ["warps", "sectors"]
    block = checks_html(rows)
    assert block.count("<details") == 1 and "What this page checks" in block and "(2)" in block
    assert "the site&#x27;s build fails" in block
    assert end_page() == [] and first.show() is first  # collection over: a notebook shows the cell's block
    assert capsys.readouterr().out == ""


def test_the_error_follows_the_language(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "zh_CN")
    with pytest.raises(ClaimError, match="论断“x”不成立：计算值 2，文中所述 3"):
        check("x", 2, 3)


def test_show_prints_in_a_terminal_and_returns_itself_on_a_page(monkeypatch, capsys):
    monkeypatch.setenv("KERNELLAB_LANG", "en")
    claims = Claims().add("warps", 256 // 32, 8)
    monkeypatch.setenv("KERNELLAB_DISPLAY", "text")
    assert claims.show() is None
    assert "warps" in capsys.readouterr().out
    monkeypatch.setenv("KERNELLAB_DISPLAY", "html")
    assert claims.show() is claims
    assert capsys.readouterr().out == ""


def test_the_error_carries_its_values():
    with pytest.raises(ClaimError) as e:
        check("sectors", 5, 4)
    assert e.value.details == {"claim": "sectors", "computed": 5, "stated": 4}


def test_one_significant_digit_and_big_integers(monkeypatch):
    monkeypatch.setenv("KERNELLAB_LANG", "en")
    check("order of magnitude", 1.04, 1.0, sig=1)  # both round to 1 at one significant digit
    with pytest.raises(ClaimError):
        check("order of magnitude", 1.6, 1.0, sig=1)  # 2 ≠ 1
    # integers print in full below 10¹⁵, in exponent form from there on
    assert check("big", 1e14, 1e14).to_text().splitlines()[2].split()[-1] == "100000000000000"
    assert check("bigger", 1e15, 1e15).to_text().splitlines()[2].split()[-1] == "1e+15"
