"""The reader's edition of each chapter (book/_ext/reader_edition.py), as a learner opens it in
Jupyter or Colab: no MyST left, no verification cell, hints and solutions folded in both front
ends' terms, a short first cell that installs what the chapter needs, links that reach the
published page and anchor; and the source chapters keep their checks out of sight.

The detector of leftover MyST is tried on a page made to fail; nbconvert's HTML (what JupyterLab
shows, close enough for a fold) shows every hint closed. JupyterLab itself is in
test_reader_lab.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import bootstrap_cell
import chapter_page
import nbformat
import pytest
import reader_edition
import yaml
from bs4 import BeautifulSoup
from nbconvert import HTMLExporter
from reader_edition import Target, convert_markdown, myst_left
from site_tools import CHAPTERS, ROOT
from test_links import anchors

SITE_URL = "https://example.github.io/book/"
# What a front end shows when prose explains a test instead of its subject.
TOLERANCE_PROSE = re.compile(r"\bthe cell checks\b|\bchecks that it\b|\bthe cell check")
# A check in a code cell: an assertion, or an error raised because a claim failed.
CHECK_CODE = re.compile(r"raise (RuntimeError|AssertionError)\(\s*f?[\"']expected|^\s*assert ",
                        re.MULTILINE)


def fake_resolve(role: str, target: str, docname: str) -> Target:
    """Labels ch1-* are on chapter 1's page, ch3-* on chapter 3's; terms on the glossary."""
    if target == "missing":
        raise reader_edition.UnknownMySTError(target)
    titles = {"ch1-graph": "The graph", "ch3-ctx": "What ctx keeps",
              "../intro": "The introduction"}
    doc = ("book/intro" if role == "doc" else "book/appendix/glossary" if role == "term"
           else "book/chapters/03_custom" if target.startswith("ch3-") else "book/chapters/01")
    anchor = "" if role == "doc" else f"term-{target}" if role == "term" else target
    return Target(f"{doc}.html", anchor, titles.get(target, ""), doc)


def convert(markdown: str) -> str:
    return convert_markdown(markdown, "book/chapters/01", fake_resolve, SITE_URL)


# ---- the converter and the detector, on pages made to fail -------------------------------------

MYST_PAGE = {
    "a label line": "(ch1-graph)=\n## The graph",
    "a role": "see {ref}`ch1-graph`",
    "a directive fence": "```{admonition} Hint\n:class: dropdown\nLook.\n```",
    "a colon fence": ":::{note}\nSee.\n:::",
    "a directive option": "```{admonition} Hint\n:class: dropdown\n```",
    "a MyST comment": "% a note to authors\nText.",
    "a block break": "Text.\n+++\nMore.",
}


@pytest.mark.parametrize("kind", MYST_PAGE)
def test_the_detector_finds(kind: str) -> None:
    assert kind in myst_left(MYST_PAGE[kind])


def test_the_detector_spares_markdown_and_code() -> None:
    plain = (
        "A [link](https://x.org), $x^2$, **bold**, and `{term}` or `(label)=` in code.\n\n"
        "```python\n# {ref}`not a role`\nprint(1)\n```\n\n"
        "<details><summary>Hint</summary>\n\nLook.\n\n</details>\n\n> **Note**\n>\n> Quoted."
    )
    assert myst_left(plain) == []


def test_each_construct_becomes_markdown() -> None:
    page = "\n".join([
        "(ch1-graph)=",
        "## The graph",
        "",
        "A {term}`leaf <leaf tensor>`, a {term}`Jacobian`, {ref}`ch1-graph`, {ref}`this part",
        "<ch1-graph>`, {ref}`ch3-ctx` and {doc}`../intro`; `{ref}` in code stays.",
        "",
        "::::{admonition} Common descriptions, checked",
        ":class: note",
        "",
        "(ch1-claim)=",
        "**A claim.** Its answer.",
        "::::",
        "",
        "```{admonition} Hint 1",
        ":class: dropdown",
        "Try this:",
        "```python",
        "x = 1",
        "```",
        "```",
    ])
    assert convert(page) == "\n".join([
        '## The graph<a id="ch1-graph" name="ch1-graph"></a>',
        "",
        f"A [leaf]({SITE_URL}book/appendix/glossary.html#term-leaf tensor), "
        f"a [Jacobian]({SITE_URL}book/appendix/glossary.html#term-Jacobian), "
        "[The graph](#ch1-graph), [this part](#ch1-graph), "
        "[What ctx keeps](03_custom.ipynb#ch3-ctx) and "
        f"[The introduction]({SITE_URL}book/intro.html); `{{ref}}` in code stays.",
        "",
        "> **Common descriptions, checked**",
        ">",
        '> <a id="ch1-claim" name="ch1-claim"></a>',
        ">",
        "> **A claim.** Its answer.",
        "",
        "<details><summary>Hint 1</summary>",
        "",
        "Try this:",
        "```python",
        "x = 1",
        "```",
        "",
        "</details>",
    ])
    assert myst_left(convert(page)) == []


@pytest.mark.parametrize(
    "page",
    ["```{figure} a.png\n```", "```{admonition} Hint\nnever closed", "{ref}`missing`"],
    ids=["unknown directive", "unclosed fence", "unresolved reference"],
)
def test_what_has_no_jupyter_form_fails_the_build(page: str) -> None:
    with pytest.raises(reader_edition.UnknownMySTError):
        convert(page)


def test_cells_of_a_made_up_chapter() -> None:
    """Checks go, solutions fold in both front ends and lose their outputs, a scrubbed text
    beside an image goes, and only the tags a front end understands stay."""
    image = nbformat.v4.new_output(
        "display_data", data={"text/plain": "<Drawing at 0xADDRESS>", "image/svg+xml": "<svg/>"})
    cells = [
        nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["nbval-ignore-output"]},
                                  outputs=[image]),
        nbformat.v4.new_code_cell("assert x == 1", metadata={"tags": ["book-check"]}),
        nbformat.v4.new_code_cell("x = 2  # Solution", metadata={"tags": ["solution"]},
                                  outputs=[nbformat.v4.new_output("stream", text="2\n")],
                                  execution_count=3),
        nbformat.v4.new_code_cell("def helper(): ...", metadata={"tags": ["hide-input"]},
                                  outputs=[nbformat.v4.new_output("stream", text="h\n")]),
        nbformat.v4.new_code_cell("1 / 0", metadata={"tags": ["raises-exception"],
                                                     "expected_exception": "ZeroDivisionError"}),
    ]
    edition = reader_edition.reader_edition(nbformat.v4.new_notebook(cells=cells),
                                            "book/chapters/01", fake_resolve, SITE_URL)
    first, solution, helper, raising = edition.cells
    assert first.metadata == {} and first.outputs[0].data == {"image/svg+xml": "<svg/>"}
    assert solution.metadata == {"jupyter": {"source_hidden": True}, "cellView": "form"}
    assert solution.source == (f"# @title Solution\n# {reader_edition.SOLUTION_HOW}\n"
                               "# x = 2  # Solution")
    assert solution.outputs == [] and solution.execution_count is None
    assert helper.metadata == solution.metadata and helper.source == "def helper(): ..."
    assert helper.outputs[0].text == "h\n"
    assert raising.metadata == {"tags": ["raises-exception"]}


@pytest.mark.parametrize("code", ["x = 2", "%%writefile f.py\ndef f():\n\n    # note\n    "
                                  "return '#  x'", "# only a comment\n\n\nx = 1"])
def test_a_commented_solution_uncomments_to_itself(code: str) -> None:
    source = reader_edition.commented_solution(code, "# @title Solution",
                                               reader_edition.SOLUTION_HOW)
    assert all(line == "#" or line.startswith("# ") for line in source.splitlines())
    assert reader_edition.uncommented_solution(source) == code


def test_a_side_road_collapses_under_its_heading_and_a_parity_run_folds_whole() -> None:
    """The heading's cell is split after the mark, so that the collapsed section shows only
    the heading and the mark; a cell that repeats a result on miniautograd folds code and
    outputs; an emphasis that is no mark, or a mark under no heading, changes nothing."""
    run = nbformat.v4.new_output("stream", text="same\n")
    cells = [
        nbformat.v4.new_markdown_cell(
            "(ch1-road)=\n## A road\n\n*A side road: the main path does not need it.*\n\n"
            "Its first paragraph.", id="road"),
        nbformat.v4.new_code_cell("x = 1", id="road-code"),
        nbformat.v4.new_markdown_cell("## Main\n\n*Not a mark*, an emphasis.", id="main"),
        nbformat.v4.new_markdown_cell("*A side road under no heading.*", id="loose"),
        nbformat.v4.new_code_cell("run(mini)", metadata={"tags": ["parity"]}, outputs=[run],
                                  id="parity"),
    ]
    edition = reader_edition.reader_edition(nbformat.v4.new_notebook(cells=cells),
                                            "book/chapters/01", fake_resolve, SITE_URL)
    heading, body, code, main, loose, parity = edition.cells
    assert heading.source == ('## A road<a id="ch1-road" name="ch1-road"></a>\n\n'
                              "*A side road: the main path does not need it.*")
    assert heading.metadata == {"jp-MarkdownHeadingCollapsed": True}
    assert (body.id, body.source, body.metadata) == ("road-body", "Its first paragraph.", {})
    assert code.source == "x = 1"
    assert main.metadata == {} and main.source == "## Main\n\n*Not a mark*, an emphasis."
    assert loose.metadata == {}
    assert parity.metadata == {"jupyter": {"source_hidden": True, "outputs_hidden": True},
                               "cellView": "form"}
    assert parity.outputs[0].text == "same\n"


def test_a_drawing_keeps_no_repr_beside_it_in_a_parity_run_too() -> None:
    """The text/plain beside an image is a scrubbed memory address: it goes, folded or not."""
    def drawing() -> nbformat.NotebookNode:
        return nbformat.v4.new_output("display_data", data={
            "image/svg+xml": "<svg/>", "text/plain": "<Drawing at 0xADDRESS>"})

    cells = [nbformat.v4.new_code_cell(f"draw({n})", id=n, outputs=[drawing()],
                                       metadata={"tags": tags})
             for n, tags in (("plain", []), ("parity", ["parity"]))]
    edition = reader_edition.reader_edition(nbformat.v4.new_notebook(cells=cells),
                                            "book/chapters/01", fake_resolve, SITE_URL)
    for cell in edition.cells:
        assert list(cell.outputs[0].data) == ["image/svg+xml"], cell.id


# ---- the chapters' editions, as the site build wrote them ----------------------------------------


def edition_of(site: Path, chapter: Path) -> nbformat.NotebookNode:
    return nbformat.read(site / reader_edition.FOLDER / chapter.name, as_version=4)


def hints(markdown: str) -> int:
    return len(re.findall(r"\{admonition\}\s*Hint", markdown))


def edition_problems(source: nbformat.NotebookNode, edition: nbformat.NotebookNode) -> list[str]:
    """What a learner would suffer from in `edition`, the reader's edition of `source`."""
    problems = []
    try:
        nbformat.validate(edition)
    except nbformat.ValidationError as error:
        problems.append(f"not valid nbformat: {error.message}")
    ids = [c.id for c in edition.cells]
    for cell in source.cells:
        if reader_edition.is_check(cell) and cell.id in ids:
            problems.append(f"verification cell {cell.id} is in the reader's edition")
    solutions = [c.id for c in source.cells if reader_edition.SOLUTION_TAG in c.metadata.get(
        "tags", [])]
    code = {c.id: c.source for c in source.cells}
    parities = [c.id for c in source.cells if reader_edition.PARITY_TAG in c.metadata.get(
        "tags", [])]
    for cell in edition.cells:
        if cell.cell_type == "markdown":
            problems += [f"cell {cell.id}: MyST {kind} left" for kind in myst_left(cell.source)]
            if TOLERANCE_PROSE.search(cell.source):
                problems.append(f"cell {cell.id}: prose about what a test checks")
            split = reader_edition.fold_split(cell.source)
            if split and (split[1] or cell.metadata != reader_edition.COLLAPSED_HEADING):
                problems.append(f"side road {cell.id} is not collapsed under its heading")
            continue
        folded = {key: cell.metadata.get(key) for key in reader_edition.FOLDED_WHOLE}
        if cell.id in parities and folded != reader_edition.FOLDED_WHOLE:
            problems.append(f"parity cell {cell.id} is not folded whole")
        tags = set(cell.metadata.get("tags", []))
        if tags - set(reader_edition.KEPT_TAGS):
            problems.append(f"cell {cell.id}: the book's tags {sorted(tags)}")
        if cell.id in solutions:
            if (cell.metadata.get("jupyter", {}).get("source_hidden") is not True
                    or cell.metadata.get("cellView") != "form"
                    or not cell.source.startswith("# @title Solution\n")):
                problems.append(f"solution {cell.id} is not folded in JupyterLab and Colab")
            if cell.source.splitlines()[1:2] != [f"# {reader_edition.SOLUTION_HOW}"] or any(
                    line and not line.startswith("#") for line in cell.source.splitlines()):
                problems.append(f"solution {cell.id} would run with Run All")
            if reader_edition.uncommented_solution(cell.source) != code[cell.id]:
                problems.append(f"solution {cell.id}, uncommented, is not the solution")
            if cell.outputs:
                problems.append(f"solution {cell.id} shows its outputs")
        for output in cell.get("outputs", []):
            if "0xADDRESS" in str(output.get("data", {}).get("text/plain", "")):
                problems.append(f"cell {cell.id}: a scrubbed repr")
    first = edition.cells[0]
    expected = bootstrap_cell.bootstrap_source(source)
    if first.source != expected or len(first.source.splitlines()) > 7:
        problems.append(f"the first cell is not the short bootstrap cell: {first.source!r}")
    text = "\n".join(c.source for c in edition.cells)
    if "AUTOGRAD_BOOK" in text or "environ.get" in first.source:
        problems.append("a test switch reached the reader")
    source_hints = sum(hints(c.source) for c in source.cells if c.cell_type == "markdown")
    folded = len(re.findall(r"<details><summary>Hint[^<]*</summary>", text))
    if folded != source_hints:
        problems.append(f"{folded} folded hints, the source has {source_hints}")
    return problems


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_the_reader_edition_is_what_a_learner_should_open(site: Path, chapter: Path) -> None:
    source = nbformat.read(chapter, as_version=4)
    assert edition_problems(source, edition_of(site, chapter)) == []


