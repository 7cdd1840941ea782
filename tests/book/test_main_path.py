"""A chapter's main path stays what a first reader finishes in one sitting, by the count of
scripts/main_path.py (prose words / 200 + code lines / 12 + output lines / 30, outside side
roads, exercises, the build step and folded cells).

Every chapter is held to the budget.
"""

from __future__ import annotations

import main_path
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from site_tools import CHAPTERS


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_main_path_within_budget(path) -> None:
    limit = main_path.BUDGET_MINUTES
    minutes = main_path.main_path_minutes(path)
    assert minutes <= limit, (
        f"{path.name}: the main path takes {minutes:.1f} min by the count, over {limit}: move "
        f"what a first reader does not need into a side road (scripts/main_path.py -v "
        f"{int(path.name[:2])} shows each section)")


def write(tmp_path, cells) -> object:
    path = tmp_path / "01_x.ipynb"
    nbformat.write(new_notebook(cells=cells), path)
    return path


def test_the_count_leaves_out_side_roads_exercises_and_folds(tmp_path) -> None:
    words_200 = " ".join(["word"] * 200)  # one minute of prose
    printed = new_code_cell("print(1)", outputs=[new_output("stream", text="1\n" * 30)])
    folded = new_code_cell("x = 1\n" * 12)
    folded.metadata["tags"] = ["parity"]
    cells = [
        new_markdown_cell(f"# Chapter\n\n{words_200}"),  # 1 minute
        printed,  # 1 code line, 30 output lines: 1/12 + 1 minute
        folded,  # folded: nothing
        new_markdown_cell("## A road\n\n*A side road: the main path and the exercises do not "
                          f"need it.*\n\n{words_200}"),
        new_markdown_cell(f"### Inside the road\n\n{words_200}"),  # still the road
        new_markdown_cell(f"## Back on the path\n\n{words_200}"),  # 1 minute (+3 words)
        new_markdown_cell("```{admonition} Hint\n:class: dropdown\n" + words_200 + "\n```"),
        new_markdown_cell(f"## Exercises\n\n{words_200}"),
        new_markdown_cell(f"## Build your own engine: step 1\n\n{words_200}"),
    ]
    sections = main_path.sections(write(tmp_path, cells))
    on_path = [s.title for s in sections if s.on_path]
    assert on_path == ["(opening)", "Chapter", "Back on the path"]
    minutes = main_path.main_path_minutes(write(tmp_path, cells))
    assert minutes == pytest.approx(1 + 1 + 1 / 12 + 1 + 4 / 200, abs=0.02)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_side_road_lies_inside_another(path) -> None:
    """JupyterLab collapses a side road under its heading: a side road inside another would be
    hidden with it, heading and all, so it would not show where it starts."""
    nested = [s.title for s in main_path.sections(path) if s.road and s.inside_road]
    assert nested == [], f"{path.name}: a side road inside another: {nested}"
