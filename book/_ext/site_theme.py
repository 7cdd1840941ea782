"""What the book changes in sphinx-book-theme 1.3 / pydata-sphinx-theme 0.17, and why.

- A default colour mode, "auto" (``html_context``; the theme's empty default logs "Got
  invalid theme mode" on every first visit).
- Theme options: no full-screen or download drop-down buttons (each
  chapter has labelled links instead, see chapter_page.py), and no persistent header items.
  The last one removes pydata's top bar (empty on desktop but for a second search box) and,
  with it, the hidden duplicate ``.primary-toggle`` and ``.secondary-toggle`` buttons that
  pydata-sphinx-theme 0.17 attaches its listeners to (pydata-sphinx-theme#2451): the menu
  and contents buttons of the article header, the ones readers see, then work at every width.
- ``templates/layout.html``: no ``fontawesome.js`` (1.5 MB of JavaScript that redraws about
  ten icons as SVG; the theme's CSS draws the same icons with its icon font), and the
  article, not the whole ``<main>`` with its sidebars and print-only table of contents, is
  the ``role="main"`` region that Sphinx's search reads its snippets from.
- No search index on pages other than the search page: pydata-sphinx-theme loads Sphinx's
  search scripts and the whole index (80 kB in English, 150 kB in Chinese, whose words jieba
  splits into many more terms) on every page for its search-as-you-type, which the book does
  not turn on; the search field sends its query to the search page, which loads them.
- Inline code may break only after ``.``, ``_`` or ``(`` (a ``<wbr>`` there), never inside a
  name: ``torch.no_grad()`` breaks as ``torch.|no_|grad(|)``, not ``torch.no_gr|ad()``.
- On a phone, each row of a prose table is a card: every cell under its column's name
  (a label the build adds to each cell, shown only there), so that no column is cut off.
- Every control is named by the text it shows (WCAG 2.5.3, "label in name"; axe-core's
  ``label-content-name-mismatch``): myst-nb labels each of its folds (the solutions, the
  parity runs, the hidden helpers) "Toggle hidden content" whatever its summary says ("Show
  the solution"), and the stepper's "◀ prev" button, as miniautograd's notebook output
  stores it, is named "previous step". A screen reader would announce a name the page does
  not show, and a speech user saying "click Show the solution" or "click prev" would reach
  nothing. The fold's summary is named by its own text; the button "prev step". The theme's
  search button shows "Search Ctrl+K" and is named "Search" (``templates/layout.html``): it
  is named by its text, the shortcut given as ``aria-keyshortcuts`` too.
- No theme fragment is published: the Jinja macros that pydata-sphinx-theme and
  sphinx-book-theme ship in their static folders (``webpack-macros.html``,
  ``sbt-webpack-macros.html``) are copied into ``_static`` like any asset, where they would
  be served as pages with no title and no language; the build removes them.
- The icon font is cut down, after the build, to the glyphs the site uses (from ~370 kB of
  WOFF2 to a few kB of WOFF), under the theme's own font-family names.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import languages
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

HERE = Path(__file__).resolve().parent
THEME_OPTIONS = {
    "navbar_persistent": [],
    "use_fullscreen_button": False,
    "use_download_button": False,
}
ICON_SCRIPT = re.compile(
    r'\s*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>'
)
# The search scripts pydata-sphinx-theme puts in every page's head (the search page loads its
# own, deferred, which this does not match).
INLINE_SEARCH = re.compile(
    r'\s*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|'
    r'searchindex\.js)"></script>'
)
# The themes' template fragments that Sphinx copies into _static (see the docstring).
THEME_FRAGMENTS = "*webpack-macros.html"
ICON_DIR = "icons"
ICON_CSS = "icons.css"

logger = logging.getLogger(__name__)


def _configure(app: Sphinx, config: Any) -> None:
    config.html_theme_options = {**config.html_theme_options, **THEME_OPTIONS}
    config.html_context = {**config.html_context, "default_mode": "auto"}
    config.templates_path = [str(HERE / "templates"), *config.templates_path]


def without_icon_script(html: str) -> str:
    return ICON_SCRIPT.sub("", html)


def without_inline_search(html: str) -> str:
    return INLINE_SEARCH.sub("", html)


def article_is_main(html: str) -> str:
    """Move ``role="main"`` from the theme's ``<main>`` (sidebars, navigation, print-only
    contents) to the ``<article>`` that holds the page's own text."""
    moved = html.replace('<main id="main-content" class="bd-main" role="main">',
                         '<div id="main-content" class="bd-main">', 1)
    if moved == html:
        return html  # not the markup this was written for: change nothing
    moved = moved.replace(
        '<article class="bd-article">', '<article class="bd-article" role="main">', 1
    )
    head, sep, tail = moved.rpartition("</main>")
    return head + "</div>" + tail if sep else html


