"""Backward is iterative: graphs far deeper than Python's recursion limit work, and so does
freeing them. (A recursive walk would hit RecursionError near depth 1000.)"""

from __future__ import annotations

import gc
import math
import sys

import numpy as np
import pytest
import torch

import miniautograd as mini

DEPTH = 200_000
FACTOR = 1.00001  # the gradient of x * FACTOR**n is FACTOR**n (about e**2 at n = 200,000)


def chain(t, x, depth: int):
    y = x
    for _ in range(depth):
        y = y * FACTOR
    return y


def test_chain_200_000_deep():
    assert sys.getrecursionlimit() * 100 < DEPTH
    x = mini.tensor([1.0, 2.0], dtype=mini.float64, requires_grad=True)
    y = chain(mini, x, DEPTH).sum()
    (captured,) = mini.autograd.grad(y, x, retain_graph=True)  # autograd.grad's own walk
    y.backward()
    expected = FACTOR**DEPTH
    np.testing.assert_allclose(captured.numpy(), [expected, expected], rtol=1e-9)
    np.testing.assert_allclose(x.grad.numpy(), [expected, expected], rtol=1e-9)
    del y, captured
    gc.collect()  # freeing a 200,000-node graph must not recurse either


def test_deep_double_backward():
    """create_graph through a 2,000-deep chain: the gradient's own graph is as deep."""
    for t in (torch, mini):
        x = t.tensor(0.5, dtype=t.float64, requires_grad=True)
        y = x
        for _ in range(2000):
            y = (y * 0.999).sin() + 0.001
        (g,) = t.autograd.grad(y, x, create_graph=True)
        (gg,) = t.autograd.grad(g, x)
        if t is torch:
            expected = (g.item(), gg.item())
    assert math.isclose(g.item(), expected[0], rel_tol=1e-9)
    assert math.isclose(gg.item(), expected[1], rel_tol=1e-9)


def test_wide_graph():
    """10,000 uses of one leaf: their gradients add up in AccumulateGrad (exact in float64)."""
    x = mini.tensor(2.0, dtype=mini.float64, requires_grad=True)
    total = sum(x * k for k in range(10_000))
    total.backward()
    assert x.grad.item() == sum(range(10_000))


@pytest.mark.slow
def test_chain_a_million_deep():
    x = mini.tensor(1.0, dtype=mini.float64, requires_grad=True)
    y = x
    for _ in range(1_000_000):
        y = y + 1.0
    y.backward()
    assert x.grad.item() == 1.0
    assert y.item() == 1_000_001.0
    del y
    gc.collect()
