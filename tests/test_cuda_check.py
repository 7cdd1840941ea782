"""The CUDA leg's script (scripts/cuda-check.sh), tested without a GPU: its dry run runs every
step on the CPU on a tiny subset and writes the report; without a GPU, the real run stops at
once with exit status 2 and says why. The CPU path never depends on the CUDA leg."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import miniautograd

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "cuda-check.sh"
pytestmark = pytest.mark.slow  # three Python processes that import torch: ~30 s


def run(*args: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess, str]:
    report = tmp_path / "cuda-report.md"
    env = {**os.environ, "PYTHON": sys.executable, "CUDA_CHECK_WHEELS": str(tmp_path / "none")}
    completed = subprocess.run(["bash", str(SCRIPT), *args, str(report)], cwd=ROOT, env=env,
                               capture_output=True, text=True, timeout=600)
    return completed, report.read_text() if report.exists() else ""


def test_dry_run_runs_every_step_and_writes_one_report(tmp_path: Path) -> None:
    completed, report = run("--dry-run", tmp_path=tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert report.startswith("# CUDA check\n")
    assert "- Device: cpu (dry run" in report
    for step in ("1. engine cross-checks, device=cpu | passed",
                 "2. compare_with_torch, device=cpu | passed",
                 "3. benchmark GPU rows | passed"):
        assert step in report
    engine_counts = report.split("## 1.")[1].split("\n")[2]
    assert " passed, 0 failed" in engine_counts and not engine_counts.startswith("0 passed")
    assert "8 of 8 comparisons passed" in report
    bench = [line for line in report.splitlines() if line.startswith("| two-layer net")
             or line.startswith("| small MLP")]
    assert len(bench) == 4 and all(line.endswith("| ok |") for line in bench), bench


@pytest.mark.skipif(miniautograd.cuda.is_available(), reason="this machine has a GPU")
def test_without_a_gpu_the_real_run_stops_at_once_and_says_why(tmp_path: Path) -> None:
    completed, report = run(tmp_path=tmp_path)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert "no CUDA GPU" in completed.stderr
    assert report.startswith("# CUDA check: not run")
    assert "== 1." not in completed.stdout  # no step ran
