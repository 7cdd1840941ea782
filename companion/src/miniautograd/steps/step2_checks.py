"""What step 2 of the guided build must do (chapter 2), checked against PyTorch: nodes save
what their backward needs, and a version counter catches an in-place change to a saved tensor."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np

from .checks import MismatchError, expect
from .step1_checks import X, Y, mine, torch_grads

STALE = "modified by an inplace operation"  # the start of the message both engines raise


def add_in_place(m: ModuleType) -> None:
    t = m.Tensor(X)
    array = t.data
    expect("Tensor(X)._version", t._version, 0)
    if t.add_(1.0) is not t:
        raise MismatchError("t.add_(1.0): expected t itself back, got another object")
    expect("t._version after t.add_(1.0)", t._version, 1)
    expect("the array t held before add_ (changed in place, as PyTorch's storage is)", array,
           np.array(X) + 1)
    t.add_(m.Tensor(Y))
    expect("t._version after a second add_", t._version, 2)
    expect("t.data after both", t.data, np.array(X) + 1 + np.array(Y))


def leaf_in_place(m: ModuleType) -> None:
    (x,) = mine(m, X)
    try:
        x.add_(1.0)
    except RuntimeError as error:
        if "leaf" not in str(error):
            raise MismatchError(f"expected PyTorch's message, 'a leaf Variable that requires "
                                f"grad is being used in an in-place operation.', got "
                                f"{str(error)!r}") from None
    else:
        raise MismatchError("x.add_(1.0), x a leaf that requires grad: expected RuntimeError "
                            "('a leaf Variable that requires grad is being used in an "
                            "in-place operation.'), got no error")
    expect("x._version after the refused x.add_(1.0) (nothing changed, as in PyTorch)",
           x._version, 0)


def in_place_records(m: ModuleType) -> None:
    import torch

    (x,) = mine(m, X)
    y = x * 2.0
    before = y.grad_fn
    y.add_(1.0)
    if y.grad_fn is before or y.grad_fn is None:
        raise MismatchError("y = x * 2.0; y.add_(1.0): expected a new grad_fn for y (PyTorch's "
                            "is AddBackward0), got the one y had before")
    if y.grad_fn.next_functions[0] is not before:
        raise MismatchError("y.add_(1.0): expected the new node's first edge to lead to y's "
                            "old grad_fn (MulBackward0)")
    w = m.Tensor(Y)
    (y * w).sum().backward()
    tx = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    ty = tx * 2.0
    ty.add_(1.0)
    (ty * torch.tensor(Y, dtype=torch.float64)).sum().backward()
    expect("x.grad of (y * w).sum(), PyTorch's", x.grad, tx.grad.numpy())
    c = m.Tensor(Y)  # requires no grad, until a sum with x makes it part of x's graph
    c.add_(x)
    expect("c.add_(x), c not requiring grad: c.requires_grad", c.requires_grad, True)
    expect("c.add_(x): c.is_leaf", c.is_leaf, False)
    if c.grad_fn.next_functions[0] is not None:
        raise MismatchError("c.add_(x), c not requiring grad: expected the first edge of c's "
                            "new node to lead nowhere (None, as in PyTorch: c had no node), "
                            "got a node")


def saved(m: ModuleType) -> None:
    import torch

    x, w = mine(m, X, Y)
    tx, tw = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (X, Y))
    node, tnode = (x * w).grad_fn, (tx * tw).grad_fn
    expect_saved("(x * w).grad_fn", node, [tnode._saved_self, tnode._saved_other],
                 "_saved_self and _saved_other")
    y, ty = x.exp(), tx.exp()
    expect_saved("x.exp().grad_fn", y.grad_fn, [ty.grad_fn._saved_result], "_saved_result")
    if y.grad_fn.saved_tensors[0] is not y:
        raise MismatchError("x.exp().grad_fn.saved_tensors: expected the result itself, the "
                            "tensor exp returned, got another tensor")
    expect_saved("(x + w).grad_fn", (x + w).grad_fn, [], "no tensor")
    expect_saved("x.sum().grad_fn", x.sum().grad_fn, [], "no tensor, only x's shape")


def expect_saved(what: str, node, want: list, torch_names: str) -> None:
    got = node.saved_tensors
    if len(got) != len(want):
        raise MismatchError(f"{what}.saved_tensors: expected {len(want)} tensors (PyTorch's "
                            f"node saves {torch_names}), got {len(got)}")
    for i, (tensor, torch_tensor) in enumerate(zip(got, want, strict=True)):
        expect(f"{what}.saved_tensors[{i}]", tensor.data, torch_tensor.detach().numpy())


def stale(m: ModuleType, program: Callable, what: str, version: int) -> None:
    """`program(m)` changes a saved tensor in place `version` times, then runs backward();
    it must raise PyTorch's error, with the versions."""
    try:
        program(m)
    except RuntimeError as error:
        message = str(error)
        if STALE not in message:
            raise MismatchError(f"{what}: expected PyTorch's RuntimeError ('... {STALE}: ... is"
                                f" at version {version}; expected version 0 instead'), got "
                                f"{message!r}") from None
        fragment = f"is at version {version}; expected version 0"
        if fragment not in message:
            raise MismatchError(f"{what}: expected the message to say '{fragment}', as "
                                f"PyTorch's does, got {message!r}") from None
    else:
        raise MismatchError(f"{what}: expected RuntimeError ('{STALE}'), got no error: "
                            "backward() used the changed values")


