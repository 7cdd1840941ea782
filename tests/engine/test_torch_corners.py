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


# ---- what where and indexing read in backward is saved, versioned and freed --------------------


def _changed_after_use(make):
    """``make(t, x, key)`` uses ``key``; key is then changed in place before backward."""

    def program(t):
        x = t.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
        key = make.key(t)
        y = make(t, x, key)
        key[0] = key[1]
        y.sum().backward()

    return program


def _where(t, x, cond):
    return t.where(cond, x, t.zeros(2, 3))


def _index(t, x, idx):
    return x[:, idx]


def _mask(t, x, mask):
    return x[mask]


def _embedding(t, x, ids):
    return t.nn.functional.embedding(ids, x)


_where.key = lambda t: t.tensor([[True, False, True], [False, True, True]])
_index.key = lambda t: t.tensor([0, 2, 2])
_mask.key = _where.key
_embedding.key = lambda t: t.tensor([1, 0, 1])
CHANGED = {"where": _where, "index": _index, "mask": _mask, "embedding": _embedding}


@pytest.mark.parametrize("make", CHANGED.values(), ids=CHANGED.keys())
def test_a_condition_or_index_changed_in_place_is_refused(make):
    raises_like_torch(_changed_after_use(make), "modified by an inplace operation",
                      "is at version 1; expected version 0")


def test_the_indices_max_dim_returned_changed_in_place_are_refused():
    def program(t):
        x = t.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
        values, indices = x.max(1)
        indices[0] = 0
        values.sum().backward()

    raises_like_torch(program, "modified by an inplace operation")


@pytest.mark.parametrize("make", CHANGED.values(), ids=CHANGED.keys())
def test_a_condition_or_index_is_freed_by_backward(make):
    def program(t, retain):
        x = t.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
        y = make(t, x, make.key(t)).sum()
        y.backward(retain_graph=retain)
        y.backward()
        return x.grad

    raises_like_torch(lambda t: program(t, False), "backward through the graph a second time")
    same_on_both(lambda t: program(t, True))
    x = mini.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
    key = make.key(mini)
    y = make(mini, x, key)
    node = y.grad_fn
    y.sum().backward()
    assert node._packed is None
    assert not any(v is key for v in vars(node).values())


def test_double_backward_through_a_tensor_index():
    def program(t):
        x = t.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
        v = t.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        idx = t.tensor([0, 2, 2])
        (g,) = t.autograd.grad((x[:, idx] * x[:, idx]).sum(), x, create_graph=True)
        (gg,) = t.autograd.grad((g * v).sum(), x)
        w = t.tensor([[1.0, 0.0, 2.0], [3.0, 1.0, 0.5]], requires_grad=True)
        (e,) = t.autograd.grad(t.nn.functional.embedding(t.tensor([0, 1, 1]), w).pow(2).sum(), w,
                               create_graph=True)
        (ee,) = t.autograd.grad((e * w).sum(), w)
        return g, gg, e, ee

    same_on_both(program)


def test_a_gather_index_or_sort_indices_changed_in_place_are_refused():
    """gather saves its index, sort the indices it returns (torch's ``_saved_index``,
    ``_saved_indices``): changed in place before backward, they are refused."""

    def gathered(t):
        x = t.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
        index = t.tensor([[0, 2], [1, 1]])
        y = x.gather(1, index)
        index[0, 0] = 1
        y.sum().backward()

    def sorted_(t):
        x = t.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
        values, indices = x.sort(1)
        indices[0, 0] = 1
        values.sum().backward()

    raises_like_torch(gathered, "modified by an inplace operation")
    raises_like_torch(sorted_, "modified by an inplace operation")


def test_a_class_target_changed_in_place_is_refused():
    """nll_loss saves its target, and backward reads it from there (not from a copy kept
    beside it), so a target changed in place before backward is refused, as in torch."""

    def program(t):
        x = t.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
        target = t.tensor([2, 0])
        loss = t.nn.functional.cross_entropy(x, target)
        target[0] = 1
        loss.backward()

    raises_like_torch(program, "modified by an inplace operation")
