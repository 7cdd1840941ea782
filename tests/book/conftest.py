"""Fixtures of the book tests: the site, built once per session or reused when current, and
headless Chromium."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import build_book
import pytest
from playwright.sync_api import Browser, sync_playwright
from site_tools import ARGS, CHROMIUM, site_pages


@pytest.fixture(scope="session")
def site() -> Iterator[Path]:
    """_build/html, rebuilt from scratch with -W -n unless its inputs are unchanged; no other
    process rebuilds it until this session ends."""
    with build_book.exclusive() as lock:
        try:
            build_book.build(capture=True)
        except subprocess.CalledProcessError as error:
            pytest.fail(f"the book build failed:\n{error.stdout[-8000:]}", pytrace=False)
        build_book.share(lock)
        yield build_book.HTML


@pytest.fixture(scope="session")
def pages(site: Path) -> list[Path]:
    found = site_pages(site)
    assert found, f"no HTML pages under {site}"
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's headless Chromium, through Playwright."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-os-deps.sh chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()
