"""The compatibility suite: programs written as learners write them run unchanged on torch and,
by import swap, on miniautograd, and print the same numbers.

Each program in ``programs/`` imports ``torch`` and prints what a learner would look at: losses,
gradients, flags, shapes, and its final parameters. ``runner.py`` runs every program once per
engine (each in its own forked process). The test compares the two outputs: the text with every
number taken out must be identical (names, shapes, ``grad_fn`` names, booleans), integers must be
equal, and floats must agree within float32's tolerance: ``RTOL``/``ATOL`` plus one unit in the
last printed digit (a value on a rounding boundary may print either way). A program may state a
looser ``# compat-rtol: ...`` in its header, with its reason. Two differences are by design and
read as equal: miniautograd's reprs name their own module (``miniautograd.float64``,
``miniautograd.Size``), and its graph nodes print no memory address (``<AddBackward0 object>``,
where torch prints ``<AddBackward0 object at 0x7f...>``, a different number on every run).
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from torch_versions import skip_if_changed

HERE = Path(__file__).resolve().parent
PROGRAMS = sorted((HERE / "programs").glob("*.py"))
RTOL, ATOL = 1e-5, 1e-6
ENGINES = ("torch", "miniautograd")
# A number not inside a name (MulBackward0, float32, affine1): digits, decimals, an exponent.
NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])|\bnan\b|\binf\b"
)
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")
HEADER_RTOL = re.compile(r"^# compat-rtol: ([0-9.e-]+)", re.MULTILINE)


def normalized(output: str) -> str:
    """The output with the two differences by design taken out (module prefix, addresses)."""
    return ADDRESS.sub(">", output.replace("miniautograd.", "torch."))


def numbers(text: str) -> tuple[str, list[str]]:
    """The text with each number replaced by ``#``, and the numbers in order."""
    return NUMBER.sub("#", text), NUMBER.findall(text)


def resolution(token: str) -> float:
    """One unit in the last printed digit of a float token (0 for a full-precision repr)."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2]) if "." in mantissa else 0
    if decimals >= 8 or decimals == 0:
        return 0.0
    return 10.0 ** (int(exponent or 0) - decimals)


def same_number(mine: str, theirs: str, rtol: float) -> bool:
    is_int = all(not any(c in t for c in ".eEna") for t in (mine, theirs))
    if is_int:
        return int(mine) == int(theirs)
    a, b = float(mine), float(theirs)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    slack = max(resolution(mine), resolution(theirs))
    return abs(a - b) <= rtol * max(abs(a), abs(b)) + ATOL + slack


def differences(mine: str, theirs: str, rtol: float) -> list[str]:
    """What differs between two outputs, line by line; empty when they agree."""
    found = []
    mine_lines, their_lines = mine.splitlines(), theirs.splitlines()
    if len(mine_lines) != len(their_lines):
        found.append(f"{len(mine_lines)} lines printed, torch printed {len(their_lines)}")
    for number, (m, t) in enumerate(zip(mine_lines, their_lines, strict=False), 1):
        m_text, m_numbers = numbers(m)
        t_text, t_numbers = numbers(t)
        if m_text != t_text or len(m_numbers) != len(t_numbers):
            found.append(f"line {number}: {m!r} != torch {t!r}")
            continue
        bad = [(a, b) for a, b in zip(m_numbers, t_numbers, strict=True)
               if not same_number(a, b, rtol)]
        if bad:
            found.append(f"line {number}: {m!r} != torch {t!r} (numbers {bad[:3]})")
    return found


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Both engines run every program, side by side (one process each)."""
    folder = tmp_path_factory.mktemp("compat")
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[variable] = "1"
    runs = {
        engine: subprocess.Popen(
            [sys.executable, str(HERE / "runner.py"), engine, str(folder / f"{engine}.json"),
             *map(str, PROGRAMS)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        for engine in ENGINES
    }
    result = {}
    for engine, process in runs.items():
        output, _ = process.communicate(timeout=900)
        assert process.returncode == 0, f"runner ({engine}) failed:\n{output}"
        result[engine] = json.loads((folder / f"{engine}.json").read_text())
    return result


def test_every_program_is_collected() -> None:
    assert len(PROGRAMS) >= 25, [p.name for p in PROGRAMS]


# Programs that print what a torch release changed (torch_versions.py), skipped where it does.
CHANGED = {"makemore_layers": "batch_norm_repr"}  # prints BatchNorm1d's repr


@pytest.mark.parametrize("program", [
    pytest.param(p, id=p.stem, marks=[skip_if_changed(CHANGED[p.stem])] if p.stem in CHANGED
                 else []) for p in PROGRAMS])
def test_program_prints_torchs_numbers(program: Path, reports: dict) -> None:
    theirs, mine = reports["torch"][program.name], reports["miniautograd"][program.name]
    assert theirs["returncode"] == 0, f"the program fails on torch:\n{theirs['stderr']}"
    assert theirs["stdout"].strip(), "the program prints nothing"
    assert mine["returncode"] == 0, f"fails on miniautograd:\n{mine['stderr'][-3000:]}"
    header = HEADER_RTOL.search(program.read_text())
    rtol = float(header.group(1)) if header else RTOL
    found = differences(normalized(mine["stdout"]), normalized(theirs["stdout"]), rtol)
    assert not found, "\n".join(found[:20])


def test_only_the_differences_by_design_are_normalized() -> None:
    assert normalized("<AddBackward0 object at 0x7ff660d8b4c0>") == "<AddBackward0 object>"
    assert normalized("dtype=miniautograd.float64") == "dtype=torch.float64"
    unchanged = "tensor([0.5000], requires_grad=True)"
    assert normalized(unchanged) == unchanged


@pytest.mark.parametrize(("mine", "theirs", "agree"), [
    ("loss 0.1234567", "loss 0.1234568", True),      # float32's last bits
    ("loss 0.1234", "loss 0.1235", True),            # a rounding boundary in a 4-digit repr
    ("loss 0.1234", "loss 0.1236", False),
    ("shape [3, 4]", "shape [3, 5]", False),         # integers are exact
    ("MulBackward0 1.0", "AddBackward0 1.0", False),  # the text is exact
    ("tensor([1., 2.])", "tensor([1., 3.])", False),
    ("x nan", "x nan", True),
    ("x nan", "x 0.0", False),
    ("a\nb", "a", False),                            # a missing line
])
def test_comparison_is_strict_where_it_must_be(mine: str, theirs: str, agree: bool) -> None:
    assert (not differences(mine, theirs, RTOL)) is agree
