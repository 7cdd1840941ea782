"""Paths shared by the book tests: the repository, the chapter notebooks, the built pages."""

from __future__ import annotations

import sys
from pathlib import Path

import build_book

ROOT = build_book.ROOT
# The book's Sphinx extensions (book/_ext): the tests use their helpers (versions, image sizes).
sys.path.insert(0, str(ROOT / "book" / "_ext"))
CHAPTERS = sorted((ROOT / "book" / "chapters").glob("*.ipynb"))
# Folders of the site that hold assets, not pages.
ASSET_DIRS = {"_static", "_sources", "_images"}


def site_pages(site: Path) -> list[Path]:
    """Every HTML page of the site (not the HTML inside asset folders)."""
    return sorted(
        p for p in site.rglob("*.html") if not ASSET_DIRS & set(p.relative_to(site).parts)
    )


# Debian's Chromium, which Playwright drives (it never downloads a browser of its own).
CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
