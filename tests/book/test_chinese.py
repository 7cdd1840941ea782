"""The Chinese editions, Simplified (zh_CN) and Traditional (zh_TW, generated from it): their
catalogs (scripts/translations.py, book/_ext/traditional.py), their sites under zh_CN/ and
zh_TW/ and the language switch between the three editions (book/_ext/languages.py), and their
reader's editions (book/_ext/reader_edition.py).

The catalog check is tried on catalogs made to fail; then it runs on the book's own (the drift
gate: a changed English sentence fails until its translation is updated, and a zh_TW catalog
fails until it is what its zh_CN catalog generates).
"""

from __future__ import annotations

import functools
import html
import json
import re
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import code_comments
import languages
import nbformat
import pytest
import reader_edition
import traditional
import translations
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from bs4 import BeautifulSoup
from site_tools import ROOT, site_pages

CHINESE = languages.CHINESE
TRADITIONAL = languages.TRADITIONAL
EDITIONS = languages.CHINESE_EDITIONS
CJK = translations.CJK
# What each Chinese edition's pages say: <html lang>, the theme's search field, and a few words
# of the search index and the interface (the Traditional ones as the generator converts them).
LANG = {CHINESE: "zh-CN", TRADITIONAL: "zh-TW"}
SEARCH_FIELD = {CHINESE: "搜索", TRADITIONAL: "搜尋"}


def write_catalog(path: Path, messages: list[tuple[str, str, bool]],
                  obsolete: tuple[str, ...] = ()) -> Path:
    """A catalog of (msgid, msgstr, fuzzy) messages, and obsolete ones."""
    catalog = Catalog(locale=CHINESE)
    for msgid, msgstr, fuzzy in messages:
        catalog.add(msgid, msgstr, flags=["fuzzy"] if fuzzy else [])
    for msgid in obsolete:
        catalog.obsolete[msgid] = catalog.__class__(locale=CHINESE).add(msgid, "旧的翻译")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, catalog)
    return path


# ---- the catalog check, on catalogs made to fail -------------------------------------------------

BROKEN = {
    "untranslated": ("Every leaf has a `.grad`.", ""),
    "fuzzy": ("The graph is built as the program runs.", "计算图在程序运行时构建。"),
    "no Chinese": ("The graph is freed after backward.", "The graph is freed after backward."),
    "markup changed": ("Call `y.backward()` once.", "调用一次 `backward()`。"),
    "markup changed ": ("See {ref}`ch1-graph`.", "见 {ref}`计算图 <ch2-graph>`。"),
    "markup changed  ": ("The vector $v$ of $v^T J$.", "$v^T J$ 中的向量。"),
    "markup changed   ": ("Read [the notes](https://pytorch.org/a).", "阅读[说明](https://x.org)。"),
    "emphasis that does not render": ("A **detached** tensor.", "一个**“分离”**的张量。"),
}
FORMULA = "\\frac{\\partial \\ell}{\\partial x} = v^\\top J"  # a displayed formula: the same TeX
GOOD = [
    ("Call `y.backward()` once.", "调用一次 `y.backward()`。"),
    ("See {ref}`ch1-graph`.", "见 {ref}`计算图 <ch1-graph>`。"),
    ("A {term}`leaf tensor`.", "一个{term}`叶子张量 <leaf tensor>`。"),
    ("AccumulateGrad", "AccumulateGrad"),
    (FORMULA, FORMULA),
    ("A **detached** tensor.", "一个**分离出的**张量。"),
]


def test_the_catalog_check_names_each_kind_of_problem(tmp_path: Path) -> None:
    messages = [(msgid, msgstr, kind == "fuzzy") for kind, (msgid, msgstr) in BROKEN.items()]
    path = write_catalog(tmp_path / "page.po", messages, obsolete=("A sentence now gone.",))
    found = translations.problems(path)
    assert len(found) == len(BROKEN) + 1, found
    for kind in BROKEN:
        assert sum(f": {kind.strip()}" in f for f in found) >= 1, (kind, found)
    assert any("obsolete" in f for f in found), found
    good = write_catalog(tmp_path / "good.po", [(i, s, False) for i, s in GOOD])
    assert translations.problems(good) == []


