"""Every page of the built site, opened cold in headless Chromium as a reader meets it: on a
phone (390 px) and on a desktop (1366 px), in light and dark mode (a first visit: the colour
follows the system's, nothing is stored yet).

Each visit checks what a reader would see broken: a console error, a failed request, a
request to any host but the local server, math not typeset, an image not drawn; an output
block that runs off the column or a prose output (a sentence, an error) that scrolls or does
not wrap; a line of code or of an aligned output (indented, or in columns) that wraps; a
block that scrolls sideways with no cue; inline code broken inside a name; a prose table or
a display equation wider than the column; drawing text under 10 px on a desktop or 9 px on
a phone; a drawn edge or label of a Graphviz drawing under 3:1 against what is behind it,
as the page shows it (dark mode dims images); stepper text under 4.5:1 contrast, or a
stepper that loses the focus at its ends; outputs shown out of the order printed; any
violation of axe-core's WCAG 2.0 to 2.2 A and AA rules (what a screen reader or a keyboard
meets: names, labels, roles, landmarks, contrast), with the folds of side roads and parity
runs open as a reader opens them and the others closed; and it weighs the cold load (every
byte the page fetched before it went idle; a chapter may take 1.6 MB). Full-page
screenshots go to _build/screenshots/<page>-<width>-<mode>.png and the weights to
_build/screenshots/cold-load.json.

Also here: the menu and the in-page contents open on a phone, a tablet and a desktop, and a
search finds the chapter a word is about, with snippets from the pages' text.

Playwright only drives Debian's /usr/bin/chromium; it never downloads a browser.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import chapter_page
import drawing_contrast
import pytest
from playwright.sync_api import Browser, Page, Route
from playwright.sync_api import Error as PlaywrightError
from site_tools import ROOT

HOST = "127.0.0.1"
PAGE_TIMEOUT_MS = 30_000
SCREENSHOTS = ROOT / "_build" / "screenshots"
MODES = ("light", "dark")
PHONE, TABLET, DESKTOP = 390, 900, 1366
# The Traditional edition (zh_TW/) is generated from the Simplified one and laid out alike: its
# pages are read at two of the four widths and modes, a phone in light mode and a desktop in dark
# (both widths, both modes), which halves what the third edition adds to this test.
TRADITIONAL_READ = {(PHONE, "light"), (DESKTOP, "dark")}
HEIGHT = {PHONE: 844, TABLET: 1100, DESKTOP: 900}
# Bytes of a chapter's cold load, uncompressed: about 0.76 MB of theme, fonts and math glyphs
# that every page loads, and the chapter. The longest, chapter 7, with the guided build's last
# step, takes 1.53 MB.
CHAPTER_BUDGET = 1_600_000
SMALLEST_TEXT = chapter_page.SMALLEST_TEXT  # px, drawing text as shown on a desktop
PHONE_SMALLEST_TEXT = chapter_page.PHONE_SMALLEST_TEXT  # px, as shown on a phone
CONTRAST = 4.5
MIN_DRAWN_CONTRAST = 3.0  # WCAG's minimum for graphical objects: a drawing's lines and labels

# axe-core (npm, package-lock.json), injected into each page after it loaded: the rules of
# WCAG 2.0, 2.1 and 2.2, levels A and AA. Each violation is reported as its rule and the
# elements that break it (axe's CSS selectors, the first few).
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
AXE_SHOWN = 3  # elements named per rule and page
AXE_RUN = """tags => axe.run(document, {runOnly: {type: 'tag', values: tags}}).then(
  result => result.violations.map(v => ({id: v.id, impact: v.impact,
    targets: v.nodes.map(n => n.target.join(' '))})))"""

# The theme's script resolves data-theme="auto" to the system's colours; until it has run
# the page has neither theme's colours. A page that never gets there is reported.
THEME_SET = "() => ['light', 'dark'].includes(document.documentElement.dataset.theme)"
THEME_TIMEOUT_MS = 10_000

# Runs in the page once it went idle: the cold load first, then what a reader would see.
INSPECT = """async ({minContrast, smallestText}) => {
  const entries = [...performance.getEntriesByType('navigation'),
                   ...performance.getEntriesByType('resource')];
  const coldBytes = entries.reduce((sum, e) => sum + e.decodedBodySize, 0);
  // Then load every image (they load lazily, as the reader scrolls) to check them all.
  const images = [...document.querySelectorAll('.bd-article img')];
  images.forEach(i => { i.loading = 'eager'; });
  await Promise.all(images.map(i => i.decode().catch(() => null)));
  // Colours are read once the theme's transitions (e.g. into dark mode) have finished.
  await Promise.all(document.getAnimations().map(a => a.finished.catch(() => null)));
  const article = document.querySelector('.bd-article');
  const articleBox = article ? article.getBoundingClientRect() : null;
  const math = [...document.querySelectorAll('.bd-article .math')];
  const rgb = c => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const luminance = c => {
    const [r, g, b] = rgb(c).map(v => v / 255).map(
      v => v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const background = e => {
    for (; e; e = e.parentElement) {
      const c = getComputedStyle(e).backgroundColor;
      if (c && !c.startsWith('rgba(0, 0, 0, 0)') && c !== 'transparent') { return c; }
    }
    return getComputedStyle(document.body).backgroundColor;
  };
  const filterOf = e => {  // the filter a drawing is seen through (the theme dims images)
    for (; e; e = e.parentElement) {
      const f = getComputedStyle(e).filter;
      if (f && f !== 'none') return f;
    }
    return '';
  };
  const lowContrast = [];
  for (const root of document.querySelectorAll('.mag-stepper, p.chapter-run')) {
    for (const e of root.querySelectorAll('*')) {
      const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
      if (!own || !e.getClientRects().length || e.closest('svg')) continue;
      const ratio = contrast(getComputedStyle(e).color, background(e));
      if (ratio < minContrast) {
        lowContrast.push(`${e.className || e.tagName} ${ratio.toFixed(2)}:1`);
      }
    }
  }
  // Printed source and column-aligned outputs (indented lines, or runs of spaces between
  // columns) must keep every line whole: they may scroll sideways, with a visible cue. Prose
  // (an error message, a sentence) must wrap instead. The test tells them apart by itself.
  const aligned = text => /^[ \\t]+\\S|\\S {2,}\\S|[\\u2500-\\u257f]/m.test(text);
  const visualLines = pre => {  // line boxes the text is laid out in
    const tops = [];
    const range = document.createRange();
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) { if (r.width > 0) tops.push(r.top); }
    }
    tops.sort((a, b) => a - b);
    return tops.reduce(([count, last], top) => top - last > 2 ? [count + 1, top] : [count, last],
                       [0, -1e9])[0];
  };
  const wraps = pre => visualLines(pre)
    > pre.textContent.split('\\n').filter(line => line.trim()).length;
  const scrollsSideways = e => e.scrollWidth > e.clientWidth + 1
    && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  const cued = e => {  // a shadow at the edge that has more (a local background), or a note
    const style = getComputedStyle(e);
    const note = getComputedStyle(e, '::before').content;
    return (/gradient/.test(style.backgroundImage) && style.backgroundAttachment.includes('local'))
      || (note && note !== 'none' && note !== 'normal');
  };
  const overflowing = [];
  const unwrapped = [];
  const brokenLines = [];
  const uncued = [];
  for (const block of document.querySelectorAll('.bd-article div.cell_output > *')) {
    const cell = block.closest('div.cell');
    const text = block.textContent.trim().slice(0, 70);
    if (cell && cell.classList.contains('tag_wide-table')) {
      const says = getComputedStyle(block.parentElement, '::before').content;
      if (!says || says === 'none') overflowing.push(`wide table without its note: ${text}`);
      continue;
    }
    const box = block.getBoundingClientRect();
    const right = cell && cell.classList.contains('tag_full-width') ? innerWidth : articleBox.right;
    const scrollers = [block, ...block.querySelectorAll('*')].filter(
      e => !e.closest('svg') && scrollsSideways(e));
    for (const e of scrollers) {
      const pre = e.tagName === 'PRE' ? e : null;
      if (pre && !aligned(pre.textContent)) overflowing.push(text || block.className);
      else if (!cued(e)) uncued.push(`output: ${text || e.className}`);
    }
    if (box.right > right + 1) overflowing.push(text || block.className);
    for (const pre of block.querySelectorAll('pre')) {
      if (aligned(pre.textContent)) {
        if (wraps(pre)) brokenLines.push(`output: ${pre.textContent.trim().slice(0, 70)}`);
      } else if (getComputedStyle(pre).whiteSpace !== 'pre-wrap') {
        unwrapped.push(text);
      }
    }
  }
  for (const pre of document.querySelectorAll('.bd-article div.cell_input pre')) {
    const text = pre.textContent.trim().slice(0, 70);
    if (wraps(pre)) brokenLines.push(`code: ${text}`);
    if (scrollsSideways(pre) && !cued(pre)) uncued.push(`code: ${text}`);
  }
  // Inline code breaks after ".", "_", "(", before "[" or at a space, never inside a name;
  // a prose table fits the column (on a phone, its rows become cards).
  const midName = [];
  const range = document.createRange();
  for (const code of document.querySelectorAll('.bd-article code.literal')) {
    if (code.getClientRects().length < 2) continue;
    let top = null, before = '', space = false;  // a space since the last character drawn
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (let i = 0; i < n.length; i++) {
        const char = n.data[i];
        if (/\\s/.test(char)) { space = true; continue; }
        range.setStart(n, i);
        range.setEnd(n, i + 1);
        const box = range.getClientRects()[0];
        if (!box) continue;
        const allowed = space || /[._(]/.test(before) || char === '[';  // "[0]" may start a line
        if (top !== null && box.top - top > 2 && !allowed) {
          midName.push(`${code.textContent} (between "${before}" and "${char}")`);
        }
        [top, before, space] = [box.top, char, false];
      }
    }
  }
  const cutTables = [...document.querySelectorAll('.bd-article table')]
    .filter(t => !t.closest('div.cell_output'))
    .filter(t => [t, t.parentElement].some(scrollsSideways) || t.getBoundingClientRect().right
                 > articleBox.right + 1)
    .map(t => t.textContent.trim().slice(0, 60));
  // Outputs appear in the order the cell printed them: each below the one before.
  const disordered = [];
  for (const output of document.querySelectorAll('.bd-article div.cell_output')) {
    const tops = [...output.children].filter(e => e.getClientRects().length)
      .map(e => e.getBoundingClientRect().top);
    if (tops.some((top, i) => i && top < tops[i - 1])) {
      disordered.push(output.textContent.trim().slice(0, 60));
    }
  }
  // A display equation fits the column: a long one is set over several lines.
  const wideMath = [...document.querySelectorAll('.bd-article div.math')].filter(m => {
    const svg = m.querySelector('mjx-container svg');
    return svg && svg.getBoundingClientRect().width > m.clientWidth + 1;
  }).map(m => m.textContent.trim().slice(0, 60));
  // Drawing text: inline SVG (the stepper) from its own font sizes; image files are sized
  // by the test from the file.
  const smallText = [];
  {
    for (const svg of document.querySelectorAll('.bd-article div.cell_output svg')) {
      const box = svg.getBoundingClientRect();
      const view = svg.viewBox && svg.viewBox.baseVal;
      if (!box.width || !view || !view.width || svg.closest('mjx-container')) continue;
      const sizes = [...svg.querySelectorAll('text[font-size]')].map(
        t => parseFloat(t.getAttribute('font-size')) * box.width / view.width);
      if (sizes.length && Math.min(...sizes) < smallestText) {
        smallText.push(`inline SVG: ${Math.min(...sizes).toFixed(1)} px`);
      }
    }
  }
  // A search field's icon must sit before its text, not on it.
  const coveredSearch = [...document.querySelectorAll('form.bd-search')]
    .filter(f => f.offsetParent).flatMap(f => {
      const icon = f.querySelector('i, svg'), input = f.querySelector('input');
      if (!icon || !input) return [];
      const textStart = input.getBoundingClientRect().left
        + parseFloat(getComputedStyle(input).paddingLeft);
      const iconEnd = icon.getBoundingClientRect().right;
      return iconEnd > textStart + 0.5
        ? [`icon ends at ${iconEnd.toFixed(0)} px, text starts at ${textStart.toFixed(0)} px`] : [];
    });
  const header = document.querySelector('#pst-header');
  return {
    coldBytes,
    requests: entries.length,
    theme: document.documentElement.dataset.theme,
    math: math.length,
    untypeset: math.filter(m => !m.querySelector('mjx-container svg')).map(m => m.textContent),
    images: images.map(i => ({src: i.getAttribute('src'), width: i.getBoundingClientRect().width,
                              drawn: i.complete && i.naturalWidth > 0,
                              filter: filterOf(i), background: background(i)})),
    inlineDrawings: [...document.querySelectorAll('.bd-article div.cell_output svg')]
      .filter(s => s.querySelector('g.graph'))
      .map(s => ({svg: s.outerHTML, filter: filterOf(s), background: background(s)})),
    pageScrolls: document.documentElement.scrollWidth > innerWidth + 1,
    headerHeight: header ? header.getBoundingClientRect().height : 0,
    overflowing, unwrapped, brokenLines, uncued, midName, cutTables, wideMath, disordered,
    smallText, lowContrast, coveredSearch,
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
def cold_loads() -> Iterator[dict[str, dict[str, int]]]:
    """Cold-load bytes of every page visit, written to _build/screenshots/cold-load.json."""
    found: dict[str, dict[str, int]] = {}
    yield found
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / "cold-load.json").write_text(json.dumps(found, indent=1, sort_keys=True))


def context(browser: Browser, width: int, mode: str) -> object:
    """A fresh context: an empty cache and no stored settings, as on a first visit."""
    return browser.new_context(
        color_scheme=mode, reduced_motion="reduce",
        viewport={"width": width, "height": HEIGHT[width]},
    )


def touch_phone(browser: Browser) -> object:
    """A fresh context as a phone's browser: its width, a touch screen, and mobile layout (a
    page without a viewport of its own is laid out at 980 px and zoomed out)."""
    return browser.new_context(viewport={"width": PHONE, "height": HEIGHT[PHONE]},
                               is_mobile=True, has_touch=True)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_every_page_reads_cleanly(
    width: int, mode: str, browser: Browser, server: str, pages: list[Path], site: Path,
    cold_loads: dict[str, dict[str, int]],
) -> None:
    problems: dict[str, list[str]] = {}
    typeset = 0
    for path in pages:
        name = path.relative_to(site).as_posix()
        if name.startswith("zh_TW/") and (width, mode) not in TRADITIONAL_READ:
            continue
        found, seen = open_page(browser, f"{server}/{name}", width, mode, name, site)
        problems[name] = found
        typeset += seen.get("math", 0)
        if "coldBytes" in seen:
            cold_loads.setdefault(name, {})[f"{width}-{mode}"] = seen["coldBytes"]
            chapter = re.sub(r"^zh_(CN|TW)/", "", name).startswith("book/chapters/")  # any edition
            if chapter and seen["coldBytes"] > CHAPTER_BUDGET:
                found.append(f"cold load {seen['coldBytes']:,} bytes > {CHAPTER_BUDGET:,}")
    print(f"cold load at {width} px, {mode}: " + ", ".join(
        f"{n.rsplit('/', 1)[-1]} {v[f'{width}-{mode}'] / 1e6:.2f} MB"
        for n, v in sorted(cold_loads.items()) if f"{width}-{mode}" in v))
    assert {name: found for name, found in problems.items() if found} == {}
    assert typeset > 0, "no page has math: the math check would prove nothing"


OPEN_SECTION_FOLDS = """() => document.querySelectorAll(
  'details.section-fold, .tag_parity details').forEach(fold => { fold.open = true; })"""


def open_page(
    browser: Browser, url: str, width: int, mode: str, name: str, site: Path | None = None
) -> tuple[list[str], dict]:
    """Load one page cold; what went wrong, and what the page showed."""
    ctx = context(browser, width, mode)
    found: list[str] = []
    seen: dict = {}

    def route(request_route: Route) -> None:
        request = request_route.request
        if urlsplit(request.url).hostname == HOST:
            request_route.continue_()
        else:
            found.append(f"request to another host: {request.url}")
            request_route.abort()

    ctx.route("**/*", route)
    page = ctx.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    page.on("console", lambda m: m.type == "error" and found.append(f"console: {m.text}"))
    page.on("pageerror", lambda error: found.append(f"page error: {error}"))
    page.on("requestfailed", lambda r: found.append(f"failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and found.append(f"HTTP {r.status}: {r.url}"))
    try:
        page.goto(url, wait_until="networkidle", timeout=PAGE_TIMEOUT_MS)
        with suppress(PlaywrightError):  # on a busy machine the theme's script may come late
            page.wait_for_function(THEME_SET, timeout=THEME_TIMEOUT_MS)
        # What the folds of side roads and parity runs hold is checked as a reader opens it.
        page.evaluate(OPEN_SECTION_FOLDS)
        seen = page.evaluate(INSPECT, {"minContrast": CONTRAST,
                                       "smallestText": smallest_text(width)})
        found += reader_problems(seen, mode, width, page, site)
        found += stepper_focus_problems(page)
        found += axe_violations(page)
        stem = name.removesuffix(".html").replace("/", "_")
        shot = SCREENSHOTS / f"{stem}-{width}-{mode}.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True, animations="disabled")
    except PlaywrightError as error:  # a timeout, a crash: report it with the page's others
        found.append(f"not checked: {error.message.splitlines()[0]}")
    finally:
        ctx.close()
    return found, seen


def axe_violations(page: Page) -> list[str]:
    """axe-core's WCAG A and AA violations on the page as it is now: one line per rule."""
    if not AXE.is_file():
        return [f"not checked for accessibility: {AXE} is missing (run `make setup`)"]
    page.add_script_tag(path=str(AXE))
    found = []
    for violation in page.evaluate(AXE_RUN, AXE_TAGS):
        targets = violation["targets"]
        more = f" and {len(targets) - AXE_SHOWN} more" if len(targets) > AXE_SHOWN else ""
        found.append(f"axe {violation['id']} ({violation['impact']}, {len(targets)} elements): "
                     + ", ".join(targets[:AXE_SHOWN]) + more)
    return found


def stepper_focus_problems(page: Page) -> list[str]:
    """Enter on "next" past the last step and on "prev" past the first keeps the focus on
    the button (a disabled button would drop it to the page)."""
    found = []
    for index in range(page.locator(".mag-stepper").count()):
        stepper = page.locator(".mag-stepper").nth(index)
        frames = stepper.locator(".mag-frame").count()
        for button, end in (("mag-next", frames - 1), ("mag-prev", 0)):
            stepper.locator(f".{button}").focus()
            for _ in range(frames + 1):
                page.keyboard.press("Enter")
            at = stepper.evaluate("""s => [document.activeElement.className,
              [...s.querySelectorAll('.mag-frame')].findIndex(
                f => f.classList.contains('mag-on'))]""")
            if at != [button, end]:
                found.append(f"stepper {index}: {button} to its end leaves focus, frame at {at}")
    return found


def reader_problems(seen: dict, mode: str, width: int, page: Page, site: Path | None) -> list[str]:
    found = []
    if seen["theme"] != mode:
        found.append(f"data-theme is {seen['theme']!r}, expected {mode!r}")
    found += [f"math not typeset: {text!r}" for text in seen["untypeset"]]
    found += [f"image not drawn: {i['src']}" for i in seen["images"] if not i["drawn"]]
    found += [f"output runs off the column or scrolls sideways: {t!r}" for t in seen["overflowing"]]
    found += [f"output does not wrap: {t!r}" for t in seen["unwrapped"]]
    found += [f"a line of code or of an aligned output wraps: {t!r}" for t in seen["brokenLines"]]
    found += [f"scrolls sideways with no cue: {t!r}" for t in seen["uncued"]]
    found += [f"inline code breaks inside a name: {t!r}" for t in seen["midName"]]
    found += [f"a table does not fit the column: {t!r}" for t in seen["cutTables"]]
    found += [f"an equation is wider than the column: {t!r}" for t in seen["wideMath"]]
    found += [f"outputs shown out of the order printed: {t!r}" for t in seen["disordered"]]
    found += [f"drawing text {t}" for t in seen["smallText"]]
    found += [f"contrast under {CONTRAST}:1: {t}" for t in seen["lowContrast"]]
    found += [f"the search icon covers the field's text: {t}" for t in seen["coveredSearch"]]
    if seen["pageScrolls"]:
        found.append("the page scrolls sideways")
    if seen["headerHeight"] > 0:
        found.append(f"an empty top bar, {seen['headerHeight']:.0f} px high")
    for drawing in seen["inlineDrawings"]:
        found += faint_drawing("inline drawing", drawing["svg"], drawing)
    if site is not None:
        for image in seen["images"]:
            found += small_image_text(image, page, site, smallest_text(width))
            path = image_file(image, page, site)
            if path is not None and path.suffix == ".svg":
                found += faint_drawing(path.name, path.read_text(encoding="utf-8"), image)
    return found


def image_file(image: dict, page: Page, site: Path) -> Path | None:
    src = unquote(urlsplit(page.url).path).rsplit("/", 1)[0] + "/" + image["src"]
    path = (site / src.lstrip("/")).resolve()
    return path if path.is_file() else None


def faint_drawing(name: str, svg: str, shown: dict) -> list[str]:
    """Edges and labels of a Graphviz drawing under MIN_DRAWN_CONTRAST, as the page shows them."""
    if 'class="graph"' not in svg:
        return []  # a plot: its lines are data, coloured by series
    faint = [(what, r) for what, r in drawing_contrast.lowest_contrasts(
        svg, shown["filter"], shown["background"]) if r < MIN_DRAWN_CONTRAST]
    return [f"{name}: {what} at {r:.2f}:1" for what, r in faint]


def smallest_text(width: int) -> float:
    """The smallest drawing text allowed at a window width: a phone is held closer."""
    return SMALLEST_TEXT if width >= DESKTOP else PHONE_SMALLEST_TEXT


def small_image_text(image: dict, page: Page, site: Path, smallest: float) -> list[str]:
    """An SVG output image whose smallest text, at the width the page shows it, is too small."""
    path = image_file(image, page, site)
    if path is None or path.suffix != ".svg":
        return []
    natural, text = chapter_page.image_facts(path)
    if text is None or not natural:
        return []
    shown = text * image["width"] / natural
    return [f"{path.name}: text {shown:.1f} px"] if shown < smallest else []


# ---- the check itself, on a page made to fail ---------------------------------------------------


def test_the_page_check_reports_what_a_reader_would_see_broken(
    browser: Browser, tmp_path: Path
) -> None:
    long = "RuntimeError: " + "x" * 400
    (tmp_path / "bad.html").write_text(
        f"""<html data-theme="light"><head><style>pre {{ white-space: pre; }}</style></head>
        <body><header id="pst-header" style="height: 64px">Search</header>
        <article class="bd-article" style="width: 300px">
        <p><span class="math">\\(x^2\\)</span></p><img src="missing.png">
        <div class="cell"><div class="cell_output"><div class="output traceback">
        <pre style="overflow-x: auto">{long}</pre></div></div></div>
        <div class="cell tag_wide-table"><div class="cell_output"><div class="output">
        <pre style="overflow-x: auto">{long}</pre></div></div></div>
        <div class="cell"><div class="cell_input"><pre style="overflow-x: auto">def f():
            return {long}</pre></div><div class="cell_output"><div class="output">
        <pre style="white-space: pre-wrap">  a    b\n  1    {long}</pre></div></div></div>
        <form class="bd-search" style="position: relative"><i style="position: absolute;
        left: 4px; display: inline-block; width: 16px; height: 16px"></i><input
        style="padding-left: 6px" placeholder="Search"></form>
        <script src="https://cdn.example/lib.js"></script><script>notDefined()</script>
        </article></body></html>"""
    )
    with serve(tmp_path) as url:
        found, seen = open_page(browser, f"{url}/bad.html", PHONE, "light", "check-bad")
    (SCREENSHOTS / f"check-bad-{PHONE}-light.png").unlink()
    assert seen["math"] == 1 and seen["coldBytes"] > 0
    expected = [
        "request to another host: https://cdn.example/lib.js",
        "page error: ",
        "HTTP 404: ",
        "math not typeset: ",
        "image not drawn: ",
        "output runs off the column or scrolls sideways: 'RuntimeError: xxx",
        "output does not wrap: ",
        "output runs off the column or scrolls sideways: 'wide table without its note",
        "a line of code or of an aligned output wraps: 'output: a    b",
        "scrolls sideways with no cue: 'code: def f():",
        "an empty top bar",
        "the search icon covers the field's text: ",
        "axe html-has-lang (serious, 1 elements): html",
        "axe image-alt (critical, 1 elements): img",
    ]
    assert [any(f.startswith(e) for f in found) for e in expected] == [True] * len(expected), found


@pytest.mark.slow
def test_a_phone_opens_a_drawing_full_size_at_its_own_width(
    browser: Browser, server: str, site: Path
) -> None:
    """Mobile Chromium lays a bare SVG out at 980 px and shrinks it to the screen; the
    full-size page has a viewport of the phone's own width, so the drawing is shown at its
    natural size, to scroll and zoom."""
    chapter = site / "book/chapters/05_dynamic_and_static_graphs.html"
    links = re.findall(r'class="full-size-link" href="([^"]+)"', chapter.read_text("utf-8"))
    assert links and all(link.endswith(".svg.html") for link in links), links
    ctx = touch_phone(browser)
    page = ctx.new_page()
    bare_widths = []
    for link in links:
        image = (chapter.parent / link.removesuffix(".html")).resolve()
        page.goto(f"{server}/book/chapters/{link.removesuffix('.html')}", wait_until="networkidle")
        bare_widths.append(page.evaluate("() => document.documentElement.clientWidth"))
        page.goto(f"{server}/book/chapters/{link}", wait_until="networkidle")
        viewport, width = page.evaluate("""() => [document.documentElement.clientWidth,
            document.querySelector('img').getBoundingClientRect().width]""")
        assert (viewport, round(width)) == (PHONE, round(chapter_page.image_facts(image)[0]))
    page.screenshot(path=str(SCREENSHOTS / "full-size-390.png"))
    ctx.close()
    # What the link opened before, the bare file, is laid out wider than the phone, zoomed out.
    assert min(bare_widths) > PHONE, bare_widths


@pytest.mark.slow
def test_a_touch_phone_shows_what_hover_shows_and_the_contents_get_out_of_the_way(
    browser: Browser, server: str
) -> None:
    ctx = touch_phone(browser)
    page = ctx.new_page()
    page.goto(f"{server}/book/chapters/04_detach_and_no_grad.html", wait_until="networkidle")
    shown = page.evaluate("""() => [
      getComputedStyle(document.querySelector('div.highlight button.copybtn')).opacity,
      getComputedStyle(document.querySelector('h2 a.headerlink')).visibility]""")
    assert shown == ["1", "visible"]
    page.click(".secondary-toggle")
    contents = "#pst-secondary-sidebar-modal"
    page.wait_for_function(f"() => document.querySelector('{contents}').open")
    page.locator(f"{contents} a[href^='#'] >> visible=true").nth(2).tap()
    page.wait_for_function(f"() => !document.querySelector('{contents}').open")
    page.evaluate("() => window.scrollTo(0, 3000)")
    page.wait_for_function(
        "() => getComputedStyle(document.querySelector('#pst-back-to-top')).display !== 'none'")
    button = page.evaluate("""() => { const r = document.querySelector('#pst-back-to-top')
      .getBoundingClientRect(); return [r.left, r.right, r.width, r.height]; }""")
    ctx.close()
    left, right, width, height = button
    assert left > PHONE - 60 and right <= PHONE and min(width, height) >= 44, button


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_a_printed_chapter_is_light_with_every_fold_open_and_every_stepper_frame(
    browser: Browser, server: str, mode: str
) -> None:
    ctx = context(browser, DESKTOP, mode)
    page = ctx.new_page()
    page.goto(f"{server}/book/chapters/01_what_autograd_does.html", wait_until="networkidle")
    page.wait_for_function(THEME_SET)
    page.emulate_media(media="print")
    page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    printed = page.evaluate("""() => ({
      theme: document.documentElement.dataset.theme,
      closed: [...document.querySelectorAll('details')].filter(d => !d.open).length,
      folds: document.querySelectorAll('details').length,
      frames: [...document.querySelectorAll('.mag-frame')].map(f => getComputedStyle(f).display),
      controls: [...document.querySelectorAll('.mag-controls')].map(
        c => getComputedStyle(c).display)})""")
    page.screenshot(path=str(SCREENSHOTS / f"print-{mode}.png"), full_page=True)
    page.evaluate("() => window.dispatchEvent(new Event('afterprint'))")
    after = page.evaluate("""() => [document.documentElement.dataset.theme,
      [...document.querySelectorAll('details')].filter(d => d.open).length]""")
    ctx.close()
    assert printed["theme"] == "light" and printed["folds"] > 0 and printed["closed"] == 0
    assert len(printed["frames"]) > 1 and set(printed["frames"]) == {"block"}
    assert set(printed["controls"]) == {"none"}
    assert after == [mode, 0]  # as it was before printing


# Are the folds around an element open (null: it is in none)? A side road is a <details>; a
# box checking a common description is a dropdown admonition, folded by sphinx-togglebutton.
FOLD_OPEN = """id => { const target = document.getElementById(id);
  const road = target?.closest('details.section-fold');
  const box = target?.closest('.admonition.dropdown');
  if (!road && !box) { return null; }
  return (!road || road.open) && (!box || !box.classList.contains('toggle-hidden')); }"""


@pytest.mark.slow
@pytest.mark.parametrize("anchor", ["ch1-claim-set-to-none", "ch1-claim-nodes-are-functions"])
def test_a_link_into_a_fold_opens_it(browser: Browser, server: str, anchor: str) -> None:
    """A claim checked inside a side road or a folded box, reached from the appendix's table
    and by its own address: the fold around it opens, and the claim is on screen."""
    ctx = context(browser, PHONE, "light")
    page = ctx.new_page()
    chapter = f"{server}/book/chapters/01_what_autograd_does.html"
    page.goto(chapter, wait_until="networkidle")
    page.wait_for_function("() => document.querySelector('button.toggle-button')")
    closed = page.evaluate(f"() => ({FOLD_OPEN})('{anchor}') === false")
    page.goto(f"{server}/book/appendix/common_claims.html", wait_until="networkidle")
    page.click(f"a[href$='#{anchor}']")
    page.wait_for_url(f"**/01_what_autograd_does.html#{anchor}")
    page.wait_for_function(f"() => ({FOLD_OPEN})('{anchor}')")
    on_screen = page.evaluate(f"""() => {{ const r = document.getElementById(
      '{anchor}').getBoundingClientRect(); return r.height > 0 && r.top >= 0
      && r.top < innerHeight; }}""")
    ctx.close()
    assert closed and on_screen


# ---- navigation ---------------------------------------------------------------------------------

ON_SCREEN = """sel => [...document.querySelectorAll(sel)].filter(a => {
  const r = a.getBoundingClientRect();
  const style = getComputedStyle(a);
  return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && style.visibility !== 'hidden'
    && r.bottom <= innerHeight && r.right <= innerWidth;
}).map(a => a.textContent.trim())"""


def visible(page: Page, selector: str) -> list:
    return [e for e in page.query_selector_all(selector) if e.is_visible()]


def on_screen_once_settled(page: Page, selector: str, at_least: int) -> list[str]:
    """The links of ``selector`` on screen, once ``at_least`` of them are (0: once none is); a
    sidebar slides in or out after a click. Waits at most PAGE_TIMEOUT_MS, then reads anyway,
    so the caller's assertion says what was found."""
    settled = (f"([sel, least]) => {{ const n = ({ON_SCREEN})(sel).length;"
               " return least ? n >= least : n === 0; }")
    with contextlib.suppress(PlaywrightError):  # a timeout: the assertion reports what is there
        page.wait_for_function(settled, arg=[selector, at_least], timeout=PAGE_TIMEOUT_MS)
    return page.evaluate(ON_SCREEN, selector)


@pytest.mark.slow
@pytest.mark.parametrize("width", [PHONE, TABLET, DESKTOP])
def test_the_menu_and_the_contents_open_at_every_width(
    width: int, browser: Browser, server: str
) -> None:
    ctx = context(browser, width, "light")
    page = ctx.new_page()
    page.goto(f"{server}/book/chapters/04_detach_and_no_grad.html", wait_until="networkidle")
    chapters = "#pst-primary-sidebar-modal nav a, #pst-primary-sidebar nav a"
    sections = "#pst-secondary-sidebar-modal a[href^='#'], #pst-secondary-sidebar a[href^='#']"
    [menu] = visible(page, ".primary-toggle")
    if width >= 992:  # the menu is a sidebar, on screen; the button folds and unfolds it
        assert len(page.evaluate(ON_SCREEN, chapters)) >= 6
        menu.click()
        assert on_screen_once_settled(page, chapters, 0) == []
        menu.click()
    else:
        assert page.evaluate(ON_SCREEN, chapters) == []  # hidden until asked for
        menu.click()
    shown = on_screen_once_settled(page, chapters, 6)
    assert len(shown) >= 6 and any("detach()" in s for s in shown), shown
    page.screenshot(path=str(SCREENSHOTS / f"menu-{width}.png"))
    page.keyboard.press("Escape")
    if width < 992:  # Escape closes the menu's dialog
        assert on_screen_once_settled(page, chapters, 0) == []
    toggles = visible(page, ".secondary-toggle")
    if width >= 1200:  # the contents are a sidebar, always on screen
        assert toggles == []
    else:
        toggles[0].click()
    shown = on_screen_once_settled(page, sections, 4)
    assert len(shown) >= 4 and any("What detach() returns" in s for s in shown), shown
    page.screenshot(path=str(SCREENSHOTS / f"contents-{width}.png"))
    ctx.close()


# ---- search -------------------------------------------------------------------------------------

NAVIGATION_TEXT = (
    "Skip to main content", "Back to top", "previous", "Contents", "Open in Colab", ".pdf",
)


def search(page: Page, server: str, query: str, edition: str = "") -> None:
    """Search the site (or the edition in the folder `edition`) for ``query``. Sphinx lists
    the results, then fetches each page for its snippet: wait for the search to finish (its
    summary, "Search finished", or 搜索完成, 搜尋結束) and for every result's snippet (a result
    that is an object has a span instead)."""
    page.goto(f"{server}/{edition}search.html?q={query}", wait_until="networkidle")
    page.wait_for_function(
        """() => /Search finished|搜索完成|搜尋結束/.test(
                   document.querySelector('#search-results .search-summary')?.textContent || '')
          && [...document.querySelectorAll('#search-results ul.search > li')]
               .every(li => li.querySelector('p.context, span'))""",
        timeout=PAGE_TIMEOUT_MS,
    )


@pytest.mark.slow
def test_search_ranks_the_chapter_a_word_is_about_first_with_snippets_from_its_text(
    browser: Browser, server: str
) -> None:
    ctx = context(browser, DESKTOP, "light")
    page = ctx.new_page()
    search(page, server, "detach")
    results = page.evaluate(
        """() => [...document.querySelectorAll('#search-results ul.search > li')].map(li => ({
          href: li.querySelector('a').getAttribute('href'),
          snippet: (li.querySelector('p.context') || {textContent: ''}).textContent}))"""
    )
    page.screenshot(path=str(SCREENSHOTS / "search-detach.png"), full_page=True)
    ctx.close()
    assert results, "no results"
    assert results[0]["href"].startswith("book/chapters/04_detach_and_no_grad.html"), results[:3]
    noisy = [r for r in results if any(t in r["snippet"] for t in NAVIGATION_TEXT)]
    assert noisy == []
    assert sum("detach" in r["snippet"].lower() for r in results) >= len(results) // 2


@pytest.mark.slow
def test_search_lists_a_glossary_term_once_and_fits_a_phone(
    browser: Browser, server: str
) -> None:
    """`retain_graph` is a glossary term, and the glossary page contains it: the term result
    names the term, and the glossary page is not listed again. Snippets of printed code
    (one long token) do not widen the results page on a phone."""
    ctx = touch_phone(browser)
    page = ctx.new_page()
    search(page, server, "retain_graph")
    results = page.evaluate("""() => [...document.querySelectorAll(
      '#search-results ul.search > li > a')].map(a => [a.getAttribute('href'), a.textContent])""")
    width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    page.screenshot(path=str(SCREENSHOTS / "search-retain_graph-390.png"))
    ctx.close()
    glossary = [r for r in results if r[0].startswith("book/appendix/glossary.html")]
    assert glossary == [["book/appendix/glossary.html#term-retain_graph",
                         "retain_graph (Glossary)"]], results
    assert width == [PHONE, PHONE]


# A query, the word a result's snippet shows and a page it must find. 内存泄漏 is no word of
# the index (jieba cut it into 内存 and 泄漏), 版本计数器 is one (a term of terms.md), and
# 反向傳播 is written in Traditional characters. 自动求导, the usual Chinese word for autograd
# (which terms.md keeps in English), is named once, where the intro and chapter 1 first name it.
CHINESE_QUERIES = [
    ("反向传播", "反向传播", "book/chapters/01_", "zh_CN/"),
    ("叶子张量", "叶子张量", "book/chapters/01_", "zh_CN/"),
    ("内存泄漏", "内存泄漏", "book/chapters/04_", "zh_CN/"),
    ("版本计数器", "版本计数器", "book/chapters/02_", "zh_CN/"),
    ("反向傳播", "反向传播", "book/chapters/01_", "zh_CN/"),
    # The Traditional edition (Taiwan's words: 記憶體洩漏 for 内存泄漏), and a Simplified query
    # there.
    ("反向傳播", "反向傳播", "book/chapters/01_", "zh_TW/"),
    ("記憶體洩漏", "記憶體洩漏", "book/chapters/04_", "zh_TW/"),
    ("反向传播", "反向傳播", "book/chapters/01_", "zh_TW/"),
    ("自动求导", "自动求导", "book/chapters/01_", "zh_CN/"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("query", "shown", "page_prefix", "edition"), CHINESE_QUERIES)
def test_the_chinese_edition_finds_chinese_words(browser: Browser, server: str, query: str,
                                                 shown: str, page_prefix: str,
                                                 edition: str) -> None:
    """Chinese has no spaces between words: Sphinx's Chinese search splits the pages with
    jieba, and the search page splits the query into the index's words (search_scorer.js), so
    a word is found inside a sentence, whether or not the index holds it whole, and in the
    other script's characters too."""
    ctx = touch_phone(browser)
    page = ctx.new_page()
    search(page, server, query, edition=edition)
    results = page.evaluate(
        """() => [...document.querySelectorAll('#search-results ul.search > li')].map(li => ({
          href: li.querySelector('a').getAttribute('href'),
          snippet: (li.querySelector('p.context') || {textContent: ''}).textContent}))"""
    )
    width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    page.screenshot(path=str(SCREENSHOTS / f"search-{edition.strip('/')}-{query}-390.png"))
    ctx.close()
    assert any(r["href"].startswith(page_prefix) for r in results), results
    assert any(shown in r["snippet"] for r in results), results
    assert width == [PHONE, PHONE]


@pytest.mark.slow
@pytest.mark.parametrize("edition", ["zh_CN", "zh_TW"])
def test_the_chinese_stepper_and_fold_buttons_speak_chinese(browser: Browser, server: str,
                                                            edition: str) -> None:
    """What scripts write on a Chinese page: sphinx-togglebutton's buttons on the hints (named
    by site.js) and the stepper's slider value and caption (translated at build time)."""
    ctx = context(browser, DESKTOP, "light")
    page = ctx.new_page()
    page.goto(f"{server}/{edition}/book/chapters/01_what_autograd_does.html", wait_until="load")
    page.wait_for_function("() => document.querySelector('button.toggle-button')")
    page.wait_for_timeout(200)
    found = page.evaluate("""() => ({
      toggles: [...document.querySelectorAll('button.toggle-button')]
        .map(b => b.getAttribute('aria-label')),
      slider: document.querySelector('.mag-slider').getAttribute('aria-valuetext'),
      caption: document.querySelector('.mag-caption').textContent,
      buttons: [...document.querySelectorAll('.mag-controls button')].map(b => b.textContent),
    })""")
    ctx.close()
    simplified = edition == "zh_CN"
    assert found["toggles"] and set(found["toggles"]) == {
        "显示或隐藏内容" if simplified else "顯示或隱藏內容"}, found
    assert found["slider"].startswith("第 0 步，共 "), found
    assert found["caption"].startswith(
        "反向传播开始前：种子梯度" if simplified else "反向傳播開始前：種子梯度"), found
    assert found["buttons"] == ["◀ 上一步", "下一步 ▶"], found
