"""What the built pages say, read from their HTML: every drawing's edges where they belong, no
machine path anywhere, alt text on every output image, a chapter's run links and versions,
a landing page that lists the chapters, appendix sections in chapter order, and no icon
script or MathJax to load."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

import chapter_page
import drawing_contrast
import nbformat
import pytest
import reader_edition
import site_theme
import yaml
from bs4 import BeautifulSoup
from site_tools import CHAPTERS, ROOT
from test_graph import edge_problems

# Paths of a machine: absolute ones under a home, system or work directory, any path through
# an installed package or a virtual environment, a Windows drive.
MACHINE_PATH = re.compile(
    r"(?:/(?:home|root|Users|tmp|opt|work|usr/lib|usr/local/lib)/[\w.-]+/"
    r"|[\w.-]+/(?:site|dist)-packages/|/[\w./-]*\.venv/"
    r"|\b[A-Z]:\\{1,2}(?:Users|Program Files|Windows)\b)"
)


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def chapter_pages(site: Path) -> list[Path]:
    return [site / "book" / "chapters" / f"{c.stem}.html" for c in CHAPTERS]


# ---- drawings -------------------------------------------------------------------------------


def graphviz_svgs(site: Path, pages: list[Path]) -> dict[str, str]:
    """Every Graphviz drawing of the site: image files, and SVG inline in pages (the stepper)."""
    found = {
        f"_images/{p.name}": p.read_text(encoding="utf-8")
        for p in sorted((site / "_images").glob("*.svg"))
    }
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for k, svg in enumerate(re.findall(r"<svg\b.*?</svg>", text, re.S)):
            found[f"{page.relative_to(site)} svg {k}"] = svg
    return {name: svg for name, svg in found.items() if 'class="graph"' in svg}


def test_every_drawing_puts_each_edge_between_its_own_nodes(
    site: Path, pages: list[Path]
) -> None:
    svgs = graphviz_svgs(site, pages)
    stepper_frames = [name for name in svgs if " svg " in name]
    assert len(svgs) >= 10 and len(stepper_frames) >= 5, sorted(svgs)
    checked, problems = 0, {}
    for name, svg in svgs.items():
        edges, found = edge_problems(svg)
        checked += edges
        if found:
            problems[name] = found
    assert problems == {}
    assert checked > 100


# ---- no machine paths ---------------------------------------------------------------------------


def test_the_machine_path_pattern() -> None:
    found = [
        'File "/home/ann/.venv/lib/python3.11/site-packages/torch/_tensor.py", line 5',
        "/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py",
        "C:\\Users\\ann\\nb.ipynb",
        '"C:\\\\Users\\\\ann\\\\nb.ipynb"',
        "/work/wt/x/companion/src/miniautograd/_tensor.py",
    ]
    spared = [
        "torch/autograd/graph.py", "a/b", "https://pytorch.org/docs/stable/notes.html",
        "then `.venv/bin/jupyter lab book/chapters` runs the notebooks",
        r"the score $x:\alpha$",
    ]
    assert all(MACHINE_PATH.search(t) for t in found)
    assert not any(MACHINE_PATH.search(t) for t in spared)


def test_no_page_or_downloadable_notebook_shows_a_machine_path(
    site: Path, pages: list[Path]
) -> None:
    texts = {str(p.relative_to(site)): soup(p).get_text() for p in pages}
    texts |= {
        str(p.relative_to(site)): p.read_text(encoding="utf-8")
        for p in sorted([*(site / "_sources").rglob("*"), *(site / "notebooks").glob("*.ipynb")])
        if p.is_file()
    }
    shown = {name: MACHINE_PATH.findall(text) for name, text in texts.items()}
    assert {name: paths for name, paths in shown.items() if paths} == {}


# ---- alt text and names -------------------------------------------------------------------------


def test_every_output_image_says_what_it_shows(site: Path) -> None:
    problems = []
    images = 0
    for page in chapter_pages(site):
        for img in soup(page).select("article div.cell_output img"):
            images += 1
            alt = img.get("alt", "")
            name = f"{page.name} {img['src'].rsplit('/', 1)[-1]}"
            if len(alt) < 40 or "/" in alt.split(" ")[0] or re.search(r"\.(svg|png)\b", alt):
                problems.append(f"{name}: alt {alt!r}")
            if img.get("loading") != "lazy":
                problems.append(f"{name}: not loaded lazily")
        for svg in soup(page).select("article div.cell_output svg"):
            if not svg.find_parent(attrs={"aria-hidden": "true"}) and not (
                svg.get("role") == "img" and svg.get("aria-label")
            ):
                problems.append(f"{page.name}: an inline SVG without role=img and a name")
    assert images >= 10
    assert problems == []


# ---- chapter pages ------------------------------------------------------------------------------


def test_each_chapter_has_run_links_and_the_versions_that_made_its_outputs(site: Path) -> None:
    """Colab, the download and the zip all serve the reader's edition of the chapter."""
    repository = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    owner_repo = repository["url"].removeprefix("https://github.com/")
    for notebook, page in zip(CHAPTERS, chapter_pages(site), strict=True):
        doc = soup(page)
        run = doc.select_one("article h1 ~ p.chapter-run")
        assert run is not None, page.name
        links = {a.get_text(): a for a in run.select("a")}
        assert set(links) == {"Open in Colab", "Download notebook", "All chapters (zip)"}
        assert links["Open in Colab"]["href"] == (
            f"https://colab.research.google.com/github/{owner_repo}/blob/"
            f"{reader_edition.BRANCH}/{notebook.name}"
        )
        download = links["Download notebook"]
        assert download["href"] == f"../../notebooks/{notebook.name}"
        assert download["download"] == notebook.name
        served = page.parent / download["href"]
        assert served.read_bytes() != notebook.read_bytes(), "the source, not the reader's edition"
        edition = nbformat.read(served, as_version=4)
        expected = []  # the source's cells less the checks; a side road's heading split
        for c in nbformat.read(notebook, as_version=4).cells:
            if not reader_edition.is_check(c):
                split = c.cell_type == "markdown" and reader_edition.fold_split(c.source)
                expected += [c.id, f"{c.id}-body"] if split and split[1] else [c.id]
        assert [c.id for c in edition.cells] == expected
        archive = page.parent / links["All chapters (zip)"]["href"]
        with zipfile.ZipFile(archive) as zipped:
            assert zipped.read(notebook.name) == served.read_bytes()
            assert sorted(zipped.namelist()) == [c.name for c in CHAPTERS]
        printed = chapter_page.versions(json.loads(notebook.read_text(encoding="utf-8")))
        assert printed is not None, f"{notebook.name}: its first code cell prints no versions"
        torch_version, mini_version = printed
        oldest, newest = chapter_page.torch_range()
        assert [oldest, newest] == [
            re.search(r"^torch==(\S+)", (ROOT / name).read_text(), re.MULTILINE).group(1)
            for name in ("tests/colab-requirements.txt", "tests/newest-torch.txt")]
        assert run.select_one(".chapter-versions").get_text() == (
            f"Outputs produced with PyTorch {torch_version} and miniautograd {mini_version}. "
            f"The chapter runs on PyTorch {oldest} (Colab's) to {newest}, tested at both ends; "
            "other releases in that range word some error messages differently and may print "
            "warnings this page does not show."
        )