def test_the_edition_check_finds_what_the_source_would_show(site: Path) -> None:
    """The source notebook itself, opened as it is, fails the check on every count."""
    chapter = CHAPTERS[0]
    source = nbformat.read(chapter, as_version=4)
    found = " | ".join(edition_problems(source, source))
    for problem in ("verification cell", "MyST a label line", "MyST a role",
                    "MyST a directive fence", "the book's tags", "is not folded",
                    "shows its outputs", "would run with Run All", "a scrubbed repr",
                    "0 folded hints",
                    "is not collapsed under its heading", "is not folded whole"):
        assert problem in found


def test_every_chapter_has_folded_hints_and_solutions(site: Path) -> None:
    counts = {}
    for chapter in CHAPTERS:
        edition = edition_of(site, chapter)
        counts[chapter.name] = sum(1 for c in edition.cells if c.metadata.get("cellView"))
    assert all(n >= 2 for n in counts.values()), counts


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_every_link_to_the_site_reaches_its_page_and_anchor(site: Path, chapter: Path) -> None:
    repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    url = reader_edition.site_url(repository)
    text = "\n".join(c.source for c in edition_of(site, chapter).cells
                     if c.cell_type == "markdown")
    links = re.findall(rf"\]\(({re.escape(url)}[^)\s]*)\)", text)
    assert links, "no link to the site"
    broken = []
    for link in links:
        parts = urlsplit(link)
        page = site / unquote(parts.path.removeprefix(urlsplit(url).path))
        if not page.is_file() or (parts.fragment and unquote(parts.fragment) not in anchors(page)):
            broken.append(link)
    assert broken == []


