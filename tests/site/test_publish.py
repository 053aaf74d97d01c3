"""Checks that the built site is ready to publish (run by `nox -s docs`).

hreflang alternates on every page (absolute, with a canonical URL, once the site's URL is known), a
sitemap exactly when it is known, copy buttons labelled in the page's language, links from the API
pages to the source, and a 404 page.
"""

import json
import re
import xml.etree.ElementTree as ET
from urllib.parse import unquote, urlsplit

import pytest
from site_common import CJK, LANGS, SITE
from site_publish import pages, site_url, sitemap  # tools/, on the path by conftest.py

ALTERNATE = re.compile(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">')


def _html(lang, rel):
    return (SITE / lang / rel).read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_has_hreflang_alternates_to_itself_in_each_language(lang):
    url = site_url()
    for rel in pages(SITE, lang):
        text = _html(lang, rel)
        found = dict(ALTERNATE.findall(text))
        assert set(found) == {"en", "zh-CN", "x-default"}, f"{lang}/{rel}: {found}"
        for code, href in found.items():
            folder = "en" if code == "x-default" else code.replace("-", "_")
            if url:
                assert href == f"{url}{folder}/{rel}", f"{lang}/{rel}: {href}"
            else:
                target = (SITE / lang / rel).parent / unquote(urlsplit(href).path)
                assert target.resolve() == (SITE / folder / rel).resolve(), f"{lang}/{rel}: {href}"
        canonical = re.search(r'<link rel="canonical" href="([^"]+)"', text)
        if url:
            assert canonical and canonical[1] == f"{url}{lang}/{rel}", f"{lang}/{rel}: canonical {canonical}"
        else:
            assert not canonical, f"{lang}/{rel}: a canonical URL in a build without the site's URL"


def test_sitemap_exactly_when_the_site_url_is_known():
    url = site_url()
    assert (SITE / "sitemap.xml").exists() == bool(url) == (SITE / "robots.txt").exists()
    if url:
        assert ET.fromstring((SITE / "sitemap.xml").read_text(encoding="utf-8")) is not None
        assert f"Sitemap: {url}sitemap.xml" in (SITE / "robots.txt").read_text(encoding="utf-8")


def test_sitemap_lists_every_page_with_its_alternates():
    """The sitemap this site would get at https://example.org/kl/ (the generator run on the built site)."""
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    root = ET.fromstring(sitemap(SITE, "https://example.org/kl/"))
    urls = root.findall("s:url", ns)
    en_pages = pages(SITE, "en")
    assert "index.html" in en_pages and "search.html" not in en_pages
    assert len(urls) == 2 * len(en_pages)
    locs = {u.find("s:loc", ns).text for u in urls}
    assert "https://example.org/kl/zh_CN/index.html" in locs and "https://example.org/kl/en/index.html" in locs
    for u in urls:
        alternates = {a.get("hreflang"): a.get("href") for a in u.findall("x:link", ns)}
        page = u.find("s:loc", ns).text.split("/", 5)[-1]
        assert alternates == {"en": f"https://example.org/kl/en/{page}", "zh-CN": f"https://example.org/kl/zh_CN/{page}",
                              "x-default": f"https://example.org/kl/en/{page}"}


def _copybutton_labels(lang):
    """The labels copybutton.js shows on a page whose <html lang> is the page's."""
    script = (SITE / lang / "_static" / "copybutton.js").read_text(encoding="utf-8")
    html_lang = re.search(r'<html lang="([^"]+)"', _html(lang, "quickstart.html"))[1]
    body = script[script.index("const messages = {") + len("const messages = ") : script.index("\n}\n", script.index("const messages = {")) + 2]
    messages = json.loads(re.sub(r",(\s*})", r"\1", body.replace("'", '"')))
    return html_lang, messages.get(html_lang, messages["en"])


@pytest.mark.parametrize("lang", LANGS)
def test_copy_buttons_labelled_in_the_page_language(lang):
    page = _html(lang, "quickstart.html")
    assert "copybutton.js" in page and 'class="highlight' in page
    html_lang, labels = _copybutton_labels(lang)
    assert html_lang == lang.replace("_", "-")
    assert all(CJK.search(text) for text in labels.values()) == (lang == "zh_CN"), labels


@pytest.mark.parametrize("lang", LANGS)
def test_api_pages_link_to_the_source(lang):
    page = _html(lang, "generated/kernellab.launch.html")
    links = re.findall(r'href="([^"]*_modules/kernellab/[^"#]+\.html)#([^"]*)"', page)
    assert links, "no [source] link on kernellab.launch's page"
    path, fragment = links[0]
    source = (SITE / lang / "generated" / path).resolve().read_text(encoding="utf-8")
    assert fragment == "launch" and f'id="{fragment}"' in source and "viewcode-back" in source


def test_404_page_leads_to_both_languages_from_any_depth():
    """Hosts serve 404.html at the missing page's URL (GitHub Pages, Read the Docs): its links must be
    absolute, or /kernellab/en/auto_examples/x/missing.html would send a reader to .../x/en/index.html."""
    text = (SITE / "404.html").read_text(encoding="utf-8")
    url = site_url()
    links = re.findall(r'<a href="([^"]+)" hreflang="([^"]+)"', text)
    assert {lang for _, lang in links} == {"en", "zh-CN"}, links
    for href, lang in links:
        assert href.startswith(("https://", "http://", "/")) and not href.startswith("//"), f"relative link {href}"
        assert href == f"{url or '/'}{lang.replace('-', '_')}/index.html"
        assert (SITE / lang.replace("-", "_") / "index.html").is_file()
    # without the site's URL, a script finds the site's root above the missing page for a site under a path
    assert ("en/index.html\", { method: \"HEAD\" }" in text) == (not url)
    assert "Page not found" in text and "页面不存在" in text
    assert (SITE / ".nojekyll").exists()
