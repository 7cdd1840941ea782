"""Workload 3: a CartPole-sized MLP (4 -> 128 -> 2, nn.Linear + ReLU) trained by Adam.

Batches of 32 on tensors this small cost almost nothing in numpy, so the time is per-op
overhead: creating tensors and graph nodes, nn.Module calls, the optimizer's Python loop.
mygrad has neither layers nor optimizers: its program writes the two linear layers out and
takes torch's Adam steps on numpy arrays (``numpy_adam.py``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import ModuleType

import mygrad as mg
import numpy as np
import torch

import miniautograd
from benchmarks.numpy_adam import Adam
from benchmarks.results import WorkloadResult, agreement
from benchmarks.timing import measure


@dataclass(frozen=True)
class Problem:
    inputs: np.ndarray  # (steps, batch, 4)
    targets: np.ndarray  # (steps, batch, 2)
    state: dict[str, np.ndarray]  # the initial parameters, as a state_dict of numpy arrays


def make_problem(steps: int, batch: int, hidden: int, dtype: str = "float32",
                 seed: int = 0) -> Problem:
    rng = np.random.default_rng(seed)
    bound_in, bound_hidden = 1 / np.sqrt(4), 1 / np.sqrt(hidden)
    state = {
        "0.weight": rng.uniform(-bound_in, bound_in, (hidden, 4)),
        "0.bias": rng.uniform(-bound_in, bound_in, hidden),
        "2.weight": rng.uniform(-bound_hidden, bound_hidden, (2, hidden)),
        "2.bias": rng.uniform(-bound_hidden, bound_hidden, 2),
    }
    return Problem(rng.standard_normal((steps, batch, 4)).astype(dtype),
                   rng.standard_normal((steps, batch, 2)).astype(dtype),
                   {name: value.astype(dtype) for name, value in state.items()})


def train(torch_module: ModuleType, p: Problem, device: str = "cpu") -> float:
    """A plain torch training loop; ``torch_module`` is torch or miniautograd (on ``device``)."""
    nn = torch_module.nn
    hidden = p.state["0.bias"].shape[0]
    model = nn.Sequential(nn.Linear(4, hidden), nn.ReLU(), nn.Linear(hidden, 2))
    if p.inputs.dtype == np.float64:
        model.double()
    model.load_state_dict({k: torch_module.from_numpy(v) for k, v in p.state.items()})
    model.to(device)
    optimizer = torch_module.optim.Adam(model.parameters(), lr=1e-3)
    for inputs, targets in zip(p.inputs, p.targets, strict=True):
        loss = nn.functional.mse_loss(model(torch_module.from_numpy(inputs).to(device)),
                                      torch_module.from_numpy(targets).to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def train_mygrad(p: Problem) -> float:
    """The same loop in mygrad: x @ W.T + b by hand, torch's Adam on the numpy arrays."""
    params = [mg.tensor(p.state[name].copy()) for name in ("0.weight", "0.bias", "2.weight",
                                                           "2.bias")]
    optimizer = Adam([param.data for param in params], lr=1e-3)
    w0, b0, w2, b2 = params
    for inputs, targets in zip(p.inputs, p.targets, strict=True):
        hidden = mg.nnet.activations.relu(mg.matmul(inputs, w0.T) + b0)
        loss = mg.mean((mg.matmul(hidden, w2.T) + b2 - targets) ** 2)
        loss.backward()
        optimizer.step([param.grad for param in params])
    return loss.item()


ENGINES = {"miniautograd": functools.partial(train, miniautograd),
           "torch": functools.partial(train, torch),
           "mygrad": train_mygrad}


def run(quick: bool, repeats: int) -> WorkloadResult:
    steps, batch, hidden = (10, 4, 16) if quick else (1000, 32, 128)
    problem = make_problem(steps, batch, hidden)
    warmup = make_problem(2, 4, 16)
    results = measure({name: functools.partial(fn, problem) for name, fn in ENGINES.items()},
                      repeats,
                      warmups={name: functools.partial(fn, warmup) for name, fn in ENGINES.items()})
    float32 = {name: m.value for name, m in results.items()}
    double = make_problem(steps, batch, hidden, dtype="float64")
    float64 = {name: fn(double) for name, fn in ENGINES.items()}
    return WorkloadResult(
        key="small_mlp",
        title=f"Small MLP with nn.Linear + Adam (4 -> {hidden} -> 2)",
        setup=(f"Batch {batch}, {steps} Adam steps (lr 1e-3) of MSE regression on random data, "
               "float32; same initial parameters for both engines (loaded with load_state_dict)."),
        value_label="final loss (float32)",
        measurements=list(results.values()),
        baselines=["torch"],
        checks=[
            agreement(float32, float32["torch"], 1e-4, "float32 final losses agree with torch"),
            agreement(float64, float64["torch"], 1e-9,
                      "float64 final losses (an untimed re-run) agree with torch"),
        ],
    )
