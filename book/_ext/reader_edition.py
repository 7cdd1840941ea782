"""The reader's edition of each chapter: the notebook a learner opens in Jupyter or Colab.

A chapter's source notebook serves the site and the tests; the reader's edition is built from
it at the end of every site build, into ``_build/html/notebooks/`` (one ``.ipynb`` a chapter,
and all of them in one zip), which the chapter pages' "Download" and "Open in Colab" links
serve. What changes on the way:

- MyST, which only the site understands, becomes Markdown that Jupyter and Colab render:
  label lines become HTML anchors with the site's ids; ``{ref}``, ``{term}`` and ``{doc}``
  become links (resolved by Sphinx itself, after it has read every page): to an anchor of the
  same notebook, to the reader's edition of another chapter beside it (as in the zip, and on
  the branch Colab opens them from), or else to the published page; admonitions become block
  quotes, and dropdowns (the hints) ``<details>`` folds. Math stays ``$...$``.
- Verification cells (tag ``book-check``: assertions of the book's claims, settings that only
  the stored outputs need) are left out; the site hides them too, and nbval runs them on the
  source.
- Solution cells (tag ``solution``; folded on the site under "Show the solution") are folded
  in JupyterLab (``jupyter.source_hidden``) and in Colab (``cellView: form`` with a
  ``# @title Solution``), and their outputs are cleared: Colab's form view folds the code but
  not the output, so a stored output there would show the answer. Their code is commented
  out, under a line that says how to run it: "Run All" neither prints a solution nor replaces
  a reader's answer with it; a reader who asks (uncommenting the lines) runs it.
  Code hidden on the site for being no part of the lesson (tag ``hide-input``) is folded the
  same way, with its outputs.
- A section the main path does not need starts with a mark under its heading ("*A side
  road: ...*"). The site folds the rest of the section under the mark; the
  reader's edition splits the heading's cell after the mark and keeps the section collapsed
  under its heading in JupyterLab (Colab shows it open).
- Cells that repeat a result on ``miniautograd`` where the comparison is not the lesson (tag
  ``parity``) are folded whole, code and outputs, on the site and in JupyterLab.
- Stored outputs stay, so that the learner sees what to expect, but a ``text/plain`` beside an
  image goes (its memory address was scrubbed for nbval; the image is what a front end shows).
- Cell metadata keeps only what means something in a front end (``raises-exception``).

The Chinese site (languages.py) writes the Chinese editions into its own ``notebooks/``: the
same notebooks, with each markdown cell's paragraphs, headings, list items and table cells
replaced by their translations from the page's catalog (book/locale/zh_CN/LC_MESSAGES/), the
messages Sphinx translates the page with, and links that lead to the Chinese pages.
"""

from __future__ import annotations

import copy
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from posixpath import dirname, join, normpath
from typing import Any

import code_comments
import languages
import nbformat
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)

CHECK_TAG = "book-check"
SOLUTION_TAG = "solution"
HIDDEN_INPUT_TAG = "hide-input"  # code that is not the lesson (a helper): folded, outputs kept
KEPT_TAGS = ("raises-exception",)
PARITY_TAG = "parity"  # the same run on miniautograd, where agreement is not the lesson
SOLUTION_TITLE = "# @title {}"  # Colab's form title, with "Solution" in the page's language
# The line under it (in the page's language): how a reader runs a commented-out solution.
SOLUTION_HOW = ("Run All skips this solution: to run it, uncomment the lines below (select "
                "them, then Ctrl+/, or ⌘/ on a Mac).")
SOLUTION_PROMPTS = ("Show the solution", "Hide the solution")  # the site's fold
PARITY_PROMPTS = ("Show the same run on miniautograd", "Hide the run on miniautograd")
# The mark that opens a foldable section, on its own line under the section's heading (选读:
# the Simplified Chinese edition's mark, 選讀 the Traditional one's).
FOLD_MARK = re.compile(r"^\*(?P<kind>A side road|选读|選讀)\b[^*]*\*[ \t]*$", re.MULTILINE)
SIDE_ROAD_PROMPTS = ("Show the side road", "Hide the side road")
FOLD_PROMPTS = {"A side road": SIDE_ROAD_PROMPTS, "选读": SIDE_ROAD_PROMPTS,
                "選讀": SIDE_ROAD_PROMPTS}
