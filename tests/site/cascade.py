"""A small CSS cascade for the site checks: an element's computed ``text-align``, text colour and background,
in the light or the dark theme, from the stylesheets its page links (the theme's variables, sphinx-gallery's
and kernellab's styles) and its inline styles.

It does what a browser does for these few properties, and no more: selectors are matched by soupsieve
(pseudo-elements and user-action pseudo-classes such as ``:hover`` match nothing), the winner is the
declaration of the highest importance, then specificity, then order (an inline style above every rule);
``color``, ``text-align`` and custom properties inherit; ``var()`` is resolved on the element; ``@media``
and ``@supports`` blocks are left out (the themes are chosen by ``html[data-theme]``, as the theme switch
does). A background is the nearest painted one, translucent layers composited over what lies beneath.

>>> css = "html[data-theme=dark] { --fg: #eee; } td { color: var(--fg, #111); text-align: right }"
>>> page = Page('<html><body><table><tr><td style="background:#fde2e2">x</td></tr></table></body></html>', [css])
>>> td = page.soup.td
>>> page.value(td, "text-align"), page.color(td, "light"), page.color(td, "dark")
('right', (17, 17, 17, 1.0), (238, 238, 238, 1.0))
>>> round(contrast(page.color(td, "dark"), page.background(td, "dark")), 2)
1.06
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import soupsieve
from bs4 import BeautifulSoup

INHERITED = {"color", "text-align"}
THEMES = ("light", "dark")
# What the canvas shows where nothing is painted, by theme (the pages say color-scheme: light / dark)
CANVAS = {"light": ((255, 255, 255, 1.0), (0, 0, 0, 1.0)), "dark": ((18, 18, 18, 1.0), (255, 255, 255, 1.0))}
NAMED = {"white": "#ffffff", "black": "#000000", "red": "#ff0000", "transparent": "#0000", "inherit": None,
         "gray": "#808080", "grey": "#808080", "silver": "#c0c0c0", "whitesmoke": "#f5f5f5"}


@dataclass(frozen=True)
class Rule:
    selector: str
    specificity: tuple[int, int, int]
    order: int
    declarations: tuple[tuple[str, str, bool], ...]  # (property, value, important)


def _strip_comments(css: str) -> str:
    return re.sub(r"/\*.*?\*/", "", css, flags=re.S)


def _block_end(css: str, start: int) -> int:
    """The index just past the ``}`` closing the block whose ``{`` is at ``start``."""
    depth = 0
    for i in range(start, len(css)):
        if css[i] == "{":
            depth += 1
        elif css[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(css)


def declarations(text: str) -> list[tuple[str, str, bool]]:
    """``prop: value [!important]`` pairs of a declaration block (semicolons inside parentheses kept)."""
    out, depth, part = [], 0, []
    for ch in text + ";":
        depth += ch == "("
        depth -= ch == ")"
        if ch == ";" and depth == 0:
            decl = "".join(part).strip()
            part = []
            if ":" in decl:
                prop, value = decl.split(":", 1)
                important = bool(re.search(r"!\s*important\s*$", value))
                out.append((prop.strip().lower(), re.sub(r"!\s*important\s*$", "", value).strip(), important))
        else:
            part.append(ch)
    return out


def _split_selectors(text: str) -> list[str]:
    out, depth, part = [], 0, []
    for ch in text:
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            out.append("".join(part).strip())
            part = []
        else:
            part.append(ch)
    return [s for s in [*out, "".join(part).strip()] if s]


def specificity(selector: str) -> tuple[int, int, int]:
    """(ids, classes + attributes + pseudo-classes, types + pseudo-elements), as CSS Selectors 4 counts
    them: ``:where()`` counts nothing, ``:not()``/``:is()``/``:has()`` count their (first) argument.

    >>> specificity(".rendered_html td"), specificity("html[data-theme=dark] table.a tr.b"), specificity(":where(p) a:not(.x)")
    ((0, 1, 1), (0, 3, 3), (0, 1, 1))
    """
    s = re.sub(r"\[[^\]]*\]", "[]", selector)
    while (m := re.search(r":where\(", s)):
        depth, i = 1, m.end()
        while i < len(s) and depth:
            depth += (s[i] == "(") - (s[i] == ")")
            i += 1
        s = s[: m.start()] + s[i:]
    s = re.sub(r":(?:not|is|has|matches)\(([^,()]*)[^()]*\)", r" \1", s)
    s = re.sub(r"(:[\w-]+)\([^()]*\)", r"\1", s)  # :nth-child(2n+1), :lang(zh): one pseudo-class each
    ids = len(re.findall(r"#[\w-]+", s))
    classes = len(re.findall(r"\.[\w-]+|\[\]|(?<!:):(?!:)[\w-]+", s))
    types = len(re.findall(r"(?:^|[\s>+~(])([a-zA-Z][\w-]*)", s)) + len(re.findall(r"::[\w-]+", s))
    return ids, classes, types


def parse(css: str, start: int = 0) -> list[Rule]:
    """The style rules of a stylesheet outside ``@media``, ``@supports`` and other at-rule blocks."""
    css, rules, i = _strip_comments(css), [], 0
    order = start
    while i < len(css):
        brace = css.find("{", i)
        if brace < 0:
            break
        prelude = css[i:brace].strip()
        end = _block_end(css, brace)
        if prelude.startswith("@"):
            semi = css.find(";", i)
            if 0 <= semi < brace and not css[i:semi].strip().startswith(("@media", "@supports")):
                i = semi + 1  # @import, @charset: a statement, not a block
                continue
            i = end
            continue
        decls = tuple(declarations(css[brace + 1 : end - 1]))
        for selector in _split_selectors(prelude.split(";")[-1]):
            rules.append(Rule(selector, specificity(selector), order, decls))
            order += 1
        i = end
    return rules


def parse_color(value: str | None):
    """(r, g, b, alpha) of a CSS colour, or None (a keyword the check does not model, a gradient)."""
    if value is None:
        return None
    v = value.strip().lower()
    v = NAMED.get(v, v) if v in NAMED else v
    if v is None:
        return None
    m = re.fullmatch(r"#([0-9a-f]{3,8})", v)
    if m:
        h = m[1]
        if len(h) in (3, 4):
            h = "".join(c * 2 for c in h)
        if len(h) not in (6, 8):
            return None
        r, g, b = (int(h[k : k + 2], 16) for k in (0, 2, 4))
        return r, g, b, int(h[6:8], 16) / 255 if len(h) == 8 else 1.0
    m = re.fullmatch(r"rgba?\(([^)]*)\)", v)
    if m:
        parts = [p for p in re.split(r"[\s,/]+", m[1].strip()) if p]
        nums = [float(p[:-1]) * 2.55 if p.endswith("%") else float(p) for p in parts[:3]]
        alpha = parts[3] if len(parts) > 3 else "1"
        a = float(alpha[:-1]) / 100 if alpha.endswith("%") else float(alpha)
        return (*(round(n) for n in nums), a)
    return None


def _luminance(rgb) -> float:
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg, bg) -> float:
    """WCAG 2 contrast ratio of two opaque colours (a translucent text colour is blended over ``bg`` first).

    >>> round(contrast(parse_color("#1f2328"), parse_color("#fde2e2")), 1), round(contrast((255, 255, 255, 1), parse_color("#fde2e2")), 2)
    (12.9, 1.22)
    """
    fg = _over(fg, bg)
    hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _over(top, below):
    a = top[3]
    return (*(round(t * a + b * (1 - a)) for t, b in zip(top[:3], below[:3])), 1.0)


def _key(selector: str) -> str:
    """What an element must have for ``selector`` to match it, read off its last compound: ``#id``, ``.class``,
    a tag name, or ``*`` (anything), as browsers index their rules."""
    last = re.split(r"\s*[\s>+~]\s*(?![^()]*\))(?![^\[]*\])", selector.strip())[-1]
    last = re.sub(r"\([^()]*\)|\[[^\]]*\]", "", last)
    if m := re.search(r"#([\w-]+)", last):
        return "#" + m[1]
    if m := re.search(r"\.([\w-]+)", last):
        return "." + m[1]
    if m := re.match(r"([a-zA-Z][\w-]*)", last):
        return m[1].lower()
    return "*"


@functools.cache
def _compiled(selector: str):
    try:
        return soupsieve.compile(selector)
    except (soupsieve.SelectorSyntaxError, NotImplementedError, ValueError):
        return None  # a pseudo-element or a vendor pseudo-class (:-moz-focusring): matches nothing here


@functools.lru_cache(maxsize=16)
def _index(sheets: tuple[str, ...], properties: frozenset) -> dict[str, list[Rule]]:
    """The rules of ``sheets`` that declare one of ``properties`` or a custom property, by :func:`_key`
    (the pages of a site share their stylesheets: parsed once)."""
    rules: list[Rule] = []
    for css in sheets:
        rules += parse(css, start=len(rules))
    index: dict[str, list[Rule]] = {}
    for rule in rules:
        if "::" not in rule.selector and any(p in properties or p.startswith("--") for p, _, _ in rule.declarations):
            index.setdefault(_key(rule.selector), []).append(rule)
    return index


class Page:
    """One page: its elements' matched declarations, from ``sheets`` (CSS texts, in the page's order).

    Rules are indexed by the key of their last compound (:func:`_key`); an element is matched, per theme and
    once, against the rules of its own keys only.
    """

    def __init__(self, html: str, sheets: list[str], properties=("color", "background", "background-color",
                                                                  "text-align", "font-family")):
        self.soup = BeautifulSoup(html, "html.parser")
        self.properties = set(properties)
        self.index = _index(tuple(sheets), frozenset(self.properties))
        self._root = self.soup.find("html") or self.soup
        self._cache: dict = {}

    def _rules(self, el, theme: str) -> list[Rule]:
        keys = ["*", el.name, *("." + c for c in el.get("class") or ()), *(("#" + el["id"],) if el.get("id") else ())]
        self._root["data-theme"] = theme
        try:
            return [rule for key in keys for rule in self.index.get(key, ())
                    if (compiled := _compiled(rule.selector)) is not None and compiled.match(el)]
        finally:
            del self._root["data-theme"]

    def _declared(self, el, theme: str) -> dict[str, str]:
        """The cascaded value of each property declared on ``el`` itself (inline style included)."""
        cached = self._cache.get((id(el), theme))
        if cached is not None:
            return cached
        best: dict[str, tuple] = {}
        for rule in self._rules(el, theme):
            for prop, value, important in rule.declarations:
                key = (important, 0, rule.specificity, rule.order)
                if prop not in best or key > best[prop][0]:
                    best[prop] = (key, value)
        for k, (prop, value, important) in enumerate(declarations(el.get("style", "") or "")):
            key = (important, 1, (0, 0, 0), k)
            if prop not in best or key > best[prop][0]:
                best[prop] = (key, value)
        out = self._cache[id(el), theme] = {prop: value for prop, (_key, value) in best.items()}
        return out

    def _custom(self, el, theme: str) -> dict[str, str]:
        chain = [el, *el.parents]
        out: dict[str, str] = {}
        for node in reversed(chain):
            if getattr(node, "name", None) is None or node.name == "[document]":
                continue
            out.update({p: v for p, v in self._declared(node, theme).items() if p.startswith("--")})
        return out

    def _resolve(self, value: str, custom: dict[str, str], depth: int = 0) -> str:
        if depth > 20 or "var(" not in value:
            return value
        m = re.search(r"var\(\s*(--[\w-]+)\s*(?:,\s*([^()]*(?:\([^()]*\))?[^()]*))?\)", value)
        if not m:
            return value
        replacement = custom.get(m[1], m[2] if m[2] is not None else "")
        return self._resolve(value[: m.start()] + replacement + value[m.end():], custom, depth + 1)

    def value(self, el, prop: str, theme: str = "light") -> str | None:
        """The computed value of ``prop`` on ``el`` (inherited where the property inherits)."""
        for node in [el, *el.parents]:
            if getattr(node, "name", None) in (None, "[document]"):
                break
            declared = self._declared(node, theme).get(prop)
            if declared is not None and declared.strip() not in ("inherit", "unset"):
                return (self._resolve(declared, self._custom(node, theme)) if "var(" in declared else declared).strip()
            if prop not in INHERITED and declared is None:
                return None
        return None

    def color(self, el, theme: str):
        return parse_color(self.value(el, "color", theme)) or CANVAS[theme][1]

    def _own_background(self, node, theme: str):
        declared = self._declared(node, theme)
        custom = None
        for prop in ("background-color", "background"):
            if prop in declared:
                custom = custom if custom is not None else self._custom(node, theme)
                value = self._resolve(declared[prop], custom)
                if value.strip() in ("none", "transparent", "initial", "unset"):
                    return None
                first = re.match(r"\s*(#[0-9a-fA-F]{3,8}|rgba?\([^)]*\)|[a-zA-Z]+)", value)
                color = parse_color(first[1]) if first else None
                if color is not None:
                    return color
        return None

    def background(self, el, theme: str):
        """The colour painted behind ``el``: its own and its ancestors' backgrounds, composited."""
        layers = []
        for node in [el, *el.parents]:
            if getattr(node, "name", None) in (None, "[document]"):
                break
            color = self._own_background(node, theme)
            if color is not None:
                layers.append(color)
                if color[3] >= 1:
                    break
        out = CANVAS[theme][0]
        for layer in reversed(layers):
            out = _over(layer, out)
        return out


@functools.cache
def stylesheet_text(path) -> str:
    return path.read_text(encoding="utf-8")


def page_sheets(page_path, html: str) -> list[str]:
    """The CSS texts a page links (``<link rel="stylesheet">``, in order) and its ``<style>`` blocks."""
    from urllib.parse import unquote, urlsplit

    sheets = []
    for m in re.finditer(r"<link\b[^>]*>|<style\b[^>]*>(.*?)</style>", html, re.S | re.I):
        tag = m[0]
        if tag.lower().startswith("<style"):
            sheets.append(m[1])
            continue
        if "stylesheet" not in tag:
            continue
        href = re.search(r'href="([^"]+)"', tag)
        if href and not urlsplit(href[1]).scheme:
            target = page_path.parent / unquote(urlsplit(href[1]).path)
            if target.is_file():
                sheets.append(stylesheet_text(target))
    return sheets