def test_the_drift_gate_names_a_page_whose_english_changed(tmp_path: Path) -> None:
    pots, catalogs = tmp_path / "pot", tmp_path / "po"
    write_catalog(pots / "book" / "page.pot", [("The new sentence.", "", False),
                                                ("A kept sentence.", "", False)])
    write_catalog(catalogs / "book" / "page.po", [("The old sentence.", "旧句。", False),
                                                  ("A kept sentence.", "保留的句子。", False)])
    write_catalog(catalogs / "book" / "gone.po", [("Text.", "文字。", False)])
    found = translations.stale(pots, catalogs)
    assert any("book/page.po: 1 message(s) of the page not in the catalog" in f
               and "The new sentence." in f for f in found), found
    assert any("book/page.po: 1 message(s) no longer on the page" in f for f in found), found
    assert any("book/gone.po: a catalog of no page" in f for f in found), found
    write_catalog(catalogs / "book" / "page.po", [("The new sentence.", "新句。", False),
                                                  ("A kept sentence.", "保留的句子。", False)])
    (catalogs / "book" / "gone.po").unlink()
    assert translations.stale(pots, catalogs) == []


def test_the_catalog_check_names_an_alt_text_without_chinese_and_one_of_no_figure(
    tmp_path: Path,
) -> None:
    catalog = Catalog(locale=CHINESE)
    catalog.add("A graph of two nodes.", "两个节点的图。", auto_comments=["Alt text of a figure"])
    catalog.add("A plot now gone.", "已删除的图。", auto_comments=["Alt text of a figure"])
    catalog.add("Main", "主导航")
    path = tmp_path / "sphinx.po"
    with path.open("wb") as handle:
        write_po(handle, catalog)
    found = translations.alt_problems(["A graph of two nodes.", "A new plot."], path)
    assert len(found) == 2, found
    assert "no Chinese for the alt text 'A new plot.'" in found[0], found
    assert 'msgid "A new plot."' in found[0], found
    assert "no figure has any more: 'A plot now gone.'" in found[1], found
    assert translations.alt_problems(["A graph of two nodes.", "A plot now gone."], path) == []


# ---- the book's catalogs: the drift gate -----------------------------------------------------


def test_every_message_of_every_page_is_translated_current_and_keeps_its_markup() -> None:
    catalogs = translations.catalogs()
    assert len(catalogs) == len(list((ROOT / "book").rglob("*.ipynb"))) + 3  # + intro, appendix
    found = translations.check(catalogs)
    assert found == [], "\n".join(found)
    total = 0
    for path in catalogs:
        with path.open("rb") as handle:
            total += sum(1 for m in read_po(handle) if m.id)
    print(f"{total} messages in {len(catalogs)} catalogs, all translated")


# ---- the book's catalogs: one word for each term (book/locale/zh_CN/terms.md) ---------------

TERMS = ROOT / "book/locale/zh_CN/terms.md"
VARIANT_ROW = re.compile(r"^\| (?P<english>[^|]+?) \| (?P<word>[^|]+?) \| (?P<variants>`[^|]+?) \| "
                         r"(?P<compounds>[^|]*?) ?\|$", re.MULTILINE)
EXCEPTION = re.compile(r"^- `(?P<po>[^`]+\.po)`：「(?P<text>[^」]+)」——(?P<why>.+)$", re.MULTILINE)


def settled_terms(text: str) -> list[tuple[str, list[str], list[str]]]:
    """terms.md's rules: (English, the variants not used, the compounds that may hold one)."""
    return [(m["english"], re.findall(r"`([^`]+)`", m["variants"]),
             re.findall(r"`([^`]+)`", m["compounds"])) for m in VARIANT_ROW.finditer(text)]


def variants_used(catalogs: dict[str, list[str]], rules: list[tuple[str, list[str], list[str]]],
                  exceptions: list[tuple[str, str]]) -> list[str]:
    """Each variant found in a translation, as 'catalog: variant (English) in ...'."""
    found = []
    for name, texts in catalogs.items():
        for text in texts:
            for po, quoted in exceptions:
                if po == name:
                    text = text.replace(quoted, " ")
            for english, variants, compounds in rules:
                rest = text
                for compound in compounds:
                    rest = rest.replace(compound, " ")
                for variant in variants:
                    pattern = (rf"(?<![A-Za-z]){re.escape(variant)}(?![A-Za-z])"
                               if variant.isascii() else re.escape(variant))
                    for match in re.finditer(pattern, rest):
                        around = rest[max(0, match.start() - 12):match.end() + 12]
                        found.append(f"{name}: {variant} ({english}) in …{around}…")
    return found


