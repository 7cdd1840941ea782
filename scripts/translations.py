"""The Chinese editions' message catalogs (book/locale/zh_CN/LC_MESSAGES/**.po, translated;
book/locale/zh_TW/LC_MESSAGES/**.po, generated from them): extract, update, generate, check.
Usage::

    python scripts/translations.py update   # English changed: refresh the catalogs
    python scripts/translations.py traditional   # zh_CN changed: regenerate zh_TW
    python scripts/translations.py check [PO ...]   # what the drift gate and the build check

`update` extracts the messages of the English pages (Sphinx's gettext builder, one catalog a
page) and merges them into the catalogs with sphinx-intl: a new sentence arrives empty, a
changed one arrives fuzzy, a deleted one becomes obsolete. `check` fails on each of those, and
on a translation whose markup differs from its English: a code span, a reference's target, a
formula or a link's address changed, or emphasis that no longer renders. The figures' alt
texts (the chapter cells' metadata ``alt``, which no page catalog holds) are translated in the
interface catalog, by hand: `check` names each one it lacks (an empty message to fill in is
printed) and each one that no figure has any more. The comments in the chapters' code have a
catalog of their own (book/_ext/code_comments.py), which `update` and `check` treat the same way.

`traditional` writes the Traditional Chinese (Taiwan) catalogs from the Simplified ones
(book/_ext/traditional.py: OpenCC's s2twp, a reviewed table of terms and corrections of single
messages); `check` also fails when the checked-in zh_TW catalogs differ from what it writes, or
a correction is stale.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import code_comments  # noqa: E402  (the site's extension, which applies the catalog)
import traditional  # noqa: E402  (book/_ext: the Sphinx extensions use it too)

LANGUAGE = "zh_CN"
LOCALE = ROOT / "book" / "locale"
CATALOGS = LOCALE / LANGUAGE / "LC_MESSAGES"
# The interface words the themes and Sphinx leave untranslated in Chinese (tooltips, the search
# field): Sphinx reads this catalog after its own and the themes', for what they lack.
INTERFACE = CATALOGS / "sphinx.po"
COMMENTS = code_comments.catalog_path(LOCALE, LANGUAGE)
CHAPTERS = ROOT / "book" / "chapters"
GETTEXT = ("build", ".", "--builder", "custom", "--custom-builder", "gettext")

CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
ROLE = re.compile(r"\{(?P<name>[a-z][\w:-]*)\}`(?P<content>[^`]+)`")
EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)
MATH = re.compile(r"(?<![\\$])\$(?!\$)(?P<tex>[^$]+?)(?<!\\)\$")
URL = re.compile(r"\]\((?P<url>[^()\s]+)\)|(?<![(<\w])(?P<bare>https?://[^\s)>]+)")
CJK = re.compile(r"[\u4e00-\u9fff]")
IDENTIFIER = re.compile(r"^[\w.()\-]*[A-Z_\d.][\w.()\-]*$")  # AccumulateGrad, grad_fn, ULP
INLINE = MarkdownIt("commonmark")
TEX_COMMAND = re.compile(r"\\[A-Za-z]+")
ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")
COMMENT_LINE = re.compile(r"^[ \t]*%", re.MULTILINE)


def role_key(match: re.Match[str]) -> str:
    """A role as what must survive translation: its name and target (its text may change)."""
    name, content = match["name"], match["content"]
    if name in {"ref", "term", "doc", "numref"}:
        explicit = EXPLICIT.match(content)
        content = " ".join((explicit["target"] if explicit else content).split())
    return f"{{{name}}}{content}"


def markup(text: str) -> Counter[str]:
    """What a translation must keep as it is: code spans, references' targets, formulas and
    links' addresses, each counted."""
    found: Counter[str] = Counter()
    found.update(role_key(m) for m in ROLE.finditer(text))
    rest = ROLE.sub(" ", text)
    found.update(f"`{m[2]}`" for m in CODE.finditer(rest))
    rest = CODE.sub(" ", rest)
    found.update(f"${m['tex'].strip()}$" for m in MATH.finditer(rest))
    found.update(m["url"] or m["bare"] for m in URL.finditer(rest))
    return found


def unrendered_stars(text: str) -> int:
    """Asterisks that CommonMark leaves as text (an emphasis mark it could not pair, as happens
    when a mark sits between a CJK character and punctuation)."""
    html = INLINE.renderInline(ROLE.sub("R", CODE.sub("C", text)))
    return html.count("*")


def needs_chinese(msgid: str) -> bool:
    """English prose, as opposed to a name that both editions write the same way, or a
    displayed formula (its TeX is the message)."""
    prose = MATH.sub(" ", CODE.sub(" ", ROLE.sub(" ", msgid)))
    formula = prose.lstrip().startswith("\\") or (
        TEX_COMMAND.search(prose) and not ENGLISH_WORD.search(TEX_COMMAND.sub(" ", prose)))
    if formula:
        return False
    words = prose.split()
    return len(words) > 1 or (len(words) == 1 and not IDENTIFIER.match(words[0]))


