"""The package's shape: its imports run one way (no cycle), every lazy import says why, and
the op table registers what torch has under each name.

The import graph is read from the source (``ast``), not from a running interpreter, so a
cycle is found even where the current import order happens to survive it.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import miniautograd as mini
from miniautograd.autograd.function import Function
from miniautograd.ops import TABLE

PACKAGE = Path(mini.__file__).resolve().parent
ROOT = "miniautograd"
REPOSITORY = Path(__file__).resolve().parents[2]


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _absolute(module: str, node: ast.ImportFrom) -> str:
    """The module an ``import from`` names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    package = module if _is_package(module) else module.rpartition(".")[0]
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The package modules an import statement runs: the one named, the packages on the way
    to it (their ``__init__`` runs first), and submodules named in ``from x import sub``."""
    if isinstance(node, ast.Import):
        named = {alias.name for alias in node.names}
    else:
        base = _absolute(module, node)
        named = {base} | {f"{base}.{alias.name}" for alias in node.names}
    found = set()
    for name in named:
        parts = name.split(".")
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            # the importer's own packages are already running: importing them adds no edge
            if prefix in MODULES and not (module == prefix or module.startswith(prefix + ".")):
                found.add(prefix)
    return found


def _imports(module: str) -> tuple[set[str], list[tuple[int, str, bool]]]:
    """(modules imported when ``module`` is imported, lazy imports as (line, text, internal))."""
    source = MODULES[module].read_text()
    tree = ast.parse(source)
    eager: set[str] = set()
    lazy: list[tuple[int, str, bool]] = []
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef,
                                                                 ast.AsyncFunctionDef))]
    inside = {id(n) for f in functions for n in ast.walk(f) if n is not f}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        targets = _targets(module, node)
        if id(node) in inside:
            lazy.append((node.lineno, ast.get_source_segment(source, node) or "", bool(targets)))
        else:
            eager |= targets
    return eager, lazy


GRAPH = {module: _imports(module)[0] for module in MODULES}


def _cycle() -> list[str] | None:
    """One import cycle, as a list of modules, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(GRAPH):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_the_import_graph_has_no_cycle():
    cycle = _cycle()
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_import_graph_is_read_correctly():
    """The reader finds the edges it must: a check that the no-cycle test can fail."""
    assert "miniautograd._tensor" in GRAPH["miniautograd.autograd.function"]
    assert "miniautograd.autograd" in GRAPH["miniautograd.ops.op"]  # its __init__ runs
    assert "miniautograd.ops" in GRAPH["miniautograd"]
    assert not any(m.startswith("miniautograd.autograd") for m in GRAPH["miniautograd._tensor"])


def test_a_node_does_not_know_the_function_module():
    """One way: ``function.py`` (Function, recording) imports the node module
    (``backward_function.py``), which the engine imports too; never the other way round."""
    assert "miniautograd.autograd.backward_function" in GRAPH["miniautograd.autograd.function"]
    assert "miniautograd.autograd.function" not in GRAPH["miniautograd.autograd.backward_function"]
    assert "miniautograd.autograd.function" not in GRAPH["miniautograd.autograd.engine"]


def test_every_lazy_import_of_the_package_says_why():
    """An import inside a function must be there for a reason, written next to it. (Lazy
    imports of optional dependencies - torch, graphviz, CuPy - need none.)"""
    unexplained = []
    for module, path in MODULES.items():
        lines = path.read_text().splitlines()
        for line, text, internal in _imports(module)[1]:
            said = "#" in lines[line - 1] or lines[line - 2].strip().startswith("#")
            if internal and not said:
                unexplained.append(f"{path.relative_to(PACKAGE)}:{line}: {text}")
    assert not unexplained, unexplained


# ---- the op table ------------------------------------------------------------------------------


def _generated_names() -> list[tuple[str, str]]:
    """(where, name) for everything the table defines: 'method' or 'function'."""
    names = []
    for entry in TABLE:
        if entry.method:
            names.append(("method", entry.name))
        if entry.function:
            names.append(("function", entry.name))
        names += [("method", operator) for operator in entry.operators]
        if entry.inplace:
            names.append(("method", entry.name + "_"))
        if entry.inplace is True:
            names.append(("function", entry.name + "_"))
    return names


@pytest.mark.parametrize(("where", "name"), _generated_names(),
                         ids=[f"{w}-{n}" for w, n in _generated_names()])