def book_translations() -> dict[str, list[str]]:
    """The translations of each catalog: the pages' (by their path under LC_MESSAGES) and the
    code comments' (code_comments.po)."""
    found = {}
    for path in [*translations.catalogs(), translations.COMMENTS]:
        name = (path.relative_to(translations.CATALOGS).as_posix()
                if path.is_relative_to(translations.CATALOGS) else path.name)
        with path.open("rb") as handle:
            found[name] = [m.string for m in read_po(handle) if m.id and m.string]
    return found


def test_the_term_check_finds_a_variant_but_not_in_a_compound_or_an_exception() -> None:
    rules = [("operation", ["运算"], ["算术运算"]), ("pull request", ["PR"], [])]
    catalogs = {"book/a.po": ["每个运算都被记录。", "算术运算是精确的。", "见 PR 和 PRELU。"],
                "book/b.po": ["引文：“对张量做运算”。"]}
    found = variants_used(catalogs, rules, [("book/b.po", "对张量做运算")])
    assert len(found) == 2 and "book/a.po: 运算 (operation)" in found[0], found
    assert "book/a.po: PR (pull request)" in found[1], found


def test_each_settled_term_has_one_word_in_every_catalog() -> None:
    text = TERMS.read_text(encoding="utf-8")
    rules = settled_terms(text)
    assert len(rules) >= 6 and all(variants for _, variants, _ in rules), rules
    exceptions = [(m["po"], m["text"]) for m in EXCEPTION.finditer(text)]
    catalogs = book_translations()
    stale = [f"{po}: 「{quoted}」" for po, quoted in exceptions
             if not any(quoted in s for s in catalogs.get(po, []))]
    assert stale == [], f"exceptions in terms.md no translation holds: {stale}"
    found = variants_used(catalogs, rules, exceptions)
    assert found == [], f"{len(found)} variant(s) terms.md does not use:\n" + "\n".join(found)


def test_autograd_is_introduced_as_zi_dong_qiu_dao_on_the_intro_and_in_chapter_1() -> None:
    catalogs = book_translations()
    for page in ("book/intro.po", "book/chapters/01_what_autograd_does.po"):
        assert sum("自动求导" in s for s in catalogs[page]) >= 1, page


# Chinese in an English sentence is a quotation of a Chinese source (the post
# *深入淺出torch.autograd*, in Traditional characters) or its title: the translation keeps it as
# written, character for character.
QUOTED_CHINESE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]{2,}")


def quotations_changed(pairs: list[tuple[str, str]]) -> list[str]:
    """Each run of Chinese characters of an English message that its translation lacks."""
    return [f"{run!r} of {' '.join(msgid.split())[:60]!r}" for msgid, msgstr in pairs
            for run in QUOTED_CHINESE.findall(msgid) if run not in msgstr]


def test_a_quotation_in_chinese_stays_as_its_author_wrote_it() -> None:
    made = [("It is 「期望值反向傳播」.", "它叫「期望反向传播」。"),
            ("A post, *深入淺出torch.autograd*.", "文章 *深入淺出torch.autograd*。")]
    assert quotations_changed(made) == ["'「期望值反向傳播」' of 'It is 「期望值反向傳播」.'"]
    pairs = []
    for path in translations.catalogs():
        with path.open("rb") as handle:
            pairs += [(m.id, m.string) for m in read_po(handle) if m.id and m.string]
    assert sum(bool(QUOTED_CHINESE.search(msgid)) for msgid, _ in pairs) >= 5
    found = quotations_changed(pairs)
    assert found == [], "\n".join(found)


# ---- the Traditional catalogs, generated (book/_ext/traditional.py) ---------------------------


