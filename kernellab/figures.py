"""Figures: matplotlib set up to draw Chinese labels with Noto Sans CJK SC, no system fonts needed.

kernellab ships a small subset of the font (``kernellab/fonts``, every character its catalogs and
gallery figures draw; ``python3 -m nox -s font-subset`` regenerates it). The full font is the
``kernellab[cjk]`` extra, for readers who label their own figures in Chinese: when it is installed,
kernellab uses it instead of the subset.

sphinx-gallery resets matplotlib before each example, so every script that draws calls
:func:`use_cjk_font` itself (readers' downloaded scripts then work too).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib as mpl
from matplotlib import font_manager

CJK_FAMILY = "Noto Sans CJK SC"  # the Simplified-Chinese face of the full .ttc (face 0 is Japanese)
SUBSET_FAMILY = "Noto Sans CJK SC Subset"  # the subset's own name, so it never poses as the full font
SUBSET_PATH = Path(__file__).with_name("fonts") / "NotoSansCJKsc-Subset.otf"


def cjk_font() -> tuple[Path, str]:
    """The CJK font kernellab draws with: the full font if ``kernellab[cjk]`` is installed, else the subset.

    Returns ``(path, family)``.

    Examples
    --------
    >>> path, family = cjk_font()
    >>> family in (CJK_FAMILY, SUBSET_FAMILY) and path.is_file()
    True
    """
    try:
        import noto_cjk_sans_otc
    except ImportError:
        return SUBSET_PATH, SUBSET_FAMILY
    return Path(str(noto_cjk_sans_otc.FONT_PATH)), CJK_FAMILY


def use_cjk_font() -> str:
    """Register the CJK font and put it after DejaVu Sans in ``font.family``, so glyphs fall back.

    Latin text and the minus sign keep DejaVu's look; Chinese falls back to the CJK face. Listing both
    in ``font.family`` (not ``font.sans-serif``) is what makes matplotlib fall back per glyph.
    Returns the CJK family used (see :func:`cjk_font`).

    Examples
    --------
    >>> family = use_cjk_font()
    >>> mpl.rcParams["font.family"] == ["DejaVu Sans", family]
    True
    """
    path, family = cjk_font()
    if not any(f.fname == str(path) for f in font_manager.fontManager.ttflist):
        font_manager.fontManager.addfont(str(path))
    mpl.rcParams["font.family"] = ["DejaVu Sans", family]
    mpl.rcParams["axes.unicode_minus"] = True
    return family
