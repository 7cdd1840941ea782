"""Every page of the built site, opened in headless Chromium in light and dark mode: no console
error, no failed request, no request to any host but the local server, math typeset by MathJax,
images and graph SVGs drawn. Full-page screenshots go to _build/screenshots/<page>-<mode>.png.

Playwright only drives Debian's /usr/bin/chromium; it never downloads a browser.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Route, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from site_tools import ROOT

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
HOST = "127.0.0.1"
PAGE_TIMEOUT_MS = 30_000
SCREENSHOTS = ROOT / "_build" / "screenshots"
MODES = ("light", "dark")

# Runs in the page once it has loaded: what a reader would see broken.
INSPECT = """async () => {
  // MathJax loads deferred: on a busy machine it may not have started yet. Wait for it
  // (bounded) wherever the page has math and loads MathJax, then for its typesetting to finish.
  const loadsMathJax = document.querySelector('script[src*="mathjax" i]');
  if (loadsMathJax && document.querySelector('.bd-article .math')) {
    const started = () => window.MathJax && MathJax.startup && MathJax.startup.promise;
    for (let i = 0; i < 200 && !started(); i++) {
      await new Promise(resolve => setTimeout(resolve, 100));
    }
  }
  if (window.MathJax && MathJax.startup) { await MathJax.startup.promise; }
  const math = [...document.querySelectorAll('.bd-article .math')];
  const images = [...document.querySelectorAll('.bd-article img')];
  const svgs = [...document.querySelectorAll('.bd-article .cell_output svg')];
  return {
    theme: document.documentElement.dataset.theme,
    math: math.length,
    untypeset: math.filter(m => !m.querySelector('mjx-container')).map(m => m.textContent),
    images: images.length,
    brokenImages: images.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src),
    svgs: svgs.length,
    emptySvgs: svgs.filter(s => {
      if (s.childElementCount === 0) return true;
      // Not displayed on purpose (a stepper frame other than the current one): no box to check.
      if (s.getClientRects().length === 0) return false;
      const box = s.getBoundingClientRect();
      return box.width === 0 || box.height === 0;
    }).length,
  };
}"""


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (base signature)
        """Keep the test output clean."""


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """`folder` over HTTP on a free port of 127.0.0.1, served from a thread; yields its URL."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    with ThreadingHTTPServer((HOST, 0), handler) as httpd:
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        yield f"http://{HOST}:{httpd.server_address[1]}"
        httpd.shutdown()


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    with serve(site) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-os-deps.sh chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_every_page_renders_cleanly(
    mode: str, browser: Browser, server: str, pages: list[Path], site: Path
) -> None:
    problems: dict[str, list[str]] = {}
    typeset = 0
    for path in pages:
        name = path.relative_to(site).as_posix()
        problems[name], seen = open_page(browser, f"{server}/{name}", mode, name)
        typeset += seen.get("math", 0)
    assert {name: found for name, found in problems.items() if found} == {}
    assert typeset > 0, "no page has math: the MathJax check would prove nothing"


def test_the_page_check_reports_what_a_reader_would_see_broken(
    browser: Browser, tmp_path: Path
) -> None:
    (tmp_path / "bad.html").write_text(
        """<html data-theme="light"><body><article class="bd-article">
        <p><span class="math">\\(x^2\\)</span></p><img src="missing.png">
        <script src="https://cdn.example/lib.js"></script><script>notDefined()</script>
        </article></body></html>"""
    )
    with serve(tmp_path) as url:
        found, seen = open_page(browser, f"{url}/bad.html", "light", "check-bad")
    (SCREENSHOTS / "check-bad-light.png").unlink()
    assert seen["math"] == 1
    expected = [
        "request to another host: https://cdn.example/lib.js",
        "page error: ",
        "HTTP 404: ",
        "math not typeset: ",
        "image not drawn: ",
    ]
    assert [any(f.startswith(e) for f in found) for e in expected] == [True] * len(expected), found


def open_page(browser: Browser, url: str, mode: str, name: str) -> tuple[list[str], dict]:
    """Load one page in a fresh context; what went wrong, and what the page showed."""
    context = browser.new_context(
        color_scheme=mode, reduced_motion="reduce", viewport={"width": 1280, "height": 900}
    )
    context.add_init_script(
        f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');"
    )
    found: list[str] = []
    seen: dict = {}

    def route(request_route: Route) -> None:
        request = request_route.request
        if urlsplit(request.url).hostname == HOST:
            request_route.continue_()
        else:
            found.append(f"request to another host: {request.url}")
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    page.on("console", lambda m: m.type == "error" and found.append(f"console: {m.text}"))
    page.on("pageerror", lambda error: found.append(f"page error: {error}"))
    page.on("requestfailed", lambda r: found.append(f"failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and found.append(f"HTTP {r.status}: {r.url}"))
    try:
        page.goto(url, wait_until="networkidle", timeout=PAGE_TIMEOUT_MS)
        seen = page.evaluate(INSPECT)
        if seen["theme"] != mode:
            found.append(f"data-theme is {seen['theme']!r}, expected {mode!r}")
        found += [f"math not typeset: {text!r}" for text in seen["untypeset"]]
        found += [f"image not drawn: {src}" for src in seen["brokenImages"]]
        if seen["emptySvgs"]:
            found.append(f"{seen['emptySvgs']} of {seen['svgs']} output SVGs are empty")
        stem = name.removesuffix(".html").replace("/", "_")
        shot = SCREENSHOTS / f"{stem}-{mode}.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True, animations="disabled")
    except PlaywrightError as error:  # a timeout, a crash: report it with the page's others
        found.append(f"not checked: {error.message.splitlines()[0]}")
    finally:
        context.close()
    return found, seen