def test_conversion_keeps_code_markup_links_math_and_traditional_quotations() -> None:
    english = ("The post *深入淺出torch.autograd* says 「定義一個優化器」: see "
               "{ref}`views <ch2-views>`, `print(\"参数\")`, $\\frac{a}{b}$ and "
               "[docs](https://pytorch.org/a?b=视图).")
    inner_open, inner_close = "\u2018", "\u2019"  # ‘ and ’
    simplified = ("博客文章 *深入淺出torch.autograd* 写道「定義一個優化器」，"
                  "还说“計算期望梯度，更新策略參數”：见{ref}`视图与参数 <ch2-views>`、"
                  "`print(\"参数\")`、$\\frac{a}{b}$ 和[文档](https://pytorch.org/a?b=视图)；"
                  f"“打印{inner_open}参数{inner_close}的视图”。")
    converted = traditional.convert(simplified, english)
    assert converted == ("部落格文章 *深入淺出torch.autograd* 寫道「定義一個優化器」，"
                         "還說「計算期望梯度，更新策略參數」：見{ref}`視圖與參數 <ch2-views>`、"
                         "`print(\"参数\")`、$\\frac{a}{b}$ 和[文件](https://pytorch.org/a?b=视图)；"
                         "「印出『參數』的視圖」。")
    assert translations.markup(converted) == translations.markup(simplified)
    # OpenCC alone would have changed the quotations of the Traditional post.
    assert "最佳化器" in traditional.s2twp("「定義一個優化器」")
    assert "引數" in traditional.s2twp("計算期望梯度，更新策略參數")


def test_a_line_of_the_table_of_terms_that_is_not_a_row_is_an_error(tmp_path: Path) -> None:
    """A cell may hold a space ("C++ 扩展"); a line of three cells is an error, not a row
    dropped in silence (as rows with a space once were)."""
    table = tmp_path / "conversion.md"
    header = "| 简体 | s2twp | 臺灣 | reason |\n| --- | --- | --- | --- |\n"
    table.write_text(header + "| C++ 扩展 | C++ 擴充套件 | C++ 擴充 | a C++ extension |\n",
                     encoding="utf-8")
    assert [(r.simplified, r.taiwan) for r in traditional.rules(table)] == [
        ("C++ 扩展", "C++ 擴充")]
    broken = tmp_path / "broken.md"
    broken.write_text(header + "| 偏置 | 偏差 | a bias |\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a row"):
        traditional.rules(broken)


def test_each_row_of_the_table_of_terms_is_what_opencc_does_and_is_used() -> None:
    """The table records what s2twp gives for each Simplified text (a new OpenCC shows here),
    each row changes that, and each Simplified text is in a catalog (no row for nothing)."""
    rows = traditional.rules()
    assert 30 <= len(rows) <= 200, len(rows)
    text = "".join(path.read_text(encoding="utf-8") for path in traditional.sources())
    for row in rows:
        assert traditional.s2twp(row.simplified) == row.s2twp, row
        assert row.reason, row
        assert row.simplified in text, f"{row.simplified}: in no zh_CN catalog"


def test_the_checked_in_traditional_catalogs_are_what_the_simplified_ones_generate() -> None:
    """The drift gate of zh_TW (also part of `translations.py check`, and of the build): each
    catalog is what `python scripts/translations.py traditional` writes, no correction is
    stale, and every code span, link, formula and Traditional quotation is byte for byte."""
    assert sorted(p.relative_to(traditional.TARGET) for p in traditional.TARGET.rglob("*.po")) \
        == sorted(p.relative_to(traditional.SOURCE) for p in traditional.sources()
                  if p.is_relative_to(traditional.SOURCE))
    assert traditional.comments_target().is_file()
    found = traditional.drift()
    assert found == [], "\n".join(found)


def test_the_drift_gate_fails_on_a_hand_edited_traditional_catalog(tmp_path: Path) -> None:
    import shutil

    target = tmp_path / "zh_TW"
    shutil.copytree(traditional.TARGET, target)
    page = target / "book" / "intro.po"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("張量", "张量", 1), encoding="utf-8")
    found = traditional.drift(target=target)
    assert any("book/intro.po: differs from what its Simplified catalog generates" in f
               for f in found), found


