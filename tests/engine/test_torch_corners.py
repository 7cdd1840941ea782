"""Corners where miniautograd once differed from torch, each program run on both."""

from __future__ import annotations

import math

import pytest
from helpers import raises_like_torch, same_on_both

import miniautograd as mini

# ---- copy_ is a copy, with its own node -------------------------------------------------------


def test_copy_overwrites_inf_and_nan():
    """``copy_`` writes src's values; it does not compute ``self * 0 + src`` (nan there)."""

    def program(t):
        src = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = t.tensor([math.inf, math.nan, 1.0]).copy_(src)
        out.backward(t.tensor([1.0, 10.0, 100.0]))
        return out, out.grad_fn.name(), src.grad

    same_on_both(program)


def test_copy_node_sums_src_gradient_and_zeroes_self():
    """CopyBackwards: src broadcast to self's shape gets the gradient summed back (in its own
    dtype); the overwritten self gets zeros."""

    def program(t):
        a = t.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
        src = t.tensor([2.0, 3.0, 4.0], dtype=t.float64, requires_grad=True)
        out = (a * 2).copy_(src)
        names = [out.grad_fn.name(), [f and f.name() for f, _ in out.grad_fn.next_functions]]
        (out * t.tensor([1.0, 2.0, 3.0])).sum().backward()
        return out, names, a.grad, src.grad, src.grad.dtype

    same_on_both(program)


def test_copy_into_a_view_and_without_grad():
    def program(t):
        base = t.zeros(2, 3)
        src = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = base * 1
        x[1].copy_(src * 2)
        x.sum().backward()
        plain = t.zeros(3).copy_(t.tensor([1, 2, 3]))
        return x, x.grad_fn.name(), src.grad, plain, plain.dtype

    same_on_both(program)


def test_copy_refuses_a_src_that_does_not_broadcast():
    raises_like_torch(lambda t: t.zeros(3).copy_(t.ones(2, 3)))


# ---- the first .grad under create_graph is a copy ----------------------------------------------


@pytest.mark.filterwarnings("ignore:Using backward.. with create_graph=True")
def test_first_grad_under_create_graph_is_a_copy():
    """torch stores a copy of the incoming gradient (a CopyBackwards node over its graph):
    changing the gradient given, or .grad in place, changes nothing else."""

    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        x.sum().backward(create_graph=True)
        x.grad.add_(1)
        y = t.tensor([1.0, 2.0], requires_grad=True)
        g = t.tensor([3.0, 4.0])
        y.backward(g, create_graph=True)
        same = y.grad is g
        g.add_(10)
        z = t.tensor([1.0, 2.0], requires_grad=True)
        (z * z).sum().backward(create_graph=True)
        node = z.grad.grad_fn
        names = [node.name(), [f and f.name() for f, _ in node.next_functions]]
        z.grad.sum().backward()
        return x.grad, same, y.grad, names, z.grad

    same_on_both(program)
