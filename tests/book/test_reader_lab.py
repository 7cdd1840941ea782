"""JupyterLab, in headless Chromium, as a learner opens each chapter's reader's edition: every
hint is a closed fold, every solution's code is folded away, every side road is collapsed
under its heading, and no MyST markup shows.

The server runs on 127.0.0.1 with its own settings, workspace and runtime folders (cells are
all rendered at once, not windowed, so that all of them can be checked). A screenshot of each
chapter's first exercise goes to _build/screenshots/lab-<chapter>.png (the Chinese editions':
lab-zh_CN-<chapter>.png).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
import reader_edition
from languages import CHINESE
from playwright.sync_api import Browser
from site_tools import CHAPTERS, ROOT
from test_browser import HOST

pytestmark = pytest.mark.slow

TOKEN = "reader"
START_TIMEOUT_S = 120
RENDER_TIMEOUT_MS = 60_000
SCREENSHOTS = ROOT / "_build" / "screenshots"
# What a reader would see raw if the conversion missed it.
MARKUP = ("{term}`", "{ref}`", "{doc}`", "{admonition}", ":class:", ")=\n")
SETTINGS = {
    # Every cell in the page, not only those in view (JupyterLab 4 windows long notebooks).
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
}


def lab_anchor(anchor: str) -> str:
    """A selector for an anchor of the reader's edition, as JupyterLab renders it."""
    return f'.jp-RenderedMarkdown a[data-jupyter-id="{anchor}"]'


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def lab(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A JupyterLab server on a folder of the reader's editions; its base URL."""
    base = tmp_path_factory.mktemp("lab")
    notebooks = base / "notebooks"
    shutil.copytree(site / reader_edition.FOLDER, notebooks)
    shutil.copytree(site / CHINESE / reader_edition.FOLDER, notebooks / CHINESE)
    for name, values in SETTINGS.items():
        path = base / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")},
        "JUPYTERLAB_SETTINGS_DIR": str(base / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "JUPYTER_CONFIG_DIR": str(base / "config"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
    }
    command = [str(Path(sys.executable).with_name("jupyter-lab")), "--no-browser",
               f"--ServerApp.ip={HOST}", f"--ServerApp.port={port}",
               f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={notebooks}",
               "--ServerApp.allow_root=True"]  # CI runs as root
    log = (base / "lab.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://{HOST}:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=5):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{(base / 'lab.log').read_text()}")
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.name for c in CHAPTERS])
@pytest.mark.parametrize("language", ["", CHINESE])
def test_jupyterlab_shows_hints_and_solutions_folded(
    lab: str, browser: Browser, site: Path, chapter: Path, language: str
) -> None:
    folder = f"{language}/" if language else ""
    edition = nbformat.read(site / folder / reader_edition.FOLDER / chapter.name, as_version=4)
    shot = f"lab-{language}-{chapter.stem}" if language else f"lab-{chapter.stem}"
    folded = sum(1 for c in edition.cells if c.metadata.get("jupyter", {}).get("source_hidden"))
    markdown = sum(1 for c in edition.cells if c.cell_type == "markdown")
    # The hints, and any other fold the chapter has (a discussion after an exercise).
    hints = sum(c.source.count("<details><summary>") for c in edition.cells
                if c.cell_type == "markdown")
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    try:
        # A workspace of its own: only this notebook open.
        page.goto(f"{lab}/lab/workspaces/{language or 'en'}-{chapter.stem}/tree/"
                  f"{folder}{chapter.name}?token={TOKEN}", timeout=RENDER_TIMEOUT_MS)
        rendered = page.locator(".jp-MarkdownCell .jp-RenderedMarkdown")
        # Wait for what is checked: every Markdown cell rendered with its content (JupyterLab
        # fills them in asynchronously, later on a busy machine), and the folds among them.
        page.wait_for_function(
            """([markdown, hints, folded]) => {
              const shown = [...document.querySelectorAll(
                '.jp-MarkdownCell .jp-RenderedMarkdown')].filter(m => m.textContent.trim());
              return shown.length >= markdown
                && document.querySelectorAll('.jp-RenderedMarkdown details').length >= hints
                && document.querySelectorAll('.jp-CodeCell .jp-InputPlaceholder').length
                   >= folded;
            }""", arg=[markdown, hints, folded], timeout=RENDER_TIMEOUT_MS)
        assert page.locator(".jp-Notebook .jp-Cell").count() == len(edition.cells)
        folds = page.locator(".jp-RenderedMarkdown details")
        assert folds.count() == hints
        shown = []  # the folds on the main path, which the reader sees (closed)
        for n in range(hints):
            fold = folds.nth(n)
            assert fold.get_attribute("open") is None
            # A fold in a side road (a checked claim) is hidden with the collapsed road.
            if not fold.locator("xpath=ancestor::div[contains(@class, 'jp-Cell')][1]").is_visible():
                continue
            assert fold.locator("summary").is_visible()
            assert not fold.locator(":scope > :not(summary)").first.is_visible()
            shown.append(fold)
        assert shown or hints == 0
        placeholders = page.locator(".jp-CodeCell .jp-InputPlaceholder")
        assert placeholders.count() == folded
        text = "\n".join(rendered.all_inner_texts())
        assert [m for m in MARKUP if m in text] == []
        # A side road shows its heading and mark, collapsed: the cells under it are hidden.
        cells = page.locator(".jp-Notebook .jp-Cell")
        roads = [n for n, c in enumerate(edition.cells)
                 if c.cell_type == "markdown" and reader_edition.fold_split(c.source)]
        for n in roads:
            assert cells.nth(n).is_visible() and not cells.nth(n + 1).is_visible(), n
        if roads:
            cells.nth(roads[0]).scroll_into_view_if_needed()
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"{shot}-side-road.png"))
        # Links within the notebook: JupyterLab keeps every anchor (as data-jupyter-id, its
        # own id attribute), and a link to one that is not in a collapsed side road scrolls it
        # into view.
        anchors = [a for c in edition.cells if c.cell_type == "markdown"
                   for a in re.findall(r'<a id="([^"]+)"', c.source)]
        for anchor in anchors:
            assert page.locator(lab_anchor(anchor)).count() == 1, anchor
        links = page.locator('.jp-RenderedMarkdown a[href^="#"]:not(.jp-InternalAnchorLink)')
        for n in range(links.count()):
            link = links.nth(n)
            target = page.locator(lab_anchor(link.get_attribute("href")[1:]))
            if link.is_visible() and target.locator("xpath=..").is_visible():
                link.click()
                page.wait_for_timeout(500)
                box, height = target.bounding_box(), page.viewport_size["height"]
                assert box is not None and 0 <= box["y"] <= height, (link.inner_text(), box)
                break
        else:
            assert not anchors, "no link within the notebook to try"
        if shown:  # the screenshot shows the first fold a reader meets
            shown[0].scroll_into_view_if_needed()
        page.evaluate("window.scrollBy && document.querySelector('.jp-WindowedPanel-outer, "
                      ".jp-Notebook').scrollBy(0, -200)")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{shot}.png"))
    finally:
        page.close()
