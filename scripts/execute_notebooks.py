"""Execute notebooks top to bottom in a fresh kernel of *this* Python, for reproducible outputs.

``make execute`` runs it with the venv's Python to refresh every chapter in place; the Colab
bootstrap test runs it with the Colab-like venv's Python to check that chapters run there.
Cells tagged ``raises-exception`` may raise; any other error fails the run. Usage::

    python scripts/execute_notebooks.py [--check] NOTEBOOK...
"""

from __future__ import annotations

import argparse
import configparser
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from ipykernel.kernelspec import RESOURCES, get_kernel_dict
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbconvert.preprocessors import CoalesceStreamsPreprocessor

CELL_TIMEOUT_S = 600
ROOT = Path(__file__).resolve().parents[1]
# nbval's sanitizer for memory addresses (tests/nbval_sanitize.cfg), so that a stored address
# reads as nbval writes it.
SANITIZE = configparser.ConfigParser()
SANITIZE.read(ROOT / "tests" / "nbval_sanitize.cfg")
ADDRESS = SANITIZE["memory addresses"]
# Recorded in the notebook, whichever Python ran it, so that a re-run changes no metadata.
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


class ThisPython(KernelSpecManager):
    """Every kernel name means an ipykernel of the running interpreter (sys.executable)."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return KernelSpec(resource_dir=RESOURCES, **get_kernel_dict())


def hide_addresses(notebook: nbformat.NotebookNode) -> None:
    """Blank memory addresses in the `text/plain` of outputs that also carry a richer form
    (the page shows the SVG or PNG; the `<... at 0x7f...>` text would only churn diffs)."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/plain" in data and len(data) > 1:
                data["text/plain"] = re.sub(ADDRESS["regex"], ADDRESS["replace"],
                                            data["text/plain"])


def merge_streams(notebook: nbformat.NotebookNode) -> None:
    """Join consecutive prints to the same stream into one output: how the kernel splits them
    depends on timing, and a split would churn diffs (nbval joins them too before comparing)."""
    CoalesceStreamsPreprocessor().preprocess(notebook, {})


def execute(path: Path, *, write: bool) -> None:
    """Run the notebook at `path`; with `write`, save its new outputs in place."""
    notebook = nbformat.read(path, as_version=4)
    notebook.metadata["kernelspec"] = dict(KERNELSPEC)
    manager = KernelManager(kernel_name="python3", kernel_spec_manager=ThisPython())
    client = NotebookClient(
        notebook,
        km=manager,
        timeout=CELL_TIMEOUT_S,
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    hide_addresses(notebook)
    merge_streams(notebook)
    if write:
        nbformat.write(notebook, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="run without saving outputs")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    failed = []
    for path in args.notebooks:
        start = time.perf_counter()
        try:
            execute(path, write=not args.check)
        except CellExecutionError as error:
            failed.append(path)
            print(f"{path}: FAILED\n{error}", file=sys.stderr)
            continue
        print(f"{path}: ok ({time.perf_counter() - start:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
