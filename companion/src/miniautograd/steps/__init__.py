"""The book's guided build: a tiny engine that the reader grows, one step per chapter, in a
file of their own (``myautograd.py``), with a check for each step and a reference to start a
later step from.

- ``check(step)`` loads the reader's file afresh and prints one line per behaviour the step
  asks for, ✔ or ✘ with what PyTorch does against what the reader's engine did.
- ``write_reference(step)`` writes the reference engine of a step into the file, so that a
  reader can start at any chapter.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from . import step1_checks
from .checks import Outcome, load, report, run

STEPS = {1: step1_checks.CHECKS}
FILE = "myautograd.py"


def outcomes(step: int, path: str | Path = FILE) -> list[Outcome]:
    """Every check of `step` run on the engine in `path`."""
    if step not in STEPS:
        raise ValueError(f"no step {step}: the steps are {sorted(STEPS)}")
    return run(STEPS[step], load(path))


def check(step: int, path: str | Path = FILE) -> None:
    """Print the outcome of every check of `step` on the engine in `path`."""
    report(outcomes(step, path))


def reference(step: int) -> str:
    """The source of the reference engine after `step`."""
    if step not in STEPS:
        raise ValueError(f"no step {step}: the steps are {sorted(STEPS)}")
    return resources.files(__package__).joinpath(f"step{step}.py").read_text(encoding="utf-8")


def write_reference(step: int, path: str | Path = FILE) -> None:
    """Write the reference engine after `step` into `path` (replacing what is there)."""
    Path(path).write_text(reference(step), encoding="utf-8")
