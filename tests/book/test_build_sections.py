"""Each chapter's build section (from its "Build your own engine" heading to the next) runs
on its own in a fresh kernel, as for a reader who starts the build at that chapter: it imports
what it uses, and `steps.start` readies the engine file whatever is there."""

from __future__ import annotations

from pathlib import Path

import execute_notebooks
import nbformat
import pytest
from site_tools import CHAPTERS


def is_section(markdown: str) -> bool:
    """Whether a markdown cell opens a section of the chapter's level (##) or above."""
    return any(line.startswith(("# ", "## ")) for line in markdown.splitlines())


def build_section(chapter: Path) -> nbformat.NotebookNode:
    """The cells of `chapter`'s build section, as its reader's edition has them (no checks of
    the book's claims), in a notebook of their own."""
    notebook = nbformat.read(chapter, as_version=4)
    ids = [cell.id for cell in notebook.cells]
    number = int(chapter.name[:2])
    first = ids.index(f"ch{number}-build-md")
    last = next((n for n, cell in enumerate(notebook.cells) if n > first
                 and cell.cell_type == "markdown" and is_section(cell.source)), len(ids))
    section = nbformat.v4.new_notebook(metadata=notebook.metadata)
    section.cells = [cell for cell in notebook.cells[first:last]
                     if "book-check" not in cell.metadata.get("tags", [])]
    return section


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_a_build_section_runs_on_its_own(chapter: Path, tmp_path: Path) -> None:
    path = tmp_path / chapter.name  # an empty folder: no engine file from the chapters before
    nbformat.write(build_section(chapter), path)
    execute_notebooks.execute(path, write=True)  # raises on an error no cell declares
    ran = nbformat.read(path, as_version=4)
    raised = {cell.id: (output.ename, cell.metadata.get("expected_exception"))
              for cell in ran.cells for output in cell.get("outputs", [])
              if output.output_type == "error"}
    assert all(got == expected for got, expected in raised.values()), raised  # as declared
    assert any(cell.get("outputs") for cell in ran.cells if cell.cell_type == "code")
    assert (tmp_path / "myautograd.py").exists()


def test_the_section_is_found_in_every_chapter() -> None:
    for chapter in CHAPTERS:
        cells = build_section(chapter).cells
        assert cells[0].source.splitlines()[1].startswith("## "), chapter.name
        assert any("steps.check(" in cell.source for cell in cells), chapter.name