def test_a_correction_made_against_another_simplified_text_is_stale(tmp_path: Path) -> None:
    source = tmp_path / "zh_CN"
    write_catalog(source / "book" / "page.po", [("Every leaf has a `.grad`.",
                                                 "每个叶子都有 `.grad`。", False)])
    fix = traditional.Correction("book/page.po", "Every leaf has a `.grad`.",
                                 "每个叶子都有 `.grad`。", [("葉子", "葉節點")], "a test")
    texts, stale = traditional.generated(source, [fix])
    assert stale == [] and "每個葉節點都有 `.grad`。" in texts[Path("book/page.po")]
    old = traditional.Correction(fix.catalog, fix.msgid, "每片叶子都有 `.grad`。", fix.replace,
                                 fix.reason)
    gone = traditional.Correction(fix.catalog, "A sentence now gone.", "旧句。", [], "a test")
    lost = traditional.Correction(fix.catalog, fix.msgid, fix.simplified, [("節點", "點")], "")
    for correction, says in ((old, "its Simplified text changed"),
                             (gone, "a message no catalog has"), (lost, "is not in")):
        _, stale = traditional.generated(source, [correction])
        assert len(stale) == 1 and says in stale[0], stale


# ---- the translated Markdown of a reader's edition ---------------------------------------------

MESSAGES = {
    "Hint": "提示",
    "What `detach()` returns": "`detach()` 返回什么",
    "A leaf has no node; its gradient goes to `.grad`.": "叶子没有节点；它的梯度存入 `.grad`。",
    "a list item over two lines": "跨两行的列表项",
    "a cell": "一个单元格",
    "quoted text": "引用的文字",
}


def test_translated_markdown_replaces_whole_blocks_and_leaves_code_alone() -> None:
    markdown = "\n".join([
        "## What `detach()` returns",
        "",
        "A leaf has no node;",
        "its gradient goes to `.grad`.",
        "",
        "- a list item",
        "  over two lines",
        "",
        "| a cell | Hint and more |",
        "",
        "> quoted",
        "> text",
        "",
        ":::{admonition} Hint",
        "A leaf has no node; its gradient goes to `.grad`.",
        ":::",
        "",
        "```python",
        "Hint",
        "```",
    ])
    assert reader_edition.translate_markdown(markdown, MESSAGES) == "\n".join([
        "## `detach()` 返回什么",
        "",
        "叶子没有节点；它的梯度存入 `.grad`。",
        "",
        "- 跨两行的列表项",
        "",
        "| 一个单元格 | Hint and more |",
        "",
        "> 引用的文字",
        "",
        ":::{admonition} 提示",
        "叶子没有节点；它的梯度存入 `.grad`。",
        ":::",
        "",
        "```python",
        "Hint",
        "```",
    ])


# ---- the Chinese site ----------------------------------------------------------------------------


# What Sphinx, the themes and the book's extensions write in English where nothing translates
# it: tooltips, the search field, fold labels, run links.
INTERFACE_WORDS = ("Search this book", "Toggle primary sidebar", "Toggle secondary sidebar",
                   "Color mode", "System Settings", "Link to this heading", "Show code cell",
                   "Click to show", "Open in Colab", "Download notebook", "Show the solution",
                   "Show the side road", "Show the same run")


def edition_of(site: Path, page: Path) -> str:
    first = page.relative_to(site).parts[0]
    return first if first in EDITIONS else languages.ENGLISH


def english_pages(site: Path) -> list[Path]:
    return [p for p in site_pages(site) if edition_of(site, p) == languages.ENGLISH]


# The switch's links as templates/language-switch.html writes them (read with a pattern: a
# parser would take a minute over the three editions' pages).
SWITCH_LINK = re.compile(r'<a class="language-switch" href="([^"]+)"[^>]*>([^<]*)</a>')


@functools.cache
def switch(page: Path) -> list[tuple[Path, str]]:
    """Where each link of the page's language switch leads, and its text (none: no switch)."""
    return [((page.parent / urlsplit(html.unescape(href)).path).resolve(), html.unescape(name))
            for href, name in SWITCH_LINK.findall(page.read_text(encoding="utf-8"))]


