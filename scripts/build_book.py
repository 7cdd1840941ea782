"""Build the site into _build/html from scratch, with warnings as errors, unless it is current.

The site is three editions of the book: English at _build/html, Simplified Chinese at
_build/html/zh_CN and Traditional Chinese (Taiwan) at _build/html/zh_TW (the same sources,
translated by the catalogs of book/locale/zh_CN and book/locale/zh_TW, the latter generated from
the former; languages.py, traditional.py). After the English build the catalogs are checked
(scripts/translations.py): a page's sentence without a translation, or whose translation is
fuzzy or lost its markup, or a zh_TW catalog that is not what its zh_CN one generates, fails the
build. The two Chinese editions are then built side by side, each in its own process.

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
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import translations
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
HTML = BUILD / "html"
DIGEST = BUILD / "html.inputs.sha256"
LOCK = BUILD / "html.lock"
INPUTS = ("_config.yml", "_toc.yml", "requirements.txt", "constraints.txt", "package-lock.json",
          "scripts/translations.py",
          # the torch releases the chapter pages say they run on (chapter_page.torch_range)
          "tests/colab-requirements.txt", "tests/newest-torch.txt")
IGNORED_PARTS = {".ipynb_checkpoints", "__pycache__"}
IGNORED_SUFFIXES = {".mo"}  # compiled catalogs: Sphinx writes them during the build
COMMAND = ("build", ".", "--builder", "html", "-W", "-n", "--keep-going", "--all")
CHINESE = "zh_CN"
TRADITIONAL = "zh_TW"
TRANSLATED = (CHINESE, TRADITIONAL)
# Each Chinese edition is built beside the English one, in _build/LANGUAGE (Sphinx puts its
# doctrees and myst-nb its output images next to the output folder), then moved under it.


def input_files() -> list[Path]:
    book = [
        p
        for p in (ROOT / "book").rglob("*")
        if p.is_file() and not IGNORED_PARTS & set(p.relative_to(ROOT).parts)
        and p.suffix not in IGNORED_SUFFIXES
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
    for stale in (HTML, BUILD / ".doctrees", BUILD / "jupyter_execute",
                  *(BUILD / language for language in TRANSLATED)):
        shutil.rmtree(stale, ignore_errors=True)
    output = {"stdout": subprocess.PIPE if capture else None,
              "stderr": subprocess.STDOUT if capture else None}
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    started = time.monotonic()
    english = subprocess.run([str(jupyter_book), *COMMAND], cwd=ROOT, text=True, **output)
    if english.returncode:
        raise subprocess.CalledProcessError(english.returncode, english.args, english.stdout)
    english_s, started = time.monotonic() - started, time.monotonic()
    problems = translations.check(translations.catalogs())
    if problems:
        log = "\n".join(["The Chinese edition's catalogs do not match the pages "
                         "(run `python scripts/translations.py update`, then translate):",
                         *problems])
        print(log, file=sys.stderr)
        raise subprocess.CalledProcessError(1, "translations check", (english.stdout or "") + log)
    check_s, started = time.monotonic() - started, time.monotonic()
    failed, logs = translated_editions(capture)
    if failed:
        raise subprocess.CalledProcessError(1, f"the {' and '.join(failed)} build",
                                            (english.stdout or "") + logs)
    for language in TRANSLATED:
        shutil.move(BUILD / language / "html", HTML / language)
    print(f"Built the English site in {english_s:.0f} s, checked the catalogs in {check_s:.0f} s "
          f"and built the two Chinese sites side by side in {time.monotonic() - started:.0f} s.")
    DIGEST.write_text(expected)
    return True


def translated_editions(capture: bool) -> tuple[list[str], str]:
    """Build the Chinese editions at once, each in a child process (`build_edition`); the
    editions that failed, and their logs, one after the other (printed unless `capture`)."""
    failed, logs = [], ""
    with tempfile.TemporaryDirectory() as scratch:
        children = {}
        for language in TRANSLATED:
            log = (Path(scratch) / f"{language}.log").open("w+")
            children[language] = (log, subprocess.Popen(
                [sys.executable, __file__, "--edition", language], cwd=ROOT, text=True,
                stdout=log, stderr=subprocess.STDOUT))
        for language, (log, child) in children.items():
            code = child.wait()
            log.seek(0)
            text = log.read()
            log.close()
            if not capture:
                print(text, end="", flush=True)
            logs += text
            if code:
                failed.append(language)
    return failed, logs


def build_edition(language: str) -> int:
    """One translated edition into _build/LANGUAGE/html: Jupyter Book's own build (the
    command line's, with warnings as errors), with Sphinx's `language` set."""
    from jupyter_book.sphinx import build_sphinx

    # Compiled here, not by Sphinx (gettext_auto_build off): Sphinx compiles them only after it
    # has loaded the translations of the interface (sphinx.po), too late for a first build.
    for po in (ROOT / "book" / "locale" / language / "LC_MESSAGES").rglob("*.po"):
        with po.open("rb") as source, po.with_suffix(".mo").open("wb") as target:
            write_mo(target, read_po(source, locale=language))
    return build_sphinx(
        ROOT, BUILD / language / "html", path_config=str(ROOT / "_config.yml"), noconfig=True,
        confoverrides={"language": language, "external_toc_path": "_toc.yml",
                       "nitpicky": True, "latex_individualpages": False,
                       "gettext_auto_build": False},
        builder="html", warningiserror=True, keep_going=True, freshenv=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if current")
    parser.add_argument("--edition", help=argparse.SUPPRESS)  # a child that builds zh_CN, zh_TW
    args = parser.parse_args(argv)
    if args.edition:
        return build_edition(args.edition)
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
