"""The Traditional Chinese (Taiwan) edition, zh_TW, generated from the Simplified one, zh_CN.

Nobody translates zh_TW by hand: `generate` writes book/locale/zh_TW/LC_MESSAGES/**.po from
every catalog of book/locale/zh_CN/LC_MESSAGES/ (the pages' and the interface's, sphinx.po), and
languages.py converts the book's own interface words with `convert` at build time. Each message
is converted in three steps:

1. Kept byte for byte: code spans, the roles (a reference's text is converted, its target and
   the role's name are not), formulas, links' addresses and HTML tags; and quotations of
   Traditional texts: a run of Chinese that the English message's prose holds (the blog post
   《深入淺出torch.autograd》 and its headings), and a quotation (“…”, 「…」, 《…》) written in
   Traditional characters already. OpenCC would "correct" a Taiwan author's 優化器 or 參數.
2. The rest: the rows of the reviewed table book/locale/zh_TW/conversion.md (a Simplified text
   and its Taiwan text, each with its reason; longer rows first), then OpenCC's ``s2twp``
   (Taiwan characters and Taiwan phrases) between them; the quotation marks become Taiwan's:
   “…” 「…」 and ‘…’ 『…』 (『…』 inside another quotation).
3. The corrections of single messages, book/locale/zh_TW/corrections.json: each names its
   catalog, its English (msgid) and the Simplified translation it was made against, and
   replaces a text of the converted message with another. A correction whose Simplified text
   changed, whose message is gone or whose text is no longer there is stale: `problems` names
   it (the drift gate, scripts/translations.py check).

`problems` also fails when the checked-in zh_TW catalogs differ from what `generate` writes, so
after a change of the Simplified catalogs run ``python scripts/translations.py traditional``.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import code_comments

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "book" / "locale"
SIMPLIFIED, TRADITIONAL = "zh_CN", "zh_TW"
SOURCE = LOCALE / SIMPLIFIED / "LC_MESSAGES"
TARGET = LOCALE / TRADITIONAL / "LC_MESSAGES"
TABLE = LOCALE / TRADITIONAL / "conversion.md"
CORRECTIONS = LOCALE / TRADITIONAL / "corrections.json"
CODE_COMMENTS = code_comments.CATALOG_NAME
HEADER = ("# The Traditional Chinese (Taiwan) edition of the book, generated from the Simplified\n"
          "# one: do not edit (python scripts/translations.py traditional).")

# What is kept as it is (step 1); a role's text is converted on its own.
TOKEN = re.compile(
    r"(?P<role>\{(?P<name>[a-z][\w:-]*)\}`(?P<content>[^`]+)`)"
    r"|(?P<code>(?<!`)(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`))"
    r"|(?P<math>\$\$.+?\$\$|(?<![\\$])\$(?!\$)[^$]+?(?<!\\)\$)"
    r"|(?P<url>\]\([^()\s]+\)|https?://[^\s)>]+)"
    r"|(?P<tag><[^<>\n]*>)",
    re.DOTALL,
)
REFERENCES = {"ref", "term", "doc", "numref"}
EXPLICIT = re.compile(r"^(?P<text>.*?)(?P<target>\s*<[^<>]+>)$", re.DOTALL)
CHINESE_RUN = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff01-\uff5e]*[\u4e00-\u9fff]"
                         r"[\u4e00-\u9fff\u3000-\u303f\uff01-\uff5e]*")
# Quotation marks: “ ” ‘ ’ written as escapes (ruff takes them for ASCII look-alikes).
LEFT_DOUBLE, RIGHT_DOUBLE, LEFT_SINGLE, RIGHT_SINGLE = "\u201c", "\u201d", "\u2018", "\u2019"
OPENING = f"{LEFT_DOUBLE}「{LEFT_SINGLE}『"
CLOSING = f"{RIGHT_DOUBLE}」{RIGHT_SINGLE}』"
QUOTED = re.compile(f"(?<=[{OPENING}《])[^{OPENING}{CLOSING}《》]+(?=[{CLOSING}》])")
# A row of the table: three cells of text (a space inside, as in "C++ 扩展", is part of it), and
# the reason. A line of the table that is not a row is an error (rules), not a row ignored.
CELL = r"[^|\s](?:[^|]*[^|\s])?"
ROW = re.compile(rf"^\| (?P<simplified>{CELL}) \| (?P<s2twp>{CELL}) \| (?P<taiwan>{CELL}) \| "
                 r"(?P<reason>[^|]+) \|$", re.MULTILINE)


@functools.cache
def opencc(config: str):
    try:
        from opencc import OpenCC
    except ModuleNotFoundError as error:
        raise RuntimeError("the Traditional edition needs OpenCC: pip install -r requirements.txt "
                           "(opencc-python-reimplemented)") from error
    return OpenCC(config)


def s2twp(text: str) -> str:
    return opencc("s2twp").convert(text)


@dataclass(frozen=True)
class Rule:
    simplified: str
    s2twp: str  # what OpenCC makes of `simplified` alone (checked by a test)
    taiwan: str
    reason: str


@functools.cache
def rules(table: Path = TABLE) -> tuple[Rule, ...]:
    found = []
    for line in table.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            continue
        if (m := ROW.fullmatch(line)) is None:
            raise ValueError(f"{table.name}: not a row of four cells: {line}")
        if m["simplified"] not in ("---", "简体"):
            found.append(Rule(m["simplified"], m["s2twp"], m["taiwan"], m["reason"].strip()))
    return tuple(found)


@functools.cache
def _rule_pattern(table: Path = TABLE) -> tuple[re.Pattern[str], dict[str, str]]:
    words = {r.simplified: r.taiwan for r in rules(table)}
    keys = sorted(words, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, keys))), words


def is_traditional(text: str) -> bool:
    """Written in Traditional characters: OpenCC's s2t leaves it alone and t2s does not."""
    return opencc("s2t").convert(text) == text and opencc("t2s").convert(text) != text


