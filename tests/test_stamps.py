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


# --- the docs session's stamp: every file of the source tree, the packages, the environment ---
sys.path.insert(0, str(ROOT / "tools"))
from stamps import installed_packages, read_stamp, source_files, stable_environment, write_stamp  # noqa: E402


@pytest.fixture
def repo(tmp_path):
    for rel in ("docs/index.md", "docs/locale/zh_CN/LC_MESSAGES/index.po", "gallery/a/01_x.py", "kernellab/x.py",
                "tools/po_tools.py", "tests/site/test_site.py", "noxfile.py", "pyproject.toml", "README.md",
                # outputs and caches: never inputs
                ".git/HEAD", ".nox/docs/bin/python", ".hypothesis/db", ".gitignore", "build/html/index.html",
                "build-private/html/index.html", "out/site/index.html", "kernellab/__pycache__/x.pyc",
                "docs/.pytest_cache/v", "kernellab.egg-info/PKG-INFO", "tests/.hypothesis/db"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    return tmp_path


def test_the_source_tree_is_every_file_but_outputs_and_caches(repo):
    found = {p.relative_to(repo).as_posix() for p in source_files(repo, outputs=[repo / "out"])}
    assert found == {"docs/index.md", "docs/locale/zh_CN/LC_MESSAGES/index.po", "gallery/a/01_x.py", "kernellab/x.py",
                     "tools/po_tools.py", "tests/site/test_site.py", "noxfile.py", "pyproject.toml", "README.md"}


@pytest.mark.parametrize("rel", ["docs/new.md", "docs/locale/zh_CN/LC_MESSAGES/index.po", "gallery/a/01_x.py",
                                 "noxfile.py", "benchmarks/bench_x.py", "tests/site/test_site.py"])
def test_an_edit_anywhere_in_the_source_tree_changes_the_docs_key(repo, rel):
    def key():
        return fingerprint(repo, source_files(repo, outputs=[repo / "out"]), {})

    before = key()
    (repo / rel).parent.mkdir(parents=True, exist_ok=True)
    (repo / rel).write_text("changed")  # a new file, or an existing one edited (an untranslated entry, a bad ref)
    assert key() != before


def test_outputs_and_caches_do_not_change_the_docs_key(repo):
    def key():
        return fingerprint(repo, source_files(repo, outputs=[repo / "out"]), {})

    before = key()
    for rel in ("build/html/new.html", "out/x", ".nox/y", "kernellab/__pycache__/y.pyc", ".pytest_cache/z"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x")
    assert key() == before


def test_the_shells_own_variables_are_left_out_and_no_other():
    shell = {"SHLVL": "2", "OLDPWD": "/tmp", "_": "/usr/bin/python3", "TERM": "xterm",
             "PYENV_REHASH_REAL_COMMAND": "pip", "PYENV_DIR": "/tmp/clone"}  # set by pyenv's shims
    kept = {"KERNELLAB_BASEURL": "https://x/", "LANG": "C.UTF-8", "PATH": "/bin", "SOURCE_DATE_EPOCH": "1",
            "PYTHONHASHSEED": "0", "SPHINXOPTS": "-v", "HOME": "/root", "PYENV_VERSION": "3.11.7"}
    assert stable_environment({**shell, **kept}) == kept


def test_an_installed_package_changes_the_package_list(tmp_path):
    site = tmp_path / "lib" / "python3.11" / "site-packages"
    (site / "sphinx-9.0.4.dist-info").mkdir(parents=True)
    (site / "sphinx-9.0.4.dist-info" / "RECORD").write_text("sphinx/__init__.py,sha256=a,1\n")
    (tmp_path / "pyvenv.cfg").write_text("version = 3.11.7\n")
    before = fingerprint(tmp_path, installed_packages(tmp_path), {})
    (site / "sphinx-9.0.4.dist-info" / "RECORD").write_text("sphinx/__init__.py,sha256=b,1\n")  # reinstalled other
    changed = fingerprint(tmp_path, installed_packages(tmp_path), {})
    (site / "jieba-0.42.dist-info").mkdir()
    (site / "jieba-0.42.dist-info" / "RECORD").write_text("jieba/__init__.py,sha256=c,1\n")
    added = fingerprint(tmp_path, installed_packages(tmp_path), {})
    assert len({before, changed, added}) == 3


def test_a_json_stamp_reads_back_and_a_damaged_one_reads_as_none(tmp_path):
    stamp = tmp_path / "build" / "docs.stamp"
    assert read_stamp(stamp) == {}
    write_stamp(stamp, inputs="abc", site="def", doctests=True)
    assert read_stamp(stamp) == {"inputs": "abc", "site": "def", "doctests": True}
    stamp.write_text('{"inputs": "abc"')  # cut short
    assert read_stamp(stamp) == {}
    stamp.write_text('["abc"]')
    assert read_stamp(stamp) == {}


def test_the_real_tree_holds_what_the_docs_build_reads_and_no_output():
    files = set(source_files(ROOT, outputs=[ROOT / "build"]))
    for rel in ("noxfile.py", "pyproject.toml", "README.md", "docs/conf.py", "docs/index.md",
                "gallery/lecture10/01_naive_and_coalescing.py", "kernellab/__init__.py", "tools/localized_downloads.py",
                "tools/site_publish.py", "tests/site/conftest.py", "docs/locale/zh_CN/LC_MESSAGES/index.po"):
        assert ROOT / rel in files, rel
    assert not [p for p in files if {".git", ".nox", "build", "__pycache__"} & set(p.relative_to(ROOT).parts)]


def test_a_stamp_by_parts_names_the_part_that_changed(repo):
    from stamps import changed_parts, fingerprint_parts

    def parts(env):
        return fingerprint_parts(repo, {"docs": [repo / "docs"], "kernellab": [repo / "kernellab"]}, env)

    before = parts({"LANG": "C"})
    (repo / "kernellab" / "x.py").write_text("changed")
    assert changed_parts(before, parts({"LANG": "C"})) == ["kernellab"]
    assert changed_parts(before, parts({"LANG": "zh_CN.UTF-8"})) == ["$LANG", "kernellab"]
    assert changed_parts(before, parts({"LANG": "C", "SOURCE_DATE_EPOCH": "0"})) == ["$SOURCE_DATE_EPOCH", "kernellab"]
    assert "C" not in before.values()  # the variables' values are hashed, never written to a stamp
    assert changed_parts({}, before) == ["$LANG", "docs", "kernellab"]  # no stamp: everything changed
