"""What step 1 of the guided build must do (chapter 1), checked against PyTorch."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from .checks import MismatchError, counted_calls, expect, graph_nodes

X = [0.5, -1.0, 2.0]
Y = [3.0, 0.25, -1.5]
DEPTH = 10_000  # ten times Python's default recursion limit


def torch_grads(program, *values):
    """The gradients PyTorch computes for `program` on float64 leaves made of `values`."""
    import torch

    leaves = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    program(*leaves).backward()
    return [leaf.grad.numpy() for leaf in leaves]


def mine(m: ModuleType, *values):
    return [m.Tensor(v, requires_grad=True) for v in values]


def a_leaf(m: ModuleType) -> None:
    x = m.Tensor(X, requires_grad=True)
    c = m.Tensor(Y)
    expect("Tensor(X, requires_grad=True).requires_grad", x.requires_grad, True)
    expect("Tensor(Y).requires_grad", c.requires_grad, False)
    expect("a new tensor's grad_fn", x.grad_fn, None)
    expect("a new tensor's .grad", x.grad, None)
    expect("a new tensor's is_leaf", x.is_leaf, True)
    expect("its data", x.data, np.array(X))
    array = np.array(X)
    if np.shares_memory(m.Tensor(array).data, array):
        raise MismatchError("Tensor(array).data: expected a copy of the array, as torch.tensor "
                            "makes, got the array itself (a change to one would change the "
                            "other)")


def recording(m: ModuleType) -> None:
    x, y = mine(m, X, Y)
    z = x * y
    if z.grad_fn is None:
        raise MismatchError("x * y with x requiring grad: expected a grad_fn, got None")
    expect("x * y: requires_grad", z.requires_grad, True)
    expect("x * y: is_leaf", z.is_leaf, False)
    expect("len((x * y).grad_fn.next_functions)", len(z.grad_fn.next_functions), 2)
    for what, node, torch_name in [("x * y", z.grad_fn, "MulBackward0"),
                                   ("x + y", (x + y).grad_fn, "AddBackward0"),
                                   ("x.exp()", x.exp().grad_fn, "ExpBackward0"),
                                   ("x.sum()", x.sum().grad_fn, "SumBackward0")]:
        # PyTorch's name; a custom Function's node (step 3) has no overload number, the 0
        if node is None or node.name() not in (torch_name, torch_name[:-1]):
            raise MismatchError(f"({what}).grad_fn.name(): expected PyTorch's {torch_name}, "
                                f"got {None if node is None else node.name()!r}")
    c = m.Tensor(Y)
    expect("(c * c).grad_fn, c not requiring grad", (c * c).grad_fn, None)
    expect("(c * c).requires_grad", (c * c).requires_grad, False)


def values(m: ModuleType) -> None:
    x, y = mine(m, X, Y)
    expect("(x * y + x.exp()).sum()", (x * y + x.exp()).sum().data,
           float(np.sum(np.array(X) * Y + np.exp(X))))


def gradients(m: ModuleType) -> None:
    x, y = mine(m, X, Y)
    (x * y + x.exp()).sum().backward()
    want_x, want_y = torch_grads(lambda a, b: (a * b + a.exp()).sum(), X, Y)
    expect("x.grad of (x * y + x.exp()).sum(), PyTorch's", x.grad, want_x)
    expect("y.grad, PyTorch's", y.grad, want_y)


def reused(m: ModuleType) -> None:
    (x,) = mine(m, X)
    (x * x).sum().backward()
    (want,) = torch_grads(lambda a: (a * a).sum(), X)
    expect("x.grad of (x * x).sum(), both uses added", x.grad, want)


def each_node_once(m: ModuleType) -> None:
    x, y = mine(m, X, Y)
    z = x * y  # z's node receives two gradients: from z * z and from z.exp()
    loss = (z * z + z.exp()).sum()
    nodes = graph_nodes(loss.grad_fn)
    with counted_calls(nodes) as calls:
        loss.backward()
    never = [node.name() for node in nodes if calls.get(id(node), 0) == 0]
    if never:
        raise MismatchError(f"expected each node called once, got {', '.join(never)} never "
                            "called: its count of gradients to come never reached zero (count "
                            "each edge once, in a walk that visits each node once)")
    wrong = [f"{node.name()} called {calls[id(node)]} times" for node in nodes
             if calls[id(node)] != 1]
    if wrong:
        raise MismatchError(f"expected each node called once, got {', '.join(wrong)} (wait "
                            "until all of a node's gradients have arrived, add them, then run "
                            "it)")
    want_x, want_y = torch_grads(lambda a, b: (a * b * (a * b) + (a * b).exp()).sum(), X, Y)
    expect("x.grad of (z * z + z.exp()).sum(), z = x * y, PyTorch's", x.grad, want_x)
    expect("y.grad, PyTorch's", y.grad, want_y)


def one_accumulator(m: ModuleType) -> None:
    (x,) = mine(m, X)
    first, second = (x * x).grad_fn.next_functions
    if first is not second:
        raise MismatchError("(x * x).grad_fn.next_functions: expected the same AccumulateGrad "
                            "twice, got two different nodes (keep a leaf's node on the leaf "
                            "and reuse it)")


def accumulates(m: ModuleType) -> None:
    x, y = mine(m, X, Y)
    (x * y).sum().backward()
    (x * y).sum().backward()
    expect("x.grad after two backward() calls of (x * y).sum()", x.grad, 2 * np.array(Y))


def own_grads(m: ModuleType) -> None:
    x, y = mine(m, X, Y)
    for _ in range(2):
        (x + y).sum().backward()  # the same gradient array may reach both leaves
    expect("x.grad after two backward() calls of (x + y).sum()", x.grad, np.full(3, 2.0))
    expect("y.grad, its own .grad, not x's", y.grad, np.full(3, 2.0))


def deep_chain(m: ModuleType) -> None:
    (x,) = mine(m, X)
    out = x
    for _ in range(DEPTH):
        out = out * 0.9999
    out.sum().backward()

    def chain(a):
        for _ in range(DEPTH):
            a = a * 0.9999
        return a.sum()

    (want,) = torch_grads(chain, X)
    expect(f"x.grad of a chain of {DEPTH:,} products", x.grad, want)


CHECKS = [
    ("a leaf: requires_grad as asked, no grad_fn, no .grad", a_leaf),
    ("an operation records a node when an input requires grad, and only then", recording),
    ("the forward pass computes the values", values),
    ("backward() fills .grad of the leaves, as PyTorch does", gradients),
    ("a tensor used twice gets both contributions", reused),
    ("each node runs once, after all its gradients have arrived", each_node_once),
    ("a leaf reaches one AccumulateGrad, however often it is used", one_accumulator),
    ("gradients accumulate over backward() calls", accumulates),
    ("two leaves that get the same gradient keep a .grad each", own_grads),
    (f"a chain {DEPTH:,} operations deep", deep_chain),
]
