"""The table of contents lists exactly the pages that exist, and every chapter notebook."""

from __future__ import annotations

import re

import yaml
from site_tools import CHAPTERS, ROOT

TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
CHAPTER_NAME = re.compile(r"\d\d_[a-z0-9_]+\.ipynb")


def toc_files() -> list[str]:
    return [entry["file"] for part in TOC["parts"] for entry in part["chapters"]]


def test_root_is_the_intro() -> None:
    assert TOC["format"] == "jb-book"
    assert TOC["root"] == "book/intro"


def test_every_toc_entry_exists() -> None:
    for name in [TOC["root"], *toc_files()]:
        found = [p for p in (ROOT / f"{name}.md", ROOT / f"{name}.ipynb") if p.is_file()]
        assert len(found) == 1, f"_toc.yml lists {name}: expected one .md or .ipynb, got {found}"


def test_every_chapter_is_in_the_numbered_part() -> None:
    numbered = [
        entry["file"] for part in TOC["parts"] if part.get("numbered") for entry in part["chapters"]
    ]
    for path in CHAPTERS:
        assert CHAPTER_NAME.fullmatch(path.name), f"{path.name}: name chapters NN_name.ipynb"
        name = path.relative_to(ROOT).with_suffix("").as_posix()
        assert name in numbered, f"add `- file: {name}` to the numbered Chapters part of _toc.yml"
    assert numbered == sorted(numbered), "list the chapters in the order of their numbers"
