"""What step 5 of the guided build must do (chapter 5), checked against PyTorch's eager run of
the same program: operations on placeholders build a graph and compute nothing; run() computes
what the fetches need, once per operation, and its result is differentiable."""

from __future__ import annotations

import contextlib
from types import ModuleType

import numpy as np

from .checks import MismatchError, expect
from .step1_checks import DEPTH, X, Y

FEEDS = [(X, Y), ([1.0, 2.0, 3.0], [0.5, 0.5, 0.5]), ([-2.0, 0.0, 1.5], [1.0, -1.0, 0.25])]


def counting(m: ModuleType, calls: list) -> type:
    """x * 2 as a Function of the reader's engine that counts its forward calls in `calls`."""

    class Double(m.Function):
        @staticmethod
        def forward(ctx, x):
            calls.append(1)
            return m.Tensor(x.data * 2.0)

        @staticmethod
        def backward(ctx, grad):
            return grad * 2.0

    return Double


def program(x, w):
    """The program of every check: the same code builds a graph on placeholders and runs
    eagerly on tensors (PyTorch's)."""
    return (x * w + x.exp()).sum()


def torch_run(x_value, w_value):
    import torch

    x = torch.tensor(x_value, dtype=torch.float64)
    w = torch.tensor(w_value, dtype=torch.float64, requires_grad=True)
    loss = program(x, w)
    loss.backward()
    return loss.item(), w.grad.numpy()


def builds_nothing(m: ModuleType) -> None:
    calls: list = []
    x = m.placeholder("x")
    y = counting(m, calls).apply(x) * x
    expect("forward calls while building Double.apply(x) * x, x a placeholder", len(calls), 0)
    expect("isinstance(Double.apply(x) * x, Symbol)", isinstance(y, m.Symbol), True)
    expect("isinstance(x, Symbol)", isinstance(x, m.Symbol), True)
    w = m.Tensor(Y)
    for what, built in [("Tensor(Y) * x", w * x), ("x * Tensor(Y)", x * w)]:
        expect(f"isinstance({what}, Symbol), x a placeholder (a tensor on either side)",
               isinstance(built, m.Symbol), True)


def runs(m: ModuleType) -> None:
    x, w = m.placeholder("x"), m.placeholder("w")
    loss = program(x, w)
    for x_value, w_value in FEEDS:  # built once, run three times
        want, _ = torch_run(x_value, w_value)
        got = m.run(loss, {x: np.array(x_value), w: np.array(w_value)})
        expect(f"run(loss, {{x: {x_value}, w: {w_value}}}).data, PyTorch's eager value",
               got.data, want)
    for what, built in [("Tensor(Y) * x", m.Tensor(Y) * x), ("x * Tensor(Y)", x * m.Tensor(Y))]:
        expect(f"run({what}, {{x: X}}).data", m.run(built, {x: np.array(X)}).data,
               np.array(Y) * X)
    x_new, w_new = FEEDS[1]
    feed = {x: np.array(X), w: np.array(Y)}
    m.run(loss, feed)
    expect("the feed dict after run(loss, feed): the keys it had (run() keeps its values "
           "apart)", len(feed), 2)
    feed[x], feed[w] = np.array(x_new), np.array(w_new)
    expect(f"run(loss, feed) again, feed's values changed to {x_new}, {w_new}: PyTorch's "
           "eager value for the new ones", m.run(loss, feed).data, torch_run(x_new, w_new)[0])


def differentiable(m: ModuleType) -> None:
    x, w = m.placeholder("x"), m.placeholder("w")
    loss = program(x, w)
    for x_value, w_value in FEEDS:
        weight = m.Tensor(w_value, requires_grad=True)
        out = m.run(loss, {x: np.array(x_value), w: weight})
        if not out.requires_grad:
            raise MismatchError(f"run(loss, {{x: {x_value}, w: w}}), w a tensor that requires "
                                "grad: expected a result that requires grad (its graph reaches"
                                " w, as in PyTorch), got one that does not")
        out.backward()
        _, want = torch_run(x_value, w_value)
        expect(f"w.grad after run(loss, {{x: {x_value}, w: w}}).backward(), PyTorch's",
               weight.grad, want)


def once_each(m: ModuleType) -> None:
    calls: list = []
    other: list = []
    x = m.placeholder("x")
    d = counting(m, calls).apply(x)
    y = d * d + d.exp()  # d is used twice
    counting(m, other).apply(x)  # in the graph, but not needed for y
    value = m.run(y, {x: np.array(X)})
    expect("forward calls of Double in one run of y = d * d + d.exp(), d = Double.apply(x)",
           len(calls), 1)
    expect("forward calls of an operation that y does not need", len(other), 0)
    calls.clear()
    m.run(d * d, {x: np.array(X)})
    expect("forward calls of Double in run(d * d, {x: X}), d used twice by one operation",
           len(calls), 1)
    calls.clear()
    d_value = 2.0 * np.array(X)
    expect("run(y, {x: X})", value.data, d_value * d_value + np.exp(d_value))
    both = m.run([y, d], {x: np.array(X)})
    expect("forward calls of Double in run([y, d], {x: X})", len(calls), 1)
    expect("run([y, d], feed)[0]", both[0].data, value.data)
    expect("run([y, d], feed)[1]", both[1].data, d_value)
    one = m.run([d], {x: np.array(X)})
    if not isinstance(one, list) or len(one) != 1:
        raise MismatchError(f"run([d], feed): expected a list of one tensor (a list of fetches "
                            f"gives a list), got {type(one).__name__}")


def missing_feed(m: ModuleType) -> None:
    x, w = m.placeholder("x"), m.placeholder("w")
    try:
        m.run(x * w, {x: np.array(X)})
    except ValueError as error:
        if "'w'" not in str(error):
            raise MismatchError(f"run(x * w, {{x: X}}): expected the ValueError to name the "
                                f"placeholder 'w', got {str(error)!r}") from None
    except Exception as error:  # another exception than the one asked for: say which
        raise MismatchError(f"run(x * w, {{x: X}}), w not fed: expected ValueError naming 'w',"
                            f" got {type(error).__name__}: {error}") from None
    else:
        raise MismatchError("run(x * w, {x: X}), w not fed: expected ValueError naming 'w', "
                            "got no error")
    for fetches in ([x * 2.0, w], [w, x * 2.0]):  # x computed before w is missed, or after
        with contextlib.suppress(ValueError):
            m.run(fetches, {x: np.array(X)})
    expect("run(x * 2.0, {x: Y}) after runs that raised, w not fed (nothing kept from them)",
           m.run(x * 2.0, {x: np.array(Y)}).data, 2.0 * np.array(Y))


def deep(m: ModuleType) -> None:
    x = m.placeholder("x")
    out = x
    for _ in range(DEPTH):
        out = out * 0.9999
    expect(f"run of a chain of {DEPTH:,} products", m.run(out, {x: np.array(X)}).data,
           np.array(X) * 0.9999**DEPTH)


CHECKS = [
    ("operations on placeholders build a graph and compute nothing", builds_nothing),
    ("a graph built once runs with other values each time, as PyTorch computes them", runs),
    ("what run() returns is differentiable: backward() gives PyTorch's gradients",
     differentiable),
    ("run() computes what the fetches need, each operation once", once_each),
    ("run() names a placeholder that was not fed", missing_feed),
    (f"a graph {DEPTH:,} operations deep", deep),
]