def test_no_verification_cell_reaches_a_page(site: Path) -> None:
    """The site hides cells tagged book-check, as it hides remove-cell ones."""
    shown = {}
    for notebook, page in zip(CHAPTERS, chapter_pages(site), strict=True):
        doc = soup(page)
        checks = [c for c in nbformat.read(notebook, as_version=4).cells
                  if reader_edition.is_check(c)]
        text = doc.select_one("article").get_text()
        shown[notebook.name] = [c.id for c in checks
                                if c.source.splitlines()[-1].strip() in text]
        assert not doc.select(f".tag_{reader_edition.CHECK_TAG}"), notebook.name
    assert sum(1 for c in CHAPTERS for cell in nbformat.read(c, as_version=4).cells
               if reader_edition.is_check(cell)) >= 10
    assert {name: ids for name, ids in shown.items() if ids} == {}


HIDDEN_CELL_TAGS = {"remove-cell", reader_edition.CHECK_TAG}


def notebook_output_kinds(cell: nbformat.NotebookNode) -> list[str]:
    kinds = []
    for output in cell.outputs:
        data = output.get("data", {})
        kind = ("stream" if output.output_type == "stream" else "error"
                if output.output_type == "error" else "image"
                if {"image/svg+xml", "image/png"} & set(data) else "text")
        if not (kind == "stream" and kinds and kinds[-1] == "stream"):  # joined when run
            kinds.append(kind)
    return kinds


def page_output_kinds(cell: Any) -> list[str]:
    output = cell.select_one("div.cell_output")
    kinds = []
    for child in output.find_all(recursive=False) if output else []:
        classes = set(child.get("class") or [])
        kinds.append("stream" if "stream" in classes else "error" if "traceback" in classes
                     else "image" if child.name == "img" or child.find("img") else "text")
    return kinds