def themed(page: Path) -> bool:
    """A page in the theme's layout (not a redirect or a full-size image page)."""
    return "bd-header-article" in page.read_text(encoding="utf-8")


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_english_page_has_its_chinese_page_in_chinese(site: Path, edition: str) -> None:
    chinese = site / edition
    for page in english_pages(site):
        twin = chinese / page.relative_to(site)
        assert twin.is_file(), twin
        if not themed(page):
            continue
        soup = BeautifulSoup(twin.read_text(encoding="utf-8"), "html.parser")
        assert soup.html["lang"] == LANG[edition], twin
        title = soup.select_one("title").get_text()
        assert CJK.search(title), (twin, title)
        # The themes' own words: the search field and the page navigation.
        placeholder = soup.select_one(".search-button__default-text")
        assert placeholder is not None and placeholder.get_text().strip() == \
            SEARCH_FIELD[edition], twin
        html = twin.read_text(encoding="utf-8")
        assert [w for w in INTERFACE_WORDS if w in html] == [], twin
        content = soup.select_one(".bd-content").get_text()
        assert len(CJK.findall(content)) > 3, twin


# English interface words that a Chinese page must not show, in its text or in the names that
# assistive technology reads (aria-label, alt, title): the sidebar's captions, the folds'
# buttons, the navigation landmarks, the footer, the backward stepper's controls and captions
# (miniautograd.stepper writes them into the notebooks' outputs, which both editions share),
# and the cross-check tables of miniautograd.testing. Code, code outputs and drawings' node
# labels are not interface; neither are proper names (PyTorch, Colab, AccumulateGrad).
ENGLISH_INTERFACE = (
    "Chapters", "Appendix", "Toggle hidden content", "Main", "Page", "authors", "Copyright",
    "backward pass, step by step", "previous step", "next step", "prev", "next", "step",
    "Before backward", "seed gradient", "goes to", "runs", "gets", "sends", "is now",
    "steps are too many", "the listing",
    "quantity", "shape", "max abs diff", "max rel diff", "grad input", "output",
    "Verdict", "agree", "DISAGREE", "same op names and edges",
)
INTERFACE_PATTERN = re.compile(
    r"(?<![A-Za-z0-9_.])(" + "|".join(map(re.escape, ENGLISH_INTERFACE)) + r")(?![A-Za-z0-9_(])"
)
NOT_INTERFACE = ("script", "style", "pre", "code", "kbd", "mjx-container", "math")


def interface_texts(soup: BeautifulSoup) -> list[tuple[str, str]]:
    """(where, text) for every text a reader sees or hears on the page, but code, code
    outputs printed as text (``pre``), math and the drawings' node labels."""
    for tag in soup.find_all(NOT_INTERFACE):
        tag.decompose()
    for label in soup.select("svg text, svg title"):
        label.decompose()
    # English between Chinese quotation marks is a quotation (of PyTorch's documentation).
    found = [("text", re.sub(r"“[^”]*”|「[^」]*」", "", s)) for s in soup.stripped_strings]
    for attribute in ("aria-label", "aria-valuetext", "alt", "title", "placeholder"):
        found += [(attribute, tag[attribute]) for tag in soup.find_all(attrs={attribute: True})
                  if "language-switch" not in tag.get("class", [])]
    return found


@pytest.mark.parametrize("edition", EDITIONS)
def test_no_english_interface_word_on_any_chinese_page(site: Path, edition: str) -> None:
    left: dict[str, set[str]] = {}
    chinese = [p for p in site_pages(site / edition) if themed(p)]
    assert len(chinese) >= 10, chinese
    for page in chinese:
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for where, text in interface_texts(soup):
            for word in INTERFACE_PATTERN.findall(text):
                left.setdefault(f"{where}: {word!r}", set()).add(page.relative_to(site).name)
            if where == "alt" and not CJK.search(text):
                left.setdefault(f"alt without Chinese: {text[:60]!r}", set()).add(page.name)
    assert left == {}, "\n".join(f"{k} on {len(v)} page(s), e.g. {sorted(v)[0]}"
                                  for k, v in sorted(left.items()))