INLINE_CODE = re.compile(r'(<code class="docutils literal notranslate">)(.*?)(</code>)', re.S)
TAG_OR_TEXT = re.compile(r"(<[^>]*>)|([^<]+)")
BREAK_AFTER = re.compile(r"([._(])(?=[^\s<])")


SHORT_HYPHENATED = 32  # characters: `max-autotune-no-cudagraphs` fits a phone's line whole
# One word of inline code as docutils writes it, with a hyphen inside or at its start.
HYPHENATED_WORD = re.compile(r'<span class="pre">([^<\s]*-[^<\s]+)</span>')


def breakable_code(html: str) -> str:
    """``<wbr>`` after every ``.``, ``_`` and ``(`` inside inline code (not at its end); a
    short hyphenated name without spaces is kept whole (a browser would break it after the
    hyphen, mid-name), and so is a short hyphenated word of code with spaces (the ``-=`` of
    ``w -= lr * w.grad``)."""

    def code(match: re.Match[str]) -> str:
        text = TAG_OR_TEXT.sub(lambda m: m.group(2) or "", match.group(2))
        opening = match.group(1)
        if "-" in text and not any(c.isspace() for c in text) and len(text) <= SHORT_HYPHENATED:
            opening = opening.replace('class="docutils literal notranslate"',
                                      'class="docutils literal notranslate nobreak"')
        inner = HYPHENATED_WORD.sub(
            lambda m: m.group(0) if len(m.group(1)) > SHORT_HYPHENATED
            else f'<span class="pre nobreak">{m.group(1)}</span>', match.group(2)
        )
        inner = TAG_OR_TEXT.sub(
            lambda m: m.group(1) or BREAK_AFTER.sub(r"\1<wbr>", m.group(2)), inner
        )
        return opening + inner + match.group(3)

    return INLINE_CODE.sub(code, html)


# myst-nb's fold summary (myst_nb.sphinx_.visit_HideCellInput), and miniautograd's stepper
# button as the chapters' stored outputs hold it (companion/src/miniautograd/stepper.py).
MISNAMED = {
    '<summary aria-label="Toggle hidden content">': "<summary>",
    '<button type="button" class="mag-prev" aria-label="previous step">◀ prev</button>':
        '<button type="button" class="mag-prev" aria-label="prev step">◀ prev</button>',
}


def named_by_their_text(html: str) -> str:
    """Controls whose accessible name does not hold the text they show, renamed (see above)."""
    for misnamed, named in MISNAMED.items():
        html = html.replace(misnamed, named)
    return html


SEARCH_BUTTON_LABEL = re.compile(
    r'(<button class="btn search-button-field[^>]*?) aria-label="[^"]*"'
)


def named_by_its_text(html: str) -> str:
    """The theme's search button without its aria-label, which leaves out the shortcut the
    button shows ("Search Ctrl+K"): its name is its own text, and the shortcut is also given
    as ``aria-keyshortcuts``."""
    return SEARCH_BUTTON_LABEL.sub(r'\1 aria-keyshortcuts="Control+K"', html, count=1)


def _breakable_code(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                    doctree: Any) -> None:
    if "body" in context:
        context["body"] = named_by_their_text(breakable_code(context["body"]))


# A column whose every body cell holds at most this many characters (a verdict, a yes or no)
# stays on one line on a wide screen: beside long columns, a browser would otherwise squeeze
# it to one Chinese character a line.
SHORT_CELL = 12


def short_columns(rows: list[list[nodes.entry]]) -> list[int]:
    """The indices of the columns whose every cell, in every row, is short."""
    width = max((len(row) for row in rows), default=0)
    return [column for column in range(width)
            if all(column < len(row) and len(row[column].astext()) <= SHORT_CELL
                   for row in rows)]


