"""Build the site into _build/html from scratch, with warnings as errors, unless it is current.

A build is "current" when a digest of everything it reads (the book's sources, the two
Jupyter Book configs, the pinned tool versions, MathJax's lock and this script) equals the one
recorded after the last *successful* build. An incremental Sphinx build would not repeat the
warnings of unchanged pages, so a stale site is always removed and rebuilt in full. Usage::

    python scripts/build_book.py [--force]
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
HTML = BUILD / "html"
DIGEST = BUILD / "html.inputs.sha256"
LOCK = BUILD / "html.lock"
INPUTS = ("_config.yml", "_toc.yml", "requirements.txt", "constraints.txt", "package-lock.json")
IGNORED_PARTS = {".ipynb_checkpoints", "__pycache__"}
COMMAND = ("build", ".", "--builder", "html", "-W", "-n", "--keep-going", "--all")


def input_files() -> list[Path]:
    book = [
        p
        for p in (ROOT / "book").rglob("*")
        if p.is_file() and not IGNORED_PARTS & set(p.relative_to(ROOT).parts)
    ]
    return sorted([*book, *(ROOT / name for name in INPUTS), Path(__file__).resolve()])


def digest() -> str:
    """SHA-256 over the paths and contents of every input of the build."""
    sha = hashlib.sha256()
    for path in input_files():
        sha.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        sha.update(path.read_bytes() if path.exists() else b"<missing>")
        sha.update(b"\0")
    return sha.hexdigest()


def is_current() -> bool:
    return (HTML / "index.html").is_file() and DIGEST.is_file() and DIGEST.read_text() == digest()


_held: list[IO[str]] = []  # this process's open lock, while it holds it


@contextmanager
def exclusive() -> Iterator[IO[str]]:
    """Hold the site's lock: builds in the same tree (several pytest sessions, `make`) take
    turns, and none deletes the site while a test session holds the lock shared (`share`).
    Within one process it is re-entrant: a second fixture of a session that already holds the
    lock shared upgrades that hold for its block, and shares it again after (a second open
    file would wait for the first one forever)."""
    if _held:
        fcntl.flock(_held[0], fcntl.LOCK_EX)  # waits only for other processes' readers
        try:
            yield _held[0]
        finally:
            fcntl.flock(_held[0], fcntl.LOCK_SH)
        return
    BUILD.mkdir(exist_ok=True)
    with LOCK.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for {LOCK}: another build or book-test session uses the site")
            fcntl.flock(handle, fcntl.LOCK_EX)
        _held.append(handle)
        try:
            yield handle
        finally:
            _held.clear()


def share(handle: IO[str]) -> None:
    """Turn the held exclusive lock into a shared one: readers only from now on."""
    fcntl.flock(handle, fcntl.LOCK_SH)


def build(force: bool = False, capture: bool = False) -> bool:
    """Build unless current; True if it built. Raises CalledProcessError on a failed build
    (with the build's log in its `stdout` when `capture`). Call it holding `exclusive()`."""
    if not force and is_current():
        return False
    expected = digest()
    DIGEST.unlink(missing_ok=True)
    for stale in (HTML, BUILD / ".doctrees", BUILD / "jupyter_execute"):
        shutil.rmtree(stale, ignore_errors=True)
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    subprocess.run(
        [str(jupyter_book), *COMMAND],
        cwd=ROOT,
        check=True,
        text=True,
        stdout=subprocess.PIPE if capture else None,
        stderr=subprocess.STDOUT if capture else None,
    )
    DIGEST.write_text(expected)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if current")
    args = parser.parse_args(argv)
    try:
        with exclusive():
            built = build(force=args.force)
    except subprocess.CalledProcessError as error:
        print(f"book build failed (exit {error.returncode}); see the warnings above")
        return 1
    if not built:
        print("_build/html is current (inputs unchanged since the last successful build)")
    print(f"Open the book: file://{HTML / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
