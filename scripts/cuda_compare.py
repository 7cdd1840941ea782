"""``compare_with_torch`` on a device: a handful of programs that touch each kind of op
(elementwise, broadcasting, reductions, matrix products, views, losses), run on both engines;
outputs, gradients and graphs compared. Run by scripts/cuda-check.sh; prints one markdown table and
exits with status 1 if any comparison fails.

    python scripts/cuda_compare.py --device cuda
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from miniautograd.testing import compare_with_torch


def programs() -> dict[str, tuple]:
    """name -> (fn, inputs). ``fn`` takes the engine's module as ``torch``."""
    rng = np.random.default_rng(0)

    def data(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    return {
        "exp * sin + tanh": (lambda x, torch: torch.exp(x) * torch.sin(x) + torch.tanh(x),
                             [data(3, 4)]),
        "broadcast add, mul": (lambda x, b, torch: (x + b) * b, [data(4, 5), data(5)]),
        "sum, mean over dims": (lambda x, torch: x.sum(dim=0) + x.mean(dim=0), [data(6, 3)]),
        "matmul + relu": (lambda x, w, torch: torch.relu(x @ w), [data(5, 4), data(4, 3)]),
        "softmax, log_softmax": (lambda x, torch: torch.softmax(x, dim=1)
                                 + torch.log_softmax(x, dim=1), [data(3, 5)]),
        "view, transpose, index": (lambda x, torch: x.view(4, 3).t()[1:], [data(3, 4)]),
        "mse loss": (lambda x, y, torch: torch.nn.functional.mse_loss(x, y),
                     [data(4, 2), data(4, 2)]),
        "float64 pow, sqrt": (lambda x, torch: (x * x + 1).sqrt().pow(3),
                              [rng.standard_normal((3, 3))]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args(argv)
    print("| program | device | outputs and gradients | same graph |")
    print("|---|---|---|---|")
    failed = 0
    for name, (fn, inputs) in programs().items():
        report = compare_with_torch(fn, *inputs, device=args.device)
        failed += not report
        values = "ok" if all(row.ok for row in report.rows) else "DIFFER"
        same = "yes" if report.same_graph else "NO"
        print(f"| {name} | {args.device} | {values} | {same} |")
    print(f"\n{len(programs()) - failed} of {len(programs())} comparisons passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