@dataclass
class Piece:
    text: str
    kept: bool


def pieces(message: str, english: str = "") -> Iterator[Piece]:
    """A message cut into what is kept (step 1) and what is converted."""
    quoted = {m for m in CHINESE_RUN.findall(TOKEN.sub(" ", english)) if len(m) > 1}
    at = 0
    for token in TOKEN.finditer(message):
        yield from _prose(message[at:token.start()], quoted)
        if token["role"] and token["name"] in REFERENCES and (
                explicit := EXPLICIT.match(token["content"])):
            yield Piece(f"{{{token['name']}}}`", True)
            yield from _prose(explicit["text"], quoted)
            yield Piece(f"{explicit['target']}`", True)
        else:
            yield Piece(token.group(0), True)
        at = token.end()
    yield from _prose(message[at:], quoted)


def _prose(text: str, quoted: set[str]) -> Iterator[Piece]:
    """Prose, with its quotations of Traditional texts kept."""
    spans = [m.span() for m in QUOTED.finditer(text) if is_traditional(m.group(0))]
    for run in sorted(quoted, key=len, reverse=True):
        for m in re.finditer(re.escape(run), text):
            if not any(a < m.end() and m.start() < b for a, b in spans):
                spans.append(m.span())
    at = 0
    for start, end in sorted(spans):
        if text[at:start]:
            yield Piece(text[at:start], False)
        yield Piece(text[start:end], True)
        at = end
    if text[at:]:
        yield Piece(text[at:], False)


def _words(text: str, table: bool) -> str:
    """Step 2 on a piece of prose (quotation marks aside)."""
    if not table:
        return s2twp(text)
    pattern, words = _rule_pattern()
    out, at = [], 0
    for hit in pattern.finditer(text):
        out += [s2twp(text[at:hit.start()]), words[hit.group(0)]]
        at = hit.end()
    return "".join([*out, s2twp(text[at:])])


def _quotation_marks(parts: list[Piece]) -> None:
    """“…” and 「…」 -> 「…」, ‘…’ and 『…』 -> 『…』, and a quotation inside another in 『…』."""
    depth = 0
    for part in parts:
        if part.kept:
            continue
        out = []
        for c in part.text:
            if c in OPENING:
                out.append("「" if depth == 0 and c in OPENING[:2] else "『")
                depth += 1
            elif c in CLOSING:
                depth = max(depth - 1, 0)
                out.append("」" if depth == 0 and c in CLOSING[:2] else "』")
            else:
                out.append(c)
        part.text = "".join(out)


def convert(message: str, english: str = "", table: bool = True, markup: bool = True) -> str:
    """Steps 1 and 2 on one message (`english`: its msgid, whose Chinese runs are quotations).
    With `markup` false, the text is words with no markup to keep (an HTML tag's Chinese
    attribute, a script's string: the interface words of languages.py)."""
    parts = list(pieces(message, english)) if markup else [Piece(message, False)]
    for part in parts:
        if not part.kept:
            part.text = _words(part.text, table)
    _quotation_marks(parts)
    return "".join(part.text for part in parts)


def kept(message: str, english: str = "") -> list[str]:
    """The pieces of a message that conversion must leave byte for byte."""
    return [p.text for p in pieces(message, english) if p.kept]


# ---- the corrections of single messages (step 3) -----------------------------------------------


@dataclass
class Correction:
    catalog: str  # relative to LC_MESSAGES
    msgid: str
    simplified: str
    replace: list[tuple[str, str]]
    reason: str


def corrections(path: Path = CORRECTIONS) -> list[Correction]:
    if not path.is_file():
        return []
    return [Correction(c["catalog"], c["msgid"], c["simplified"],
                       [tuple(pair) for pair in c["replace"]], c["reason"])
            for c in json.loads(path.read_text(encoding="utf-8"))]


# ---- the catalogs --------------------------------------------------------------------------------


def sources(source: Path = SOURCE) -> list[Path]:
    """Every Simplified catalog: the pages' and the interface's, and beside them the code
    comments' (code_comments.py), which Sphinx does not read."""
    comments = source.parent / CODE_COMMENTS
    return sorted(source.rglob("*.po")) + ([comments] if comments.is_file() else [])