def notebook_anchors(edition: nbformat.NotebookNode) -> set[str]:
    return {m for c in edition.cells if c.cell_type == "markdown"
            for m in re.findall(r'<a id="([^"]+)"', c.source)}


@pytest.mark.parametrize("language", ["", "zh_CN", "zh_TW"])
@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_links_within_the_editions_reach_their_anchor(site: Path, chapter: Path,
                                                      language: str) -> None:
    """A link to this chapter scrolls to an anchor of this notebook; a link to another
    chapter opens that chapter's edition beside it, at an anchor it has."""
    folder = site / language / reader_edition.FOLDER
    edition = nbformat.read(folder / chapter.name, as_version=4)
    text = "\n".join(c.source for c in edition.cells if c.cell_type == "markdown")
    local = re.findall(r"\]\(#([^)\s]+)\)", text)
    beside = re.findall(r"\]\((\d\d_\w+\.ipynb)(?:#([^)\s]+))?\)", text)
    assert local or beside, "no link within the editions"
    broken = [f"#{a}" for a in local if a not in notebook_anchors(edition)]
    for name, anchor in beside:
        other = folder / name
        if not other.is_file() or (anchor and anchor not in notebook_anchors(
                nbformat.read(other, as_version=4))):
            broken.append(f"{name}#{anchor}")
    assert broken == []
    pages = [link for link in re.findall(r"\]\(([^)\s]+)\)", text)
             if re.search(r"book/chapters/\d\d_", link)]
    assert pages == [], "a link to a chapter's page where its edition is beside this one"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_nbconvert_shows_every_hint_folded(site: Path, chapter: Path) -> None:
    """As a notebook viewer renders the Markdown: each hint inside a closed <details>."""
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(edition_of(site, chapter))
    page = BeautifulSoup(body, "html.parser")
    summaries = [s for s in page.select("summary") if s.get_text().startswith("Hint")]
    source = nbformat.read(chapter, as_version=4)
    assert len(summaries) == sum(hints(c.source) for c in source.cells
                                 if c.cell_type == "markdown")
    for summary in summaries:
        details = summary.parent
        assert details.name == "details" and not details.has_attr("open")
        assert details.get_text(strip=True) != summary.get_text(strip=True), "an empty hint"


