"""The stepper widget and the drawings in headless Chromium, as static pages.

The stepper's HTML goes into a plain file (what the built book serves), into a page the way
JupyterLab inserts outputs (innerHTML, then each script re-created), and into an iframe
(what Colab does). Buttons, slider and keys must work with no request leaving the page.
Screenshots go to _build/screenshots/: stepper*.png and graph-seeds-{light,dark}.png.

Playwright only drives Debian's /usr/bin/chromium; it never downloads a browser.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from playwright.sync_api import Browser, Page, sync_playwright
from test_graph import contrast, custom_functions, two_layer_net, x2_exp

import miniautograd as mt
from miniautograd.graph import draw, draw_side_by_side
from miniautograd.stepper import record_backward

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SCREENSHOTS = Path(__file__).resolve().parents[1] / "_build" / "screenshots"
BACKGROUNDS = {"light": ("#ffffff", "#212529"), "dark": ("#121212", "#ced4da")}  # page, text

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's chromium (make test installs it)"
)


def page_html(body: str, mode: str = "light") -> str:
    background, color = BACKGROUNDS[mode]
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>stepper</title></head>'
        f'<body style="background:{background};color:{color};font-family:sans-serif">'
        f"{body}</body></html>"
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


class Visit:
    """A page in a fresh context that records every request and every error."""

    def __init__(self, browser: Browser, javascript: bool = True) -> None:
        self.context = browser.new_context(
            viewport={"width": 1000, "height": 800}, java_script_enabled=javascript
        )
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)
        self.page: Page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on(
            "console", lambda m: self.errors.append(m.text) if m.type == "error" else None
        )

    def _route(self, route: Any) -> None:
        url = route.request.url
        self.requests.append(url)
        if url.startswith(("file://", "about:", "data:")):
            route.continue_()
        else:
            route.abort()

    def open(self, path: Path) -> Page:
        self.page.goto(path.as_uri())
        return self.page

    def outside(self, path: Path) -> list[str]:
        return [u for u in self.requests if u != path.as_uri()]


@pytest.fixture
def visit(browser: Browser) -> Iterator[Visit]:
    v = Visit(browser)
    yield v
    v.context.close()


@pytest.fixture(scope="module")
def recording_html() -> str:
    root, leaves = two_layer_net(torch)
    return record_backward(root, names=leaves)._repr_html_()


def state(scope: Any) -> dict[str, Any]:
    """What the widget in ``scope`` (page or frame) shows right now."""
    return scope.evaluate(
        """() => {
          const root = document.querySelector('[data-mag-stepper]');
          const on = [...root.querySelectorAll('.mag-frame')].filter(
            f => getComputedStyle(f).display !== 'none');
          const svg = on.length ? on[0].querySelector('svg').getBoundingClientRect() : null;
          const focused = document.activeElement;
          return {shown: on.map(f => f.dataset.step),
                  slider: root.querySelector('.mag-slider').value,
                  caption: on.length ? on[0].querySelector('figcaption').textContent : '',
                  live: root.querySelector('[aria-live=polite]').textContent,
                  name: on.length ? on[0].querySelector('svg').getAttribute('aria-label') : '',
                  svg: svg ? [svg.width, svg.height] : null,
                  top: svg ? svg.top + scrollY : null,
                  focus: focused ? focused.className || focused.tagName : null,
                  next: root.querySelector('.mag-next').getAttribute('aria-disabled'),
                  prev: root.querySelector('.mag-prev').getAttribute('aria-disabled')};
        }"""
    )


def test_buttons_slider_and_keys_step_through_the_frames(
    visit: Visit, recording_html: str, tmp_path: Path
) -> None:
    path = tmp_path / "stepper.html"
    path.write_text(page_html(recording_html), encoding="utf-8")
    page = visit.open(path)
    first = state(page)
    assert first["shown"] == ["0"] and first["slider"] == "0" and first["prev"] == "true"
    assert first["svg"][0] > 200 and first["svg"][1] > 200
    page.click(".mag-next")
    after = state(page)
    assert after["shown"] == ["1"] and after["slider"] == "1" and after["prev"] == "false"
    assert after["caption"] != first["caption"] and after["caption"].startswith("Step 1 of 8")
    page.focus("[data-mag-stepper]")
    page.keyboard.press("ArrowRight")
    assert state(page)["shown"] == ["2"]
    for focused in (".mag-slider", ".mag-next", ".mag-prev"):  # one step per key press
        page.focus(focused)
        page.keyboard.press("ArrowRight")
        assert state(page)["shown"] == ["3"], focused
        page.keyboard.press("ArrowLeft")
        assert state(page)["shown"] == ["2"], focused
    page.keyboard.press("End")
    assert state(page)["shown"] == ["8"]
    page.keyboard.press("Home")
    assert state(page)["shown"] == ["0"]
    page.click(".mag-next")
    page.click(".mag-next")
    page.click(".mag-prev")
    assert state(page)["shown"] == ["1"]
    page.click(".mag-next")
    page.click(".mag-next")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "stepper.png", full_page=True)
    page.eval_on_selector(
        ".mag-slider", "s => { s.value = s.max; s.dispatchEvent(new Event('input')); }"
    )
    last = state(page)
    assert last["shown"] == ["8"] and last["next"] == "true"
    assert visit.errors == [] and visit.outside(path) == []


def test_the_ends_keep_the_focus_and_the_drawing_stays_put(
    visit: Visit, recording_html: str, tmp_path: Path
) -> None:
    """Enter on "next" at the last step, or on "prev" at step 0, leaves the focus where it is
    (a disabled button would drop it to the page); the controls are touch-sized (44 px);
    and the drawing does not move as the caption above it grows or shrinks."""
    path = tmp_path / "ends.html"
    path.write_text(page_html(recording_html), encoding="utf-8")
    page = visit.open(path)
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    tops = set()
    page.focus(".mag-next")
    for _ in range(10):  # two presses more than there are steps
        page.keyboard.press("Enter")
        tops.add(round(state(page)["top"]))
    at_end = state(page)
    page.focus(".mag-prev")
    for _ in range(10):
        page.keyboard.press("Enter")
    at_start = state(page)
    assert (at_end["shown"], at_end["focus"]) == (["8"], "mag-next")
    assert (at_start["shown"], at_start["focus"]) == (["0"], "mag-prev")
    assert len(tops) == 1, tops
    sizes = page.eval_on_selector_all(
        ".mag-controls button, .mag-slider",
        "es => es.map(e => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])",
    )
    assert all(w >= 44 and h >= 44 for w, h in sizes), sizes


def test_the_caption_is_announced_and_each_frame_has_a_name(
    visit: Visit, recording_html: str, tmp_path: Path
) -> None:
    path = tmp_path / "a11y.html"
    path.write_text(page_html(recording_html), encoding="utf-8")
    page = visit.open(path)
    for k in range(3):
        now = state(page)
        assert now["live"] == now["caption"] == now["name"] != ""
        assert now["shown"] == [str(k)]
        page.click(".mag-next")
    names = page.eval_on_selector_all(
        ".mag-frame svg", "svgs => svgs.map(s => [s.getAttribute('role'), s.ariaLabel])"
    )
    assert len(names) == 9 and all(role == "img" and name for role, name in names)


TEXT_COLOURS = """root => [...root.querySelectorAll('*')]
  .filter(e => e.getClientRects().length && [...e.childNodes].some(
     n => n.nodeType === 3 && n.textContent.trim()) && !e.closest('svg'))
  .map(e => [e.className || e.tagName, getComputedStyle(e).color])"""


def rgb_hex(css: str) -> str:
    r, g, b = (int(v) for v in re.findall(r"\d+", css)[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_text_reads_under_a_theme_that_greys_out_captions(
    visit: Visit, recording_html: str, tmp_path: Path, mode: str
) -> None:
    """pydata-sphinx-theme's dark mode greys figcaptions and buttons: the card keeps >= 4.5:1."""
    page_colour = BACKGROUNDS[mode][1]
    theme = (
        f"<style>figure figcaption, p, span, button {{color: {page_colour}}}"
        f"button {{background: {BACKGROUNDS[mode][0]}}} html {{color-scheme: {mode}}}</style>"
    )
    path = tmp_path / "theme.html"
    path.write_text(page_html(theme + recording_html, mode), encoding="utf-8")
    for javascript in (True, False):
        v = Visit(visit.context.browser, javascript=javascript)
        page = v.open(path)
        root = page.locator("[data-mag-stepper]").first
        card = rgb_hex(root.evaluate("r => getComputedStyle(r).backgroundColor"))
        found = root.evaluate(TEXT_COLOURS)
        assert len(found) >= (3 if javascript else 9)  # prev, next, caption
        for what, colour in found:
            assert contrast(rgb_hex(colour), card) >= 4.5, (what, colour, card)
        v.context.close()


