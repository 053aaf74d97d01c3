"""The quick start's "Your first kernel" runs as shown: every ``{doctest}`` block of docs/quickstart.md,
in order, in one namespace (as ``nox -s doctests`` runs them), under the unit tests as well."""

import doctest
import re
from pathlib import Path

QUICKSTART = Path(__file__).resolve().parents[1] / "docs" / "quickstart.md"


def _blocks() -> list[str]:
    return re.findall(r"```\{doctest\}\n(.*?)```", QUICKSTART.read_text(encoding="utf-8"), re.S)


def test_quickstart_has_a_simt_and_a_triton_first_kernel():
    text = "".join(_blocks())
    assert "launch(axpy" in text and "@triton.jit" in text
    assert text.count("predict(") >= 2 and "H100" in text


def test_every_quickstart_block_runs_as_shown():
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs: dict = {}
    for i, block in enumerate(_blocks()):
        test = parser.get_doctest(block, globs, f"quickstart block {i}", str(QUICKSTART), 0)
        runner.run(test, clear_globs=False)
        globs = test.globs  # DocTest runs on a copy: carry its names to the next block
    result = runner.summarize(verbose=False)
    assert result.attempted >= 25 and result.failed == 0
