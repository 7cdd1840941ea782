"""Every chapter is committed executed top to bottom, raises only where a cell says which
exception it expects, and starts with the current Colab bootstrap cell.

A cell that is meant to fail carries the tag `raises-exception` and the metadata
`"expected_exception": "<ExceptionClass>"`. The stored error must be of that class; strict nbval
(`make test`) then re-runs the notebook and fails unless the cell raises the same class with the
same message, as `test_strict_nbval_checks_the_exception` shows on small notebooks.
"""

from __future__ import annotations

import configparser
import re
import subprocess
import sys
from pathlib import Path

import bootstrap_cell
import execute_notebooks
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output
from site_tools import CHAPTERS, ROOT

TAG = "raises-exception"
KEY = "expected_exception"


def execution_problems(notebook: nbformat.NotebookNode) -> list[str]:
    """What is wrong with how the notebook was run and with its error outputs."""
    problems = []
    code = [(n, cell) for n, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    counts = [cell.execution_count for _, cell in code]
    if counts != list(range(1, len(code) + 1)):
        problems.append(f"execution counts {counts}: run it top to bottom (make execute)")
    for n, cell in code:
        errors = [out.ename for out in cell.outputs if out.output_type == "error"]
        expected = cell.metadata.get(KEY)
        if TAG in cell.metadata.get("tags", []):
            if expected is None:
                problems.append(f"cell {n}: tagged {TAG} but has no metadata {KEY!r}")
            elif errors != [expected]:
                problems.append(f"cell {n}: expects {expected}, its stored errors are {errors}")
        elif errors:
            problems.append(f"cell {n}: raised {errors} but is not tagged {TAG}")
        elif expected is not None:
            problems.append(f"cell {n}: has {KEY!r} but is not tagged {TAG}")
    return problems


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def traceback_problems(notebook: nbformat.NotebookNode) -> list[str]:
    """An error shows its exception and message only (`%xmode Minimal` in a hidden set-up
    cell): a full traceback runs through torch's internals and the build machine's paths."""
    problems = []
    for n, cell in enumerate(notebook.cells):
        for out in cell.get("outputs", []):
            if out.output_type != "error":
                continue
            lines = [ANSI.sub("", entry) for entry in out.traceback]
            if len(lines) != 1 or not lines[0].startswith(f"{out.ename}:"):
                problems.append(
                    f"cell {n}: a {len(lines)}-part traceback, not '{out.ename}: ...' alone "
                    "(add %xmode Minimal to the chapter's hidden set-up cell)"
                )
    return problems


def bootstrap_problems(notebook: nbformat.NotebookNode) -> list[str]:
    """The first cell must be the bootstrap cell, current, and silent outside Colab."""
    if not notebook.cells or not bootstrap_cell.is_bootstrap(notebook.cells[0]):
        return [f"the first cell is not a code cell tagged {bootstrap_cell.TAG}"]
    first = notebook.cells[0]
    problems = []
    if first.source != bootstrap_cell.bootstrap_source(notebook):
        problems.append("the bootstrap cell is out of date: run `make execute`")
    if first.outputs:
        problems.append("the bootstrap cell has outputs (it must print nothing outside Colab)")
    return problems


def chapter_ids() -> list[str]:
    return [path.name for path in CHAPTERS]


@pytest.mark.parametrize("path", CHAPTERS, ids=chapter_ids())
def test_chapter_was_executed_with_expected_errors_only(path: Path) -> None:
    assert execution_problems(nbformat.read(path, as_version=4)) == []


@pytest.mark.parametrize("path", CHAPTERS, ids=chapter_ids())
def test_chapter_errors_show_their_last_line_only(path: Path) -> None:
    assert traceback_problems(nbformat.read(path, as_version=4)) == []


def test_the_traceback_check() -> None:
    minimal = new_output("error", ename="ValueError", evalue="bad",
                         traceback=["\x1b[31mValueError\x1b[39m: bad"])
    full = new_output("error", ename="ValueError", evalue="bad",
                      traceback=["-----", 'File "/home/a/x.py", line 1', "ValueError: bad"])
    assert traceback_problems(new_notebook(cells=[cell("f()", 1, minimal)])) == []
    assert "3-part traceback" in traceback_problems(new_notebook(cells=[cell("f()", 1, full)]))[0]


@pytest.mark.parametrize("path", CHAPTERS, ids=chapter_ids())
def test_chapter_starts_with_the_bootstrap_cell(path: Path) -> None:
    assert bootstrap_problems(nbformat.read(path, as_version=4)) == []


def cell(
    source: str, count: int | None, *outputs: nbformat.NotebookNode, **metadata: object
) -> nbformat.NotebookNode:
    return new_code_cell(source, execution_count=count, outputs=list(outputs), metadata=metadata)


def error(ename: str, evalue: str = "boom") -> nbformat.NotebookNode:
    return new_output("error", ename=ename, evalue=evalue, traceback=[])


def test_the_execution_check_accepts_a_clean_run() -> None:
    notebook = new_notebook(
        cells=[
            cell("x = 1", 1),
            cell('raise RuntimeError("boom")', 2, error("RuntimeError"),
                 tags=[TAG], expected_exception="RuntimeError"),
        ]
    )
    assert execution_problems(notebook) == []


@pytest.mark.parametrize(
    ("cells", "problem"),
    [
        ([cell("x = 1", 2), cell("y = 2", 1)], "execution counts [2, 1]"),
        ([cell("x = 1", None)], "execution counts [None]"),
        ([cell("1 / 0", 1, error("ZeroDivisionError"))], "is not tagged raises-exception"),
        ([cell("1 / 0", 1, error("ZeroDivisionError"), tags=[TAG])], "has no metadata"),
        (
            [cell("1 / 0", 1, error("ZeroDivisionError"), tags=[TAG], expected_exception="X")],
            "expects X, its stored errors are ['ZeroDivisionError']",
        ),
        ([cell("x = 1", 1, tags=[TAG], expected_exception="ValueError")], "stored errors are []"),
        ([cell("x = 1", 1, expected_exception="ValueError")], "is not tagged raises-exception"),
    ],
)
def test_the_execution_check_finds(cells: list[nbformat.NotebookNode], problem: str) -> None:
    problems = execution_problems(new_notebook(cells=cells))
    assert len(problems) == 1
    assert problem in problems[0]


def test_the_bootstrap_check() -> None:
    current = cell(bootstrap_cell.bootstrap_source(), 1, tags=[bootstrap_cell.TAG])
    assert bootstrap_problems(new_notebook(cells=[current])) == []
    # A chapter that imports gymnasium must install it: the cell without it is stale.
    uses_gym = new_notebook(cells=[current, cell("import gymnasium as gym", 2)])
    assert "out of date" in bootstrap_problems(uses_gym)[0]
    bootstrap_cell.update(uses_gym)
    assert bootstrap_problems(uses_gym) == []
    assert bootstrap_cell.pins()["gymnasium"] in uses_gym.cells[0].source
    stale = cell("# old", 1, tags=[bootstrap_cell.TAG])
    assert "out of date" in bootstrap_problems(new_notebook(cells=[stale]))[0]
    assert "not a code cell" in bootstrap_problems(new_notebook(cells=[cell("x = 1", 1)]))[0]


def test_bootstrap_update_is_idempotent() -> None:
    notebook = new_notebook(cells=[cell("x = 1", 1)])
    assert bootstrap_cell.update(notebook) is True
    assert bootstrap_problems(notebook) == []
    assert bootstrap_cell.update(notebook) is False
    assert [c.source for c in notebook.cells][1:] == ["x = 1"]


@pytest.mark.slow
def test_strict_nbval_checks_the_exception(tmp_path: Path) -> None:
    """nbval (not lax) compares `ename` and `evalue` of a tagged cell's stored error with the
    fresh run, and fails when a tagged cell no longer raises."""
    raising = 'raise RuntimeError("boom")'
    cases = {
        "same_class": (raising, "RuntimeError"),
        "other_class": (raising, "ValueError"),
        "no_longer_raises": ("x = 1", "RuntimeError"),
    }
    for name, (source, stored) in cases.items():
        tagged = cell(source, 1, error(stored), tags=[TAG], expected_exception=stored)
        nbformat.write(new_notebook(cells=[tagged]), tmp_path / f"{name}.ipynb")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "--nbval",
         "--nbval-current-env", "-c", str(tmp_path / "pytest.ini"), str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )
    outcomes = {
        line.split()[1].split("::")[0]: line.split()[0]
        for line in result.stdout.splitlines()
        if line.startswith(("PASSED", "FAILED"))
    }
    assert outcomes == {
        "same_class.ipynb": "PASSED",
        "other_class.ipynb": "FAILED",
        "no_longer_raises.ipynb": "FAILED",
    }, result.stdout[-4000:]


