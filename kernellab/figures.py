"""Figures: matplotlib set up to draw Chinese labels with a real CJK font from the package index.

sphinx-gallery resets matplotlib before each example, so every script that draws calls
:func:`use_cjk_font` itself (readers' downloaded scripts then work too).
"""

from __future__ import annotations

import matplotlib as mpl
from matplotlib import font_manager

CJK_FAMILY = "Noto Sans CJK SC"  # the Simplified-Chinese face of the .ttc (face 0 is Japanese)


def use_cjk_font() -> None:
    """Register Noto Sans CJK and put it after DejaVu Sans in ``font.family``, so glyphs fall back.

    Latin text and the minus sign keep DejaVu's look; Chinese falls back to the SC face. Listing both
    in ``font.family`` (not ``font.sans-serif``) is what makes matplotlib fall back per glyph.

    Examples
    --------
    >>> use_cjk_font(); mpl.rcParams["font.family"]
    ['DejaVu Sans', 'Noto Sans CJK SC']
    """
    import noto_cjk_sans_otc

    path = str(noto_cjk_sans_otc.FONT_PATH)
    if not any(f.fname == path for f in font_manager.fontManager.ttflist):
        font_manager.fontManager.addfont(path)
    mpl.rcParams["font.family"] = ["DejaVu Sans", CJK_FAMILY]
    mpl.rcParams["axes.unicode_minus"] = True
