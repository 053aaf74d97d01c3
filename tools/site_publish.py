"""The files at the built site's root, beside ``en/``, ``zh_CN/`` and ``dist/`` (run by ``nox -s docs``).

    python tools/site_publish.py build/html [SITE_URL]

- ``index.html`` sends a reader to ``en/`` or ``zh_CN/`` by the browser's language;
- ``404.html``, in both languages, for hosts that serve it for a missing page (GitHub Pages, Read the
  Docs), at the missing page's URL: its links are absolute, so they lead to the site from any depth.
  With the site's URL they are full URLs; without it they are root-absolute (``/en/index.html``),
  and a script corrects them for a site served under a path (``/kernellab/``) by finding the
  nearest folder above the missing page that holds ``en/index.html``;
- ``.nojekyll``, so GitHub Pages serves the ``_static``/``_downloads`` folders as they are;
- with the site's URL (the argument, else ``KERNELLAB_BASEURL``, else ``READTHEDOCS_CANONICAL_URL``):
  ``sitemap.xml``, every page in every language with its hreflang alternates, and ``robots.txt``
  pointing to it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from xml.sax.saxutils import escape

LANGS = (("en", "English"), ("zh_CN", "简体中文"))

REDIRECT = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kernellab</title>
<link rel="icon" href="en/_static/favicon.svg" type="image/svg+xml">
<script>
  var zh = (navigator.languages || [navigator.language || ""]).some(function (l) { return /^zh/i.test(l); });
  location.replace(zh ? "zh_CN/index.html" : "en/index.html");
</script>
<noscript><meta http-equiv="refresh" content="0; url=en/index.html"></noscript>
</head><body>
<p><a href="en/index.html" hreflang="en">English</a> · <a href="zh_CN/index.html" hreflang="zh-CN">简体中文</a></p>
</body></html>
"""

NOT_FOUND = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Page not found · 页面不存在 — kernellab</title>
<link rel="icon" href="{root}en/_static/favicon.svg" type="image/svg+xml">
<style>body{{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.6}}
h1{{font-size:1.6rem}} a{{color:#0a6ebd}}</style></head><body>
<h1>Page not found</h1>
<p>This page does not exist (any more). The kernellab documentation starts here:
<a href="{root}en/index.html" hreflang="en">English</a>.</p>
<h1 lang="zh-CN">页面不存在</h1>
<p lang="zh-CN">这个页面不存在（或已被移走）。kernellab 文档从这里开始：
<a href="{root}zh_CN/index.html" hreflang="zh-CN">简体中文</a>。</p>
{script}</body></html>
"""

# Without the site's URL: the links above are root-absolute; where the site lives under a path, the
# nearest folder above this URL that holds en/index.html is its root.
FIND_ROOT = """<script>
(function () {{
  var parts = location.pathname.split("/").slice(1, -1), tries = [];
  for (var i = parts.length; i > 0; i--) tries.push("/" + parts.slice(0, i).join("/") + "/");
  (function next() {{
    var root = tries.shift();
    if (!root) return;
    fetch(root + "en/index.html", {{ method: "HEAD" }}).then(function (r) {{
      if (!r.ok) return next();
      document.querySelectorAll("a[hreflang]").forEach(function (a) {{
        a.href = root + a.getAttribute("href").replace(/^\\//, "");
      }});
    }}, next);
  }})();
}})();
</script>
"""

SKIP = {"search.html", "genindex.html", "py-modindex.html"}


def site_url(argument: str | None = None) -> str:
    """The site's root URL, ending in ``/``, or ``""`` when it is not known."""
    url = (argument or os.environ.get("KERNELLAB_BASEURL") or os.environ.get("READTHEDOCS_CANONICAL_URL") or "").strip()
    return url if not url or url.endswith("/") else url + "/"


def pages(site: Path, lang: str) -> list[str]:
    """The site's indexable pages of one language, as paths relative to its folder."""
    root = site / lang
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.html")
                  if not (set(p.relative_to(root).parts) & {"_static", "_sources", "_downloads", "_modules"})
                  and p.name not in SKIP)


def sitemap(site: Path, url: str) -> str:
    """A sitemap of every page in every language, each with its alternates in the other languages."""
    codes = [code for code, _ in LANGS]
    common = sorted(set.intersection(*(set(pages(site, code)) for code in codes)))
    entries = []
    for page in common:
        links = "".join(f'\n    <xhtml:link rel="alternate" hreflang="{c.replace("_", "-")}" href="{escape(url + c + "/" + page)}"/>'
                        for c in codes)
        links += f'\n    <xhtml:link rel="alternate" hreflang="x-default" href="{escape(url + codes[0] + "/" + page)}"/>'
        entries += [f"  <url>\n    <loc>{escape(url + c + '/' + page)}</loc>{links}\n  </url>" for c in codes]
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
            + "\n".join(entries) + "\n</urlset>\n")


def publish(site: Path, url: str = "") -> list[Path]:
    """Write the root files; return their paths."""
    written = {
        site / "index.html": REDIRECT,
        site / "404.html": NOT_FOUND.format(root=url or "/", script="" if url else FIND_ROOT.format()),
        site / ".nojekyll": "",
    }
    for name in ("sitemap.xml", "robots.txt"):
        (site / name).unlink(missing_ok=True)
    if url:
        written[site / "sitemap.xml"] = sitemap(site, url)
        written[site / "robots.txt"] = f"User-agent: *\nAllow: /\nSitemap: {url}sitemap.xml\n"
    for path, text in written.items():
        path.write_text(text, encoding="utf-8")
    return list(written)


if __name__ == "__main__":
    site = Path(sys.argv[1])
    for path in publish(site, site_url(sys.argv[2] if len(sys.argv) > 2 else None)):
        print(path)
