"""No built page loads anything from another host: no script, style, font, image or frame.

Links that the reader clicks (`<a href>`: Colab, the repository, PyTorch's docs) are fine.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

# Attributes whose URL the browser fetches by itself, on any element.
LOADING_ATTRIBUTES = ("src", "data", "poster", "background", "xlink:href")
# Elements whose `href` is a click, not a load.
CLICKED = {"a", "area"}
# <link rel=...> values that name a related page rather than fetch anything.
NOT_FETCHED = {"canonical", "alternate", "author", "license", "help", "next", "prev", "index"}
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""")
REFRESH_URL = re.compile(r"url\s*=\s*(\S+)", re.IGNORECASE)


def is_other_host(url: str) -> bool:
    """True for an absolute URL (scheme://host or //host) that a page would fetch remotely."""
    url = url.strip()
    return url.startswith("//") or re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*://", url) is not None


def css_loads(css: str) -> list[str]:
    return [a or b for a, b in CSS_URL.findall(css) if is_other_host(a or b)]


def external_loads(html: str) -> list[str]:
    """Each load of another host's resource in an HTML page, as 'tag attribute=url'."""
    found = []
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(True):
        urls = [(name, tag[name]) for name in LOADING_ATTRIBUTES if tag.has_attr(name)]
        if tag.has_attr("srcset"):
            urls += [("srcset", part.split()[0]) for part in tag["srcset"].split(",") if part]
        rel = set(tag.get("rel", [])) if tag.name == "link" else set()
        if tag.has_attr("href") and tag.name not in CLICKED and not rel & NOT_FETCHED:
            urls.append(("href", tag["href"]))
        if tag.name == "meta" and tag.get("http-equiv", "").lower() == "refresh":
            urls += [("content", url) for url in REFRESH_URL.findall(tag.get("content", ""))]
        if tag.has_attr("style"):
            urls += [("style", url) for url in css_loads(tag["style"])]
        if tag.name == "style":
            urls += [("url", url) for url in css_loads(tag.get_text())]
        found += [f"<{tag.name}> {name}={url}" for name, url in urls if is_other_host(url)]
    return found


def test_the_scanner_flags_loads_and_spares_clicks() -> None:
    page = """<html><head>
      <link rel="stylesheet" href="https://cdn.example/x.css">
      <link rel="preconnect" href="https://fonts.example">
      <link rel="canonical" href="https://book.example/intro.html">
      <script src="//cdn.example/a.js"></script>
      <style>@font-face { src: url('https://fonts.example/f.woff2') }</style>
      <meta http-equiv="refresh" content="0; url=https://elsewhere.example/">
      </head><body>
      <a href="https://colab.research.google.com/">Colab</a>
      <img src="../_images/graph.svg"><img srcset="a.png 1x, https://img.example/b.png 2x">
      <iframe src="https://video.example/embed"></iframe>
      <div style="background: url(data:image/png;base64,AAAA)"></div>
      <svg><image xlink:href="https://img.example/c.png"/></svg>
      <script src="../_static/../_mathjax/tex-chtml.js"></script>
    </body></html>"""
    assert external_loads(page) == [
        "<link> href=https://cdn.example/x.css",
        "<link> href=https://fonts.example",
        "<script> src=//cdn.example/a.js",
        "<style> url=https://fonts.example/f.woff2",
        "<meta> content=https://elsewhere.example/",
        "<img> srcset=https://img.example/b.png",
        "<iframe> src=https://video.example/embed",
        "<image> xlink:href=https://img.example/c.png",
    ]


def test_no_page_loads_from_another_host(pages: list[Path], site: Path) -> None:
    offending = {
        str(page.relative_to(site)): loads
        for page in pages
        if (loads := external_loads(page.read_text(encoding="utf-8")))
    }
    assert not offending


def test_no_stylesheet_loads_from_another_host(site: Path) -> None:
    sheets = sorted(site.rglob("*.css"))
    assert sheets, "the site has no CSS at all"
    offending = {
        str(sheet.relative_to(site)): loads
        for sheet in sheets
        if (loads := css_loads(sheet.read_text(encoding="utf-8", errors="replace")))
    }
    assert not offending


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://a.example/x.js", True),
        ("//a.example/x.js", True),
        ("HTTP://A.EXAMPLE", True),
        ("../_static/x.js", False),
        ("data:image/png;base64,AAAA", False),
        ("#section", False),
        ("mailto:someone@example.org", False),
    ],
)
def test_other_host_urls(url: str, expected: bool) -> None:
    assert is_other_host(url) is expected
