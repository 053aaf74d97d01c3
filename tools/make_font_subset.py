"""Regenerate kernellab's CJK font subset: ``python3 -m nox -s font-subset`` (or run this file directly
in an environment with fontTools and the ``noto-cjk-sans-otc`` package).

kernellab draws Chinese figure labels with Noto Sans CJK SC. The full font is a 15.5 MB download
(the ``kernellab[cjk]`` extra); the wheel ships instead a subset of its Simplified-Chinese face that
holds every character kernellab itself can draw:

- every character of every message in kernellab's runtime catalogs (``kernellab/locale/*.po``, all
  of them, whichever helper or translator added them);
- every CJK character written literally in kernellab's or the gallery's Python sources;
- printable ASCII and the common full-width punctuation, so a short Chinese label of one's own
  with ordinary punctuation also renders.

The subset is renamed (family "Noto Sans CJK SC Subset") so that it never stands in for the full
font under the full font's name. Its licence (SIL OFL 1.1, with the original copyright notice read
from the font) is written beside it. Output is deterministic: the same characters give the same bytes.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FONT_DIR = ROOT / "kernellab" / "fonts"
SUBSET = FONT_DIR / "NotoSansCJKsc-Subset.otf"
LICENSE = FONT_DIR / "LICENSE-OFL.txt"
FAMILY = "Noto Sans CJK SC Subset"
SOURCE_FAMILY = "Noto Sans CJK SC"
CJK_LITERAL = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")
EXTRA = "".join(chr(c) for c in range(0x20, 0x7F)) + "，。、；：？！“”‘’（）《》【】—…·～"


def _po_messages(path: Path) -> list[str]:
    """Every msgstr of a gettext catalog, parsed as kernellab does (its i18n module alone: this script
    runs with fontTools and the font, without numpy)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_kernellab_i18n", ROOT / "kernellab" / "i18n.py")
    i18n = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(i18n)
    return list(i18n.parse_po(path.read_text(encoding="utf-8")).values())


def needed_characters(root: Path = ROOT) -> set[str]:
    """The characters the subset must hold (see the module docstring)."""
    chars = set(EXTRA)
    for po in sorted((root / "kernellab" / "locale").glob("*.po")):
        for message in _po_messages(po):
            chars.update(message)
    for folder in ("kernellab", "gallery"):
        for source in sorted((root / folder).rglob("*.py")):
            chars.update(CJK_LITERAL.findall(source.read_text(encoding="utf-8")))
    return {c for c in chars if c.isprintable() or c == " "}


def _source_face(path: Path):
    from fontTools.ttLib import TTCollection, TTFont

    count = len(TTCollection(str(path)).fonts) if path.suffix.lower() == ".ttc" else 1
    for number in range(count):
        font = TTFont(str(path), fontNumber=number, lazy=False, recalcTimestamp=False)
        if font["name"].getDebugName(1) == SOURCE_FAMILY:
            return font
    raise SystemExit(f"no face named {SOURCE_FAMILY!r} in {path}")


def make_subset(source: Path, chars: set[str], out: Path = SUBSET) -> list[str]:
    """Write the subset of ``source``'s SC face holding ``chars``; return the characters it lacks."""
    from fontTools import subset

    font = _source_face(source)
    cmap = font.getBestCmap()
    missing = sorted(c for c in chars if ord(c) not in cmap and c.strip())
    options = subset.Options()
    options.layout_features = []      # matplotlib does no OpenType shaping
    options.hinting = False            # and renders CJK with FreeType's autohinter
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14, 16, 17]
    options.notdef_outline = True
    options.drop_tables += ["VORG", "vhea", "vmtx", "DSIG", "BASE"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(ord(c) for c in chars if ord(c) in cmap))
    subsetter.subset(font)
    name = font["name"]
    copyright_notice = name.getDebugName(0) or ""
    for record in list(name.names):
        if record.nameID in (1, 4, 16):
            record.string = FAMILY if record.nameID != 4 else f"{FAMILY} Regular"
        elif record.nameID in (3, 6):
            record.string = FAMILY.replace(" ", "") + "-Regular"
    font["CFF "].cff.fontNames = [FAMILY.replace(" ", "") + "-Regular"]
    out.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(out))
    license_text = _license_text(source)
    LICENSE.write_text(
        f"{out.name} is a subset of Noto Sans CJK SC (renamed {FAMILY!r}), made by tools/make_font_subset.py.\n"
        f"{copyright_notice}\n\n{license_text}", encoding="utf-8")
    return missing


def _license_text(source: Path) -> str:
    """The OFL text shipped with the font package (its dist-info), or the font's own licence record."""
    from importlib.metadata import distribution

    try:
        dist = distribution("noto-cjk-sans-otc")
        for file in dist.files or []:
            if file.name.upper().startswith("LICENSE"):
                return Path(dist.locate_file(file)).read_text(encoding="utf-8")
    except Exception:  # the font given by path, without the package: fall back to the name table
        pass
    from fontTools.ttLib import TTFont

    return TTFont(str(source), fontNumber=0)["name"].getDebugName(13) or "SIL Open Font License 1.1"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help="the full .ttc/.otf (default: noto-cjk-sans-otc's)")
    args = parser.parse_args(argv)
    source = args.source
    if source is None:
        import noto_cjk_sans_otc

        source = Path(str(noto_cjk_sans_otc.FONT_PATH))
    chars = needed_characters()
    missing = make_subset(source, chars)
    print(f"{SUBSET.relative_to(ROOT)}: {len(chars)} characters, {SUBSET.stat().st_size / 1024:.0f} KiB")
    if missing:
        print(f"not in {SOURCE_FAMILY} (DejaVu Sans must draw them): {''.join(missing)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
