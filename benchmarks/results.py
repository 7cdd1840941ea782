"""What a workload reports (its measurements, checks and speed targets) and its markdown table."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from benchmarks.timing import Measurement


@dataclass
class Check:
    """A correctness claim about the run, e.g. "final losses agree within rtol 1e-2"."""

    text: str
    ok: bool


@dataclass
class Target:
    """A speed goal: ``engine`` takes at most ``limit`` times as long as ``baseline``."""

    engine: str
    baseline: str
    limit: float
    ratio: float | None = None

    @property
    def met(self) -> bool:
        return self.ratio is not None and self.ratio <= self.limit

    @property
    def text(self) -> str:
        if self.limit == 1.0:
            return f"{self.engine} no slower than {self.baseline}"
        return f"{self.engine} at most {self.limit:g}x {self.baseline}"


@dataclass
class WorkloadResult:
    key: str
    title: str
    setup: str
    value_label: str
    measurements: list[Measurement]
    baselines: list[str]  # engines the ratio columns divide by, e.g. ["torch", "numpy"]
    checks: list[Check] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # workload-specific numbers, for JSON

    def best(self, engine: str) -> float | None:
        for measurement in self.measurements:
            if measurement.engine == engine:
                return measurement.best_cpu
        raise KeyError(engine)

    def ratio(self, engine: str, baseline: str) -> float | None:
        time, base = self.best(engine), self.best(baseline)
        return None if time is None or not base else time / base

    def score_targets(self) -> None:
        for target in self.targets:
            target.ratio = self.ratio(target.engine, target.baseline)

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "title": self.title,
            "setup": self.setup,
            "value_label": self.value_label,
            "results": [
                {"engine": m.engine, "cpu_s": m.cpu_s, "wall_s": m.wall_s,
                 "best_cpu_s": m.best_cpu, "best_wall_s": m.best_wall,
                 "value": m.value, "error": m.error}
                for m in self.measurements
            ],
            "checks": [{"text": c.text, "ok": c.ok} for c in self.checks],
            "targets": [{"text": t.text, "engine": t.engine, "baseline": t.baseline,
                         "limit": t.limit, "ratio": t.ratio, "met": t.met} for t in self.targets],
            "notes": self.notes,
            "extra": self.extra,
        }


def agreement(values: dict[str, Any], reference: float, rtol: float, what: str) -> Check:
    """Check that every engine's value is within ``rtol`` of ``reference`` (None fails)."""
    def relative(value: Any) -> float:
        if value is None:
            return math.inf
        if value == reference:  # also when both are 0.0
            return 0.0
        return abs(value - reference) / abs(reference) if reference else math.inf

    worst = max(relative(value) for value in values.values())
    return Check(f"{what} within rtol {rtol:g} (largest relative difference {worst:.1e})",
                 worst <= rtol)


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if value >= 0.1 else f"{value * 1e3:.1f} ms"


def _number(value: Any) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.6g}"
    return "-" if value is None else str(value)


def markdown(result: WorkloadResult) -> str:
    """The workload as a markdown section: setup line, table, checks, targets, notes."""
    header = ["engine", "CPU s (best)", "wall s (best)", "runs"]
    header += [f"x {b}" for b in result.baselines] + [result.value_label]
    lines = [f"### {result.title}", "", result.setup, "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for m in result.measurements:
        if m.error and not m.cpu_s:
            cells = [m.engine, f"**{m.error}**", "-", "0"] + ["-"] * len(result.baselines)
        else:
            cells = [m.engine, _seconds(m.best_cpu), _seconds(m.best_wall), str(len(m.cpu_s))]
            for baseline in result.baselines:
                ratio = result.ratio(m.engine, baseline)
                cells.append("-" if ratio is None else f"{ratio:.2f}")
        cells.append(_number(m.value))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for check in result.checks:
        lines.append(f"- check {'ok' if check.ok else 'FAILED'}: {check.text}")
    for target in result.targets:
        ratio = "n/a" if target.ratio is None else f"{target.ratio:.2f}x"
        verdict = "met" if target.met else "MISSED"
        lines.append(f"- target {verdict}: {target.text} (measured {ratio})")
    lines.extend(f"- {note}" for note in result.notes)
    return "\n".join(lines) + "\n"
