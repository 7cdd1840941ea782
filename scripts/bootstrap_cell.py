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
from pathlib import Path

import nbformat
import tomllib

ROOT = Path(__file__).resolve().parents[1]
TAG = "remove-cell"
# What the chapters may import that Google Colab does not ship (or ships at another version).
COLAB_EXTRAS = ("micrograd", "mygrad", "autograd", "gymnasium")

TEMPLATE = """\
# In Colab: install miniautograd {version} (the release that made the outputs below){also}.
# Elsewhere, install them yourself: pip install {requirements}
import sys

if "google.colab" in sys.modules:
    %pip install --quiet {requirements}"""


def companion_version(pyproject: Path = ROOT / "companion" / "pyproject.toml") -> str:
    """The companion's one version number, from companion/pyproject.toml."""
    with pyproject.open("rb") as file:
        return tomllib.load(file)["project"]["version"]


def pins(requirements: Path = ROOT / "requirements.txt") -> dict[str, str]:
    """Exact pins (`name==version`) of requirements.txt, keyed by lower-case name."""
    found = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", requirements.read_text(), re.MULTILINE)
    return {name.lower(): f"{name}=={version}" for name, version in found}


def imported_extras(notebook: nbformat.NotebookNode) -> list[str]:
    """The packages of COLAB_EXTRAS that the notebook's code cells import, in that order."""
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    return [
        name for name in COLAB_EXTRAS
        if re.search(rf"^\s*(?:import|from)\s+{name}\b", code, re.MULTILINE)
    ]


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
    return TEMPLATE.format(version=companion_version(), also=also, requirements=requirements)


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
