"""What a chapter page adds around its notebook's content.

- Under the chapter's title: labelled "Open in Colab", "Download notebook" and "All chapters
  (zip)" links, all to the reader's edition (reader_edition.py), and the versions of PyTorch
  and miniautograd that produced the stored outputs. The versions are read from the executed
  notebook: the first visible code cell of every chapter prints
  ``PyTorch <torch.__version__>, miniautograd <miniautograd.__version__>``; nobody types
  them. The Colab link opens the reader's edition on the repository's ``notebooks`` branch
  (``repository`` in _config.yml; the Pages workflow publishes that branch with the site).
- Printed outputs: one laid out in columns or by indentation (printed source, a table, a
  tensor over several lines) is marked ``aligned``: site.css keeps its lines whole and lets it
  scroll sideways, with a shadow at the edge that has more; any other output (a sentence, an
  error message) wraps inside the column.
- Output images: alt text from the cell's metadata ``alt`` (a string, or one string per
  image output), else from a figure's caption; loaded lazily (the first screen of a chapter
  costs what it shows); a drawing whose smallest text would be under 10 px at the
  column's width spans the wider, full-width column; on a phone, one whose text would be
  under 9 px at the column's width keeps the width that makes it 9.5 px and scrolls
  sideways, with a note that says so; and every image wider than a phone screen links to a
  page that shows it at full size, which a phone can zoom.
"""

from __future__ import annotations

import functools
import html
import json
import math
import re
import struct
from pathlib import Path
from posixpath import relpath
from typing import Any

import languages
import reader_edition
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

CHAPTERS = reader_edition.CHAPTERS
COLAB = "https://colab.research.google.com/github"
VERSIONS = re.compile(r"^PyTorch (\S+), miniautograd (\S+)$", re.MULTILINE)
HIDDEN_TAGS = {"remove-cell", "remove-input", reader_edition.CHECK_TAG}
# CSS pixels: the article column at 1366 px (sphinx-book-theme with both sidebars: 757 px,
# rounded down), and a phone's column (390 px screen).
COLUMN = 750
PHONE = 360
SMALLEST_TEXT = 10.0  # px, at the width the page shows a drawing on desktop
PHONE_SMALLEST_TEXT = 9.0  # px, as a phone (390 px) shows it

# An output laid out in columns: an indented line, a run of spaces between two words, or
# box-drawing characters.
ALIGNED = re.compile(r"^[ \t]+\S|\S {2,}\S|[\u2500-\u257f]", re.MULTILINE)

logger = logging.getLogger(__name__)


# ---- versions and links ---------------------------------------------------------------------


ROOT = Path(__file__).resolve().parents[2]
# The ends of the torch range the book is tested on (README.md, "Versions"): Colab's release
# and the newest.
RANGE_FILES = (ROOT / "tests" / "colab-requirements.txt", ROOT / "tests" / "newest-torch.txt")


def torch_range() -> tuple[str, str]:
    """(Colab's torch, the newest torch), as make test runs them."""
    found = [re.search(r"^torch==(\S+)$", path.read_text(), re.MULTILINE) for path in RANGE_FILES]
    return found[0].group(1), found[1].group(1)


def versions(notebook: dict[str, Any]) -> tuple[str, str] | None:
    """(torch, miniautograd) versions printed by the first visible code cell, if it does."""
    for cell in notebook.get("cells", []):
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell.get("cell_type") != "code" or tags & HIDDEN_TAGS:
            continue
        text = "".join(
            "".join(out.get("text", "")) for out in cell.get("outputs", [])
            if out.get("output_type") == "stream"
        )
        found = VERSIONS.search(text)
        return found.groups() if found else None
    return None


def colab_url(options: dict[str, Any], notebook: str, folder: str = "") -> str:
    """The reader's edition `notebook` on the repository's branch of them, opened in Colab
    (`folder`: the Chinese editions lie in zh_CN/ on that branch)."""
    repository = options["repository_url"].removeprefix("https://github.com/").strip("/")
    return f"{COLAB}/{repository}/blob/{reader_edition.BRANCH}/{folder}{notebook}"