@functools.cache
def simplified_only_characters() -> set[str]:
    """Characters that only Simplified text uses: OpenCC's STCharacters table maps each to
    Traditional characters other than itself, and Taiwan's conversion changes it (页 -> 頁; not
    才, whose choices are 才 and 纔, nor 峰, which Taiwan writes so)."""
    return {character for character, choices in languages.opencc_characters(
        "STCharacters.txt").items() if character not in choices
        and traditional.s2twp(character) != character}  # 峰 stays 峰 in Taiwan


def test_no_simplified_character_on_any_traditional_page(site: Path) -> None:
    """The Traditional pages' interface (a theme's template words come from its catalog, which
    may have them in Simplified characters only) and prose: no Simplified-only character, but
    in the language switch, which names the Simplified edition in its own script."""
    simplified = simplified_only_characters()
    left: dict[str, set[str]] = {}
    pages = [p for p in site_pages(site / languages.FOLDERS[TRADITIONAL]) if themed(p)]
    assert len(pages) >= 10, pages
    for page in pages:
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for switch_link in soup.select(".language-switch"):
            switch_link.decompose()
        for where, text in interface_texts(soup):
            if found := sorted(set(text) & simplified):
                left.setdefault(f"{where}: {''.join(found)} in {text[:40]!r}", set()).add(
                    page.name)
    assert left == {}, "\n".join(f"{k} on {len(v)} page(s), e.g. {sorted(v)[0]}"
                                  for k, v in sorted(left.items()))


def test_the_copy_button_speaks_each_chinese_edition(site: Path) -> None:
    """sphinx-copybutton's words come in its script, with zh-CN only: the Traditional build
    adds zh-TW's, in Traditional characters."""
    for edition, lang in ((CHINESE, "zh-CN"), (TRADITIONAL, "zh-TW")):
        script = (site / languages.FOLDERS[edition] / "_static" / "copybutton.js").read_text(
            encoding="utf-8")
        words = re.search(rf"'{lang}'\s*:\s*\{{(.*?)\}}", script, re.DOTALL)
        assert words, f"{edition}: copybutton.js has no words for {lang}"
        assert "'copy_to_clipboard'" in words[1] and CJK.search(words[1]), words[1]
        if edition == TRADITIONAL:
            assert traditional.is_traditional(re.sub(r"[^\u4e00-\u9fff]", "", words[1])), words[1]


def test_the_language_switch_leads_to_the_same_page_and_back_from_every_page(
    site: Path,
) -> None:
    """Every page links its counterpart in each other edition, by that edition's name in its
    own script, and each counterpart links back."""
    checked = 0
    for page in site_pages(site):
        found = switch(page)
        if not themed(page):
            assert found == [], page
            continue
        here = edition_of(site, page)
        relative = page.relative_to(site / languages.FOLDERS[here])
        expected = [((site / languages.FOLDERS[e] / relative).resolve(), languages.NAMES[e])
                    for e in languages.EDITIONS if e != here]
        assert found == expected, (page, found)
        for target, _ in found:
            assert target.is_file(), f"{page}: the switch leads to {target}, which does not exist"
            assert page.resolve() in [t for t, _ in switch(target)], (page, target)
        checked += 1
    assert checked >= 3 * 10, checked
    assert languages.NAMES[TRADITIONAL] == "繁體中文"


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_chinese_glossary_shows_each_term_in_both_languages(site: Path, edition: str) -> None:
    page = "book/appendix/glossary.html"
    terms = {}
    for folder in (site, site / edition):
        soup = BeautifulSoup((folder / page).read_text(encoding="utf-8"), "html.parser")
        for permalink in soup.select("a.headerlink"):
            permalink.decompose()
        terms[folder] = {dt["id"]: dt.get_text().strip() for dt in soup.select("dl.glossary dt")}
    english, chinese = terms[site], terms[site / edition]
    assert english.keys() == chinese.keys() and len(english) > 30
    words = {english: languages.chinese(edition, words) for english, words in re.findall(
        r"^\| ([^|]+?) \| ([^|（]+?)(?:（[^|]*）)? \|$",
        (ROOT / "book/locale/zh_CN/terms.md").read_text(encoding="utf-8"), re.MULTILINE)}
    for anchor, term in english.items():
        shown = chinese[anchor]
        assert term in shown, (term, shown)
        if translations.needs_chinese(term):
            assert CJK.search(shown), (term, shown)
        if term in words:
            assert words[term] in shown, (term, words[term], shown)


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_chinese_search_index_splits_chinese_into_words(site: Path, edition: str) -> None:
    index = (site / edition / "searchindex.js").read_text(encoding="utf-8")
    terms = json.loads(index[index.index("(") + 1:index.rindex(")")])["terms"]
    for word in ("反向传播", "叶子张量", "计算图", "梯度"):
        assert languages.chinese(edition, word) in terms, word


