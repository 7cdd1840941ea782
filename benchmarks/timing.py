"""Best-of-N timing of several engines on one problem, interleaved so that noise from other
processes on a shared machine spreads over all engines instead of hitting one of them.

Each run is timed twice: process CPU time (what the ratios use: on a busy 2-core box it does
not count the time this process waits for a core) and wall-clock time (shown beside it).
The garbage collector stays on, as in a user's program, but starts each run empty.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Measurement:
    """What one engine gave on one problem: its best times and its answer (or its error)."""

    engine: str
    cpu_s: list[float] = field(default_factory=list)
    wall_s: list[float] = field(default_factory=list)
    value: Any = None
    error: str | None = None

    @property
    def best_cpu(self) -> float | None:
        return min(self.cpu_s) if self.cpu_s else None

    @property
    def best_wall(self) -> float | None:
        return min(self.wall_s) if self.wall_s else None


def time_once(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Run ``fn`` once: (cpu seconds, wall seconds, its return value)."""
    gc.collect()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    value = fn()
    wall1, cpu1 = time.perf_counter(), time.process_time()
    return cpu1 - cpu0, wall1 - wall0, value


def _describe(error: BaseException) -> str:
    """What a failed case's row says: the exception's class, and the first line of its message
    (not for RecursionError, whose message says nothing more)."""
    message = str(error).splitlines()[0][:80] if str(error) else ""
    return type(error).__name__ + (f": {message}" if message and
                                   not isinstance(error, RecursionError) else "")


def measure(
    cases: dict[str, Callable[[], Any]],
    repeats: int,
    warmups: dict[str, Callable[[], Any]] | None = None,
    budget_s: float = 15.0,
    failures: tuple[type[BaseException], ...] = (RecursionError,),
) -> dict[str, Measurement]:
    """Time every case ``repeats`` times, round-robin, after one untimed warm-up call each.

    A case that raises one of ``failures`` (by default ``RecursionError``, micrograd's limit) is
    recorded as failed and not run again; anything else propagates. A slow case
    stops repeating once its timed runs add up to ``budget_s`` (it always gets one), so that a
    peer that takes a minute per run does not make the whole suite take ten.
    """
    results = {name: Measurement(name) for name in cases}
    for name, warmup in (warmups or {}).items():
        try:
            warmup()
        except failures as error:
            results[name].error = _describe(error)
    for _ in range(repeats):
        for name, case in cases.items():
            result = results[name]
            if result.error or sum(result.cpu_s) >= budget_s:
                continue
            try:
                cpu, wall, value = time_once(case)
            except failures as error:
                result.error = _describe(error)
                continue
            result.cpu_s.append(cpu)
            result.wall_s.append(wall)
            result.value = value
    return results
