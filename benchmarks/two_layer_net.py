"""Workload 1: the two-layer ReLU net of "Learning PyTorch with Examples", trained by SGD.

x (64x1000) -> mm w1 (1000x100) -> custom ReLU (an autograd.Function) -> mm w2 (100x10),
loss = sum of squared errors, 500 steps of ``w -= lr * w.grad`` at lr 1e-6, in float32.
Every engine starts from the same numpy weights; the torch program text runs unchanged on
miniautograd. Hand-written numpy backprop is the floor no autograd engine can beat by much.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import autograd.numpy as anp
import mygrad as mg
import numpy as np
import torch
from autograd import value_and_grad
from autograd.extend import defvjp, primitive
from mygrad.operation_base import Operation

import miniautograd
from benchmarks.results import Target, WorkloadResult, agreement
from benchmarks.timing import measure

REFERENCE = "numpy by hand"


@dataclass(frozen=True)
class Problem:
    x: np.ndarray
    y: np.ndarray
    w1: np.ndarray
    w2: np.ndarray
    steps: int
    lr: float


def make_problem(sizes: tuple[int, int, int, int], steps: int, lr: float,
                 dtype: str = "float32", seed: int = 0) -> Problem:
    """Random data and initial weights, drawn once with numpy so that every engine shares them."""
    rng = np.random.default_rng(seed)
    n, d_in, hidden, d_out = sizes
    x, y, w1, w2 = (rng.standard_normal(shape).astype(dtype)
                    for shape in [(n, d_in), (n, d_out), (d_in, hidden), (hidden, d_out)])
    return Problem(x, y, w1, w2, steps, lr)


def _relu_grad(grad: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The article's ReLU backward: the incoming gradient, zeroed where the input was < 0."""
    grad = grad.copy()
    grad[h < 0] = 0
    return grad


# ---- torch and miniautograd: one program, two modules -----------------------------------------
@functools.cache
def my_relu(torch_module: ModuleType) -> type:
    """The article's ``MyReLU`` Function, written against ``torch_module``'s API."""

    class MyReLU(torch_module.autograd.Function):
        @staticmethod
        def forward(ctx: Any, input: Any) -> Any:  # noqa: A002 - the article's name
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (input,) = ctx.saved_tensors  # noqa: A001
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input

    return MyReLU


def train_torch_like(torch_module: ModuleType, p: Problem, device: str = "cpu") -> float:
    """The article's training loop, run by ``torch`` or by ``miniautograd`` (on ``device``)."""
    relu = my_relu(torch_module)
    x, y = torch_module.from_numpy(p.x).to(device), torch_module.from_numpy(p.y).to(device)
    w1 = torch_module.from_numpy(p.w1.copy()).to(device).requires_grad_()
    w2 = torch_module.from_numpy(p.w2.copy()).to(device).requires_grad_()
    for _ in range(p.steps):
        y_pred = relu.apply(x.mm(w1)).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch_module.no_grad():
            w1 -= p.lr * w1.grad
            w2 -= p.lr * w2.grad
            w1.grad.zero_()
            w2.grad.zero_()
    return loss.item()


# ---- hand-written numpy backprop (the floor) --------------------------------------------------
def train_numpy(p: Problem) -> float:
    w1, w2 = p.w1.copy(), p.w2.copy()
    for _ in range(p.steps):
        h = p.x @ w1
        h_relu = np.maximum(h, 0)
        diff = h_relu @ w2 - p.y
        loss = np.square(diff).sum()
        grad_y_pred = 2.0 * diff
        grad_w2 = h_relu.T @ grad_y_pred
        grad_h = _relu_grad(grad_y_pred @ w2.T, h)
        grad_w1 = p.x.T @ grad_h
        w1 -= p.lr * grad_w1
        w2 -= p.lr * grad_w2
    return float(loss)


# ---- mygrad: a custom Operation ---------------------------------------------------------------
class _MygradReLU(Operation):
    def __call__(self, a: mg.Tensor) -> np.ndarray:
        self.variables = (a,)
        return np.maximum(a.data, 0)

    def backward_var(self, grad: np.ndarray, index: int, **kwargs: Any) -> np.ndarray:
        return _relu_grad(grad, self.variables[0].data)