def test_each_output_sits_where_the_cell_printed_it(site: Path) -> None:
    """A printed label stays above the drawing it names: a page shows each cell's outputs in
    the order the cell produced them (myst-nb's nb_merge_streams would move every print of a
    cell to its first output's place)."""
    moved = []
    for notebook, page in zip(CHAPTERS, chapter_pages(site), strict=True):
        cells = [c for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "code"
                 and not HIDDEN_CELL_TAGS & set(c.metadata.get("tags", []))]
        shown = soup(page).select("article div.cell")
        assert len(shown) == len(cells), notebook.name
        moved += [f"{notebook.name} cell {cell.id}: {page_output_kinds(html)}, printed "
                  f"{notebook_output_kinds(cell)}" for cell, html in zip(cells, shown, strict=True)
                  if page_output_kinds(html) != notebook_output_kinds(cell)]
    assert moved == []


def test_versions_come_from_the_first_visible_code_cell() -> None:
    def code(source: str, text: str = "", tags: tuple[str, ...] = ()) -> dict:
        outputs = [{"output_type": "stream", "name": "stdout", "text": text}] if text else []
        return {"cell_type": "code", "source": source, "metadata": {"tags": list(tags)},
                "outputs": outputs}

    line = "PyTorch 2.13.0+cpu, miniautograd 0.1.0\n"
    hidden = code("print(...)", "PyTorch 9, miniautograd 9\n", ("remove-cell",))
    assert chapter_page.versions({"cells": [hidden, code("import torch", line)]}) == (
        "2.13.0+cpu", "0.1.0")
    assert chapter_page.versions({"cells": [code("x = 1"), code("print(...)", line)]}) is None


def chapter_titles(site: Path) -> list[str]:
    """Each chapter's title as its page shows it, without the section number."""
    titles = []
    for page in chapter_pages(site):
        h1 = soup(page).select_one("article h1")
        titles.append(re.sub(r"^\d+\.\s*", "", h1.get_text().replace("#", "").strip()))
    return titles


def test_the_landing_page_lists_every_chapter_by_its_title(site: Path) -> None:
    doc = soup(site / "book" / "intro.html")
    article = doc.select_one("article")
    chapters = [
        (a.get_text(" ", strip=True), a["href"].split("#")[0])
        for a in article.select("a")
        if a["href"].startswith("chapters/")
    ]
    expected = [
        (title, f"chapters/{c.stem}.html")
        for title, c in zip(chapter_titles(site), CHAPTERS, strict=True)
    ]
    listed = article.select("ol > li > p > a, ol > li > a")
    assert [(a.get_text(" ", strip=True), a["href"]) for a in listed] == expected
    start = [a for a in article.select("a") if "Start reading" in a.parent.get_text()]
    assert start and start[0]["href"] == expected[0][1], chapters


def test_appendix_sections_follow_the_chapters_and_carry_no_notes_to_authors(
    site: Path,
) -> None:
    titles = chapter_titles(site)
    # The claims page opens with one section of its own, the claims a training loop meets, and
    # ends with one, the idioms of older releases and the claims about other frameworks; every
    # other section is a chapter's, in the chapters' order.
    first = {"common_claims": ["In a training loop"], "glossary": []}
    last = {"common_claims": ["Legacy and other frameworks"], "glossary": []}
    for name in ("common_claims", "glossary"):
        source = (ROOT / "book" / "appendix" / f"{name}.md").read_text(encoding="utf-8")
        sections = re.findall(r"(?m)^## (.+)$", source)
        chapters = [t for t in titles if t in sections]
        assert sections == first[name] + chapters + last[name], name
        page = soup(site / "book" / "appendix" / f"{name}.html").get_text()
        assert not re.search(r"authors? (add|should|write)", page, re.IGNORECASE), name


def test_a_column_of_short_cells_is_marked_to_stay_on_one_line(site: Path) -> None:
    # The claims page's verdicts sit beside long explanations; unmarked, a wide screen squeezed
    # the Chinese verdicts to one character a line. Every verdict cell (the third column, after
    # what is true and the claim) is marked, no other is.
    for edition in ("", "zh_CN/", "zh_TW/"):
        page = soup(site / f"{edition}book/appendix/common_claims.html")
        tables = [t for t in page.find_all("table") if len(t.find("thead").find_all("th")) == 4]
        assert len(tables) >= 7, edition
        for table in tables:
            for row in table.find("tbody").find_all("tr"):
                marked = ["short-cell" in td.get("class", []) for td in row.find_all("td")]
                assert marked == [False, False, True, False], (edition, row.get_text()[:80])


