"""Typeset the book's math once, at build time, with MathJax 3 running in Node.

Pages then carry each formula as SVG (with its MathML, visually hidden, for screen readers)
and load no MathJax at all: its smallest browser build that renders the book's TeX weighs
about 0.8 MB per cold visit, the SVG of a chapter's formulas a few tens of kB. The glyph
shapes a page uses are written once per page (a hidden ``<svg><defs>``); the formulas
``<use>`` them. A TeX error is a build warning (so ``-W`` fails the build), not red text on
the page.

MathJax comes from npm's ``mathjax`` package (``npm ci`` at the repository root); the
Node side is ``static_math.js`` next to this file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ConfigError, ExtensionError
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("static_math.js")
MATHJAX = ROOT / "node_modules" / "mathjax" / "es5" / "node-main.js"
NAME = "static_mathjax"
STYLESHEET = "static-math.css"

logger = logging.getLogger(__name__)

# MathJax's assistive-mml extension keeps the MathML readable by screen readers and invisible.
EXTRA_CSS = """
mjx-container[jax="SVG"]{position:relative}
mjx-container[jax="SVG"][display="true"]{overflow-x:auto;overflow-y:hidden;padding:2px 0}
mjx-assistive-mml{position:absolute!important;top:0;left:0;clip:rect(1px,1px,1px,1px);
  padding:1px 0 0 0!important;border:0!important;display:block!important;width:auto!important;
  overflow:hidden!important;user-select:none}
mjx-assistive-mml[display="block"]{width:100%!important}
"""


@dataclass
class Page:
    """The typeset formulas of one page and the glyphs they use."""

    html: dict[tuple[str, bool], str] = field(default_factory=dict)
    defs: str = ""


def display_tex(node: nodes.math_block) -> str:
    """The TeX MathJax gets for a display block, as Sphinx's own mathjax extension builds it:
    blank-line separated equations are aligned, a part with ``\\\\`` is a ``split``."""
    if node["nowrap"]:
        return node.astext()
    parts = [part for part in node.astext().split("\n\n") if part.strip()]
    body = r"\\".join(rf"\begin{{split}}{p}\end{{split}}" if r"\\" in p else p for p in parts)
    if len(parts) > 1:
        body = rf"\begin{{align}}\begin{{aligned}}{body}\end{{aligned}}\end{{align}}"
    return body


def _check(app: Sphinx, config: Any) -> None:
    if shutil.which("node") is None:
        raise ConfigError("Node.js (`node`) is missing: the book typesets its math with it")
    if not MATHJAX.is_file():
        raise ConfigError(
            f"{MATHJAX} is missing: run `npm ci` (or `make book`) at the repository root to "
            "install MathJax from package-lock.json"
        )


def typeset(formulas: list[tuple[str, bool]]) -> dict[str, Any]:
    """Run MathJax once over ``formulas`` ((tex, display) pairs); see static_math.js."""
    request = {"formulas": [{"tex": tex, "display": display} for tex, display in formulas]}
    run = subprocess.run(
        ["node", str(SCRIPT)], input=json.dumps(request), capture_output=True, text=True
    )
    if run.returncode != 0:
        raise ExtensionError(f"MathJax (node {SCRIPT.name}) failed:\n{run.stderr[-4000:]}")
    return json.loads(run.stdout)


def _pages(app: Sphinx) -> dict[str, Page]:
    if not hasattr(app.builder, "static_math_pages"):
        app.builder.static_math_pages = {}
    return app.builder.static_math_pages


def _resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Typeset every formula of one page in one Node run, before the page is written."""
    if app.builder.format != "html" or app.builder.math_renderer_name != NAME:
        return
    found: dict[tuple[str, bool], nodes.Element] = {}
    for node in doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block))):
        if isinstance(node, nodes.math_block):
            found.setdefault((display_tex(node), True), node)
        else:
            found.setdefault((node.astext(), False), node)
    if not found:
        return
    result = typeset(list(found))
    for (tex, _display), node, error in zip(found, found.values(), result["errors"], strict=True):
        if error:
            logger.warning(f"TeX error in {tex!r}: {error}", location=node)
    page = Page(dict(zip(found, result["html"], strict=True)), result["defs"])
    _pages(app)[docname] = page


def _html(translator: Any, tex: str, display: bool) -> str:
    page = _pages(translator.builder.app).get(translator.builder.current_docname, Page())
    html = page.html.get((tex, display))
    if html is not None:
        return html
    # A formula from another page's doctree (a title in a table of contents): typeset it
    # alone, with its glyphs next to it.
    result = typeset([(tex, display)])
    return f'<svg style="display:none" aria-hidden="true">{result["defs"]}</svg>{result["html"][0]}'


def visit_math(self: Any, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight"))
    self.body.append(_html(self, node.astext(), False) + "</span>")
    raise nodes.SkipNode


def visit_displaymath(self: Any, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    if node["number"] and not node["nowrap"]:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    self.body.append(_html(self, display_tex(node), True) + "</div>\n")
    raise nodes.SkipNode


def _page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Pages with math get their glyphs (once) and the stylesheet; the others get neither."""
    page = _pages(app).get(pagename) if app.builder.format == "html" else None
    if page is None or not page.html:
        return
    app.add_css_file(STYLESHEET)
    glyphs = f'<svg style="display:none" aria-hidden="true">{page.defs}</svg>\n'
    context["body"] = glyphs + context.get("body", "")


def _write_css(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    css = typeset([("x", False)])["css"]
    (Path(app.outdir) / "_static" / STYLESHEET).write_text(css + EXTRA_CSS, encoding="utf-8")


def setup(app: Sphinx) -> dict[str, object]:
    app.add_html_math_renderer(NAME, (visit_math, None), (visit_displaymath, None))
    app.connect("config-inited", _check)
    app.connect("doctree-resolved", _resolved)
    app.connect("html-page-context", _page_context)
    app.connect("build-finished", _write_css)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