def test_the_committed_chapters_are_the_ones_nbval_runs() -> None:
    """`make test` hands book/chapters/*.ipynb to nbval; nothing else there may hide."""
    stray = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "book").rglob("*.ipynb")
        if p not in CHAPTERS and ".ipynb_checkpoints" not in p.parts
    )
    assert stray == []


def test_make_execute_hides_addresses_as_nbval_sanitizes_them() -> None:
    """Committed outputs carry the placeholder that nbval's sanitizer also writes."""
    config = configparser.ConfigParser()
    config.read(ROOT / "tests" / "nbval_sanitize.cfg")
    [section] = [config[name] for name in config.sections() if "address" in name]
    text = "<graphviz.graphs.Digraph at 0x7fe66819a810>"
    notebook = new_notebook(cells=[cell("g", 1, new_output(
        "execute_result", data={"text/plain": text, "image/svg+xml": "<svg/>"}, execution_count=1
    ))])
    execute_notebooks.hide_addresses(notebook)
    stored = notebook.cells[0].outputs[0].data["text/plain"]
    assert stored == "<graphviz.graphs.Digraph at 0xADDRESS>"
    assert re.sub(section["regex"], section["replace"], text) == stored
    assert re.sub(section["regex"], section["replace"], stored) == stored


@pytest.mark.slow
def test_make_execute_is_byte_for_byte_reproducible(tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    seeded = "import random\n\nrandom.seed(0)\nprint(random.random())"
    drawn = 'class Drawing:\n    def _repr_svg_(self):\n        return "<svg/>"\n\nDrawing()'
    nbformat.write(new_notebook(cells=[cell(seeded, None), cell(drawn, None)]), path)
    runs = []
    for _ in range(2):
        execute_notebooks.execute(path, write=True)
        runs.append(path.read_bytes())
    assert runs[0] == runs[1]
    assert execution_problems(nbformat.read(path, as_version=4)) == []