def test_dark_page_screenshot(browser: Browser, recording_html: str, tmp_path: Path) -> None:
    v = Visit(browser)
    path = tmp_path / "dark.html"
    path.write_text(page_html(recording_html, "dark"), encoding="utf-8")
    page = v.open(path)
    for _ in range(6):
        page.click(".mag-next")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "stepper-dark.png", full_page=True)
    assert state(page)["shown"] == ["6"] and v.errors == [] and v.outside(path) == []
    v.context.close()


def test_without_javascript_every_frame_shows(
    browser: Browser, recording_html: str, tmp_path: Path
) -> None:
    v = Visit(browser, javascript=False)
    path = tmp_path / "nojs.html"
    path.write_text(page_html(recording_html), encoding="utf-8")
    page = v.open(path)
    frames = page.locator(".mag-frame")
    assert frames.count() == 9 and all(frames.nth(i).is_visible() for i in range(9))
    assert not page.locator(".mag-controls").is_visible()
    assert page.locator("noscript pre").is_visible()
    v.context.close()


def test_works_inserted_like_jupyterlab_and_in_an_iframe_like_colab(
    visit: Visit, recording_html: str, tmp_path: Path
) -> None:
    path = tmp_path / "hosts.html"
    srcdoc = html.escape(page_html(recording_html))
    body = f'<div id="lab"></div><iframe id="colab" width="900" height="700" srcdoc="{srcdoc}">'
    body += "</iframe>"
    path.write_text(page_html(body), encoding="utf-8")
    page = visit.open(path)
    page.evaluate(
        """html => {
          const host = document.getElementById('lab');
          host.innerHTML = html;  // scripts set this way do not run, so re-create them
          for (const old of host.querySelectorAll('script')) {
            const s = document.createElement('script');
            s.textContent = old.textContent;
            old.replaceWith(s);
          }
        }""",
        recording_html,
    )
    page.click("#lab .mag-next")
    assert state(page)["shown"] == ["1"]
    frame = page.frame_locator("#colab")
    frame.locator(".mag-next").click()
    frame.locator(".mag-next").click()
    colab = page.frames[1]
    assert state(colab)["shown"] == ["2"] and state(page)["shown"] == ["1"]
    assert visit.errors == [] and visit.outside(path) == []


