"""Write the Colab bootstrap cell at the top of each chapter notebook.

Every chapter starts with the same short cell (tag ``remove-cell``: hidden on the site, shown in
the reader's edition): outside Colab it does nothing; in Colab it pip-installs the companion
release the chapter was executed with (``miniautograd==<version of companion/pyproject.toml>``:
a published version's files never change) and the pinned packages that this chapter imports and
Colab lacks. So the version lives in one place (companion/pyproject.toml) and the other pins in
requirements.txt. Nothing in it is for tests: the Colab-like test makes the kernel look like
Colab's from outside (tests/book/test_colab_bootstrap.py). Usage::

    python scripts/bootstrap_cell.py book/chapters/*.ipynb          # insert or update
    python scripts/bootstrap_cell.py --check book/chapters/*.ipynb  # exit 1 if out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from pathlib import Path

import nbformat
import tomllib

ROOT = Path(__file__).resolve().parents[1]
TAG = "remove-cell"
# What the chapters may import that Google Colab does not ship (or ships at another version).
COLAB_EXTRAS = ("micrograd", "mygrad", "autograd", "gymnasium")
# Everything outside the standard library a chapter may import, for a reader's own machine:
# the import's name and the name of its pin in requirements.txt (TensorFlow's CPU build, which
# the tests use, is `tensorflow` for a reader: the same release, on every platform). NumPy
# comes with miniautograd.
READER_PACKAGES = {
    "torch": "torch", "matplotlib": "matplotlib",
    "tensorflow": "tensorflow-cpu", "gymnasium": "gymnasium", "micrograd": "micrograd",
    "mygrad": "mygrad", "autograd": "autograd",
}
# Graphviz draws SVGs with this class on their top group: a chapter that shows one needs the
# graphviz package and its `dot` program.
GRAPHVIZ_SVG = 'class="graph"'

TEMPLATE = """\
# In Colab this installs miniautograd {version}{also} (outputs below: PyTorch {torch}).
# Elsewhere: pip install {elsewhere}
#   {system}
import sys

if "google.colab" in sys.modules:
    %pip install --quiet {requirements}"""
# What else a reader's machine needs, besides Python packages.
GRAPHVIZ = "Graphviz's dot program, for the drawings (apt, brew or conda install graphviz)"
COMPILER = "a C++ compiler, for torch.compile's default backend (g++ or clang)"
NOTHING_ELSE = "nothing else: no Graphviz, no compiler"
# torch.compile without a backend of the chapter's own compiles C++ on a CPU.
DEFAULT_COMPILE = re.compile(r"torch\.compile\((?![^)]*backend=)")


def companion_version(pyproject: Path = ROOT / "companion" / "pyproject.toml") -> str:
    """The companion's one version number, from companion/pyproject.toml."""
    with pyproject.open("rb") as file:
        return tomllib.load(file)["project"]["version"]


def pins(requirements: Path = ROOT / "requirements.txt") -> dict[str, str]:
    """Exact pins (`name==version`) of requirements.txt, keyed by lower-case name."""
    found = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", requirements.read_text(), re.MULTILINE)
    return {name.lower(): f"{name}=={version}" for name, version in found}


def imported(notebook: nbformat.NotebookNode | None, names: Iterable[str]) -> list[str]:
    """The modules of `names` that the notebook's code cells import, in that order."""
    if notebook is None:
        return []
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    return [name for name in names
            if re.search(rf"^\s*(?:import|from)\s+{name}\b", code, re.MULTILINE)]


def imported_extras(notebook: nbformat.NotebookNode) -> list[str]:
    """The packages of COLAB_EXTRAS that the notebook's code cells import, in that order."""
    return imported(notebook, COLAB_EXTRAS)


def draws_graphs(notebook: nbformat.NotebookNode) -> bool:
    """Whether the notebook shows a drawing made by Graphviz."""
    return any(GRAPHVIZ_SVG in str(output.get("data", {}).get("image/svg+xml", ""))
               for cell in notebook.cells for output in cell.get("outputs", []))


def reader_requirements(notebook: nbformat.NotebookNode | None) -> list[str]:
    """What a reader outside Colab installs for the chapter: the companion (with its drawing
    extra where the chapter draws), and the pin of every package the chapter imports."""
    pinned = pins()
    graph = "[graph]" if notebook is not None and draws_graphs(notebook) else ""
    found = [f"miniautograd{graph}=={companion_version()}"]
    for module in imported(notebook, READER_PACKAGES):
        version = pinned[READER_PACKAGES[module]].split("==")[1]
        found.append(f"{module}=={version}")  # the import's name: tensorflow, not -cpu
    return found


def bootstrap_source(notebook: nbformat.NotebookNode | None = None) -> str:
    """The source of the bootstrap cell, as `notebook` must carry it (None: no extras)."""
    pinned = pins()
    extras = imported_extras(notebook) if notebook is not None else []
    missing = [name for name in extras if name not in pinned]
    if missing:
        raise SystemExit(f"requirements.txt has no `==` pin for {missing}")
    also = f", with {' and '.join(extras)}" if extras else ""
    requirements = " ".join([f"miniautograd=={companion_version()}",
                             *(pinned[name] for name in extras)])
    return TEMPLATE.format(version=companion_version(), also=also, requirements=requirements,
                           torch=pinned["torch"].split("==")[1],
                           elsewhere=reader_install(notebook), system=system_needs(notebook))


def reader_install(notebook: nbformat.NotebookNode | None) -> str:
    """The reader's requirements as they follow `pip install` in a shell (an extra quoted)."""
    return " ".join(f'"{r}"' if "[" in r else r for r in reader_requirements(notebook))


def system_needs(notebook: nbformat.NotebookNode | None) -> str:
    """What a reader's machine needs besides the packages: Graphviz, a compiler."""
    if notebook is None:
        return f"and {NOTHING_ELSE}"
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    needs = [GRAPHVIZ] * draws_graphs(notebook) + [COMPILER] * bool(DEFAULT_COMPILE.search(code))
    return "and " + ("; and ".join(needs) if needs else NOTHING_ELSE)


def is_bootstrap(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and TAG in cell.get("metadata", {}).get("tags", [])


def update(notebook: nbformat.NotebookNode) -> bool:
    """Insert or refresh the bootstrap cell as the first cell; True if the notebook changed."""
    source = bootstrap_source(notebook)
    cells = notebook.cells
    if cells and is_bootstrap(cells[0]):
        if cells[0].source == source:
            return False
        cells[0].source = source
        cells[0].outputs = []
        return True
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": [TAG]})
    cell.pop("id", None)
    cells.insert(0, cell)
    if notebook.nbformat_minor >= 5:
        cell.id = "colab-bootstrap"
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--check", action="store_true", help="only report stale notebooks")
    args = parser.parse_args(argv)
    stale = []
    for path in args.notebooks:
        notebook = nbformat.read(path, as_version=4)
        if update(notebook):
            stale.append(path)
            if not args.check:
                nbformat.write(notebook, path)
    verb = "out of date" if args.check else "updated"
    for path in stale:
        print(f"{path}: bootstrap cell {verb}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
