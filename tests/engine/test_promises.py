"""Behaviours the engine's code and docstrings promise, each with a test that fails when the
promise is broken: the ready queue's tie order (told apart by leaf, not by node name, since
every AccumulateGrad has the same name), autograd.grad's pruning of branches that lead to no
input asked for, no reference cycle between an op's saved output and its node, and a graph
check that fails when either engine shares a node the other does not."""

from __future__ import annotations

import gc
import weakref

import pytest
import torch
from helpers import assert_same_graph, same_on_both

import miniautograd as mini


def test_leaves_accumulate_in_torchs_order_when_nodes_tie():
    """Nine leaves through cat, stack and addmm: the order in which their AccumulateGrad nodes
    run is decided by the ready queue's tie-break (libstdc++'s heap, newest first)."""

    def program(t):
        t.manual_seed(0)
        leaves = [t.randn(2, 3, dtype=t.float64, requires_grad=True) for _ in range(9)]
        order = []
        for n, leaf in enumerate(leaves):
            leaf.register_post_accumulate_grad_hook(lambda _, n=n: order.append(n))
        cat = t.cat(leaves[:5])  # (10, 3)
        stacked = t.stack(leaves[5:]).reshape(12, 2)  # (12, 2)
        out = t.addmm(cat[:2, :2], cat[:2], stacked[:3]) + cat.sum() + stacked.sum()
        out.sum().backward()
        return order

    order = same_on_both(program)
    assert sorted(order) == list(range(9))


def test_autograd_grad_runs_only_what_leads_to_the_inputs_asked_for():
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = t.tensor([3.0, 4.0], requires_grad=True)
        sin = y.sin()
        ran = []
        sin.grad_fn.register_prehook(lambda g: ran.append("SinBackward0"))
        (gx,) = t.autograd.grad((x.exp() + sin).sum(), x)
        return gx, ran

    _, ran = same_on_both(program)
    assert ran == []


def test_a_saved_output_frees_its_node_without_the_garbage_collector():
    """exp saves its output; the saved copy must not hold the node that holds it (a cycle
    only the cyclic collector could free)."""
    x = mini.tensor([1.0, 2.0], requires_grad=True)
    enabled = gc.isenabled()
    gc.disable()
    try:
        y = x.exp()
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None, "the node outlived its output: a reference cycle"
    finally:
        if enabled:
            gc.enable()


def shared(t):
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = a.exp()
    return b + b, [a]


def twice(t):
    a = t.tensor([1.0, 2.0], requires_grad=True)
    return a.exp() + a.exp(), [a]


@pytest.mark.parametrize(("mine", "theirs"), [(shared, twice), (twice, shared)],
                         ids=["miniautograd shares", "torch shares"])
def test_the_graph_check_fails_when_one_engine_shares_a_node(mine, theirs):
    (m_out, m_leaves), (t_out, t_leaves) = mine(mini), theirs(torch)
    with pytest.raises(AssertionError, match="reuses a node"):
        assert_same_graph(m_out.grad_fn, t_out.grad_fn, m_leaves, t_leaves)


def test_the_graph_check_accepts_the_same_sharing():
    for program in (shared, twice):
        (m_out, m_leaves), (t_out, t_leaves) = program(mini), program(torch)
        assert_same_graph(m_out.grad_fn, t_out.grad_fn, m_leaves, t_leaves)


def test_autograd_grad_visits_no_branch_it_does_not_need():
    """Hooks and retain_grad on a branch that leads to no input asked for never fire (torch
    queues only the nodes its exec_info marks); a needed target is captured before the hooks
    of its tensor run, an unneeded one after them."""

    def program(t):
        a, b = t.ones(3, requires_grad=True), t.ones(3, requires_grad=True)
        fired = []
        c = a.exp()
        c.register_hook(lambda g: fired.append("c"))
        c.retain_grad()
        t.autograd.grad((c * b).sum(), b)
        x = t.ones(2, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        z = (y * 3).sum()
        alone = t.autograd.grad(z, y, retain_graph=True)
        both = t.autograd.grad(z, [y, x])
        return fired, c.grad, alone, both

    same_on_both(program)
