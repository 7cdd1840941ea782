"""Write the Colab bootstrap cell at the top of each chapter notebook.

Every chapter starts with the same hidden cell (tag ``remove-cell``): outside Colab it does
nothing; in a Colab runtime that lacks the companion release the chapter was executed with, it
pip-installs that release from PyPI (``miniautograd==<version of companion/pyproject.toml>``: a
published version's files never change) with the pinned packages Colab lacks. So the version
lives in one place (companion/pyproject.toml) and the other pins in requirements.txt. Usage::

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
# What the chapters import that Google Colab does not ship (or ships at another version).
COLAB_EXTRAS = ("micrograd", "mygrad", "autograd", "gymnasium")
# Makes the cell act as in Colab (tests/book/test_colab_bootstrap.py sets it).
FORCE_VARIABLE = "AUTOGRAD_BOOK_FORCE_COLAB"

TEMPLATE = """\
# Set-up for Google Colab (hidden in the book). Elsewhere this cell does nothing.
import importlib.metadata
import os
import sys

# The miniautograd release that produced this page's outputs.
companion = "{version}"
in_colab = "google.colab" in sys.modules or os.environ.get("{force}")
if in_colab:
    try:
        installed = importlib.metadata.version("miniautograd")
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed != companion:
        import subprocess

        pip = [sys.executable, "-m", "pip", "install", "--quiet", f"miniautograd=={{companion}}"]
        pip += [
{extras}
        ]
        subprocess.run(pip, check=True)
        importlib.invalidate_caches()"""


def companion_version(pyproject: Path = ROOT / "companion" / "pyproject.toml") -> str:
    """The companion's one version number, from companion/pyproject.toml."""
    with pyproject.open("rb") as file:
        return tomllib.load(file)["project"]["version"]


def pins(requirements: Path = ROOT / "requirements.txt") -> dict[str, str]:
    """Exact pins (`name==version`) of requirements.txt, keyed by lower-case name."""
    found = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", requirements.read_text(), re.MULTILINE)
    return {name.lower(): f"{name}=={version}" for name, version in found}


def bootstrap_source() -> str:
    """The source of the bootstrap cell, as every chapter must carry it."""
    pinned = pins()
    missing = [name for name in COLAB_EXTRAS if name not in pinned]
    if missing:
        raise SystemExit(f"requirements.txt has no `==` pin for {missing}")
    extras = "\n".join(f'            "{pinned[name]}",' for name in COLAB_EXTRAS)
    return TEMPLATE.format(version=companion_version(), force=FORCE_VARIABLE, extras=extras)


def is_bootstrap(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and TAG in cell.get("metadata", {}).get("tags", [])


def update(notebook: nbformat.NotebookNode) -> bool:
    """Insert or refresh the bootstrap cell as the first cell; True if the notebook changed."""
    source = bootstrap_source()
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
    parser.add_argument("--print", action="store_true", help="print the cell's source")
    args = parser.parse_args(argv)
    if args.print:
        print(bootstrap_source())
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
