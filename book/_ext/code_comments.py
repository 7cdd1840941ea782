"""The comments in the chapters' code, in the reader's language.

The code of a chapter is the same in every edition; its comments are prose, and a Chinese
reader should read them in Chinese, as d2l-zh's readers do. Each translated edition has one
catalog of them (book/locale/<language>/code_comments.po), which scripts/translations.py
extracts from the chapter notebooks and checks like the pages' catalogs: a new comment arrives
untranslated, a changed one fuzzy, and the site build warns of any comment it cannot translate.

A message is one comment after code on its line, or a run of whole-line comments at one
indentation (a sentence is often wrapped over several), its lines joined by newlines; a
translation may have another number of lines. Left as they are: commented-out code (text
that Python compiles, such as ``# from torch.autograd import Variable``), and comments without
an English word (``# x³``, or the Chinese comments of a snippet quoted as its author wrote it).
Only comment tokens change, so the code that runs is the same in every edition.
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

CATALOG_NAME = "code_comments.po"
ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
# A lowercase word that is no part of a name, an attribute or a call: "later", "stable".
PROSE_WORD = re.compile(r"(?<![\w.])[a-z]{3,}(?![\w.(])")
# Directives to tools, not prose: noqa, type: ignore, pragma, fmt: and Colab's @title.
DIRECTIVE = re.compile(r"^(noqa\b|type:|pragma\b|fmt:|@)")
# IPython's magics and shell escapes are not Python: tokenized as blank lines.
NOT_PYTHON = re.compile(r"^[ \t]*[%!]")


@dataclass
class Comment:
    first: int  # 0-based line numbers, both included
    last: int
    column: int
    text: str  # without the "# " of each line; lines joined by "\n"
    trailing: bool  # after code on its line


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    python = "\n".join("" if NOT_PYTHON.match(line) else line for line in source.split("\n"))
    try:
        return list(tokenize.generate_tokens(io.StringIO(python + "\n").readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []  # a cell that is not Python (none is): its comments stay as they are


def _body(token: str) -> str:
    text = token[1:]
    return text[1:] if text.startswith(" ") else text


def comments(source: str) -> list[Comment]:
    """The comments of a cell's `source`, whole-line runs grouped."""
    lines = source.split("\n")
    found: list[Comment] = []
    for token in _tokens(source):
        if token.type != tokenize.COMMENT:
            continue
        row, column = token.start[0] - 1, token.start[1]
        trailing = bool(lines[row][:column].strip())
        previous = found[-1] if found else None
        if (not trailing and previous and not previous.trailing and previous.last == row - 1
                and previous.column == column):
            previous.last, previous.text = row, f"{previous.text}\n{_body(token.string)}"
        else:
            found.append(Comment(row, row, column, _body(token.string), trailing))
    return found


def translatable(text: str) -> bool:
    """English prose, as opposed to commented-out code or a formula. A word or two can compile
    too ("later", "log(1 + e^x), stable"): text that compiles is prose if it has a lowercase
    word that is not a keyword and no part of a name."""
    if not ENGLISH_WORD.search(text) or DIRECTIVE.match(text) or CJK.search(text):
        return False  # a Chinese comment names identifiers in Latin letters
    try:
        compile(text, "<comment>", "exec")
    except SyntaxError:
        return True
    return any(not keyword.iskeyword(word) for word in PROSE_WORD.findall(text))


def messages(sources: Iterable[str]) -> list[str]:
    """The messages of the cells' `sources`, each once, in order."""
    found: dict[str, None] = {}
    for source in sources:
        found.update((c.text, None) for c in comments(source) if translatable(c.text))
    return list(found)


def translate(source: str, translations: dict[str, str]) -> tuple[str, list[str]]:
    """`source` with its comments translated, and the messages `translations` lacks (left
    in English)."""
    lines = source.split("\n")
    missing = []
    for comment in reversed(comments(source)):  # from the end: line numbers stay valid
        if not translatable(comment.text):
            continue
        if comment.text not in translations:
            missing.append(comment.text)
            continue
        chinese = translations[comment.text].split("\n")
        if comment.trailing:
            code = lines[comment.first][:comment.column]
            lines[comment.first] = f"{code}# {' '.join(chinese)}"
        else:
            indent = lines[comment.first][:comment.column]
            lines[comment.first:comment.last + 1] = [f"{indent}# {part}".rstrip()
                                                     for part in chinese]
    return "\n".join(lines), missing[::-1]


def code_tokens(source: str) -> list[tuple[int, str]]:
    """What runs: the tokens of `source` other than comments and line ends (the same in every
    edition)."""
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    return [(t.type, t.string) for t in _tokens(source) if t.type not in skipped]


def catalog_path(locale_dir: Path, language: str) -> Path:
    return locale_dir / language / CATALOG_NAME
