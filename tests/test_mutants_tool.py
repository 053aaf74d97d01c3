"""tools/mutants.py's result files and summary: each group of modules keeps its own, and ``--summary`` reads
every group's, on a small synthetic repository; its scratch copy, and a kill counted only when the test that made it
passes there without the mutant (two mutants run, on the synthetic repository)."""

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
try:
    import mutants
finally:
    sys.path.pop(0)

ONE = "kernellab/one.py"
TWO = "kernellab/two.py"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository of two modules, no equivalent mutant listed, results in its own build/mutants."""
    (tmp_path / "kernellab").mkdir()
    # one.py's mutants: `<` → `<=`, 3 → 4, `+` → `-`, 1 → 2 (4); two.py's: `*` → `/`, 2 → 3 (2)
    (tmp_path / ONE).write_text("def f(x):\n    return x + 1 if x < 3 else x\n")
    (tmp_path / TWO).write_text("def g(x):\n    return x * 2\n")
    monkeypatch.setattr(mutants, "ROOT", tmp_path)
    monkeypatch.setattr(mutants, "OUT", tmp_path / "build" / "mutants")
    monkeypatch.setattr(mutants, "EQUIVALENT", tmp_path / "none.toml")
    return tmp_path


def _run(paths, killed, seed=37, sample=40):
    """Save the results of the group ``paths`` as a run would: the first ``killed`` of its mutants killed."""
    ms = [m for p in paths for m in mutants.sample_of(p, sample, seed)]
    results = [mutants._record(m, (mutants.ROOT / m.path).read_bytes(), "killed" if i < killed else "survived",
                               "covering tests") for i, m in enumerate(ms)]
    key = mutants._sources_key(paths, seed, sample)
    return mutants.save(paths, seed, sample, (1, 1), key, results)


def _without_unused_plugins(repo: Path) -> None:
    """The synthetic repository's pytest settings: its tests use none of hypothesis, pytest-xdist and pytest-cov, so
    each of the tool's pytest runs there starts without their plugins (hypothesis's imports most of hypothesis for
    its end-of-run summary: about 0.14 of a run's 0.42 CPU s). The tool's command is unchanged: a project's own
    settings are read from its copy."""
    (repo / "pytest.ini").write_text("[pytest]\naddopts = -p no:hypothesispytest -p no:xdist -p no:pytest_cov\n")


def _row(out: str, module: str) -> list[str]:
    return next(line.split() for line in out.splitlines() if line.split()[:1] == [module])


def test_two_groups_keep_their_own_files_and_the_summary_shows_both(repo, capsys):
    assert [m.what for m in mutants.mutants_of(ONE)] == ["+ → -", "1 → 2", "< → <=", "3 → 4"]
    first, second = _run([ONE], killed=3), _run([TWO], killed=2)
    assert first != second and first.exists() and second.exists()
    assert mutants.summary() == 1  # one.py: 3 of 4 = 75 % < 90 %
    out = capsys.readouterr().out
    assert _row(out, ONE) == [ONE, "4", "3", "0", "1", "75.0%"]  # 3 killed of 4, 1 survivor
    assert _row(out, TWO) == [TWO, "2", "2", "0", "0", "100.0%"]  # 2 of 2
    assert _row(out, "all") == ["all", "6", "5", "0", "1", "83.3%"]  # 5 of 6 = 83.3 %
    assert out.count("group ") == 2
    assert f"{ONE}:2: 3 → 4" in out  # the survivor, the last of one.py's mutants in file order
    # --summary of one module only: the other group's module is not shown
    assert mutants.summary([TWO]) == 0
    out = capsys.readouterr().out
    assert _row(out, TWO)[-1] == "100.0%" and ONE not in out


def test_a_group_run_again_replaces_its_own_file_and_an_edited_module_is_left_out(repo, capsys):
    _run([ONE], killed=3)
    again = _run([ONE], killed=4)  # after a test was added: the same group, the same file
    _run([TWO], killed=1)
    assert len(list(mutants.OUT.glob("*.json"))) == 2
    (repo / TWO).write_text("def g(x):\n    return x * 4\n")  # edited since its group ran
    assert mutants.summary() == 0
    out = capsys.readouterr().out
    assert _row(out, ONE) == [ONE, "4", "4", "0", "0", "100.0%"]
    assert TWO not in out and "2 results of modules edited since they ran left out" in out
    assert again.name.startswith("group-") and again.name.endswith("-shard-1-of-1.json")


def test_the_coverage_run_empties_kernellabs_caches_before_each_test(monkeypatch):
    # a cached function's lines run only in the first test that calls it with those arguments: the plugin of
    # the run that finds each line's tests empties every kernellab cache before each test
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import mutants_contexts
    finally:
        sys.path.pop(0)
    from kernellab.triton.compiler import banks, convert

    a = convert.blocked((64, 32), (1, 8), (8, 4), (4, 1), (1, 0))
    banks.operand_banks(a, 0, 16, 1, False)
    assert banks.operand_banks.cache_info().currsize >= 1
    found = mutants_contexts.caches()
    assert banks.operand_banks in found and banks.staged in found and convert.blocked in found
    monkeypatch.setattr(mutants_contexts, "caches", lambda: [banks.operand_banks])  # this one only: the rest stay warm
    mutants_contexts.pytest_runtest_setup(None)
    assert banks.operand_banks.cache_info().currsize == 0


def test_a_kill_names_the_test_that_failed():
    # pytest -q's short summary: the first FAILED (or ERROR) line's test id, without the message
    out = ("..F\n=== short test summary info ===\n"
           "FAILED tests/test_x.py::test_a[sm_80-none] - AssertionError: assert 1 == 2\n"
           "FAILED tests/test_x.py::test_b\n!!! stopping after 1 failures !!!\n1 failed, 2 passed in 0.1s\n")
    assert mutants._failed(out) == "tests/test_x.py::test_a[sm_80-none]"
    assert mutants._failed("ERROR tests/test_y.py - ImportError: no module\n") == "tests/test_y.py"
    assert mutants._failed("3 passed in 0.1s\n") == ""


def test_the_scratch_copy_holds_every_source_file_and_no_output(repo):
    # the fast tests read files outside kernellab/ and tests/ (test_stamps: README.md; the docs: CHANGELOG.md,
    # LICENSE): a copy of chosen folders left them out, and test_stamps failed there without any mutant, so that
    # every kill made by the whole of the fast tests was unproven. The build folder and caches stay out.
    for rel in ("README.md", "CHANGELOG.md", "LICENSE", "docs/index.md"):
        (repo / rel).parent.mkdir(exist_ok=True)
        (repo / rel).write_text(rel)
    (repo / "build" / "mutants").mkdir(parents=True)
    (repo / "build" / "mutants" / "contexts.json").write_text("{}")
    (repo / "kernellab" / "__pycache__").mkdir()
    (repo / "kernellab" / "__pycache__" / "one.cpython-311.pyc").write_bytes(b"")
    where = mutants._scratch()
    try:
        got = sorted(str(p.relative_to(where)) for p in where.rglob("*") if p.is_file())
        assert (where / "README.md").read_text() == "README.md"
    finally:
        shutil.rmtree(where)
    assert got == ["CHANGELOG.md", "LICENSE", "README.md", "docs/index.md", ONE, TWO]


def test_a_kill_by_a_test_that_fails_without_the_mutant_stops_the_run(repo):
    _without_unused_plugins(repo)
    (repo / "kernellab" / "__init__.py").write_text("")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_one.py").write_text(
        "from pathlib import Path\n\nfrom kernellab.one import f\n\n\n"
        "def test_f():\n    assert f(1) == 2\n\n\n"
        "def test_notes():\n    assert Path('NOTES.md').exists()\n")  # NOTES.md is in no copy: it fails unmutated
    m = mutants.mutants_of(ONE)[0]
    assert m.what == "+ → -"  # f(1) = 1 - 1 = 0, not 2: test_f fails with it, and passes without it
    source = (repo / ONE).read_bytes()
    where = mutants._scratch()
    proven: set = set()
    try:
        got = mutants.run_one(m, where, source, {m.stmt: ["tests/test_one.py::test_f"]}, 60, 1, proven=proven)
        assert got == ("killed", "covering tests: tests/test_one.py::test_f")
        assert proven == {"tests/test_one.py::test_f"}  # seen to pass without the mutant
        # test_notes fails with the mutant as without it: its "kill" proves nothing, and the run stops
        with pytest.raises(SystemExit, match="test_notes fails in the scratch copy without any mutant"):
            mutants.run_one(m, where, source, {m.stmt: ["tests/test_one.py::test_notes"]}, 60, 2, proven=proven)
        assert (where / ONE).read_bytes() == source  # the copy is left unmutated
    finally:
        shutil.rmtree(where)


def test_a_line_run_in_a_module_fixture_s_setup_is_tried_against_its_whole_file(repo):
    # pytest-cov names a context "<test id>|<phase>". A module-scoped fixture runs once, in the setup of the file's
    # first test that asks for it, so coverage.py credits its lines to that test alone; the file's later tests
    # read what it made. f's `+ → -` gives f(1) = 0: test_first (value ≥ 0) passes, test_second (value == 2) fails.
    assert mutants._selectors("tests/test_one.py::test_first|setup") == ["tests/test_one.py::test_first",
                                                                         "tests/test_one.py"]
    assert mutants._selectors("tests/test_one.py::test_first|run") == ["tests/test_one.py::test_first"]
    assert mutants._selectors("") == [""]  # at import, outside any test
    _without_unused_plugins(repo)
    (repo / "kernellab" / "__init__.py").write_text("")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_one.py").write_text(
        "import pytest\n\nfrom kernellab.one import f\n\n\n"
        "@pytest.fixture(scope='module')\ndef value():\n    return f(1)\n\n\n"
        "def test_first(value):\n    assert value >= 0\n\n\n"
        "def test_second(value):\n    assert value == 2\n")
    m = mutants.mutants_of(ONE)[0]
    assert m.what == "+ → -"
    source = (repo / ONE).read_bytes()
    where = mutants._scratch()
    try:
        credited = mutants._selectors("tests/test_one.py::test_first|setup")
        got = mutants.run_one(m, where, source, {m.stmt: credited}, 60, 1, proven=set())
        assert got == ("killed", "covering tests: tests/test_one.py::test_second")
        # credited to the first test alone (as before), the mutant survives: what the file's selector mends
        alone = mutants.run_one(m, where, source, {m.stmt: ["tests/test_one.py::test_first"]}, 60, 2, proven=set())
        assert alone == ("survived", "covering tests")
    finally:
        shutil.rmtree(where)


def test_an_equivalents_entry_names_which_of_its_lines_mutants_with_one_change(repo, capsys):
    # keys(a, b) = a << 15 | b << 8 has two `<< → >>` mutants: the first a >> 15, the second b >> 8. An entry keyed by
    # the line and the change alone named both; `occurrence = 2` names the second only (counted from the left)
    three = "kernellab/three.py"
    (repo / three).write_text("def keys(a, b):\n    return a << 15 | b << 8\n")
    ms = [m for m in mutants.mutants_of(three) if m.what == "<< → >>"]
    assert [(m.nth, m.of) for m in ms] == [(1, 2), (2, 2)] and ms[0].start < ms[1].start
    source = (repo / three).read_bytes()
    assert ms[1].show(source) == f"{three}:2: << → >> (2nd of 2 on the line)    | return a << 15 | b << 8"
    # the file's other mutants are alone on the line with their change: 15 → 16, `|` → `&`, 8 → 9
    assert {m.what: (m.nth, m.of) for m in mutants.mutants_of(three) if m.what != "<< → >>"} == \
        {"15 → 16": (1, 1), "| → &": (1, 1), "8 → 9": (1, 1)}
    assert "on the line" not in mutants.mutants_of(three)[-1].show(source)
    _run([three], killed=0)  # all 5 survive
    entry = f'[[equivalent]]\nmodule = "{three}"\nline = "return a << 15 | b << 8"\nmutation = "<< → >>"\n'
    for occurrence, equivalent in (("occurrence = 2\n", 1), ("occurrence = [1, 2]\n", 2), ("", 2)):
        mutants.EQUIVALENT.write_text(entry + occurrence + 'why = "."\n')
        assert mutants.summary() == 1
        out = capsys.readouterr().out
        assert _row(out, three) == [three, "5", "0", str(equivalent), str(5 - equivalent), "0.0%"]
        if occurrence == "occurrence = 2\n":  # the first is listed as a survivor, with which one it is
            assert f"{three}:2: << → >> (1st of 2 on the line)    | return a << 15 | b << 8" in out
        # an entry without an occurrence on a line with two is reported: it would name both
        assert ("do not say which" in out) == (occurrence == "")
    # a result file written before results kept nth: the summary finds it from the module (unchanged since)
    mutants.EQUIVALENT.write_text(entry + 'occurrence = 2\nwhy = "."\n')
    file = _run([three], killed=0)
    data = json.loads(file.read_text())
    for r in data["results"]:
        del r["nth"], r["of"]
    file.write_text(json.dumps(data))
    mutants.summary()
    assert _row(capsys.readouterr().out, three)[2:4] == ["0", "1"]
    # an occurrence the line does not have names nothing, and is reported
    assert mutants.ambiguous([{"module": three, "line": "return a << 15 | b << 8", "mutation": "<< → >>",
                               "occurrence": 3}]) == [f"{three}: return a << 15 | b << 8 (<< → >>, 2 on the line)"]


def test_every_equivalents_entry_names_which_of_its_lines_mutants_it_means():
    # tools/mutants_equivalent.toml: an entry on a line with several mutants of its change says which (occurrence)
    assert mutants.ambiguous(mutants._equivalents()) == []
