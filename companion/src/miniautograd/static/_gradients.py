"""``gradients``: reverse-mode differentiation that *adds* the backward pass to the graph.

Eager autograd runs each op's backward rule on numbers after the forward pass ran. Here no
number exists yet, so each rule instead builds graph ops, and the gradient is one more part of
the graph, run (and optimised) like any other. The rules form a table keyed by op type, as
TensorFlow 1 registers them (``RegisterGradient``). They are not the eager rules of
``miniautograd/ops`` evaluated on graph tensors: those read concrete shapes (to undo
broadcasting) and dtypes from arrays the moment they run, while a graph knows a size like the
batch only when data is fed; here that step is an op of its own (``SumToShape``). Each rule
states the same formula as its eager counterpart, which the tests check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._dataflow import (
    ELEMENTWISE,
    Tensor,
    add_n,
    broadcast_like,
    convert_to_tensor,
    log,
    matmul,
    ones_like,
    reduce_sum,
    sum_to_shape,
    topological_order,
    transpose,
    where,
    zeros_like,
)


def _select(mask: Tensor, grad: Tensor) -> tuple[Tensor, Tensor]:
    zero = zeros_like(grad)
    return where(mask, grad, zero), where(mask, zero, grad)


def _matmul(t: Tensor, g: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """For C = A @ B: dA = dC @ Bᵀ and dB = Aᵀ @ dC (with the op's transposes folded in)."""
    ta, tb = t.attrs["transpose_a"], t.attrs["transpose_b"]
    grad_a = matmul(b, g, tb, True) if ta else matmul(g, b, False, not tb)
    grad_b = matmul(g, a, True, ta) if tb else matmul(a, g, not ta, False)
    return grad_a, grad_b


# op type -> rule(output, grad_output, *inputs) -> one gradient (or None) per input.
RULES: dict[str, Callable[..., tuple[Tensor | None, ...]]] = {
    "Identity": lambda t, g, x: (g,),
    "Neg": lambda t, g, x: (-g,),
    "Add": lambda t, g, x, y: (g, g),
    "Sub": lambda t, g, x, y: (g, -g),
    "Mul": lambda t, g, x, y: (g * y, x * g),
    "RealDiv": lambda t, g, x, y: (g / y, -g * x / (y * y)),
    "Pow": lambda t, g, x, y: (g * y * x ** (y - 1), g * t * log(x)),
    "Exp": lambda t, g, x: (g * t,),
    "Log": lambda t, g, x: (g / x,),
    "Tanh": lambda t, g, x: (g * (1 - t * t),),
    "Relu": lambda t, g, x: (where(t > 0, g, zeros_like(g)),),
    # TensorFlow's convention: on a tie the first input takes the whole gradient.
    "Maximum": lambda t, g, x, y: _select(x >= y, g),
    "Transpose": lambda t, g, x: (transpose(g),),
    "MatMul": _matmul,
    "Sum": lambda t, g, x: (broadcast_like(g, x, t.attrs["axis"], t.attrs["keepdims"]),),
    "AddN": lambda t, g, *xs: (g,) * len(xs),
    "Select": lambda t, g, c, x, y: (None, *_select(c, g)),
    "SumToShape": lambda t, g, x, like: (broadcast_like(g, x), None),
    "BroadcastTo": lambda t, g, x, like: (
        sum_to_shape(g, x) if t.attrs["axis"] is None
        else reduce_sum(g, t.attrs["axis"], t.attrs["keepdims"]), None),
}


def _no_gradient(t: Tensor, g: Tensor, *xs: Tensor) -> tuple[None, ...]:
    """Comparisons and *_like ops: their outputs do not change when the inputs move a little."""
    return (None,) * len(xs)


RULES.update(dict.fromkeys(
    ("Greater", "Less", "GreaterEqual", "LessEqual", "OnesLike", "ZerosLike"), _no_gradient))
BROADCASTING = ELEMENTWISE | {"Select"}


def gradients(ys: Tensor | Sequence[Tensor], xs: Tensor | Sequence[Tensor],
              grad_ys: Sequence[Any] | None = None, name: str = "gradients") -> list[Any]:
    """Symbolic d(sum of ys)/d(x) for each x: new graph tensors (None where x does not matter).

    Walks the graph from ``ys`` backwards in reverse topological order, sums the gradient
    contributions each tensor receives (``AddN``), and asks the tensor's rule for its inputs'.
    """
    ys = [ys] if isinstance(ys, Tensor) else list(ys)
    xs = [xs] if isinstance(xs, Tensor) else list(xs)
    order = topological_order(ys)
    reaches = set(xs)  # tensors that depend on some x: only they need a gradient
    for node in order:
        if any(i in reaches for i in node.inputs):
            reaches.add(node)
    graph = ys[0].graph
    scope = graph.unique_name(name)
    pending: dict[Tensor, list[Tensor]] = {}
    total: dict[Tensor, Tensor] = {}
    with graph.name_scope(scope):
        for y, grad_y in zip(ys, grad_ys or [None] * len(ys), strict=True):
            seed = ones_like(y) if grad_y is None else convert_to_tensor(grad_y, y.dtype)
            pending.setdefault(y, []).append(seed)
        for node in reversed(order):
            if node not in pending or node not in reaches:
                continue
            parts = pending.pop(node)
            total[node] = grad = parts[0] if len(parts) == 1 else add_n(parts)
            if not node.inputs:
                continue
            if node.op not in RULES:
                raise LookupError(f"No gradient defined for operation '{node.name}' (op type: "
                                  f"{node.op}); it cannot be differentiated.")
            with graph.name_scope(f"{node.name.rsplit('/', 1)[-1]}_grad"):
                for x, grad_x in zip(node.inputs, RULES[node.op](node, grad, *node.inputs),
                                     strict=True):
                    if grad_x is None or x not in reaches:
                        continue
                    if node.op in BROADCASTING and (grad_x.shape != x.shape or None in x.shape):
                        grad_x = sum_to_shape(grad_x, x)  # undo broadcasting
                    pending.setdefault(x, []).append(grad_x)
    return [total.get(x) for x in xs]