def comments_target(target: Path = TARGET) -> Path:
    return target.parent / CODE_COMMENTS


def _relative(path: Path, source: Path) -> Path:
    """A catalog's path relative to LC_MESSAGES (../code_comments.po for the comments')."""
    return Path(os.path.relpath(path, source))


def _read(path: Path):
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        return read_po(handle)


def generated(source: Path = SOURCE, fixes: list[Correction] | None = None,
              stats: dict[str, int] | None = None) -> tuple[dict[Path, str], list[str]]:
    """The text of each zh_TW catalog (its path relative to LC_MESSAGES), and the stale
    corrections."""
    from babel.messages.pofile import write_po

    fixes = corrections() if fixes is None else fixes
    by_message = {(f.catalog, f.msgid): f for f in fixes}
    used: set[tuple[str, str]] = set()
    problems = []
    out = {}
    for path in sources(source):
        relative = _relative(path, source)
        catalog = _read(path)
        catalog.locale = TRADITIONAL
        catalog.header_comment = HEADER
        for message in [*catalog, *catalog.obsolete.values()]:
            if not message.id or not message.string:
                continue
            simplified = message.string
            text = convert(simplified, message.id)
            if stats is not None:
                stats["messages"] = stats.get("messages", 0) + 1
                if text != convert(simplified, message.id, table=False):
                    stats["table"] = stats.get("table", 0) + 1
            fix = by_message.get((relative.as_posix(), message.id))
            if fix is not None:
                used.add((fix.catalog, fix.msgid))
                if fix.simplified != simplified:
                    problems.append(f"{TARGET.name}/{fix.catalog}: a stale correction (its "
                                    f"Simplified text changed) of {message.id[:60]!r}")
                else:
                    for old, new in fix.replace:
                        if old not in text:
                            problems.append(f"{fix.catalog}: a stale correction: {old!r} is not "
                                            f"in the converted {message.id[:60]!r}")
                        text = text.replace(old, new)
                    if stats is not None:
                        stats["corrected"] = stats.get("corrected", 0) + 1
            message.string = text
        buffer = io.BytesIO()
        write_po(buffer, catalog, width=76, omit_header=False, ignore_obsolete=False)
        text = buffer.getvalue().decode("utf-8")
        text = re.sub(r'^"(POT-Creation-Date|PO-Revision-Date|Last-Translator|Language-Team|'
                      r'Report-Msgid-Bugs-To): .*\\n"\n', "", text, flags=re.MULTILINE)
        out[relative] = text
    problems += [f"corrections.json: a stale correction of a message no catalog has: "
                 f"{f.catalog} {f.msgid[:60]!r}" for f in fixes
                 if (f.catalog, f.msgid) not in used]
    return out, problems


def generate(source: Path = SOURCE, target: Path = TARGET) -> dict[str, int]:
    """Write the zh_TW catalogs (and remove one whose Simplified catalog is gone); what was
    done, counted."""
    stats: dict[str, int] = {}
    texts, stale = generated(source, stats=stats)
    for relative, text in texts.items():
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        (target / relative).write_text(text, encoding="utf-8")
    for path in target.rglob("*.po"):
        if path.relative_to(target) not in texts:
            path.unlink()
    stats["stale corrections"] = len(stale)
    return stats


def drift(source: Path = SOURCE, target: Path = TARGET) -> list[str]:
    """How the checked-in zh_TW catalogs differ from what `generate` writes, stale corrections
    and conversions that changed what they must keep."""
    texts, found = generated(source)
    for relative, text in texts.items():
        path = target / relative
        if not path.is_file():
            found.append(f"{TRADITIONAL}/{relative}: missing (run `python scripts/translations.py "
                         f"traditional`)")
        elif path.read_text(encoding="utf-8") != text:
            found.append(f"{TRADITIONAL}/{relative}: differs from what its Simplified catalog "
                         f"generates (edited by hand, or not regenerated: run `python "
                         f"scripts/translations.py traditional`)")
    found += [f"{TRADITIONAL}/{p.relative_to(target)}: a catalog of no Simplified catalog"
              for p in sorted(target.rglob("*.po")) if p.relative_to(target) not in texts]
    found += kept_problems(source, target)
    return found


def kept_problems(source: Path = SOURCE, target: Path = TARGET) -> list[str]:
    """Messages whose zh_TW text lost or changed a piece that must stay byte for byte (code,
    markup, links, formulas, quotations of Traditional texts)."""
    found = []
    for path in sources(source):
        relative = _relative(path, source)
        if not (target / relative).is_file():
            continue
        traditional = {m.id: m.string for m in _read(target / relative) if m.id}
        for message in _read(path):
            if not message.id or not message.string or message.id not in traditional:
                continue
            want = kept(message.string, message.id)
            have = traditional[message.id]
            at = 0
            for piece in want:
                found_at = have.find(piece, at)
                if found_at < 0:
                    found.append(f"{TRADITIONAL}/{relative}: {piece[:40]!r} is not kept byte for "
                                 f"byte in {message.id[:60]!r}")
                    break
                at = found_at + len(piece)
    return found
