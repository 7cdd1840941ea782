"""Workload 2: a scalar chain ``y = y * 0.999 + 0.001``, 100,000 steps deep, forward + backward.

It measures what an engine pays per recorded operation (every value is a 0-d float64 tensor,
so no array work hides the bookkeeping) and whether backward survives a deep graph: an engine
that walks the graph recursively hits Python's recursion limit. dy/dx = 0.999**N, up to rounding.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import mygrad as mg
import torch
from autograd import grad as hips_grad
from micrograd.engine import Value

import miniautograd
from benchmarks.results import Check, Target, WorkloadResult, agreement
from benchmarks.timing import measure, time_once

FACTOR, OFFSET = 0.999, 0.001


def _chain(y: Any, depth: int) -> Any:
    for _ in range(depth):
        y = y * FACTOR + OFFSET
    return y


def chain_torch_like(torch_module: ModuleType, depth: int) -> float:
    x = torch_module.tensor(1.0, dtype=torch_module.float64, requires_grad=True)
    _chain(x, depth).backward()
    return x.grad.item()


def chain_mygrad(depth: int) -> float:
    x = mg.tensor(1.0)
    _chain(x, depth).backward()
    return float(x.grad)


def chain_micrograd(depth: int) -> float:
    x = Value(1.0)
    _chain(x, depth).backward()
    return x.grad


def chain_hips(depth: int) -> float:
    return hips_grad(functools.partial(_chain, depth=depth))(1.0)


ENGINES: dict[str, Callable[[int], float]] = {
    "miniautograd": functools.partial(chain_torch_like, miniautograd),
    "torch": functools.partial(chain_torch_like, torch),
    "mygrad": chain_mygrad,
    "micrograd": chain_micrograd,
    "HIPS autograd": chain_hips,
}


def repeated_product(depth: int) -> float:
    """dy/dx as backward computes it: 1.0 times FACTOR, ``depth`` times, rounding each time.
    Equal to FACTOR**depth until the product turns subnormal; from there rounding stalls it at
    a tiny value (about 2.5e-321 at 1,000,000 deep) where FACTOR**depth rounds to 0.0."""
    product = 1.0
    for _ in range(depth):
        product *= FACTOR
    return product


def _fails(engine: Callable[[int], float], depth: int) -> bool:
    try:
        engine(depth)
    except RecursionError:
        return True
    return False


def first_failing_depth(engine: Callable[[int], float], limit: int) -> int | None:
    """The smallest depth at which ``engine`` raises RecursionError (None if ``limit`` works):
    double the depth until it fails, then bisect."""
    if not _fails(engine, limit):
        return None
    good, depth = 0, 1
    while depth < limit and not _fails(engine, depth):
        good, depth = depth, depth * 2
    bad = min(depth, limit)
    while bad - good > 1:
        middle = (good + bad) // 2
        good, bad = (good, middle) if _fails(engine, middle) else (middle, bad)
    return bad


def run(quick: bool, repeats: int) -> WorkloadResult:
    depth, deep = (1_000, 5_000) if quick else (100_000, 1_000_000)
    results = measure({name: functools.partial(fn, depth) for name, fn in ENGINES.items()},
                      repeats,
                      warmups={name: functools.partial(fn, 100) for name, fn in ENGINES.items()})
    exact = FACTOR**depth
    values = {name: m.value for name, m in results.items() if not m.error}
    result = WorkloadResult(
        key="scalar_chain",
        title=f"Scalar chain y = y*{FACTOR} + {OFFSET}, {depth:,} deep (forward + backward)",
        setup=(f"x = 1.0 (float64, requires grad), {depth:,} multiply-adds, then backward; "
               f"dy/dx must equal {FACTOR}**{depth} = {exact:.6g}."),
        value_label="dy/dx",
        measurements=list(results.values()),
        baselines=["torch"],
        checks=[agreement(values, exact, 1e-9, f"dy/dx of every engine that finished = "
                          f"{FACTOR}**{depth}")],
        targets=[Target("miniautograd", "torch", 0.9)],
    )
    failing = first_failing_depth(ENGINES["micrograd"], depth)
    result.extra["micrograd_first_failing_depth"] = failing
    if failing is not None:
        result.notes.append(
            f"micrograd's recursive backward first raises RecursionError at depth {failing:,} "
            f"(Python's recursion limit here: {sys.getrecursionlimit()})."
        )
    cpu, wall, value = time_once(functools.partial(ENGINES["miniautograd"], deep))
    exact_deep = repeated_product(deep)
    result.extra["miniautograd_deep"] = {"depth": deep, "cpu_s": cpu, "wall_s": wall,
                                         "value": value}
    result.checks.append(Check(
        f"miniautograd completes {deep:,} deep in {cpu:.2f} s CPU ({wall:.2f} s wall) with "
        f"dy/dx = {value:.6g} (1.0 times {FACTOR}, {deep:,} times in float64: "
        f"{exact_deep:.6g})",
        agreement({"miniautograd": value}, exact_deep, 1e-9, "").ok,
    ))
    result.score_targets()
    return result