def problems(path: Path) -> list[str]:
    """What is wrong with one catalog: each message untranslated, fuzzy, obsolete, without
    Chinese where its English is prose, or with its markup changed."""
    with path.open("rb") as handle:
        catalog: Catalog = read_po(handle)
    found = [f"obsolete (its English is gone): {m.id[:70]!r}" for m in catalog.obsolete.values()]
    for message in catalog:
        if not message.id:
            continue
        msgid, msgstr = message.id, message.string
        short = " ".join(msgid.split())[:70]
        if not msgstr:
            found.append(f"untranslated: {short!r}")
        elif message.fuzzy:
            found.append(f"fuzzy (its English changed): {short!r}")
        elif needs_chinese(msgid) and not CJK.search(msgstr):
            found.append(f"no Chinese in the translation of {short!r}")
        else:
            lost, added = markup(msgid) - markup(msgstr), markup(msgstr) - markup(msgid)
            if lost or added:
                found.append(f"markup changed in {short!r}: lost {sorted(lost)}, "
                             f"added {sorted(added)}")
            if COMMENT_LINE.search(msgstr) and not COMMENT_LINE.search(msgid):
                found.append(f"a comment line (TeX's or MyST's %, which no page shows) in the "
                             f"translation of {short!r}")
            if unrendered_stars(msgstr) > unrendered_stars(msgid):
                found.append(f"emphasis that does not render in {short!r}: {msgstr[:80]!r}")
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    return [f"{name}: {problem}" for problem in found]


def catalogs() -> list[Path]:
    """The pages' catalogs (the interface catalog is checked with them, see `check`)."""
    return sorted(p for p in CATALOGS.rglob("*.po") if p != INTERFACE)


def extract(into: Path) -> Path:
    """The English pages' messages as .pot files (one a page) under `into`/gettext."""
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    subprocess.run([str(jupyter_book), *GETTEXT, "--path-output", str(into), "--quiet"],
                   cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return into / "_build" / "gettext"


def stale(pot_dir: Path, catalog_dir: Path = CATALOGS) -> list[str]:
    """Pages whose catalog is missing, or holds other messages than the page now has (a
    catalog of no page is stale too)."""
    found = []
    pots = sorted(pot_dir.rglob("*.pot"))
    pages = {pot.relative_to(pot_dir).with_suffix(".po") for pot in pots}
    found += [f"{po.relative_to(catalog_dir)}: a catalog of no page"
              for po in sorted(catalog_dir.rglob("*.po"))
              if po.relative_to(catalog_dir) not in pages and po.name != INTERFACE.name]
    for pot in pots:
        relative = pot.relative_to(pot_dir).with_suffix(".po")
        po = catalog_dir / relative
        if not po.exists():
            found.append(f"{relative}: no catalog for this page")
            continue
        with pot.open("rb") as handle:
            wanted = {m.id for m in read_po(handle) if m.id}
        with po.open("rb") as handle:
            catalog = read_po(handle)
        have = {m.id for m in catalog if m.id and not m.fuzzy}
        if missing := wanted - have:
            found.append(f"{relative}: {len(missing)} message(s) of the page not in the "
                         f"catalog (or fuzzy), e.g. {' '.join(sorted(missing)[0].split())[:70]!r}")
        # The interface catalog also holds the themes' words, which no page of ours extracts.
        if (extra := have - wanted) and po.name != INTERFACE.name:
            found.append(f"{relative}: {len(extra)} message(s) no longer on the page, e.g. "
                         f"{' '.join(sorted(extra)[0].split())[:70]!r}")
    return found


def tidy(path: Path) -> None:
    """One header for every catalog, without the dates that would change it at each update."""
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=LANGUAGE)
    catalog.project, catalog.version = "Autograd, Run and Rebuilt", ""
    catalog.fuzzy = False
    catalog.header_comment = "# The Chinese edition of the book (scripts/translations.py)."
    with path.open("wb") as handle:
        write_po(handle, catalog, width=76, omit_header=False, ignore_obsolete=False)
    text = path.read_text(encoding="utf-8")
    text = re.sub(r'^"(POT-Creation-Date|PO-Revision-Date|Last-Translator|Language-Team|'
                  r'Report-Msgid-Bugs-To): .*\\n"\n', "", text, flags=re.MULTILINE)
    path.write_text(text, encoding="utf-8")