def saved_input_changed(m: ModuleType) -> None:
    def program(m):
        x, w = m.Tensor(X, requires_grad=True), m.Tensor(Y)
        z = x * w
        w.add_(1.0)
        w.add_(1.0)
        z.sum().backward()

    stale(m, program, "z = x * w; w.add_(1.0) twice; z.sum().backward()", 2)

    def reading(m):  # the check is in saved_tensors itself, as in PyTorch's _saved_other
        x, w = m.Tensor(X, requires_grad=True), m.Tensor(Y)
        z = x * w
        w.add_(1.0)
        _ = z.grad_fn.saved_tensors  # reading them must raise

    stale(m, reading, "z = x * w; w.add_(1.0); z.grad_fn.saved_tensors", 1)


def saved_result_changed(m: ModuleType) -> None:
    def program(m):
        y = m.Tensor(X, requires_grad=True).exp()
        y.add_(1.0)
        y.sum().backward()

    stale(m, program, "y = x.exp(); y.add_(1.0); y.sum().backward()", 1)


def unsaved_changes(m: ModuleType) -> None:
    x, w = m.Tensor(X, requires_grad=True), m.Tensor(Y)
    z = x + w  # a sum saves nothing: changing w after it is harmless
    w.add_(1.0)
    z.sum().backward()
    expect("x.grad of (x + w).sum() after w.add_(1.0), PyTorch's", x.grad, np.ones(3))
    x.grad = None
    v = m.Tensor(Y)
    v.add_(1.0)  # changed before it is saved: saved at version 1
    (x * v).sum().backward()
    (want, _) = torch_grads(lambda a, b: (a * b).sum(), X, list(np.array(Y) + 1))
    expect("x.grad of (x * v).sum(), v changed in place before the product", x.grad, want)


CHECKS = [
    ("add_ changes a tensor in place and counts a version", add_in_place),
    ("add_ on a leaf that requires grad raises RuntimeError", leaf_in_place),
    ("add_ on a tensor with a history records a node", in_place_records),
    ("nodes save what their backward needs, as PyTorch's do", saved),
    ("backward() after a saved input changed in place raises", saved_input_changed),
    ("backward() after a saved result changed in place raises", saved_result_changed),
    ("changes to tensors no node saved, or made before saving, are fine", unsaved_changes),
]