HEADING = re.compile(r"^#{2,6} ", re.MULTILINE)
COLLAPSED_HEADING = {"jp-MarkdownHeadingCollapsed": True}  # JupyterLab's own key
FOLDER = "notebooks"
# The branch of the repository that holds the published reader's editions, for Colab
# (.github/workflows/pages.yml pushes it with the site).
BRANCH = "notebooks"
ZIP_NAME = "autograd-run-and-rebuilt-notebooks.zip"
CHAPTERS = "book/chapters/"
IMAGES = ("image/svg+xml", "image/png", "image/jpeg")
# A cell's code folded in JupyterLab and in Colab (its form view).
FOLDED = {"jupyter": {"source_hidden": True}, "cellView": "form"}
# Code and outputs folded (Colab's form view folds only the code).
FOLDED_WHOLE = {"jupyter": {"source_hidden": True, "outputs_hidden": True}, "cellView": "form"}


# ---- MyST to Jupyter Markdown -----------------------------------------------------------------

LABEL = re.compile(r"^\((?P<name>[\w.:-]+)\)=[ \t]*$")
ROLE = re.compile(r"\{([a-z][\w:-]*)\}`([^`]+)`")
CODE_OR_ROLE = re.compile(
    r"^(?P<fenced>```|~~~).*?^(?P=fenced)[ \t]*$"  # a fenced code block
    r"|(?P<role>\{[a-z][\w:-]*\}`[^`]+`)"  # a role, before the code span its backticks make
    r"|(?<!`)`[^`\n]+`(?!`)",  # a code span
    re.MULTILINE | re.DOTALL,
)
FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,}|:{3,})\s*\{(?P<name>[\w-]+)\}[ \t]*(?P<title>.*)$")
OPTION = re.compile(r"^:([\w-]+):[ \t]*(.*)$")
EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)
# Admonitions without a title of their own show their name, as Sphinx does.
ADMONITIONS = {"note", "tip", "hint", "important", "warning", "caution", "attention", "danger",
               "error", "seealso"}
# What of MyST a front end would show raw: labels, roles, directive fences and their options.
MYST_LEFT = (
    ("a label line", re.compile(LABEL.pattern, re.MULTILINE)),
    ("a role", re.compile(r"\{[a-z][\w:-]*\}`")),
    ("a directive fence", re.compile(r"^[ \t]*(`{3,}|~{3,}|:{3,})[ \t]*\{", re.MULTILINE)),
    ("a colon fence", re.compile(r"^[ \t]*:{3,}", re.MULTILINE)),
    ("a directive option", re.compile(r"^[ \t]*:(class|name|open|label):", re.MULTILINE)),
    ("a MyST comment", re.compile(r"^%[^%\n]", re.MULTILINE)),
    ("a block break", re.compile(r"^\+\+\+", re.MULTILINE)),
)


class UnknownMySTError(ValueError):
    """MyST that this converter does not know how to show in Jupyter."""


def myst_left(markdown: str) -> list[str]:
    """The kinds of MyST syntax left in `markdown` (outside code spans and fenced code)."""
    def code_removed(match: re.Match[str]) -> str:
        directive = match["fenced"] and "{" in match[0].split("\n")[0]
        return match[0] if match["role"] or directive else ""

    prose = CODE_OR_ROLE.sub(code_removed, markdown)
    return [name for name, pattern in MYST_LEFT if pattern.search(prose)]


@dataclass(frozen=True)
class Target:
    """A page of the published site (its path below the site's root) and an anchor on it;
    `docname`: the page's source, where known (a chapter has a reader's edition too)."""

    page: str
    anchor: str = ""
    title: str = ""
    docname: str = ""


Resolve = Callable[[str, str, str], Target]  # (role, target, current docname) -> Target


