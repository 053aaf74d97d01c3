"""What the site's build settings assume, checked without building it: the settings that only save time
(docs/conf.py's ``autodoc_use_type_comments``, docs/_ext/build_gc.py) must change no output."""

import io
import json
import re
import subprocess
import sys
import textwrap
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TYPE_COMMENT = re.compile(r"#\s*type:(?!\s*ignore\b)")  # PEP 484's type comment; "# type: ignore" is none


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


# In a new interpreter: freezing is process-wide, and unfreezing afterwards would unfreeze what the root conftest froze
# too; a full collection of a worker's whole heap to freeze it again took 0.16 of the test's 0.23 CPU s and froze the
# objects earlier tests had left alive.
FREEZING = textwrap.dedent("""
    import gc, importlib.util, json, sys
    spec = importlib.util.spec_from_file_location("build_gc", sys.argv[1])
    build_gc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_gc)
    finalized = []

    class Cycle:  # an object in a reference cycle with a finalizer: freed by the collector only
        def __init__(self, name):
            self.name, self.me = name, self

        def __del__(self):
            finalized.append(self.name)

    gc.disable()  # no collection but the one under test
    live = Cycle("live")
    Cycle("garbage")  # unreachable at once, but a cycle: only a collection frees it
    before = gc.get_freeze_count()
    build_gc.freeze_survivors()
    facts = {"finalized": list(finalized), "more_frozen": gc.get_freeze_count() > before, "live": live.me is live,
             "live_frozen": gc.is_tracked(live) and not any(o is live for o in gc.get_objects())}
    gc.unfreeze()
    del live
    gc.collect()
    facts["finalized_after_unfreezing"] = list(finalized)
    print(json.dumps(facts))
""")


def test_freezing_keeps_the_live_and_frees_the_garbage_first():
    done = subprocess.run([sys.executable, "-c", FREEZING, str(ROOT / "docs" / "_ext" / "build_gc.py")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    facts = json.loads(done.stdout)
    assert facts["finalized"] == ["garbage"]  # its finalizer ran: it was collected, not frozen
    assert facts["more_frozen"] and facts["live"] and facts["live_frozen"]  # the live one kept, out of the GC's sight
    assert facts["finalized_after_unfreezing"] == ["garbage", "live"]  # frozen, not leaked: collected once unfrozen
