"""Check kernellab's built wheel and sdist beyond ``twine check`` (run by ``nox -s build`` and ``docs``).

    python tools/check_dist.py build/dist

The wheel's version is ``kernellab.__version__`` (the one place it is written); it holds the runtime
catalogs and the CJK font subset with its licence; it does not require the full 15.5 MB font except
through the ``cjk`` extra; the sdist holds the package and the CHANGELOG.
"""

from __future__ import annotations

import re
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def version() -> str:
    text = (ROOT / "kernellab" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"', text, re.M)[1]


def check(dist: Path) -> list[str]:
    v = version()
    wheel, sdist = dist / f"kernellab-{v}-py3-none-any.whl", dist / f"kernellab-{v}.tar.gz"
    problems = [f"missing {p.name}" for p in (wheel, sdist) if not p.is_file()]
    if problems:
        return problems + [f"found: {sorted(p.name for p in dist.iterdir())}"]
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = Parser().parsestr(z.read(f"kernellab-{v}.dist-info/METADATA").decode())
    for needed in ("kernellab/fonts/NotoSansCJKsc-Subset.otf", "kernellab/fonts/LICENSE-OFL.txt",
                   "kernellab/locale/zh_CN.po", "kernellab/__init__.py",
                   "kernellab/compiled_code.json", "kernellab/sgemm/sass_mix.json"):
        if needed not in names:
            problems.append(f"{wheel.name} lacks {needed}")
    if not any(n.endswith("licenses/LICENSE") for n in names):
        problems.append(f"{wheel.name} lacks the MIT licence file")
    requires = meta.get_all("Requires-Dist") or []
    full_font = [r for r in requires if r.startswith("noto-cjk-sans-otc")]
    if not full_font or any(not re.search(r"extra == ['\"]cjk['\"]", r) for r in full_font):
        problems.append(f"the full font must be required only by the cjk extra: {full_font}")
    if meta["Version"] != v:
        problems.append(f"wheel version {meta['Version']} != kernellab.__version__ {v}")
    with tarfile.open(sdist) as t:
        members = {m.name.split("/", 1)[-1] for m in t.getmembers()}
    for needed in ("kernellab/__init__.py", "CHANGELOG.md", "pyproject.toml", "kernellab/fonts/NotoSansCJKsc-Subset.otf"):
        if needed not in members:
            problems.append(f"{sdist.name} lacks {needed}")
    return problems


if __name__ == "__main__":
    found = check(Path(sys.argv[1]))
    for problem in found:
        print(problem)
    print("dist ok" if not found else f"{len(found)} problems")
    raise SystemExit(1 if found else 0)
