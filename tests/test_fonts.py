"""The CJK font kernellab draws with: the shipped subset covers every character it can draw, the full
font (``kernellab[cjk]``) wins when installed, and a Chinese figure renders without a missing glyph."""

import importlib.util
import sys
import types
from pathlib import Path

import matplotlib as mpl
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font

from kernellab import figures
from kernellab.i18n import catalog

ROOT = Path(__file__).resolve().parent.parent
FIX = "python3 -m nox -s font-subset"


def _needed_characters():
    spec = importlib.util.spec_from_file_location("make_font_subset", ROOT / "tools" / "make_font_subset.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.needed_characters(ROOT)


def _covered(path):
    return {chr(code) for code in FT2Font(str(path)).get_charmap()}


def test_subset_covers_every_catalog_character():
    """Every character of the runtime catalogs and of the gallery's CJK literals has a glyph in DejaVu
    Sans (drawn first) or in the subset (the fallback) — i.e. no figure label can miss a glyph."""
    dejavu = _covered(font_manager.findfont("DejaVu Sans", fallback_to_default=False))
    subset = _covered(figures.SUBSET_PATH)
    covered = dejavu | subset  # once (in the condition below, the union was rebuilt for every character)
    missing = sorted(c for c in _needed_characters() if c.strip() and c not in covered)
    assert not missing, (
        f"{len(missing)} characters of kernellab's catalogs or gallery have no glyph in the font subset: "
        f"{''.join(missing)!r}. Regenerate it with `{FIX}` and commit kernellab/fonts/.")


def test_subset_is_small_and_named_apart():
    """Under its own family name, so matplotlib never picks it where the full font is asked for."""
    assert figures.SUBSET_PATH.stat().st_size < 2_000_000
    assert font_manager.ttfFontProperty(FT2Font(str(figures.SUBSET_PATH))).name == figures.SUBSET_FAMILY


def test_without_the_extra_the_subset_is_used(monkeypatch):
    monkeypatch.setitem(sys.modules, "noto_cjk_sans_otc", None)  # import fails
    assert figures.cjk_font() == (figures.SUBSET_PATH, figures.SUBSET_FAMILY)


def test_with_the_extra_the_full_font_is_used(monkeypatch, tmp_path):
    fake = types.SimpleNamespace(FONT_PATH=tmp_path / "NotoSansCJK-Regular.ttc")
    monkeypatch.setitem(sys.modules, "noto_cjk_sans_otc", fake)
    assert figures.cjk_font() == (fake.FONT_PATH, figures.CJK_FAMILY)


def test_every_catalog_message_draws_with_no_missing_glyph(monkeypatch, tmp_path):
    """Every character of the Chinese runtime messages drawn in a title; pytest turns warnings into errors,
    so a missing glyph fails the savefig. A glyph is missing or not one character at a time (matplotlib
    picks the font per character), so each distinct character is drawn once, 60 to a line: the same
    verdict as drawing the messages themselves (some 27 000 characters, 2 s) in 0.1 s."""
    chars = "".join(sorted(set("".join(catalog("zh_CN").values())) - {"\n"}))
    assert len(chars) > 500  # the catalog's ~640 distinct characters, CJK and Latin
    label = "\n".join(chars[i:i + 60] for i in range(0, len(chars), 60)).replace("$", r"\$")  # no mathtext
    monkeypatch.setitem(sys.modules, "noto_cjk_sans_otc", None)
    family = figures.use_cjk_font()
    assert mpl.rcParams["font.family"] == ["DejaVu Sans", family] and family == figures.SUBSET_FAMILY
    fig = Figure()  # not pyplot's: importing pyplot cost every test worker 0.15 s at collection
    fig.subplots().set_title(label)
    fig.savefig(tmp_path / "label.png")
