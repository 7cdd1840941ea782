"""The benchmarks' GPU rows: two workloads, torch and miniautograd (CuPy), on a CUDA GPU and on
the CPU. Run by scripts/cuda-check.sh; prints one markdown table.

    python benchmarks/gpu.py                          full sizes, on cuda and cpu
    python benchmarks/gpu.py --device cpu --quick     tiny sizes, CPU only (the script's dry run)

Wall time, best of ``--repeats``: GPU work is asynchronous, and each run ends with
``loss.item()``, which waits for it. Exits with status 1 if an engine's final loss disagrees
with torch's on the same device.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch

import miniautograd
from benchmarks import small_mlp, two_layer_net
from benchmarks.timing import measure

ENGINES = {"torch": torch, "miniautograd": miniautograd}
# float32 on both engines; the two-layer net's loss falls by orders of magnitude, so its final
# value keeps only a loose agreement across matrix-product libraries (benchmarks/README.md).
TOLERANCE = {"two_layer_net": 5e-2, "small_mlp": 1e-3}


def workloads(quick: bool) -> dict[str, tuple[str, Callable, object, object]]:
    """key -> (title, train(module, problem, device), problem, warm-up problem)."""
    net = ((8, 20, 10, 3), 5) if quick else ((64, 1000, 100, 10), 500)
    mlp = (10, 4, 16) if quick else (1000, 32, 128)
    return {
        "two_layer_net": (
            f"two-layer net {'x'.join(map(str, net[0]))}, {net[1]} SGD steps",
            two_layer_net.train_torch_like,
            two_layer_net.make_problem(net[0], net[1], 1e-6),
            two_layer_net.make_problem((4, 6, 5, 2), 1, 1e-6),
        ),
        "small_mlp": (
            f"small MLP 4-{mlp[2]}-2, batch {mlp[1]}, {mlp[0]} Adam steps",
            small_mlp.train,
            small_mlp.make_problem(*mlp),
            small_mlp.make_problem(2, 4, 16),
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda", help="the accelerator (cpu: dry run)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    devices = list(dict.fromkeys([args.device, "cpu"]))
    torch.set_num_threads(1)
    rows, ok = [], True
    for key, (title, train, problem, warmup) in workloads(args.quick).items():
        for device in devices:
            cases = {name: functools.partial(train, module, problem, device)
                     for name, module in ENGINES.items()}
            warmups = {name: functools.partial(train, module, warmup, device)
                       for name, module in ENGINES.items()}
            # On a GPU anything may fail (CuPy, memory): a failed engine gets a row, and the
            # table is still printed.
            results = measure(cases, args.repeats, warmups=warmups, failures=(Exception,))
            reference = results["torch"].value
            for name, result in results.items():
                agrees = (result.value is not None and reference is not None and
                          abs(result.value - reference) <= TOLERANCE[key] * abs(reference))
                ok &= agrees
                if result.best_wall is None:  # the engine failed: say so in its row
                    rows.append(f"| {title} | {device} | {name} | **{result.error}** | 0 | - | "
                                "- | DIFFERS |")
                    continue
                torch_wall = results["torch"].best_wall
                ratio = "-" if torch_wall is None else f"{result.best_wall / torch_wall:.2f}"
                rows.append(f"| {title} | {device} | {name} | {result.best_wall:.3f} | "
                            f"{len(result.wall_s)} | {ratio} | {result.value:.6g} | "
                            f"{'ok' if agrees else 'DIFFERS'} |")
    print("| workload | device | engine | wall s (best) | runs | x torch | final loss | "
          "agrees with torch |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
