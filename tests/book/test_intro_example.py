"""The introduction's first example prints what the page says it prints, on both engines."""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from site_tools import ROOT


def example() -> tuple[str, str]:
    """The introduction's first ``python`` block and the ``text`` block shown as its output."""
    text = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    found = re.search(r"```python\n(.*?)```\s.*?```text\n(.*?)```", text, re.DOTALL)
    assert found, "the introduction no longer shows an example with its output"
    return found[1], found[2]


@pytest.mark.parametrize("module", ["torch", "miniautograd"])
def test_the_introduction_s_example_prints_what_the_page_shows(module: str) -> None:
    code, shown = example()
    assert code.startswith("import torch\n")
    code = code.replace("import torch", f"import {module} as torch", 1)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "intro.md", "exec"), {})
    assert printed.getvalue() == shown
