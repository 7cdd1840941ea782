"""Serve MathJax 3 from the built site itself, so that no page loads anything from a CDN.

`mathjax_path` in _config.yml is ``../_mathjax/<component>.js``: Sphinx puts it under
``_static/``, so the page loads ``<site>/_mathjax/<component>.js``. After the build this
extension copies npm's ``mathjax`` package (``npm ci`` at the repository root) into
``<site>/_mathjax/``, keeping it out of the book's sources and out of ``_static/``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
MATHJAX_ES5 = ROOT / "node_modules" / "mathjax" / "es5"
PREFIX = "../_mathjax/"
TARGET = "_mathjax"
# Combined components other than the one in use are dead weight; latest.js loads from a CDN.
SKIPPED = {"latest.js", "node-main.js"}


def _component(app: Sphinx) -> str:
    path = app.config.mathjax_path
    if not path.startswith(PREFIX) or "/" in path.removeprefix(PREFIX):
        raise ConfigError(f"mathjax_path must be {PREFIX}<component>.js (got {path!r})")
    component = path.removeprefix(PREFIX)
    if not (MATHJAX_ES5 / component).is_file():
        raise ConfigError(
            f"{MATHJAX_ES5 / component} is missing: run `npm ci` (or `make book`) at the "
            "repository root to install MathJax from package-lock.json"
        )
    return component


def _check(app: Sphinx, config: object) -> None:
    _component(app)


def _copy(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    component = _component(app)

    def ignore(folder: str, names: list[str]) -> set[str]:
        if Path(folder) != MATHJAX_ES5:
            return set()
        combined = {n for n in names if n.endswith(".js") and "-" in n and n != component}
        return combined | (SKIPPED & set(names))

    shutil.copytree(MATHJAX_ES5, Path(app.outdir) / TARGET, ignore=ignore, dirs_exist_ok=True)


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("config-inited", _check)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