def _label_table_cells(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Give each body cell of a prose table its column's name, for the phone layout."""
    if app.builder.format != "html":
        return
    for table in doctree.findall(nodes.table):
        head = next(iter(table.findall(nodes.thead)), None)
        body = next(iter(table.findall(nodes.tbody)), None)
        if head is None or body is None:
            continue
        names = [entry.astext() for entry in head.findall(nodes.entry)]
        colon = "：" if languages.is_chinese(app) else ": "
        table["classes"].append("cards-on-phone")
        rows = [list(row.findall(nodes.entry)) for row in body.findall(nodes.row)]
        for column in short_columns(rows):
            for row in rows:
                if column < len(row):
                    row[column]["classes"].append("short-cell")
        for row in rows:
            for name, entry in zip(names, row, strict=False):
                label = nodes.inline("", f"{name}{colon}", classes=["cell-label"])
                first = entry.children[0] if entry.children else None
                if isinstance(first, nodes.paragraph):
                    first.insert(0, label)
                else:
                    entry.insert(0, nodes.paragraph("", "", label))


def _filters(app: Sphinx) -> None:
    if app.builder.format != "html":
        return
    app.builder.templates.environment.filters["without_icon_script"] = without_icon_script
    app.builder.templates.environment.filters["without_inline_search"] = without_inline_search
    app.builder.templates.environment.filters["article_is_main"] = article_is_main
    app.builder.templates.environment.filters["named_by_its_text"] = named_by_its_text
    app.add_css_file(ICON_CSS)


# ---- the icon font, subset ---------------------------------------------------------------------

FONT_FACE = re.compile(r"@font-face\{([^}]*Font Awesome[^}]*)\}")
RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
ICON_CLASS = re.compile(r"\bfa-[a-z0-9-]+")
ICON_CONTENT = re.compile(r'^\.(fa-[a-z0-9-]+):(?:before|after)$')
PRIVATE_USE = re.compile(r"\\(f[0-9a-f]{3})\b|([\ue000-\uf8ff])", re.IGNORECASE)


def _private_use(text: str) -> set[int]:
    return {int(esc, 16) if esc else ord(char) for esc, char in PRIVATE_USE.findall(text)}


def used_codepoints(stylesheets: list[str], pages: list[str]) -> set[int]:
    """Icon codepoints the site can show: those of the ``fa-*`` classes in its pages and
    scripts, and those the stylesheets use directly (``content:"\\f0c9"``, ``--pst-icon-*``)."""
    by_class: dict[str, set[int]] = {}
    direct: set[int] = set()
    for css in stylesheets:
        for selectors, body in RULE.findall(css):
            names = [ICON_CONTENT.match(s.strip()) for s in selectors.split(",")]
            if all(names):
                for name in names:
                    by_class.setdefault(name.group(1), set()).update(_private_use(body))
            elif not selectors.lstrip().startswith("@font-face"):
                direct |= _private_use(body)
    used = set(direct)
    for text in pages:
        for name in set(ICON_CLASS.findall(text)):
            used |= by_class.get(name, set())
    return used


def _subset_icons(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    from fontTools import subset

    static = Path(app.outdir) / "_static"
    css_files = [p for p in static.rglob("*.css") if p.name != ICON_CSS]
    stylesheets = [p.read_text(encoding="utf-8") for p in css_files]
    pages = [p.read_text(encoding="utf-8") for p in Path(app.outdir).rglob("*.html")]
    pages += [p.read_text(encoding="utf-8") for p in static.rglob("*.js")]
    codepoints = used_codepoints(stylesheets, pages)
    faces = []
    for css_path, css in zip(css_files, stylesheets, strict=True):
        for face in FONT_FACE.findall(css):
            family = re.search(r"font-family:([^;]+)", face).group(1).strip()
            weight = re.search(r"font-weight:(\d+)", face).group(1)
            truetype = re.search(r'url\(([^)]+\.ttf)\)', face).group(1)
            source = (css_path.parent / truetype).resolve()
            target = static / ICON_DIR / f"{source.stem}.woff"
            target.parent.mkdir(exist_ok=True)
            options = subset.Options()
            options.flavor = "woff"
            font = subset.load_font(str(source), options)
            subsetter = subset.Subsetter(options)
            subsetter.populate(unicodes=codepoints)
            subsetter.subset(font)
            subset.save_font(font, str(target), options)
            faces.append(
                f"@font-face{{font-family:{family};font-style:normal;font-weight:{weight};"
                f'font-display:block;src:url({ICON_DIR}/{target.name}) format("woff")}}'
            )
    if not faces:
        logger.warning("site_theme: no Font Awesome @font-face found to subset")
        return
    header = "/* The theme's icon fonts, cut to the glyphs this site uses (site_theme.py). */\n"
    (static / ICON_CSS).write_text(header + "\n".join(faces) + "\n", encoding="utf-8")
    # Nothing loads the originals any more; remove them so that nothing can.
    unused = [*static.glob("scripts/fontawesome.js*"), *static.glob("vendor/fontawesome/*/*")]
    for path in unused:
        path.unlink()


def _remove_theme_fragments(app: Sphinx, exception: Exception | None) -> None:
    """The themes' Jinja macros, copied with their static files: neither pages nor assets."""
    if exception is not None or app.builder.format != "html":
        return
    for fragment in (Path(app.outdir) / "_static").glob(THEME_FRAGMENTS):
        fragment.unlink()


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("config-inited", _configure)
    app.connect("builder-inited", _filters)
    app.connect("doctree-resolved", _label_table_cells)
    app.connect("html-page-context", _breakable_code)
    app.connect("build-finished", _subset_icons)
    app.connect("build-finished", _remove_theme_fragments)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