def test_every_name_the_table_defines_is_torchs(where, name):
    """A table line gives only what torch has under that name: a wrong ``inplace`` or
    ``function`` flag fails here."""
    owner = torch.Tensor if where == "method" else torch
    assert hasattr(owner, name), f"torch has no {where} {name!r}"
    assert (mini.Tensor if where == "method" else mini).__dict__.get(name) is not None


def test_each_name_is_registered_once():
    seen: set[tuple[str, str]] = set()
    for key in _generated_names():
        assert key not in seen, f"{key} is defined by two table lines"
        seen.add(key)


def test_a_table_line_gives_method_function_and_in_place_variants():
    x = mini.tensor([0.5, 1.0])
    assert mini.exp(x).tolist() == x.exp().tolist()
    y = x.clone()
    assert mini.exp_(y) is y and y.tolist() == x.exp().tolist()
    with pytest.raises(TypeError, match=r"exp\(\): argument 'input' \(position 1\) must be Tensor"):
        mini.exp(1.0)
    assert not hasattr(mini, "add_")  # torch has Tensor.add_ only


def test_a_source_tree_reports_the_version_of_its_own_pyproject(tmp_path):
    """scripts/cuda-check.sh imports the package from companion/src, not installed: the version
    must be that tree's, not what the metadata of an installed copy says."""
    companion = tmp_path / "companion"
    shutil.copytree(PACKAGE, companion / "src" / ROOT, ignore=shutil.ignore_patterns("__pycache__"))
    text = (PACKAGE.parents[1] / "pyproject.toml").read_text()
    (companion / "pyproject.toml").write_text(
        re.sub(r'(?m)^version = ".*"$', 'version = "9.8.7"', text, count=1))
    code = "import miniautograd as m; print(m.__file__, m.__version__)"
    found = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(companion / "src")}, cwd=tmp_path,
        capture_output=True, text=True, check=True).stdout.split()
    assert found == [str(companion / "src" / ROOT / "__init__.py"), "9.8.7"]


def test_every_op_class_names_its_own_node() -> None:
    """``Op.node_name`` is the name its nodes report (a subclass does not read its parent's:
    ``Zero``, a ``Fill``, makes ``ZeroBackward0`` nodes)."""
    def subclasses(cls: type) -> list[type]:
        return [c for s in cls.__subclasses__() for c in (s, *subclasses(s))]

    wrong = {c.__name__: (c.node_name, c._backward_cls().name())
             for c in subclasses(Function) if c.node_name != c._backward_cls().name()}
    assert wrong == {}
    assert mini.ops.arithmetic.Zero.node_name == "ZeroBackward0"


def test_an_op_method_leads_to_its_class() -> None:
    """What Jupyter's ``x.exp?`` and ``x.exp??`` show: the op's name, a docstring, and (through
    ``__wrapped__``, which inspect.getsource follows) the source of ``class Exp``."""
    assert mini.Tensor.exp.__name__ == "Exp"
    assert mini.Tensor.exp.__doc__
    assert inspect.getsource(mini.Tensor.exp).startswith("class Exp(Op):")


def test_the_readmes_add_an_op_diff_is_the_code_as_it_is() -> None:
    """The companion README's "How to add an op" diff is the change that added ``expm1``: it
    must apply in reverse to the tree as it is, or it shows code that no longer exists."""
    readme = (REPOSITORY / "companion" / "README.md").read_text(encoding="utf-8")
    diff = re.search(r"```diff\n(.*?)```", readme, re.S)
    assert diff is not None, "the README has no diff"
    git = shutil.which("git")
    assert git is not None, "git is needed to check the diff"
    done = subprocess.run([git, "apply", "--reverse", "--check", "-"], input=diff.group(1),
                          text=True, capture_output=True, cwd=REPOSITORY)
    assert done.returncode == 0, done.stderr


def _subpackage(module: str) -> str:
    """The subpackage a module belongs to (``miniautograd.ops``), or the root package."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 or _is_package(module) else ROOT


def test_no_private_name_is_imported_across_subpackages():
    """A private module or name (``_util``, ``_keep``) inside a subpackage is used only in that
    subpackage; another subpackage asks for what it needs by a public name."""
    crossing = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _absolute(module, node)
            owner = _subpackage(source) if source in MODULES else ROOT
            if owner == ROOT or owner == _subpackage(module):
                continue
            inside = source[len(owner) + 1:].split(".") if source != owner else []
            names = [a.name for a in node.names]
            if any(p.startswith("_") for p in inside) or any(
                    n.startswith("_") and not n.startswith("__") for n in names):
                crossing.append(f"{module}: from {source} import {', '.join(names)}")
    assert crossing == []