# ---- the Chinese reader's editions ---------------------------------------------------------------


def editions(site: Path, folder: Path) -> dict[str, nbformat.NotebookNode]:
    return {p.name: nbformat.read(p, as_version=4)
            for p in sorted((folder / reader_edition.FOLDER).glob("*.ipynb"))}


@pytest.mark.parametrize("language", EDITIONS)
def test_the_chinese_reader_editions_carry_no_english_markdown_cell(site: Path,
                                                                    language: str) -> None:
    english, chinese = editions(site, site), editions(site, site / language)
    assert english.keys() == chinese.keys() and len(chinese) == 7
    catalogs = languages.catalogs_of(language)
    for name, edition in chinese.items():
        with (catalogs / "book/chapters" / name).with_suffix(".po").open("rb") as f:
            prose = [" ".join(m.id.split()) for m in read_po(f)
                     if m.id and translations.needs_chinese(m.id) and len(m.id.split()) > 2]
        pairs = list(zip(english[name].cells, edition.cells, strict=True))
        for original, cell in pairs:
            assert cell.cell_type == original.cell_type, name
            if cell.cell_type == "code":
                # The same code, its comments in Chinese (test_code_comments.py), and outputs.
                chinese_code, english_code = cell.source, original.source
                if original.source.startswith(reader_edition.SOLUTION_TITLE.format("")):
                    chinese_code = reader_edition.uncommented_solution(cell.source)
                    english_code = reader_edition.uncommented_solution(original.source)
                assert code_comments.code_tokens(chinese_code) \
                    == code_comments.code_tokens(english_code), name
                assert cell.outputs == original.outputs, name
                assert cell.metadata == original.metadata, name
                continue
            text = " ".join(cell.source.split())
            assert CJK.search(cell.source), f"{name}: a markdown cell without Chinese: {text[:80]}"
            left = [m for m in prose if m in text]
            assert left == [], f"{name}: English left in a markdown cell: {left[0][:80]}"
            assert reader_edition.myst_left(cell.source) == [], (name, text[:80])
            links = re.findall(r"\]\((https://[^)]+)\)", cell.source)
            site_url = reader_edition.site_url("https://github.com/miniautograd/autograd-book")
            assert all(not u.startswith(site_url) or u.startswith(f"{site_url}{language}/")
                       for u in links), (name, links)


@pytest.mark.parametrize("language", EDITIONS)
def test_the_chinese_site_serves_its_editions_and_their_zip(site: Path, language: str) -> None:
    folder = site / language / reader_edition.FOLDER
    with zipfile.ZipFile(folder / reader_edition.ZIP_NAME) as archive:
        names = sorted(archive.namelist())
        assert names == sorted(p.name for p in folder.glob("*.ipynb"))
        for name in names:
            assert archive.read(name) == (folder / name).read_bytes(), name
    page = (site / language / "book/chapters/01_what_autograd_does.html").read_text("utf-8")
    soup = BeautifulSoup(page, "html.parser")
    links = {a.get_text(): a["href"] for a in soup.select("a.chapter-run-link")}
    words = languages.words_of(language)
    assert links[words["Download notebook"]] == "../../notebooks/01_what_autograd_does.ipynb"
    assert links[words["Open in Colab"]].endswith(
        f"/blob/notebooks/{language}/01_what_autograd_does.ipynb")


@pytest.mark.parametrize("markdown", ["*选读：主线和练习都不需要它。*",
                                      "*選讀：主線和練習都不需要它。*",
                                      "*A side road: not needed.*"])
def test_a_side_roads_mark_opens_a_fold_in_either_language(markdown: str) -> None:
    assert reader_edition.fold_split(f"## 标题\n\n{markdown}\n\n正文。") is not None
