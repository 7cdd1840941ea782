#!/usr/bin/env python3
"""How long a chapter's main path takes a first reader, by one count for every chapter.

Minutes = prose words / 200 + visible code lines / 12 + printed output lines / 30, over the
cells a reader meets on the main path: side roads (a section whose heading has the side-road
mark, with its subsections), the exercises, the build step, and folded cells (verification,
solutions, hidden helpers, the same run on miniautograd, hint dropdowns) do not count. A
rough count, but the same for every chapter, and it moves when a chapter grows.

    scripts/main_path.py              the minutes of each chapter
    scripts/main_path.py -v 3         chapter 3, section by section
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book" / "chapters").glob("[0-9][0-9]_*.ipynb"))
BUDGET_MINUTES = 35  # what a first reader finishes in one sitting
WORDS_A_MINUTE, CODE_LINES_A_MINUTE, OUTPUT_LINES_A_MINUTE = 200, 12, 30
FOLDED_TAGS = {"book-check", "solution", "hide-input", "parity", "remove-cell"}
SIDE_ROAD = re.compile(r"^\*(A side road|选读)\b", re.MULTILINE)
HEADING = re.compile(r"^(#{1,6}) (.*)$", re.MULTILINE)
OFF_PATH_TITLES = re.compile(r"^(Exercises|Build your own engine)")
# A dropdown admonition (the hints): folded, so not on the path. Fenced by ``` or ::: (3+).
DROPDOWN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{admonition\}[^\n]*\n:class: [^\n]*dropdown[^\n]*\n"
                      r".*?^(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)
MYST_LINE = re.compile(r"^(\(.*\)=|:[a-z-]+:.*|`{3,}.*|:{3,}.*)$", re.MULTILINE)


@dataclass
class Section:
    title: str
    words: int = 0
    code_lines: int = 0
    output_lines: int = 0
    on_path: bool = True
    road: bool = False  # opens with the side-road mark
    inside_road: bool = False  # under a side road's heading (JupyterLab collapses it with it)
    cells: list[int] = field(default_factory=list)

    @property
    def minutes(self) -> float:
        return (self.words / WORDS_A_MINUTE + self.code_lines / CODE_LINES_A_MINUTE
                + self.output_lines / OUTPUT_LINES_A_MINUTE)


def prose_words(markdown: str) -> int:
    text = MYST_LINE.sub("", DROPDOWN.sub("", markdown))
    return len(re.findall(r"[A-Za-z0-9_`'\u2019\-.]+|[\u4e00-\u9fff]", text))


def output_lines(cell: dict) -> int:
    lines = 0
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            lines += len(output.get("text", "").splitlines())
        elif output.get("output_type") == "error":
            lines += 1 + len(output.get("evalue", "").splitlines())
        else:
            data = output.get("data", {})
            if "image/svg+xml" in data or "image/png" in data:
                lines += 5  # a figure: about ten seconds to take in
            else:
                lines += len(data.get("text/plain", "").splitlines())
    return lines


def sections(path: Path) -> list[Section]:
    """The notebook's sections in order, each with its counts and whether it is on the path."""
    notebook = nbformat.read(path, as_version=4)
    found = [Section("(opening)")]
    stack: list[tuple[int, bool, bool]] = []  # (level, off the path, a side road) of the open
    # headings
    for index, cell in enumerate(notebook.cells):
        tags = set(cell.metadata.get("tags", []))
        source = cell.source
        if cell.cell_type == "markdown":
            for match in HEADING.finditer(source):
                level, title = len(match[1]), match[2].strip()
                while stack and stack[-1][0] >= level:
                    stack.pop()
                road = bool(SIDE_ROAD.search(source, match.end()))
                inside_road = any(r for _, _, r in stack)
                off = any(o for _, o, _ in stack) or bool(OFF_PATH_TITLES.match(title)) or road
                stack.append((level, off, road))
                found.append(Section(title, on_path=not off, road=road,
                                     inside_road=inside_road))
        section = found[-1]
        section.cells.append(index)
        if tags & FOLDED_TAGS:
            continue
        if cell.cell_type == "markdown":
            section.words += prose_words(source)
        elif cell.cell_type == "code":
            section.code_lines += sum(1 for line in source.splitlines() if line.strip())
            section.output_lines += output_lines(cell)
    return found


def main_path_minutes(path: Path) -> float:
    return sum(s.minutes for s in sections(path) if s.on_path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", type=int, metavar="N", help="chapter N by section")
    args = parser.parse_args()
    for number, path in enumerate(CHAPTERS, 1):
        if args.verbose and args.verbose != number:
            continue
        print(f"{path.stem}: main path {main_path_minutes(path):.0f} min "
              f"(budget {BUDGET_MINUTES})")
        if args.verbose:
            for s in sections(path):
                cells = f"{s.cells[0]}-{s.cells[-1]}" if s.cells else "-"
                where = "main" if s.on_path else "off "
                print(f"  {where} {s.minutes:5.1f} min  {s.words:5d} w {s.code_lines:4d} code "
                      f"{s.output_lines:4d} out  cells {cells}  {s.title}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