def update() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        pot_dir = extract(Path(scratch))
        # Sphinx's own template messages: the interface catalog (INTERFACE) holds only the
        # words the themes lack, kept by hand; a merge would mark them all obsolete.
        (pot_dir / INTERFACE.with_suffix(".pot").name).unlink(missing_ok=True)
        intl = Path(sys.executable).with_name("sphinx-intl")
        subprocess.run([str(intl), "update", "-p", str(pot_dir), "-l", LANGUAGE,
                        "-d", str(LOCALE), "-w", "76"], cwd=ROOT, check=True)
    for path in catalogs():
        tidy(path)
    update_comments()


def code_sources(chapters: Path = CHAPTERS) -> list[str]:
    """The code of the chapters' cells that a page or a reader's edition shows (every one
    but the verification cells)."""
    sources = []
    for notebook in sorted(chapters.glob("*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code" and "book-check" not in cell["metadata"].get("tags", []):
                sources.append("".join(cell["source"]))
    return sources


def comments_template(chapters: Path = CHAPTERS) -> Catalog:
    template = Catalog(locale=LANGUAGE)
    for message in code_comments.messages(code_sources(chapters)):
        template.add(message)
    return template


def update_comments(path: Path = COMMENTS) -> None:
    """The code comments' catalog merged with the comments the chapters now have."""
    if path.exists():
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=LANGUAGE)
    else:
        catalog = Catalog(locale=LANGUAGE)
    catalog.update(comments_template())
    with path.open("wb") as handle:
        write_po(handle, catalog, width=76, ignore_obsolete=False)
    tidy(path)


def stale_comments(path: Path = COMMENTS, chapters: Path = CHAPTERS) -> list[str]:
    """Comments of the chapters that the catalog lacks, and its messages of no comment."""
    wanted = {m.id for m in comments_template(chapters) if m.id}
    with path.open("rb") as handle:
        have = {m.id for m in read_po(handle) if m.id and not m.fuzzy}
    name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    return ([f"{name}: a code comment not in the catalog (or fuzzy): {m[:70]!r}"
             for m in sorted(wanted - have)]
            + [f"{name}: a message of no code comment: {m[:70]!r}" for m in sorted(have - wanted)])


def alt_texts(chapters: Path = CHAPTERS) -> list[str]:
    """The alt texts of the chapters' output images (a cell's metadata ``alt``: one string, or
    one per image), in the order of the pages."""
    found = []
    for notebook in sorted(chapters.glob("*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            alt = cell.get("metadata", {}).get("alt")
            found += [alt] if isinstance(alt, str) else list(alt or [])
    return found


def alt_problems(texts: list[str], interface: Path = INTERFACE) -> list[str]:
    """Alt texts that the interface catalog does not translate, and its messages that look
    like alt texts (they have a comment that says so) of no figure."""
    with interface.open("rb") as handle:
        catalog = read_po(handle)
    have = {m.id for m in catalog if m.id and m.string and not m.fuzzy}
    alts = {m.id for m in catalog if m.id and any("Alt text" in c for c in m.auto_comments)}
    name = interface.relative_to(ROOT) if interface.is_relative_to(ROOT) else interface
    found = [f"{name}: no Chinese for the alt text {' '.join(t.split())[:70]!r}; add\n"
             f"msgid {json.dumps(t, ensure_ascii=False)}\nmsgstr \"\"" for t in texts
             if t not in have]
    found += [f"{name}: an alt text no figure has any more: {a[:70]!r}"
              for a in sorted(alts - set(texts))]
    return found


def check(paths: list[Path]) -> list[str]:
    """Both editions: the Simplified catalogs `paths` (and the interface's), and every
    Traditional one, which must also be what `traditional.generate` writes."""
    texts = alt_texts()
    found = alt_problems(texts)
    target = traditional.TARGET
    with tempfile.TemporaryDirectory() as scratch:
        pots = extract(Path(scratch))
        found += stale(pots)
        found += stale(pots, target)
    found += stale_comments()
    for path in [*paths, INTERFACE, COMMENTS]:
        found += problems(path)
    found += traditional.drift()
    if target.is_dir():
        found += alt_problems(texts, target / INTERFACE.name)
        for path in [*sorted(target.rglob("*.po")), traditional.comments_target()]:
            found += problems(path)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("update", "traditional", "check"))
    parser.add_argument("po", nargs="*", type=Path, help="catalogs to check (default: all)")
    args = parser.parse_args(argv)
    if args.command == "update":
        update()
        return 0
    if args.command == "traditional":
        done = traditional.generate()
        print(f"{traditional.TARGET.relative_to(ROOT)}: {done.get('messages', 0)} messages "
              f"converted, {done.get('table', 0)} of them changed by the table of terms and "
              f"{done.get('corrected', 0)} by corrections of single messages; "
              f"{done['stale corrections']} stale correction(s)")
        return 1 if done["stale corrections"] else 0
    paths = [p.resolve() for p in args.po] or catalogs()
    found = check(paths)
    print("\n".join(found) or f"{len(paths)} catalog(s): every message translated")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