def convert_markdown(markdown: str, docname: str, resolve: Resolve, site_url: str) -> str:
    """MyST markdown of the page `docname` as Markdown that Jupyter and Colab render."""
    def anchor(label: str) -> str:
        return resolve("ref", label, docname).anchor

    return _roles(_blocks(markdown.split("\n"), anchor), docname, resolve, site_url)


def _blocks(lines: list[str], anchor: Callable[[str], str]) -> str:
    """The block syntax converted; a label becomes an HTML anchor with the site's id, which a
    link from elsewhere in the notebook scrolls to."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        opening = FENCE.match(line)
        if label := LABEL.match(line):
            name = anchor(label["name"])
            tag = f'<a id="{name}" name="{name}"></a>'
            i += 1
            if i < len(lines) and not lines[i].strip():
                i += 1  # the label's own blank line
            if i < len(lines) and re.match(r"#{1,6} ", lines[i]):
                # On the heading's line: the cell stays a heading cell, which JupyterLab
                # collapses (side roads) and lists in its table of contents.
                lines[i] = f"{lines[i].rstrip()}{tag}"  # no space: none in JupyterLab's id
            else:
                out.extend([tag, ""])
            continue
        if not opening:
            out.append(line)
            i += 1
            continue
        fence, name = opening["fence"], opening["name"]
        end = _closing_line(lines, i, fence)
        if end is None:
            raise UnknownMySTError(f"directive {{{name}}} opened by {fence!r} is never closed")
        body = lines[i + 1:end]
        options = {}
        while body and OPTION.match(body[0]):
            key, value = OPTION.match(body[0]).groups()
            options[key] = value
            body = body[1:]
        out.extend(_directive(name, opening["title"].strip(), options, _blocks(body, anchor)))
        i = end + 1
    return "\n".join(out)


def _closing_line(lines: list[str], opening: int, fence: str) -> int | None:
    """The line that closes the fence opened at `opening`, past any fence nested inside."""
    char, width = re.escape(fence[0]), len(fence)
    closing = re.compile(rf"^{char}{{{width},}}[ \t]*$")
    nested = re.compile(rf"^{char}{{{width},}}\S")
    depth = 0
    for j in range(opening + 1, len(lines)):
        if closing.match(lines[j]):
            if depth == 0:
                return j
            depth -= 1
        elif nested.match(lines[j]):
            depth += 1
    return None


def _directive(name: str, title: str, options: dict[str, str], body: str) -> list[str]:
    if name not in ADMONITIONS | {"admonition"}:
        raise UnknownMySTError(f"no Jupyter form for the directive {{{name}}}")
    title = title or name.capitalize()
    body = body.strip("\n")
    if "dropdown" in options.get("class", "").split():
        return [f"<details><summary>{title}</summary>", "", body, "", "</details>"]
    quoted = [f"> {line}" if line.strip() else ">" for line in body.split("\n")]
    return [f"> **{title}**", ">", *quoted]


def _roles(text: str, docname: str, resolve: Resolve, site_url: str) -> str:
    def link(match: re.Match[str]) -> str:
        role, content = ROLE.fullmatch(match["role"]).groups()
        explicit = EXPLICIT.match(content)
        text, target = (explicit["text"], explicit["target"]) if explicit else (None, content)
        found = resolve(role, " ".join(target.split()), docname)
        fragment = f"#{found.anchor}" if found.anchor else ""
        if found.docname == docname and fragment:
            url = fragment  # in this notebook: it scrolls there
        elif found.docname.startswith(CHAPTERS):
            url = edition_path(found.docname).rsplit("/", 1)[-1] + fragment  # the edition beside it
        else:
            url = site_url + found.page + fragment
        return f"[{text or found.title or target}]({url})"

    # Code (spans and fenced blocks) is left alone: a role inside it is an example.
    return CODE_OR_ROLE.sub(lambda m: link(m) if m["role"] else m[0], text)


# ---- translated Markdown ----------------------------------------------------------------------

# Where a message (a paragraph, heading, list item, table cell, or directive title) starts: a
# line's start or a table's cell border, then the block's own marks.
BLOCK_START = (r"(?:^|(?<=\|))[ \t>]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d+[.)][ \t]+"
               r"|(?:`{3,}|~{3,}|:{3,})\{[\w-]+\}[ \t]+)?[ \t]*")
FENCED_CODE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?!.*\{).*?^(?P=fence)[ \t]*$",
                         re.MULTILINE | re.DOTALL)


def translate_markdown(markdown: str, messages: dict[str, str]) -> str:
    """`markdown` (MyST) with each of its messages replaced by its translation. Sphinx's
    message is a block's source with its lines joined by single spaces, so each is looked for
    at a block's start, across any line breaks (and a block quote's marks), up to the block's
    end. Longer messages first: a short one ("Hint") may also end a longer one. Code blocks are
    left alone."""
    # Prose and code blocks alternate: even parts are prose, odd parts code.
    parts, start = [], 0
    for code in FENCED_CODE.finditer(markdown):
        parts += [markdown[start:code.start()], code[0]]
        start = code.end()
    parts.append(markdown[start:])
    for msgid, msgstr in sorted(messages.items(), key=lambda item: -len(item[0])):
        words = r"(?:[ \t]*\n[ \t>]*|[ \t]+)".join(map(re.escape, msgid.split()))
        found = re.compile(f"({BLOCK_START}){words}(?=[ \t]*(?:\\||$))", re.MULTILINE)
        parts = [found.sub(lambda m, s=msgstr: m[1] + s, part) if i % 2 == 0 else part
                 for i, part in enumerate(parts)]
    return "".join(parts)


# ---- cells ------------------------------------------------------------------------------------


def is_check(cell: dict[str, Any]) -> bool:
    return CHECK_TAG in cell.get("metadata", {}).get("tags", [])


def fold_split(markdown: str) -> tuple[str, str] | None:
    """A section heading's cell split after its fold mark: (heading and mark, the rest), or
    None where the cell opens no foldable section."""
    mark = FOLD_MARK.search(markdown)
    if not mark or not HEADING.search(markdown, 0, mark.start()):
        return None
    return markdown[:mark.end()], markdown[mark.end():].strip("\n")


def commented_solution(code: str, title: str, how: str) -> str:
    """A solution's `code` as the reader's edition has it: Colab's form `title`, the line `how`,
    then every line commented out ("# ", and a blank line "#", as Ctrl+/ undoes them)."""
    lines = [f"# {line}" if line else "#" for line in code.splitlines()]
    return "\n".join([title, f"# {how}", *lines])


def uncommented_solution(source: str) -> str:
    """The code of a solution cell of a reader's edition, as a reader who runs it has it: the
    inverse of commented_solution."""
    lines = source.splitlines()[2:]
    return "\n".join(line[2:] if line.startswith("# ") else "" for line in lines)


def reader_edition(notebook: nbformat.NotebookNode, docname: str, resolve: Resolve,
                   site_url: str, messages: dict[str, str] | None = None,
                   solution: str = "Solution", how: str = SOLUTION_HOW,
                   comments: dict[str, str] | None = None) -> nbformat.NotebookNode:
    """The reader's edition of the chapter notebook `notebook` (the page `docname`); with
    `messages` (a catalog), its markdown translated, and with `comments` (code_comments.py),
    its code's comments; `solution`: the folded solutions' title, `how`: the line under it
    that says how to run one."""
    edition = copy.deepcopy(notebook)
    title = SOLUTION_TITLE.format(solution)
    cells = []
    for cell in edition.cells:
        if is_check(cell):
            continue
        tags = cell.metadata.get("tags", [])
        metadata: dict[str, Any] = {}
        kept = [t for t in tags if t in KEPT_TAGS]
        if kept:
            metadata["tags"] = kept
        if cell.cell_type == "markdown" and messages:
            cell.source = translate_markdown(cell.source, messages)
        if cell.cell_type == "code" and comments:
            cell.source = code_comments.translate(cell.source, comments)[0]
        split = fold_split(cell.source) if cell.cell_type == "markdown" else None
        if split:
            heading, rest = split
            cell.source = convert_markdown(heading, docname, resolve, site_url)
            cell.metadata = nbformat.from_dict(metadata | COLLAPSED_HEADING)
            cells.append(cell)
            if rest:
                cells.append(nbformat.v4.new_markdown_cell(
                    convert_markdown(rest, docname, resolve, site_url), id=f"{cell.id}-body"))
            continue
        if cell.cell_type == "markdown":
            cell.source = convert_markdown(cell.source, docname, resolve, site_url)
        elif cell.cell_type == "code" and SOLUTION_TAG in tags:
            metadata |= FOLDED
            cell.source = commented_solution(cell.source, title, how)
            cell.outputs = []
            cell.execution_count = None
        elif cell.cell_type == "code":
            if PARITY_TAG in tags:
                metadata |= FOLDED_WHOLE
            elif HIDDEN_INPUT_TAG in tags:
                metadata |= FOLDED
            for output in cell.outputs:  # a folded run's drawing too
                data = output.get("data", {})
                if "text/plain" in data and any(kind in data for kind in IMAGES):
                    del data["text/plain"]
        cell.metadata = nbformat.from_dict(metadata)
        cells.append(cell)
    edition.cells = cells
    nbformat.validate(edition)
    return edition


# ---- the site's part --------------------------------------------------------------------------


def site_url(repository_url: str) -> str:
    """Where GitHub Pages publishes the site of a repository: https://OWNER.github.io/NAME/."""
    owner, name = repository_url.removeprefix("https://github.com/").strip("/").split("/")[:2]
    return f"https://{owner}.github.io/{name}/"


