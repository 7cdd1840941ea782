"""Write the Colab bootstrap cell at the top of each chapter notebook.

Every chapter starts with the same hidden cell (tag ``remove-cell``): outside Colab it does
nothing; in a Colab runtime without the companion package it pip-installs it from the
repository named in _config.yml, with the pinned packages Colab lacks, so that the repository
URL and the versions live in one place (_config.yml and requirements.txt). Usage::

    python scripts/bootstrap_cell.py book/chapters/*.ipynb          # insert or update
    python scripts/bootstrap_cell.py --check book/chapters/*.ipynb  # exit 1 if out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
TAG = "remove-cell"
# What the chapters import that Google Colab does not ship (or ships at another version).
COLAB_EXTRAS = ("micrograd", "mygrad", "autograd", "gymnasium")
# Environment variables the cell honours (tests/book/test_colab_bootstrap.py sets them).
SOURCE_VARIABLE = "AUTOGRAD_BOOK_INSTALL_SOURCE"
FORCE_VARIABLE = "AUTOGRAD_BOOK_FORCE_COLAB"

TEMPLATE = """\
# Set-up for Google Colab (hidden in the book). Elsewhere this cell does nothing.
import importlib.util
import os
import sys

in_colab = "google.colab" in sys.modules or os.environ.get("{force}")
if in_colab and importlib.util.find_spec("miniautograd") is None:
    import subprocess

    companion = os.environ.get(
        "{source}",
        "{companion}",
    )
    pip = [sys.executable, "-m", "pip", "install", "--quiet", companion]
    pip += [
{extras}
    ]
    subprocess.run(pip, check=True)
    importlib.invalidate_caches()"""


def companion_url(config: Path = ROOT / "_config.yml") -> str:
    """The pip requirement of the companion package, from `repository` in _config.yml."""
    repository = yaml.safe_load(config.read_text())["repository"]
    return f"git+{repository['url']}@{repository['branch']}#subdirectory=companion"


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
    extras = "\n".join(f'        "{pinned[name]}",' for name in COLAB_EXTRAS)
    return TEMPLATE.format(
        force=FORCE_VARIABLE, source=SOURCE_VARIABLE, companion=companion_url(), extras=extras
    )


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