def test_the_site_labels_every_solution_and_folds_it(site: Path) -> None:
    """The mark that folds a solution in the reader's edition also folds it on the site,
    under a label that says what is folded."""
    for chapter in CHAPTERS:
        page = BeautifulSoup((site / "book" / "chapters" / f"{chapter.stem}.html").read_text(
            encoding="utf-8"), "html.parser")
        folds = [d for d in page.select("details.hide") if d.find_parent(class_="tag_solution")]
        labels = [d.select_one("summary .collapsed").get_text(strip=True) for d in folds]
        solutions = sum(1 for c in nbformat.read(chapter, as_version=4).cells
                        if reader_edition.SOLUTION_TAG in c.metadata.get("tags", []))
        assert labels == [reader_edition.SOLUTION_PROMPTS[0]] * solutions, chapter.name
        assert solutions >= 2


def test_the_site_folds_side_roads_and_parity_runs(site: Path) -> None:
    """Each section opened by a mark folds on the site below its heading and mark, with the
    section's cells inside the fold (a section of prose alone, its paragraphs); each parity
    cell folds whole, under its own label."""
    marks = parities = 0
    for chapter in CHAPTERS:
        source = nbformat.read(chapter, as_version=4)
        expected = [reader_edition.FOLD_MARK.search(c.source)["kind"] for c in source.cells
                    if c.cell_type == "markdown" and reader_edition.fold_split(c.source)]
        page = BeautifulSoup((site / "book" / "chapters" / f"{chapter.stem}.html").read_text(
            encoding="utf-8"), "html.parser")
        folds = page.select("details.section-fold")
        shown = [f.select_one("summary .fold-show").get_text() for f in folds]
        assert shown == [reader_edition.FOLD_PROMPTS[k][0] for k in expected], chapter.name
        for fold in folds:
            assert not fold.has_attr("open") and fold.select("div.cell, p, li"), chapter.name
            mark = fold.find_previous_sibling("p")
            assert reader_edition.FOLD_MARK.match(f"*{mark.get_text()}*"), chapter.name
            assert fold.parent.name == "section" and fold.parent.find(["h2", "h3"]), chapter.name
        tagged = sum(reader_edition.PARITY_TAG in c.metadata.get("tags", [])
                     for c in source.cells)
        runs = [d for d in page.select("details.hide") if d.find_parent(class_="tag_parity")]
        assert [d.select_one("summary .collapsed").get_text(strip=True) for d in runs] == [
            reader_edition.PARITY_PROMPTS[0]] * tagged, chapter.name
        assert all(d.select("div.cell_input") and d.select("div.cell_output") for d in runs)
        marks, parities = marks + len(expected), parities + tagged
    assert marks >= 4 and parities >= 7, (marks, parities)