def test_two_copies_of_one_widget_step_independently(
    visit: Visit, recording_html: str, tmp_path: Path
) -> None:
    path = tmp_path / "twice.html"
    path.write_text(page_html(recording_html + recording_html), encoding="utf-8")
    page = visit.open(path)
    page.locator(".mag-next").nth(1).click()
    shown = page.evaluate(
        """() => [...document.querySelectorAll('[data-mag-stepper]')].map(r =>
             r.querySelector('.mag-frame.mag-on').dataset.step)"""
    )
    assert shown == ["0", "1"]
    assert visit.errors == []


def seed_drawings() -> str:
    """The book's seed examples, each drawn from miniautograd and from PyTorch."""
    ym, yt = x2_exp(mt)[0], x2_exp(torch)[0]
    (lm, _), (lt, nt) = two_layer_net(mt), two_layer_net(torch)
    em, et = (custom_functions(lib)[1].apply(x2_exp(lib)[1]) for lib in (mt, torch))
    parts = [
        ("x**2 * exp(x), 3x4 input", draw_side_by_side(ym, yt, show_data=True)),
        ("two-layer net, custom ReLU", draw(lt, names=nt, show_saved=True)),
        ("two-layer net, forward view", draw_side_by_side(lm, lt, view="forward")),
        ("custom Exp", draw_side_by_side(em, et, show_saved=True)),
    ]
    return "".join(f"<h3>{title}</h3>{g.svg()[g.svg().index('<svg') :]}" for title, g in parts)


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_seed_drawings_screenshots(visit: Visit, tmp_path: Path, mode: str) -> None:
    path = tmp_path / f"seeds-{mode}.html"
    path.write_text(page_html(seed_drawings(), mode), encoding="utf-8")
    page = visit.open(path)
    sizes = page.evaluate(
        "() => [...document.querySelectorAll('svg')].map(s => s.getBoundingClientRect().height)"
    )
    assert len(sizes) == 4 and min(sizes) > 100
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"graph-seeds-{mode}.png", full_page=True)
    assert visit.errors == [] and visit.outside(path) == []