# ---- what pages load ----------------------------------------------------------------------------


def test_pages_load_no_icon_script_and_no_mathjax_and_have_a_favicon(
    site: Path, pages: list[Path]
) -> None:
    for page in pages:
        doc = soup(page)
        if doc.select_one('meta[http-equiv="Refresh"]'):
            continue  # the site's index.html only redirects to the landing page
        scripts = [s["src"] for s in doc.select("script[src]")]
        assert not [s for s in scripts if "fontawesome" in s or "mathjax" in s.lower()], page
        icon = doc.select_one('link[rel="icon"]')
        assert icon is not None and (page.parent / icon["href"]).is_file(), page
        has_math = bool(doc.select("article .math"))
        styles = [link["href"] for link in doc.select('link[rel="stylesheet"]')]
        assert any("static-math.css" in s for s in styles) == has_math, page
    assert not list(site.rglob("fontawesome.js"))


def test_every_html_file_published_is_a_page_with_a_title_and_a_language(site: Path) -> None:
    """A reader, a search engine or a screen reader may open any HTML file of the site: each is
    a page with a title and the language of its text, none a fragment of a template (the
    themes ship Jinja macros in their static folders, which Sphinx copies; site_theme.py
    removes them), and no page links to a fragment."""
    problems = []
    for path in sorted(site.rglob("*.html")):
        name = path.relative_to(site).as_posix()
        doc = soup(path)
        if doc.select_one('meta[http-equiv="Refresh"]'):
            continue  # the site's index.html only redirects to the landing page
        html = doc.find("html")
        if html is None or not html.get("lang"):
            problems.append(f"{name}: no <html lang>")
        if doc.title is None or not doc.title.get_text(strip=True):
            problems.append(f"{name}: no title")
        if "webpack-macros" in path.read_text(encoding="utf-8"):
            problems.append(f"{name}: names a theme fragment")
    assert problems == []


@pytest.mark.parametrize(
    ("svg", "expected"),
    [
        ('<svg width="300pt" height="9pt" viewBox="0.00 0.00 300.00 9.00"><text '
         'font-size="10.00">a</text><text font-size="8.00">b</text></svg>', (400.0, 32 / 3)),
        ('<svg width="720pt" height="9pt" viewBox="0 0 720 9"><g id="text_1"><!-- 0.0 -->\n'
         '<g transform="translate(1 2) scale(0.1 -0.1)"></g></g></svg>', (960.0, 40 / 3)),
        ('<svg width="100pt" height="9pt" viewBox="0 0 100 9"></svg>', (400 / 3, None)),
    ],
)
def test_image_facts_read_the_smallest_text(tmp_path: Path, svg: str, expected: tuple) -> None:
    path = tmp_path / "x.svg"
    path.write_text(svg)
    width, text = chapter_page.image_facts(path)
    assert width == pytest.approx(expected[0])
    assert text == (pytest.approx(expected[1]) if expected[1] is not None else None)


# ---- what a phone needs ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "aligned"),
    [
        ("def f(x):\n    return x\n", True),  # printed source: indented
        ("a: requires_grad=True   is_leaf=True\n", True),  # columns
        ("tensor([[1., 2.],\n        [3., 4.]])\n", True),  # a tensor over two lines
        ("└─ AddBackward0\n", True),  # box drawing
        ("RuntimeError: one of the variables needed for gradient computation\n", False),
        ("x.grad = tensor([1., 2.]), the same on both engines\n", False),
    ],
)
def test_an_output_is_aligned_when_it_is_laid_out_in_columns_or_by_indentation(
    text: str, aligned: bool
) -> None:
    assert bool(chapter_page.ALIGNED.search(text)) is aligned


def test_a_drawing_keeps_a_readable_width_on_a_phone_only_where_it_needs_one() -> None:
    # Text of 14.7 px at 643 px: 8.2 px in a 360 px column; 9.5 px needs 416 px.
    assert chapter_page.readable_width(643, 14.7) == 416
    assert chapter_page.readable_width(300, 14.7) is None  # fits the column at full size
    assert chapter_page.readable_width(400, 14.7) is None  # 13.2 px in the column
    assert chapter_page.readable_width(400, None) is None  # a PNG: nothing to measure