def run_links(app: Sphinx, docname: str) -> str:
    """The HTML under a chapter's title: where to run it, and what produced its outputs."""
    source = Path(app.env.doc2path(docname))
    edition = reader_edition.edition_path(docname)
    page = app.builder.get_target_uri(docname)
    here = Path(page).parent.as_posix() or "."
    download = relpath(edition, start=here)
    archive = relpath(f"{reader_edition.FOLDER}/{reader_edition.ZIP_NAME}", start=here)
    folder = languages.FOLDERS[languages.language(app)]
    colab = colab_url(app.config.html_theme_options, Path(edition).name, folder)
    parts = [
        f'<a class="chapter-run-link" href="{html.escape(colab)}">'
        f'{languages.text(app, "Open in Colab")}</a>',
        f'<a class="chapter-run-link" href="{html.escape(download)}" '
        f'download="{html.escape(source.name)}">{languages.text(app, "Download notebook")}</a>',
        f'<a class="chapter-run-link" href="{html.escape(archive)}" '
        f'download="{reader_edition.ZIP_NAME}">{languages.text(app, "All chapters (zip)")}</a>',
    ]
    found = versions(json.loads(source.read_text(encoding="utf-8")))
    if found:
        torch_version, mini_version = (html.escape(v) for v in found)
        oldest, newest = torch_range()
        produced = languages.text(
            app, "Outputs produced with PyTorch {torch} and miniautograd {mini}. The chapter "
            "runs on PyTorch {oldest} (Colab's) to {newest}, tested at both ends; other releases "
            "in that range word some error messages differently and may print warnings this "
            "page does not show.", torch=torch_version,
            mini=mini_version, oldest=oldest, newest=newest)
        parts.append(f'<span class="chapter-versions">{produced}</span>')
    return f'<p class="chapter-run">{" ".join(parts)}</p>\n'


# ---- output images ----------------------------------------------------------------------------

SVG_SIZE = re.compile(
    r'<svg[^>]*?\bwidth="([\d.]+)(pt|px)?"[^>]*?\bviewBox="[\d.-]+ [\d.-]+ ([\d.]+)'
)
GRAPHVIZ_TEXT = re.compile(r'font-size="([\d.]+)"')
# matplotlib draws text as glyph paths, defined at 100 units per em and scaled to the size.
MATPLOTLIB_TEXT = re.compile(r"<!-- .*? -->\s*<g transform=\"translate\([^)]*\) scale\(([\d.]+) -")


@functools.cache  # read per image by the doctree pass and again by the HTML pass
def image_facts(path: Path) -> tuple[float, float | None]:
    """(natural width in CSS px, smallest text in px at that width) of an output image;
    the text size is None where the file does not say (a PNG, an SVG without text)."""
    data = path.read_bytes()
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return float(struct.unpack(">I", data[16:20])[0]), None
    text = data.decode("utf-8", errors="replace")
    size = SVG_SIZE.search(text)
    if size is None:
        return 0.0, None
    width, unit, box = float(size.group(1)), size.group(2) or "px", float(size.group(3))
    px = width * (4 / 3 if unit == "pt" else 1)
    sizes = [float(s) for s in GRAPHVIZ_TEXT.findall(text)]
    sizes += [100 * float(s) for s in MATPLOTLIB_TEXT.findall(text)]
    return px, (min(sizes) * px / box if sizes else None)


def _image_path(app: Sphinx, node: nodes.image) -> Path | None:
    candidate = node.get("candidates", {}).get("*")
    path = Path(app.srcdir) / candidate if candidate else None
    return path if path is not None and path.is_file() else None


def _figure_caption(node: nodes.image) -> str:
    figure = node.parent if isinstance(node.parent, nodes.figure) else None
    caption = next(iter(figure.findall(nodes.caption)), None) if figure is not None else None
    return caption.astext() if caption is not None else ""


def _alt_texts(doctree: nodes.document) -> None:
    """Alt text from the cell's metadata ``alt``: a string for its one image, or a list with
    one string per image output, in order. (myst-nb's ``mystnb.image.alt`` works too.)"""
    for cell in doctree.findall(nodes.container):
        alt = cell.get("cell_metadata", {}).get("alt") if cell.get("nb_element") else None
        if alt is None:
            continue
        images = list(cell.findall(nodes.image))
        texts = [alt] if isinstance(alt, str) else list(alt)
        if len(texts) != len(images):
            logger.warning(
                f"cell {cell.get('cell_index')}: {len(images)} output image(s) but "
                f"{len(texts)} alt text(s) in its metadata",
                location=cell,
            )
        for image, text in zip(images, texts, strict=False):
            image["alt"] = text


