"""What step 4 of the guided build must do (chapter 4), checked against PyTorch: no_grad()
records nothing and restores the mode it found; detach() shares the array and the version
counter but not the history."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from .checks import MismatchError, expect
from .step1_checks import X, Y, mine
from .step2_checks import stale
from .step3_checks import cube, torch_leaves

LR = 0.1


def records_nothing(m: ModuleType) -> None:
    (x,) = mine(m, X)
    expect("is_grad_enabled() outside any block", m.is_grad_enabled(), True)
    with m.no_grad():
        expect("is_grad_enabled() inside no_grad()", m.is_grad_enabled(), False)
        y = x * 2.0
        z = cube(m.Function, m.Tensor).apply(x)
    expect("is_grad_enabled() after the block", m.is_grad_enabled(), True)
    for what, t in [("x * 2.0", y), ("Cube.apply(x)", z)]:
        expect(f"{what} under no_grad(): grad_fn", t.grad_fn, None)
        expect(f"{what} under no_grad(): requires_grad", t.requires_grad, False)
    expect("x * 2.0 after the block: requires_grad", (x * 2.0).requires_grad, True)
    with m.no_grad():
        made = m.Tensor(X, requires_grad=True)
    expect("Tensor(X, requires_grad=True) made under no_grad(): requires_grad (a leaf keeps "
           "what it was asked for, as in PyTorch)", made.requires_grad, True)


def restores(m: ModuleType) -> None:
    import torch

    seen, torch_seen = [], []
    for engine, out in [(m, seen), (torch, torch_seen)]:
        with engine.no_grad():
            with engine.no_grad():
                pass
            out.append(engine.is_grad_enabled())  # still inside the outer block
        try:
            with engine.no_grad():
                raise KeyError("inside the block")
        except KeyError:
            out.append(engine.is_grad_enabled())
        else:
            raise MismatchError("a KeyError raised inside `with no_grad():` did not come out of "
                                "the block: no_grad() swallowed it (an __exit__ that returns "
                                "True does; return nothing)")
    expect("is_grad_enabled() after a nested no_grad() block ends, and after a block that "
           "raised", seen, torch_seen)


def sgd_step(m: ModuleType) -> None:
    import torch

    w, x = m.Tensor(X, requires_grad=True), m.Tensor(Y)
    tw, tx = torch.tensor(X, dtype=torch.float64, requires_grad=True), torch.tensor(
        Y, dtype=torch.float64)
    for step in range(1, 4):
        for engine, weight, data in [(m, w, x), (torch, tw, tx)]:
            weight.grad = None
            ((weight * data).exp().sum()).backward()
            with engine.no_grad():
                weight.add_(weight.grad * -LR)
        expect(f"w after update {step} of w.add_(w.grad * -0.1) under no_grad(), PyTorch's",
               w.data, tw.detach().numpy())
        expect(f"w.requires_grad after update {step}", w.requires_grad, True)
        expect(f"w.is_leaf after update {step}", w.is_leaf, True)
    expect("w._version after three in-place updates", w._version, tw._version)


def in_place_keeps_history(m: ModuleType) -> None:
    (x,) = mine(m, X)
    y = x * 2.0
    node = y.grad_fn
    with m.no_grad():
        y.add_(1.0)
    if y.grad_fn is not node:
        raise MismatchError("y = x * 2.0; y.add_(1.0) under no_grad(): expected y to keep its "
                            "grad_fn, as in PyTorch (nothing is recorded), got another")
    expect("y._version", y._version, 1)


def detach_shares(m: ModuleType) -> None:
    (x,) = mine(m, X)
    y = x.exp()
    d = y.detach()
    if not np.shares_memory(d.data, y.data):
        raise MismatchError("y.detach().data: expected the array of y itself (PyTorch's "
                            "detach() shares the memory), got a copy")
    expect("y.detach().requires_grad", d.requires_grad, False)
    expect("y.detach().grad_fn", d.grad_fn, None)
    expect("y.detach().is_leaf", d.is_leaf, True)
    expect("y.requires_grad after y.detach()", y.requires_grad, True)
    with m.no_grad():
        y.add_(1.0)  # written into y's array, which d shares
    expect("y.detach(), taken before y.add_(1.0) under no_grad(): its data (in PyTorch, add_ "
           "writes into the array, which detach() shares)", d.data,
           np.exp(X) + 1.0)
    (x * x).sum().backward()
    leaf = x.detach()
    expect("x.detach().grad, x having a .grad (a new tensor: no .grad, as in PyTorch)",
           leaf.grad, None)
    leaf.requires_grad = True
    (leaf * 3.0).sum().backward()
    expect("x.grad after d = x.detach(); d.requires_grad = True; (d * 3.0).sum().backward(): "
           "x's own, unchanged (d is a leaf of its own, as in PyTorch)", x.grad,
           2 * np.array(X))


def detach_stops(m: ModuleType) -> None:
    (x,) = mine(m, X)
    (x * x.detach()).sum().backward()
    (tx,) = torch_leaves(X)
    (tx * tx.detach()).sum().backward()
    expect("x.grad of (x * x.detach()).sum(), PyTorch's", x.grad, tx.grad.numpy())


def detach_versions(m: ModuleType) -> None:
    def program(m):
        y = m.Tensor(X, requires_grad=True).exp()
        d = y.detach()
        d.add_(1.0)
        if y._version != 1:
            raise MismatchError(f"y = x.exp(); y.detach().add_(1.0): expected y._version 1 "
                                f"(the counter is shared, as PyTorch's is), got {y._version}")
        y.sum().backward()

    stale(m, program, "y = x.exp(); y.detach().add_(1.0); y.sum().backward()", 1)


CHECKS = [
    ("operations under no_grad() record nothing, and record again after", records_nothing),
    ("three SGD steps, updating a leaf in place under no_grad()", sgd_step),
    ("an in-place change under no_grad() leaves the history as it was",
     in_place_keeps_history),
    ("detach() shares the array, needs no grad, and is a leaf", detach_shares),
    ("the gradient stops at detach()", detach_stops),
    ("detach() shares the version counter: a change through it is caught", detach_versions),
    # last: an engine that leaves grad mode off after a block that raised fails only here
    ("no_grad() restores the mode it found: nested, and when the block raises", restores),
]
