"""Where miniautograd's time goes on the two speed-target workloads (not part of run.py).

    python benchmarks/profile_engine.py            # both workloads
    python benchmarks/profile_engine.py --top 25   # more rows of the Python profile

Two-layer net: the time of one training step, split into the array work numpy by hand does
too, the engine's extra array work, and its Python bookkeeping (the same step on tiny arrays,
where array work costs next to nothing); then cProfile's busiest functions of the tiny step.
Scalar chain: the forward and backward pass, with the garbage collector on and off, and how
many collections of each generation ran. Single-threaded, best of N CPU times, as in run.py.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_name] = "1"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import miniautograd  # noqa: E402 - after the thread variables
from benchmarks.two_layer_net import make_problem, train_numpy, train_torch_like  # noqa: E402


def best_cpu(run: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def two_layer_net(repeats: int, top: int) -> None:
    steps = 200
    full = make_problem((64, 1000, 100, 10), steps, 1e-6)
    tiny = make_problem((2, 3, 4, 2), steps * 10, 1e-6)
    mini = best_cpu(lambda: train_torch_like(miniautograd, full), repeats) / steps * 1e6
    numpy = best_cpu(lambda: train_numpy(full), repeats) / steps * 1e6
    python = best_cpu(lambda: train_torch_like(miniautograd, tiny), repeats) / (steps * 10) * 1e6
    print("## Two-layer net (64x1000 -> 100 -> 10, float32): one SGD step")
    print(f"- miniautograd: {mini:.0f} us; numpy by hand: {numpy:.0f} us ({mini / numpy:.2f}x)")
    print(f"- Python bookkeeping (the same step on 2x3 -> 4 -> 2 arrays): {python:.0f} us "
          f"({python / mini:.0%} of the step)")
    print(f"- array work beyond numpy by hand's: {mini - numpy - python:.0f} us "
          f"({(mini - numpy - python) / mini:.0%})")
    profile = cProfile.Profile()
    profile.runcall(train_torch_like, miniautograd, tiny)
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(top)
    print(f"- cProfile of the tiny step, the {top} busiest functions (own time):\n```")
    print("\n".join(line.replace(str(Path(miniautograd.__file__).parent) + "/", "")
                    for line in text.getvalue().splitlines()[4:] if line.strip()))
    print("```")


def scalar_chain(repeats: int) -> None:
    depth = 100_000
    collections = [0, 0, 0]

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections[info["generation"]] += 1

    def chain(gc_on: bool) -> tuple[float, float]:
        x = miniautograd.tensor(1.0, dtype=miniautograd.float64, requires_grad=True)
        gc.collect()
        if not gc_on:
            gc.disable()
        start = time.process_time()
        y = x
        for _ in range(depth):
            y = y * 0.999 + 0.001
        middle = time.process_time()
        y.backward()
        end = time.process_time()
        gc.enable()
        return middle - start, end - middle

    print(f"## Scalar chain, {depth:,} deep (two recorded ops per step)")
    for gc_on in (True, False):
        runs = [chain(gc_on) for _ in range(repeats)]
        forward, backward = min(r[0] for r in runs), min(r[1] for r in runs)
        print(f"- garbage collector {'on ' if gc_on else 'off'}: forward {forward:.2f} s "
              f"({forward / depth / 2 * 1e6:.2f} us per op), backward {backward:.2f} s")
    gc.callbacks.append(count)
    chain(True)
    gc.callbacks.remove(count)
    print(f"- collections in one run (generations 0, 1, 2): {collections}; objects the "
          f"collector tracks before the run: {len(gc.get_objects()):,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    two_layer_net(args.repeats, args.top)
    scalar_chain(args.repeats)


if __name__ == "__main__":
    main()
