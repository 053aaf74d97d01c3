"""tools/stamps.py: the fingerprint that lets ``nox -s docs`` skip the built-site checks changes with
every input, and the stamp's inputs cover every repository file the checks import."""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from stamps import fingerprint, passed_on  # noqa: E402


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "site" / "en").mkdir(parents=True)
    (tmp_path / "site" / "en" / "index.html").write_text("<p>a</p>")
    (tmp_path / "site" / "zh_CN.html").write_text("<p>b</p>")
    (tmp_path / "tests.py").write_text("def test(): pass\n")
    return tmp_path


def _key(root, env=None):
    return fingerprint(root, [root / "site", root / "tests.py"], env or {"KERNELLAB_SITE": "site"})


def test_the_same_inputs_give_the_same_fingerprint(tree):
    assert _key(tree) == _key(tree)


@pytest.mark.parametrize("change", [
    lambda root: (root / "site" / "en" / "index.html").write_text("<p>A</p>"),  # a byte
    lambda root: (root / "site" / "en" / "index.html").write_text("<p>a</p> "),  # a length
    lambda root: (root / "site" / "en" / "new.html").write_text(""),  # an empty file added
    lambda root: (root / "site" / "zh_CN.html").unlink(),  # a file removed
    lambda root: (root / "site" / "zh_CN.html").rename(root / "site" / "zh.html"),  # renamed
    lambda root: (root / "tests.py").write_text("def test(): assert 0\n"),  # the checks' own code
    lambda root: (root / "tests.py").unlink(),  # a named input gone
])
def test_any_change_to_an_input_changes_the_fingerprint(tree, change):
    before = _key(tree)
    change(tree)
    assert _key(tree) != before


def test_an_environment_variable_changes_the_fingerprint(tree):
    assert _key(tree, {"KERNELLAB_SITE": "site", "KERNELLAB_BASEURL": "https://x/"}) != _key(tree)


def test_bytecode_caches_are_not_inputs(tree):
    before = _key(tree)
    (tree / "site" / "__pycache__").mkdir()
    (tree / "site" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert _key(tree) == before


def test_a_stamp_says_passed_only_for_its_own_fingerprint(tree):
    stamp = tree / "stamp"
    assert not passed_on(stamp, "abc")
    stamp.write_text("abc", encoding="utf-8")
    assert passed_on(stamp, "abc") and not passed_on(stamp, "abd")


def _site_check_inputs():
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "SITE_CHECK_INPUTS":
            return ast.literal_eval(node.value)
    raise AssertionError("noxfile.py has no SITE_CHECK_INPUTS")


def test_the_stamp_covers_every_repository_module_the_site_checks_import():
    inputs = [ROOT / p for p in _site_check_inputs()]
    checks = sorted((ROOT / "tests" / "site").glob("*.py"))
    names = {alias.name.split(".")[0] for path in checks for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.Import | ast.ImportFrom)
             for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])}
    for name in sorted(names):
        for where in (ROOT, ROOT / "tools", ROOT / "tests" / "site"):
            found = [p for p in (where / name, where / f"{name}.py") if p.exists()]
            for path in found:
                assert any(path == top or top in path.parents for top in inputs), f"{path} is not a stamp input"
