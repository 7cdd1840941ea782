"""The comments of the chapters' code in the Chinese edition (book/_ext/code_comments.py): which
comments are messages, that translating them changes nothing but comments, that the catalog's
drift gate sees a new comment, and that no Chinese page or reader's edition shows an English one.
"""

from __future__ import annotations

import json
from pathlib import Path

import code_comments
import pytest
import translations
from babel.messages.pofile import read_po
from bs4 import BeautifulSoup

CHINESE = "zh_CN"


def test_comments_are_grouped_into_messages_and_code_is_left_out() -> None:
    source = ("import torch\n"
              "# a sentence wrapped\n"
              "# over two lines\n"
              "x = torch.ones(2)  # a trailing comment\n"
              "# from torch.autograd import Variable\n"
              "    # indented: another message\n"
              "y = x * 2  # x³\n"
              "%time y.sum()  # a magic's line is not Python\n")
    assert code_comments.messages([source]) == [
        "a sentence wrapped\nover two lines", "a trailing comment", "indented: another message"]
    # A lowercase word makes a comment that compiles prose; a name or a call does not.
    assert code_comments.translatable("later")
    assert code_comments.translatable("log(1 + e^x), stable")
    assert not code_comments.translatable("requires_grad=True")
    assert not code_comments.translatable("noqa: E501")
    assert not code_comments.translatable("定義一個優化器")


def test_a_translation_changes_the_comments_and_nothing_else() -> None:
    sources = translations.code_sources()
    everything = dict.fromkeys(code_comments.messages(sources), "译文第一行\n第二行")
    assert len(everything) > 200
    for source in sources:
        translated, missing = code_comments.translate(source, everything)
        assert missing == []
        assert code_comments.code_tokens(translated) == code_comments.code_tokens(source)
    translated, missing = code_comments.translate("x = 1  # one two\n", {})
    assert (translated, missing) == ("x = 1  # one two\n", ["one two"])
    one_line, _ = code_comments.translate("x = 1  # one two\n", {"one two": "一\n二"})
    assert one_line == "x = 1  # 一 二\n"


def test_the_drift_gate_names_a_new_comment_and_one_that_is_gone(tmp_path: Path) -> None:
    chapters = tmp_path / "chapters"
    chapters.mkdir()
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": ["x = 1  # a new comment\n", "y = 2  # an old comment"]}
    check = dict(cell, metadata={"tags": ["book-check"]}, source=["# a verification cell"])
    notebook = {"cells": [cell, check], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (chapters / "01_x.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    catalog = tmp_path / "code_comments.po"
    catalog.write_text('msgid "an old comment"\nmsgstr "旧注释"\n\n'
                       'msgid "a deleted comment"\nmsgstr "删掉的注释"\n', encoding="utf-8")
    found = "\n".join(translations.stale_comments(catalog, chapters))
    assert "not in the catalog (or fuzzy): 'a new comment'" in found
    assert "of no code comment: 'a deleted comment'" in found
    assert "verification" not in found and "old comment" not in found


def test_every_code_comment_is_translated() -> None:
    found = translations.stale_comments() + translations.problems(translations.COMMENTS)
    assert found == [], "\n".join(found)


def chinese_code_blocks(site: Path) -> list[tuple[str, str]]:
    blocks = []
    for page in sorted((site / CHINESE / "book" / "chapters").glob("*.html")):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        blocks += [(page.name, pre.get_text()) for pre in soup.select("div.cell_input pre")]
    return blocks


def test_no_chinese_page_shows_an_english_comment(site: Path) -> None:
    blocks = chinese_code_blocks(site)
    assert len(blocks) > 100
    with translations.COMMENTS.open("rb") as handle:
        catalog = {m.id: m.string for m in read_po(handle) if m.id}
    shown = 0
    for page, code in blocks:
        for comment in code_comments.comments(code):
            assert not code_comments.translatable(comment.text), (page, comment.text)
            shown += comment.text in catalog.values()
    assert shown > 200  # the catalog's translations, on the pages


@pytest.mark.parametrize("chapter", ["01_what_autograd_does", "07_reinforce"])
def test_a_chinese_reader_edition_has_the_catalogs_comments(site: Path, chapter: str) -> None:
    edition = json.loads((site / CHINESE / "notebooks" / f"{chapter}.ipynb").read_text("utf-8"))
    english = json.loads((site / "notebooks" / f"{chapter}.ipynb").read_text("utf-8"))
    codes = [("".join(c["source"]), "".join(e["source"]))
             for c, e in zip(edition["cells"], english["cells"], strict=True)
             if c["cell_type"] == "code"]
    assert codes
    for chinese, original in codes:
        if chinese.startswith("# @title"):  # a folded solution: all of it is comments
            continue
        left = [c.text for c in code_comments.comments(chinese)
                if code_comments.translatable(c.text)]
        assert left == [], (chapter, left)
        assert code_comments.code_tokens(chinese) == code_comments.code_tokens(original), chapter