def sphinx_resolver(app: Sphinx) -> Resolve:
    """Resolve references as Sphinx resolved them for the site (labels, glossary, pages)."""
    env = app.env
    std = env.get_domain("std")
    terms = {name.lower(): (doc, anchor) for name, _, kind, doc, anchor, _ in std.get_objects()
             if kind == "term"}

    def page(docname: str) -> str:
        return app.builder.get_target_uri(docname)

    def resolve(role: str, target: str, docname: str) -> Target:
        if role == "ref" and target.lower() in std.labels:
            doc, anchor, title = std.labels[target.lower()]
            return Target(page(doc), anchor, title, doc)
        if role == "ref" and target.lower() in std.anonlabels:  # a label on no section
            doc, anchor = std.anonlabels[target.lower()]
            return Target(page(doc), anchor, "", doc)
        if role == "term" and target.lower() in terms:
            doc, anchor = terms[target.lower()]
            return Target(page(doc), anchor, "", doc)
        if role == "doc":
            doc = (target.lstrip("/") if target.startswith("/")
                   else normpath(join(dirname(docname), target)))
            if doc in env.titles:
                return Target(page(doc), "", env.titles[doc].astext(), doc)
        raise UnknownMySTError(f"{docname}: cannot resolve {{{role}}}`{target}`")

    return resolve


