"""tests/reference.py's ``every_case``: every case of a many-case test is checked, and the message names each one
that failed by its id, with what was wrong."""

import pytest

from tests.reference import every_case, failing_cases


def _one(kind):
    if kind == "lines":
        return ["first", "second"]
    if kind == "text":
        return "one line"
    if kind == "assert":
        assert 1 + 1 == 3, "arithmetic"
    if kind == "raise":
        raise KeyError("k")
    return [] if kind == "ok" else None


def test_every_case_is_checked_and_each_failure_named():
    ran = []

    def one(kind):
        ran.append(kind)
        return _one(kind)

    cases = {"a": ("ok",), "b": ("lines",), "c": ("assert",), "d": ("raise",), "e": ("none",), "f": ("text",)}
    checked = every_case(cases, one)
    assert ran == ["ok", "lines", "assert", "raise", "none", "text"]  # all six, in order, past the failures
    assert checked[0] == 6
    assert list(checked[1]) == ["b", "c", "d", "f"]  # a ([]) and e (None) pass
    assert checked[1]["b"] == ["first", "second"] and checked[1]["f"] == ["one line"]
    assert checked[1]["c"][0].startswith("failed: arithmetic") and checked[1]["d"] == ["raised KeyError: 'k'"]
    message = failing_cases(checked, "differ")
    assert message.splitlines()[:3] == ["4 of 6 cases differ:", "[b] first; second", "[c] failed: arithmetic"]
    assert message.splitlines()[-2:] == ["[d] raised KeyError: 'k'", "[f] one line"]


def test_an_interrupt_is_not_taken_for_a_case():
    # Ctrl-C (KeyboardInterrupt) and pytest's own exits are no Exception: they stop the test as before
    with pytest.raises(KeyboardInterrupt):
        every_case({"a": ()}, lambda: (_ for _ in ()).throw(KeyboardInterrupt))
