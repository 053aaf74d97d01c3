"""The 22 Chinese wording slips of the site review (reference/site-review.md §7), each looked for on the
built Chinese page it was found on (run by `nox -s docs`). tools/po_tools.py's glossary and typography rules
catch their classes in the catalogs (定价, 慢估, 分化, 强制流量, 少了多少倍, a reST escape or a spaced bold
lead-in in a MyST page); this check holds the pages to the review's own findings.
"""

import html
import re

import pytest
from site_common import SITE

L10, TN = "auto_examples/lecture10/", "auto_examples/triton_notes/"
SITE_WIDE = "*"  # every Chinese page but the glossary, which quotes the renderings it rejects
# review §7 number: (the page, what it showed)
SLIPS = {
    1: ("model", "的\\ 数据"),
    2: ("model", "字节数的\\ 上界"),
    3: ("quickstart", "定价"),
    4: ("model", "慢估"),
    5: ("model", "所允许的时间，并在一个频率区间上求值"),
    6: ("model", "另一种 FP32 峰值同样是发射速率峰值的 SM"),
    7: ("model", "给出 shape 时为波次模型的字节数"),
    8: ("quickstart", re.compile(r"[。，] (?=[\w`])")),  # a space after a bold lead-in's full stop or comma
    9: ("quickstart", "受限于 DRAM 带宽"),
    10: ("quickstart", "最后，仅凭计数预测"),
    11: ("quickstart", "启动返回 profiler 会统计的内容"),
    12: (SITE_WIDE, "分化"),
    13: (L10 + "01_naive_and_coalescing", "理想sector"),
    14: (L10 + "01_naive_and_coalescing", "少了多少倍"),
    15: (L10 + "01_naive_and_coalescing", "uncoalesced, "),
    16: (L10 + "01_naive_and_coalescing", "触及"),
    18: (TN + "06_flash_attention", "强制流量"),
    19: (TN + "06_flash_attention", "约为原来的"),
    20: (TN + "06_flash_attention", "这也是 N 的二次方"),
    21: (TN + "06_flash_attention", "只有 profile"),
    22: (L10 + "02_shared_memory_caching", "停在MIO throttle上"),
}
# 17 (figures 2 and 3 of L10/01 share one alt text) is test_reading.py's test_figures_of_a_page_have_distinct_descriptions


def _article_text(docname: str) -> str:
    page = (SITE / "zh_CN" / f"{docname}.html").read_text(encoding="utf-8")
    article = page[page.find('<article class="bd-article">'):page.find("</article>")]
    article = re.sub(r"<pre\b.*?</pre>|<script\b.*?</script>", " ", article, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", article))


def slips_on(text: str, found) -> list[str]:
    if isinstance(found, str):
        return [found] if found in text else []
    return [text[max(0, m.start() - 8): m.end() + 8] for m in found.finditer(text)]


def test_all_22_slips_are_listed():
    assert sorted(SLIPS) == [n for n in range(1, 23) if n != 17]


@pytest.mark.parametrize("number", sorted(SLIPS))
def test_the_review_s_slip_is_gone(number):
    docname, found = SLIPS[number]
    docs = ([p.relative_to(SITE / "zh_CN").with_suffix("").as_posix() for p in (SITE / "zh_CN").rglob("*.html")
             if not {"_static", "generated", "_modules"} & set(p.relative_to(SITE / "zh_CN").parts)
             and p.name != "glossary.html"]
            if docname == SITE_WIDE else [docname])
    left = {d: hits for d in docs if (hits := slips_on(_article_text(d), found))}
    assert not left, f"slip {number} of the review is still there: {left}"


def test_the_slip_check_finds_the_pages_as_they_were():
    """Two of the slips as the review quoted them, on text made like the pages' (the check reads text, not markup)."""
    assert slips_on("NVIDIA 所说的每周期 128 B 是 L1 的\\ 数据\\ 带宽", SLIPS[1][1])
    assert slips_on("**float64 数组。** np.zeros", SLIPS[8][1]) == [] and \
        slips_on("float64 数组。 np.zeros(n) 给出", SLIPS[8][1]) == ["oat64 数组。 np.zeros"]
