"""Every internal link and anchor of the built site resolves: the page or file exists, and a
`#fragment` names an element of that page."""

from __future__ import annotations

import posixpath
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

# (element, attribute) pairs that point at another file of the site.
LINKING = {("a", "href"), ("link", "href"), ("script", "src"), ("img", "src"),
           ("iframe", "src"), ("source", "src"), ("object", "data"), ("area", "href")}


@cache
def _parse(page: Path) -> tuple[frozenset[str], tuple[str, ...]]:
    """A page's anchors and its links' addresses, read once: each page of the three editions is
    both linked from others and a page whose links are checked."""
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    ids = {tag["id"] for tag in soup.find_all(id=True)}
    names = {tag["name"] for tag in soup.find_all("a", attrs={"name": True})}
    links = tuple(tag[attribute] for tag in soup.find_all(True)
                  for attribute in (a for t, a in LINKING if t == tag.name and tag.has_attr(a)))
    return frozenset(ids | names), links


def anchors(page: Path) -> frozenset[str]:
    """The ids (and legacy `<a name>`s) a fragment can point at in `page`."""
    return _parse(page)[0]


def broken_links(page: Path, site: Path) -> list[str]:
    """Each internal link of `page` whose target file or fragment does not exist."""
    broken = []
    for link in _parse(page)[1]:
        url = urlsplit(link)
        if url.scheme or url.netloc:
            continue  # another host, mailto:, data:, javascript: - not ours to resolve
        path = unquote(url.path)
        if path:
            target = Path(posixpath.normpath(posixpath.join(page.parent.as_posix(), path)))
            if path.endswith("/") or target.is_dir():
                target = target / "index.html"
        else:
            target = page
        if not target.is_relative_to(site) or not target.is_file():
            broken.append(f"{link}: no file {target}")
        elif url.fragment and unquote(url.fragment) not in anchors(target):
            broken.append(f"{link}: no #{url.fragment} in {target.name}")
    return broken


def test_the_checker_finds_missing_files_and_anchors(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "index.html").write_text('<h1 id="top">T</h1><a name="old"></a>')
    (tmp_path / "style.css").write_text("")
    page = tmp_path / "page.html"
    page.write_text(
        """<link rel="stylesheet" href="style.css?v=1"><a id="here"></a>
        <a href="sub/">ok</a><a href="sub/index.html#top">ok</a><a href="sub/#old">ok</a>
        <a href="#here">ok</a><a href="#">ok</a><a href="https://pytorch.org/x">external</a>
        <a href="missing.html">1</a><a href="sub/index.html#nowhere">2</a><a href="#gone">3</a>
        <script src="../outside.js"></script><img src="sub/pic%20one.png">"""
    )
    assert [problem.split(":")[0] for problem in broken_links(page, tmp_path)] == [
        "missing.html",
        "sub/index.html#nowhere",
        "#gone",
        "../outside.js",
        "sub/pic%20one.png",
    ]


def test_every_internal_link_resolves(pages: list[Path], site: Path) -> None:
    broken = {
        str(page.relative_to(site)): problems
        for page in pages
        if (problems := broken_links(page, site))
    }
    assert not broken