# ---- the source chapters: checks out of sight ----------------------------------------------------


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_checks_live_in_verification_cells(chapter: Path) -> None:
    shown = []
    for n, cell in enumerate(nbformat.read(chapter, as_version=4).cells):
        hidden = chapter_page.HIDDEN_TAGS & set(cell.metadata.get("tags", []))
        if cell.cell_type == "code" and not hidden and CHECK_CODE.search(cell.source):
            shown.append(f"cell {n}: a check in a visible cell")
        if cell.cell_type == "markdown" and TOLERANCE_PROSE.search(cell.source):
            shown.append(f"cell {n}: prose about what a test checks")
    assert shown == []


# ---- side roads: nothing the rest of the chapter needs ------------------------------------------


HEADING_LEVEL = re.compile(r"^(#{1,6}) ", re.MULTILINE)


def _names(code: str) -> tuple[set[str], set[str]]:
    """(names a cell binds, names it reads), from its Python (magics and shell lines left out)."""
    lines = [line[:len(line) - len(line.lstrip())] + "pass"
             if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines()]
    tree = ast.parse("\n".join(lines))
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else read).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return bound, read


def side_road_leaks(notebook: nbformat.NotebookNode) -> list[str]:
    """Names bound only inside a side road and read by a code cell after it."""
    only_inside: dict[str, str] = {}
    outside: set[str] = set()
    road, level = None, 0
    leaks = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            levels = [len(h) for h in HEADING_LEVEL.findall(cell.source)]
            if road and levels and min(levels) <= level:
                road = None
            if reader_edition.fold_split(cell.source):
                road, level = cell.id, levels[0]
            continue
        bound, read = _names(cell.source)
        if road:
            only_inside |= dict.fromkeys(bound - outside, road)
            continue
        leaks += [f"{name} (side road {only_inside[name]}) read in {cell.id}"
                  for name in sorted((read - bound) & only_inside.keys())]
        outside |= bound
        for name in bound:
            only_inside.pop(name, None)
    return leaks


def test_the_leak_check_finds_a_name_from_a_side_road() -> None:
    cells = [
        nbformat.v4.new_code_cell("x = 1", id="main"),
        nbformat.v4.new_markdown_cell("## Road\n\n*A side road: not needed.*", id="road"),
        nbformat.v4.new_code_cell("y = x + 1\nx = 2", id="inside"),
        nbformat.v4.new_markdown_cell("### Deeper, still the road", id="deeper"),
        nbformat.v4.new_code_cell("z = 3", id="deeper-code"),
        nbformat.v4.new_markdown_cell("## Back on the main path", id="back"),
        nbformat.v4.new_code_cell("print(x, y, z)", id="after"),
    ]
    assert side_road_leaks(nbformat.v4.new_notebook(cells=cells)) == [
        "y (side road road) read in after", "z (side road road) read in after"]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_nothing_after_a_side_road_needs_it(chapter: Path) -> None:
    assert side_road_leaks(nbformat.read(chapter, as_version=4)) == []