def train_mygrad(p: Problem) -> float:
    x, y = mg.tensor(p.x, constant=True), mg.tensor(p.y, constant=True)
    w1, w2 = mg.tensor(p.w1.copy()), mg.tensor(p.w2.copy())
    for _ in range(p.steps):
        y_pred = mg.Tensor._op(_MygradReLU, x @ w1) @ w2
        loss = ((y_pred - y) ** 2).sum()
        loss.backward()
        w1.data -= p.lr * w1.grad
        w2.data -= p.lr * w2.grad
    return loss.item()


# ---- HIPS autograd: a primitive with its own vjp ----------------------------------------------
@primitive
def _hips_relu(h: np.ndarray) -> np.ndarray:
    return np.maximum(h, 0)


defvjp(_hips_relu, lambda ans, h: lambda grad: _relu_grad(grad, h))


def _hips_loss(weights: tuple, x: np.ndarray, y: np.ndarray) -> Any:
    w1, w2 = weights
    return anp.sum((anp.dot(_hips_relu(anp.dot(x, w1)), w2) - y) ** 2)


_hips_loss_and_grad = value_and_grad(_hips_loss)


def train_hips(p: Problem) -> float:
    w1, w2 = p.w1.copy(), p.w2.copy()
    for _ in range(p.steps):
        loss, (grad_w1, grad_w2) = _hips_loss_and_grad((w1, w2), p.x, p.y)
        w1 -= p.lr * grad_w1
        w2 -= p.lr * grad_w2
    return float(loss)


ENGINES: dict[str, Callable[[Problem], float]] = {
    "miniautograd": functools.partial(train_torch_like, miniautograd),
    "torch": functools.partial(train_torch_like, torch),
    REFERENCE: train_numpy,
    "mygrad": train_mygrad,
    "HIPS autograd": train_hips,
}


def run(quick: bool, repeats: int) -> WorkloadResult:
    sizes, steps = ((8, 30, 12, 4), 10) if quick else ((64, 1000, 100, 10), 500)
    lr = 1e-6
    problem = make_problem(sizes, steps, lr)
    warmup = make_problem((8, 30, 12, 4), 2, lr)
    results = measure({name: functools.partial(fn, problem) for name, fn in ENGINES.items()},
                      repeats,
                      warmups={name: functools.partial(fn, warmup) for name, fn in ENGINES.items()})
    float32 = {name: m.value for name, m in results.items()}
    # float32 losses drift apart as the loss falls by 11 orders of magnitude (BLAS libraries sum
    # in different orders: torch's MKL ends 0.9% off numpy's OpenBLAS here), so float32 gets a
    # loose sanity bound; the float64 re-run shows that the engines compute the same thing.
    double = make_problem(sizes, steps, lr, dtype="float64")
    float64 = {name: fn(double) for name, fn in ENGINES.items()}
    n, d_in, hidden, d_out = sizes
    result = WorkloadResult(
        key="two_layer_net",
        title="Two-layer net with a custom ReLU Function (the seed article)",
        setup=(f"x {n}x{d_in}, w1 {d_in}x{hidden}, w2 {hidden}x{d_out}, float32, {steps} SGD "
               f"steps at lr {lr:g}; same initial weights (numpy, seed 0) for every engine."),
        value_label="final loss (float32)",
        measurements=list(results.values()),
        baselines=["torch", REFERENCE],
        checks=[
            agreement(float32, float32[REFERENCE], 5e-2,
                      f"float32 final losses agree with {REFERENCE}"),
            agreement(float64, float64[REFERENCE], 1e-6,
                      f"float64 final losses (an untimed re-run) agree with {REFERENCE}"),
        ],
        targets=[Target("miniautograd", "torch", 0.75), Target("miniautograd", REFERENCE, 1.5)],
    )
    result.notes.append("float64 final losses: " + ", ".join(
        f"{name} {value:.10g}" for name, value in float64.items()))
    result.score_targets()
    return result