def _outputs(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format != "html" or not docname.startswith(CHAPTERS):
        return
    _alt_texts(doctree)
    for block in doctree.findall(nodes.literal_block):
        if "output" in block["classes"] and ALIGNED.search(block.astext()):
            block["classes"].append("aligned")
    for node in list(doctree.findall(nodes.image)):
        node["loading"] = "lazy"
        if not node.get("alt") and _figure_caption(node):
            node["alt"] = _figure_caption(node)
        path = _image_path(app, node)
        if path is None:
            continue
        width, text = image_facts(path)
        if text is not None and text * min(width, COLUMN) / width < SMALLEST_TEXT:
            cell = next((a for a in _ancestors(node) if "cell" in a.get("classes", [])), None)
            if cell is not None:
                cell["classes"].append("tag_full-width")
    section = next(iter(doctree.findall(nodes.section)), None)
    title = section.next_node(nodes.title) if section is not None else None
    if title is not None:
        links = nodes.raw("", run_links(app, docname), format="html")
        title.parent.insert(title.parent.index(title) + 1, links)


def _ancestors(node: nodes.Node) -> list[nodes.Element]:
    found = []
    while node.parent is not None:
        node = node.parent
        found.append(node)
    return found


IMG = re.compile(r'<img ([^>]*?)src="([^"]*_images/([^"/]+))"([^>]*?)/?>')
ALT = re.compile(r'\balt="([^"]*)"')
FULL_SIZE_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>body {{ margin: 0; background: #fff; }}
img {{ display: block; width: {width}px; max-width: none; height: auto; }}</style>
</head>
<body><img src="{name}" alt="{title}" width="{width}"></body>
</html>
"""


# The full-size page of each linked image, by image file name, written when the build ends.
FULL_SIZE_PAGES: dict[str, str] = {}


def full_size_page(name: str, width: float, alt: str) -> str:
    """A page that shows one image at its natural size: a phone zooms a page with a viewport
    of its own width, where it lays a bare SVG out at 980 px and shrinks it to fit."""
    return FULL_SIZE_PAGE.format(title=html.escape(alt or name), width=round(width),
                                 name=html.escape(name))


def readable_width(width: float, text: float | None) -> int | None:
    """The width, in CSS px, at which an image's smallest text is 9.5 px, where a phone's
    column would show it under PHONE_SMALLEST_TEXT; None where the column is wide enough."""
    if text is None or not width or text * min(width, PHONE) / width >= PHONE_SMALLEST_TEXT:
        return None
    return math.ceil(width * (PHONE_SMALLEST_TEXT + 0.5) / text)


def _link_wide_images(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                      doctree: Any) -> None:
    """Wrap every output image wider than a phone's column in a link to a page that shows it
    at full size, and one whose text a phone would shrink too far in a frame that keeps it
    readable (site.css scrolls it on a phone)."""
    if not pagename.startswith(CHAPTERS) or "body" not in context:
        return
    sources = {name: Path(app.srcdir) / src for src, name in app.builder.images.items()}

    def link(match: re.Match[str]) -> str:
        name = match.group(3)
        source = sources.get(name)
        if source is None or not source.is_file():
            return match.group(0)
        width, text = image_facts(source)
        if width <= PHONE:
            return match.group(0)
        alt = ALT.search(match.group(0))
        alt_text = html.unescape(alt.group(1)) if alt else ""
        FULL_SIZE_PAGES[name] = full_size_page(name, width, alt_text)
        linked = (
            f'<a class="full-size-link" href="{match.group(2)}.html" '
            f'title="{languages.text(app, "Open the full-size image")}">{match.group(0)}</a>'
        )
        readable = readable_width(width, text)
        if readable is None:
            return linked
        style = f"--readable-width: {readable}px"
        return f'<span class="readable-figure" style="{style}">{linked}</span>'

    context["body"] = IMG.sub(link, context["body"])


def _write_full_size_pages(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    folder = Path(app.outdir) / "_images"
    for name, page in FULL_SIZE_PAGES.items():
        (folder / f"{name}.html").write_text(page, encoding="utf-8")


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("doctree-resolved", _outputs)
    app.connect("html-page-context", _link_wide_images)
    app.connect("build-finished", _write_full_size_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
