"""Smoke test of the benchmark suite: ``benchmarks/run.py --quick`` runs every workload at a
tiny size and the engines compute the same numbers. Nothing here is timed or asserts speed."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow  # imports torch, mygrad and autograd in a subprocess: ~10 s


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("bench") / "quick.json"
    readme = (ROOT / "benchmarks" / "README.md").read_text()
    completed = subprocess.run(
        [sys.executable, "benchmarks/run.py", "--quick", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert (ROOT / "benchmarks" / "README.md").read_text() == readme, "--quick wrote README.md"
    data = json.loads(out.read_text())
    data["stdout"] = completed.stdout
    return data


def workload(report: dict[str, Any], key: str) -> dict[str, Any]:
    (found,) = [w for w in report["workloads"] if w["key"] == key]
    return found


def values(found: dict[str, Any]) -> dict[str, Any]:
    return {r["engine"]: r["value"] for r in found["results"]}


def test_every_workload_ran_and_printed_its_table(report: dict[str, Any]) -> None:
    assert report["quick"] is True
    assert [w["key"] for w in report["workloads"]] == ["two_layer_net", "scalar_chain",
                                                       "small_mlp", "reinforce"]
    for found in report["workloads"]:
        assert f"### {found['title']}" in report["stdout"]
        assert all(check["ok"] for check in found["checks"]), found["checks"]


def test_two_layer_net_losses_agree_across_engines(report: dict[str, Any]) -> None:
    losses = values(workload(report, "two_layer_net"))
    assert set(losses) == {"miniautograd", "torch", "numpy by hand", "mygrad", "HIPS autograd"}
    reference = losses["numpy by hand"]
    assert reference > 0
    for engine, loss in losses.items():
        assert loss == pytest.approx(reference, rel=1e-5), engine


def test_scalar_chain_gradients_and_micrograds_recursion_error(report: dict[str, Any]) -> None:
    found = workload(report, "scalar_chain")
    results = {r["engine"]: r for r in found["results"]}
    assert results["micrograd"]["error"] == "RecursionError"
    depth = 1_000
    for engine in ["miniautograd", "torch", "mygrad", "HIPS autograd"]:
        assert results[engine]["error"] is None, engine
        assert math.isclose(results[engine]["value"], 0.999**depth, rel_tol=1e-9), engine
    failing = found["extra"]["micrograd_first_failing_depth"]
    assert 1 < failing <= depth
    deep = found["extra"]["miniautograd_deep"]
    assert math.isclose(deep["value"], 0.999 ** deep["depth"], rel_tol=1e-9)


def test_small_mlp_losses_agree(report: dict[str, Any]) -> None:
    losses = values(workload(report, "small_mlp"))
    assert set(losses) == {"miniautograd", "torch", "mygrad"}
    for engine, loss in losses.items():
        assert loss == pytest.approx(losses["torch"], rel=1e-5), engine


def test_reinforce_plays_the_same_episodes_on_every_engine(report: dict[str, Any]) -> None:
    found = workload(report, "reinforce")
    returns = values(found)
    assert set(returns) == {"miniautograd", "torch", "mygrad"}
    assert len(set(returns.values())) == 1, returns
    assert [c["ok"] for c in found["checks"]] == [True]


def test_first_failing_depth_bisects_to_the_exact_depth() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks.scalar_chain import first_failing_depth
    finally:
        sys.path.remove(str(ROOT))

    def engine(depth: int) -> float:
        if depth >= 37:
            raise RecursionError
        return 0.0

    assert first_failing_depth(engine, 1000) == 37
    assert first_failing_depth(engine, 20) is None


def test_measure_records_the_failures_it_is_told_of_and_raises_the_rest() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks.timing import measure
    finally:
        sys.path.remove(str(ROOT))

    def out_of_memory() -> float:
        raise MemoryError("out of memory allocating 8 GB\nmore detail")

    cases = {"ok": lambda: 1.0, "oom": out_of_memory}
    results = measure(cases, repeats=2, failures=(Exception,))
    assert results["ok"].value == 1.0 and len(results["ok"].wall_s) == 2
    assert results["oom"].error == "MemoryError: out of memory allocating 8 GB"
    assert results["oom"].best_wall is None
    with pytest.raises(MemoryError):
        measure(cases, repeats=1)  # by default only RecursionError is a recorded failure
