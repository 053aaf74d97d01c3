"""What the site's build settings assume, checked without building it: the settings that only save time
(docs/conf.py's ``autodoc_use_type_comments``, docs/_ext/build_gc.py) must change no output."""

import gc
import importlib.util
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TYPE_COMMENT = re.compile(r"#\s*type:(?!\s*ignore\b)")  # PEP 484's type comment; "# type: ignore" is none


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def type_comments(source: str) -> list[str]:
    """The PEP 484 type comments of Python ``source`` (comments only: a string holding "# type:" is none)."""
    return [tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT and TYPE_COMMENT.match(tok.string)]


def test_the_type_comment_reader_finds_type_comments_only():
    source = 'x = []  # type: list[int]\ny = "# type: str"\nz = 1  # type: ignore[assignment]\n'
    assert type_comments(source) == ["# type: list[int]"]


def test_kernellab_has_no_type_comments():
    """conf.py turns Sphinx's type-comment reading off: it would find none, so the pages stay the same."""
    assert "autodoc_use_type_comments = False" in (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    found = {str(p.relative_to(ROOT)): c for p in sorted((ROOT / "kernellab").rglob("*.py"))
             if (c := type_comments(p.read_text(encoding="utf-8")))}
    assert not found, f"type comments, which the API pages would now leave out: {found}"


class _Cycle:
    """An object in a reference cycle with a finalizer: freed by the collector only."""

    finalized = []

    def __init__(self, name):
        self.name, self.me = name, self

    def __del__(self):
        _Cycle.finalized.append(self.name)


def test_freezing_keeps_the_live_and_frees_the_garbage_first():
    build_gc = _load("build_gc")
    frozen_before = gc.get_freeze_count()
    gc.disable()  # no collection but the one under test
    try:
        live = _Cycle("live")
        _Cycle("garbage")  # unreachable at once, but a cycle: only a collection frees it
        build_gc.freeze_survivors()
        assert _Cycle.finalized == ["garbage"]  # its finalizer ran: it was collected, not frozen
        assert gc.get_freeze_count() > frozen_before and live.me is live
    finally:
        gc.unfreeze()  # all of it: the heap the root conftest froze after collecting too, frozen again below
        gc.enable()
        del live
        gc.collect()
        gc.freeze()  # else every later full collection of this worker walks the whole collected heap again
    assert _Cycle.finalized == ["garbage", "live"]
    # what was frozen before the test (the root conftest's collected heap) is frozen again, less the cycles that
    # had become garbage since, which the collection above freed
    assert (gc.get_freeze_count() > 0) == (frozen_before > 0)