def chapter_docnames(app: Sphinx) -> list[str]:
    return sorted(d for d in app.env.found_docs if d.startswith(CHAPTERS))


def edition_path(docname: str) -> str:
    """Where the reader's edition of a chapter lies below the site's root."""
    return f"{FOLDER}/{docname.rsplit('/', 1)[-1]}.ipynb"


def write_editions(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    resolve = sphinx_resolver(app)
    language = languages.language(app)
    url = site_url(app.config.html_theme_options["repository_url"]) + languages.FOLDERS[language]
    folder = Path(app.outdir) / FOLDER
    folder.mkdir(exist_ok=True)
    written = []
    for docname in chapter_docnames(app):
        source = Path(app.env.doc2path(docname))
        messages = None
        if language != languages.ENGLISH:
            locale = Path(app.srcdir) / app.config.locale_dirs[0] / language / "LC_MESSAGES"
            messages = languages.catalog(locale / f"{docname}.po")
        edition = reader_edition(nbformat.read(source, as_version=4), docname, resolve, url,
                                 messages, languages.text(app, "Solution"),
                                 languages.text(app, SOLUTION_HOW), comment_catalog(app))
        path = Path(app.outdir) / edition_path(docname)
        nbformat.write(edition, path)
        written.append(path)
    # Fixed timestamps: the same sources give the same zip, byte for byte.
    with zipfile.ZipFile(folder / ZIP_NAME, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in written:
            info = zipfile.ZipInfo(path.name, date_time=(2026, 1, 1, 0, 0, 0))
            archive.writestr(info, path.read_bytes(), zipfile.ZIP_DEFLATED)


def comment_catalog(app: Sphinx) -> dict[str, str] | None:
    """The translations of the code's comments in the site's language (None in English)."""
    language = languages.language(app)
    if language == languages.ENGLISH:
        return None
    locale = Path(app.srcdir) / app.config.locale_dirs[0]
    return languages.catalog(code_comments.catalog_path(locale, language))  # read once


def _translate_comments(app: Sphinx, cell: nodes.container) -> None:
    comments = comment_catalog(app)
    if comments is None:
        return
    for source in cell.findall(nodes.container):
        if source.get("nb_element") != "cell_code_source":
            continue  # the outputs: what the code printed, as it printed it
        block = next(source.findall(nodes.literal_block))
        text, missing = code_comments.translate(block.astext(), comments)
        for comment in missing:
            LOGGER.warning("a code comment without a translation in %s (run "
                           "scripts/translations.py update, then translate it): %r",
                           code_comments.CATALOG_NAME, comment, location=cell)
        block.rawsource = text
        block.children = [nodes.Text(text)]


def _site_cells(app: Sphinx, doctree: nodes.document) -> None:
    """On the site, as in the reader's edition: no verification cell (myst-nb knows only its
    own tags), a folded solution says that it is one (not "Show code cell source"), and the
    code's comments are in the page's language."""
    for cell in list(doctree.findall(nodes.container)):
        if cell.get("nb_element") != "cell_code":
            continue
        tags = cell.get("cell_metadata", {}).get("tags", [])
        if CHECK_TAG in tags:
            cell.parent.remove(cell)
            continue
        _translate_comments(app, cell)
        if SOLUTION_TAG in tags:
            cell["hide_mode"] = "input"  # myst-nb's fold (HideInputCells) with our label
            cell["prompt_show"], cell["prompt_hide"] = (languages.text(app, p)
                                                        for p in SOLUTION_PROMPTS)
        elif PARITY_TAG in tags:
            cell["hide_mode"] = "all"  # code and outputs under one label
            cell["prompt_show"], cell["prompt_hide"] = (languages.text(app, p)
                                                        for p in PARITY_PROMPTS)


def _site_folds(app: Sphinx, doctree: nodes.document) -> None:
    """Fold each section that opens with a fold mark: the heading and the mark stay in view,
    the rest of the section goes into a closed <details> (site.js opens it when a link leads
    inside)."""
    for section in list(doctree.findall(nodes.section)):
        paragraphs = [c for c in section.children if isinstance(c, nodes.paragraph)]
        if not paragraphs:
            continue
        mark = paragraphs[0]
        match = FOLD_MARK.match(f"*{mark.astext()}*")
        if not (match and len(mark.children) == 1 and isinstance(mark[0], nodes.emphasis)
                and section.index(mark) == 1):
            continue
        show, hide = (languages.text(app, p) for p in FOLD_PROMPTS[match["kind"]])
        opening = (f'<details class="section-fold"><summary><span class="fold-show">{show}'
                   f'</span><span class="fold-hide">{hide}</span></summary>')
        section.insert(section.index(mark) + 1, nodes.raw("", opening, format="html"))
        section.append(nodes.raw("", "</details>", format="html"))


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("doctree-read", _site_cells)
    app.connect("doctree-read", _site_folds)
    app.connect("build-finished", write_editions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
