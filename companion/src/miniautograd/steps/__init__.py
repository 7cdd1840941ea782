"""The book's guided build: a tiny engine that the reader grows, one step per chapter, in a
file of their own (``myautograd.py``), with a check for each step and a reference to start a
later step from.

- ``check(step)`` loads the reader's file afresh and prints one line per behaviour the step
  asks for, ✔ or ✘ with what PyTorch does against what the reader's engine did.
- ``start(step)`` readies the file for a step: a reader's engine that passes the steps before
  stays; otherwise it is kept under another name and the reference of the step before is
  written, so that a reader can start at any chapter.
- ``write_reference(step)`` writes the reference engine of a step into the file, and
  ``changes(step)`` shows what it changes in the step before.
"""

from __future__ import annotations

import ast
import difflib
import io
import tokenize
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from types import ModuleType

from . import (
    step1_checks,
    step2_checks,
    step3_checks,
    step4_checks,
    step5_checks,
    step6_checks,
    step7_checks,
)
from .checks import Outcome, load, report, run, show_line

STEPS = {1: step1_checks.CHECKS, 2: step2_checks.CHECKS, 3: step3_checks.CHECKS,
         4: step4_checks.CHECKS, 5: step5_checks.CHECKS, 6: step6_checks.CHECKS,
         7: step7_checks.CHECKS}
FILE = "myautograd.py"


def _source(step: int) -> Traversable:
    """The packaged file of the reference engine after `step`."""
    if step not in STEPS:
        raise ValueError(f"no step {step}: the steps are {sorted(STEPS)}")
    return resources.files(__package__).joinpath(f"step{step}.py")


def outcomes(step: int, path: str | Path = FILE) -> list[Outcome]:
    """Every check of `step`, and of the steps before it, run on the engine in `path`."""
    _source(step)  # an unknown step says so before anything is loaded
    if not Path(path).exists():
        how = ("Run the cell above that starts with %%writefile myautograd.py." if step == 1
               else f"Run steps.start({step}) first: it keeps an engine that passes step "
                    f"{step - 1}, or writes step {step - 1}'s reference there.")
        raise FileNotFoundError(f"There is no {Path(path).name} here yet. {how}")
    module = load(path)
    return [outcome for n in sorted(STEPS) if n <= step
            for outcome in run(STEPS[n], module, n)]


def check(step: int, path: str | Path = FILE) -> None:
    """Print the outcome of every check of `step` on the engine in `path`."""
    report(outcomes(step, path))


def reference(step: int) -> str:
    """The source of the reference engine after `step`."""
    return _source(step).read_text(encoding="utf-8")


def changes(step: int) -> str:
    """What the reference of `step` changes in that of the step before, as a unified diff
    (two lines of context): the part of the reference that is the step's own."""
    if step - 1 not in STEPS or step not in STEPS:
        raise ValueError(f"no changes to show for step {step}: steps 2 to {max(STEPS)} have "
                         "a step before them")
    before, after = reference(step - 1), reference(step)
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), f"step{step - 1}.py",
                                f"step{step}.py", n=2, lineterm="")
    return "\n".join(line.rstrip() for line in diff)  # a blank line of context: "", not " "


def code_lines(source: str) -> int:
    """How many lines of `source` hold code: not blank, not comments, not docstrings (the
    measure of the engine's size that the book quotes)."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and (
                    isinstance(first.value.value, str)):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
    lines: set[int] = set()
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstrings)


def engine(step: int) -> ModuleType:
    """The reference engine after `step`, imported (to run beside the reader's)."""
    return load(_source(step))


def write_reference(step: int, path: str | Path = FILE) -> None:
    """Write the reference engine after `step` into `path` (replacing what is there)."""
    Path(path).write_text(reference(step), encoding="utf-8")


def start(step: int, path: str | Path = FILE) -> None:
    """Ready `path` for `step`: keep the engine there if it passes every check of the steps
    before; otherwise keep the reader's file under another name and write the reference of
    the step before."""
    if step - 1 not in STEPS:
        raise ValueError(f"no step {step} to start: steps 2 to {max(STEPS) + 1} start from "
                         "the one before")
    path = Path(path)
    if path.exists():
        try:
            failed = [o for o in outcomes(step - 1, path) if not o.passed]
        except Exception as error:  # a file that does not even import is not ready
            why = f"it does not import ({type(error).__name__}: {error})"
        else:
            if not failed:
                print(f"{path.name} passes the checks of step {step - 1}: go on with it.")
                return
            more = f", and {len(failed) - 1} more" if len(failed) > 1 else ""
            which = "" if failed[0].step == step - 1 else f" (step {failed[0].step})"
            why = f"✘ {failed[0].check}{which}{more}"
        kept = path.with_name(f"{path.stem}_before_step{step}.py")
        path.replace(kept)
        show_line(f"{path.name} does not pass step {step - 1} yet ({why}): it is now "
                  f"{kept.name}; steps.check({step - 1}, {kept.name!r}) says what differs.")
    write_reference(step - 1, path)
    print(f"{path.name} is the reference engine of step {step - 1}: go on from it.")
