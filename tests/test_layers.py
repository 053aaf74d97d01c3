"""The package's import graph is a set of floors: no import circle, counting the imports made inside functions
too, and no import inside a function but of an optional heavy dependency (torch, pandas, pyplot, the CJK font)
or of importlib.metadata in the hook only importlib.metadata calls.
Inside the mini-Triton, only the API shell prices launches with the performance model, and the executor
imports nothing above it (docs/layout.md draws the floors)."""

import ast
import functools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from source_trees import tree as parsed

PACKAGE = Path(__file__).resolve().parents[1] / "kernellab"
OPTIONAL = {"torch", "pandas", "matplotlib.pyplot", "noto_cjk_sans_otc"}  # imported where used, if at all
# and the standard library's importlib.metadata, in the runner's hook that only importlib.metadata itself calls
# (it is loaded by then; at the top of the module it cost every ``import kernellab`` ≈ 21 ms of CPU)
OPTIONAL |= {"importlib.metadata"}
# and the package's own PEP 562 ``__getattr__``, which loads the mini-Triton when a script first asks for it
# (``import kernellab`` for the SIMT simulator or the model skips ≈ 45 ms of CPU a process)
DEFERRED = {("kernellab", "kernellab.triton")}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = _modules()


@functools.cache
def _imports(name: str) -> tuple:
    """``(imported module, whether at the top of the module)`` of every import ``name`` makes (each module parsed
    once, when a test first asks: not at collection, which every worker repeats)."""
    return tuple(_walk_imports(name))


def _walk_imports(name: str):
    path = MODULES[name]
    tree = parsed(path)  # shared with the other tests that walk the package (tests/source_trees.py)
    top = {id(n) for n in tree.body}
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]) if node.level else ""
            mod = (base + "." if base and node.module else base) + (node.module or "")
            for alias in node.names:
                yield (mod + "." + alias.name if mod + "." + alias.name in MODULES else mod), id(node) in top
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, id(node) in top


@functools.cache
def _graph() -> dict:
    """Module → the package's modules it imports."""
    return {m: {t for t, _top in _imports(m) if t in MODULES and t != m} for m in MODULES}


def _circles(graph: dict) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle():
    assert _circles(_graph()) == []


def test_imports_inside_functions_are_of_optional_dependencies_only():
    late = sorted({(m, t) for m in MODULES for t, top in _imports(m)
                   if not top and not any(t == o or t.startswith(o + ".") for o in OPTIONAL)})
    assert late == sorted(DEFERRED)


def test_import_kernellab_loads_the_mini_triton_only_when_asked(fresh_interpreter):
    # A new interpreter (tests/conftest.py): this one has loaded kernellab.triton long ago. The names stay where
    # they were: triton_launch, TritonCounts and kernellab.triton are the mini-Triton's, triton_launch is listed by
    # dir(kernellab), and a name kernellab does not have is still an AttributeError
    assert fresh_interpreter["triton_after_import_kernellab"] is False
    assert fresh_interpreter["names"] == [True, True, True, True, False]


def test_the_executor_imports_nothing_above_it_and_only_the_api_shell_imports_the_model():
    above = ("kernellab.triton.language", "kernellab.triton.runtime", "kernellab.triton.replay",
             "kernellab.triton.testing", "kernellab.triton.timing", "kernellab.model")
    executor = [m for m in MODULES if m.startswith("kernellab.triton.executor")]
    graph = _graph()
    assert [(m, t) for m in executor for t in graph[m] if t.startswith(above)] == []
    priced = sorted(m for m in MODULES if m.startswith("kernellab.triton.")
                    and any(t.startswith("kernellab.model") for t in graph[m]))
    assert priced == ["kernellab.triton.runtime.tuning", "kernellab.triton.timing"]
    # and a circle is seen when there is one
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
