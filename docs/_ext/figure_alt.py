"""Figure alt texts in the page's language: sphinx-gallery's matplotlib scraper, with Chinese joins.

sphinx-gallery writes a figure's titles (its suptitle, then each axes' titles) into the image's alt
text, joined by a half-width ", ". On the Chinese site the titles are Chinese, and Chinese joins
them with "；": :func:`matplotlib_scraper` (named in conf.py's ``image_scrapers``) rewrites each alt
text it can match to its figure.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from sphinx_gallery.scrapers import matplotlib_scraper as _sphinx_gallery_scraper

from kernellab.i18n import current_language


def titles(fig) -> list[str]:
    """A figure's titles in sphinx-gallery's order: the suptitle, then each axes' left, center, right."""
    found = [fig._suptitle.get_text()] if getattr(fig, "_suptitle", None) is not None else []
    return found + [t for ax in fig.axes for loc in ("left", "center", "right") if (t := ax.get_title(loc=loc))]


def matplotlib_scraper(block, block_vars, gallery_conf, **kwargs):
    """sphinx-gallery's scraper, each multi-title alt text joined with "；" on the Chinese site."""
    # read before the scraper closes them; one line each, as sphinx-gallery writes them into :alt:
    figures = [[t.replace("\n", " ") for t in titles(plt.figure(num))] for num in plt.get_fignums()]
    rst = _sphinx_gallery_scraper(block, block_vars, gallery_conf, **kwargs)
    if current_language() == "zh_CN":
        for found in figures:
            if len(found) > 1:
                rst = rst.replace(f":alt: {', '.join(found)}\n", f":alt: {'；'.join(found)}\n", 1)
    return rst