def test_the_full_size_page_shows_the_image_at_its_width_in_a_phone_viewport() -> None:
    page = chapter_page.full_size_page("a&b.svg", 643.4, 'The graph "loss"')
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert 'src="a&amp;b.svg"' in page and 'width="643"' in page
    assert "<title>The graph &quot;loss&quot;</title>" in page


def test_inline_code_may_break_after_a_dot_an_underscore_or_a_parenthesis_only() -> None:
    html = ('<p>Call <code class="docutils literal notranslate"><span class="pre">'
            'torch.no_grad()</span></code> or <span>a.b_c</span>.</p>')
    assert site_theme.breakable_code(html) == (
        '<p>Call <code class="docutils literal notranslate"><span class="pre">'
        "torch.<wbr>no_<wbr>grad(<wbr>)</span></code> or <span>a.b_c</span>.</p>"
    )


def inline_code(*words: str) -> str:
    """Inline code as docutils writes it: one ``<span class="pre">`` per word, spaces between."""
    spans = " ".join(f'<span class="pre">{word}</span>' for word in words)
    return f'<code class="docutils literal notranslate">{spans}</code>'


def test_a_short_hyphenated_name_in_inline_code_is_kept_whole() -> None:
    """A browser breaks `max-autotune` after its hyphen; a long code span still wraps."""
    kept = site_theme.breakable_code(inline_code("max-autotune"))
    assert kept.startswith('<code class="docutils literal notranslate nobreak">')
    for text in ("torch.no_grad()", "a - b", "x" * 20 + "-" + "y" * 20):
        assert "nobreak" not in site_theme.breakable_code(inline_code(text)), text


def test_a_hyphenated_word_of_code_with_spaces_is_kept_whole() -> None:
    """`w -= lr * w.grad` broke between "-" and "=" in a Chinese table cell at 1366 px."""
    assert site_theme.breakable_code(inline_code("w", "-=", "lr")) == (
        '<code class="docutils literal notranslate"><span class="pre">w</span> '
        '<span class="pre nobreak">-=</span> <span class="pre">lr</span></code>'
    )
    long_word = "x" * 20 + "-" + "y" * 20
    assert "nobreak" not in site_theme.breakable_code(inline_code("a", long_word))


def test_controls_are_renamed_to_hold_the_text_they_show() -> None:
    """myst-nb's folds, the stepper's "prev" button and the theme's search button: the
    markup each is renamed from is the markup the build meets (the browser test's axe check
    fails if that markup changes and a misnamed control comes back)."""
    fold = '<summary aria-label="Toggle hidden content">\n<p class="collapsed">Show</p>'
    prev = ('<button type="button" class="mag-prev" aria-label="previous step">'
            "◀ prev</button>")
    assert site_theme.named_by_their_text(fold + prev) == (
        '<summary>\n<p class="collapsed">Show</p>'
        '<button type="button" class="mag-prev" aria-label="prev step">◀ prev</button>'
    )
    search = ('<button class="btn search-button-field search-button__button pst-js-only" '
              'title="搜索" aria-label="搜索" data-bs-toggle="tooltip">')
    assert site_theme.named_by_its_text(search) == (
        '<button class="btn search-button-field search-button__button pst-js-only" '
        'title="搜索" aria-keyshortcuts="Control+K" data-bs-toggle="tooltip">'
    )


def test_the_contrast_check_reads_a_drawing_as_the_page_shows_it() -> None:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg"><g class="graph">'
           '<g class="node"><title>a</title><polygon fill="#a5cff2"/><text fill="#1a1a1a">a'
           '</text></g><g class="edge"><title>a-&gt;b</title><path fill="none" '
           'stroke="#ffd3a8"/></g></g></svg>')
    found = dict(drawing_contrast.lowest_contrasts(svg))
    assert found["node a: text 'a'"] == pytest.approx(10.6, abs=0.1)
    assert found["edge a->b: line #ffd3a8"] == pytest.approx(1.39, abs=0.01)
    grey = svg.replace("#ffd3a8", "#8c8c8c")
    assert dict(drawing_contrast.lowest_contrasts(grey))["edge a->b: line #8c8c8c"] == (
        pytest.approx(3.36, abs=0.01))
    # On the theme's dark-mode grey panel, through its image filter: under 3:1.
    dimmed = drawing_contrast.lowest_contrasts(grey, "brightness(0.8) contrast(1.2)",
                                               "rgb(206, 214, 221)")
    assert dict(dimmed)["edge a->b: line #8c8c8c"] == pytest.approx(2.47, abs=0.01)
