"""The introduction's line counts of the companion package are the package's, within 10 %."""

from __future__ import annotations

import re

from site_tools import ROOT

PACKAGE = ROOT / "companion" / "src" / "miniautograd"
CORE = ["_tensor.py", "ops/op.py", "autograd/function.py", "autograd/backward_function.py",
        "autograd/engine.py"]  # the tensor, an operation's recording, the node, the loop
NUMBER_WORDS = {"four": 4, "five": 5, "six": 6}


def lines(paths) -> int:
    return sum(len(path.read_text(encoding="utf-8").splitlines()) for path in paths)


def test_the_introduction_counts_what_the_package_holds() -> None:
    text = " ".join((ROOT / "book" / "intro.md").read_text(encoding="utf-8").split())
    core = re.search(r"is (\w+) files of about ([\d,]+) lines", text)
    whole = re.search(r"the rest of the API, about ([\d,]+)", text)
    build = re.search(r"reference engines and checks add about ([\d,]+)", text)
    assert core and whole and build, "the introduction no longer states the package's size"
    assert NUMBER_WORDS[core[1]] == len(CORE)
    core_lines = lines(PACKAGE / name for name in CORE)
    package_lines = lines(p for p in PACKAGE.rglob("*.py") if "steps" not in p.parts)
    build_lines = lines((PACKAGE / "steps").rglob("*.py"))
    for stated, actual in ((int(core[2].replace(",", "")), core_lines),
                           (int(whole[1].replace(",", "")), package_lines),
                           (int(build[1].replace(",", "")), build_lines)):
        assert abs(stated - actual) <= 0.1 * actual, (
            f"book/intro.md says about {stated:,} lines; the package has {actual:,}")
