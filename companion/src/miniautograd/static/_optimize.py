"""``optimize``: what a static graph allows before it runs once. Two classic passes:

- constant folding: an op whose inputs are all constants is computed now, once, and replaced
  by its result (for every later run);
- common-subexpression elimination: two ops of the same type, inputs and attributes compute
  the same value, so one of them is enough.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._dataflow import KERNELS, STATEFUL, Tensor, constant, flatten, rebuild, topological_order


def _copy(node: Tensor, inputs: tuple[Tensor, ...]) -> Tensor:
    return Tensor(node.op, inputs, dtype=node.dtype, shape=node.shape, attrs=node.attrs,
                  name=node.name, value=node.value)


def _key(node: Tensor, inputs: tuple[Tensor, ...]) -> tuple:
    if node.op == "Const":
        return ("Const", node.dtype.str, node.shape, node.value.tobytes())
    return (node.op, inputs, tuple(sorted(node.attrs.items())))


def optimize(fetches: Any) -> Any:
    """The same fetches (same structure) computed by a smaller graph: constants folded, repeated
    subexpressions merged. Placeholders, variables, random and assign ops keep their identity,
    so the same ``feed_dict`` and session state work on the result."""
    flat = flatten(fetches)
    new: dict[Tensor, Tensor] = {}
    seen: dict[tuple, Tensor] = {}
    with flat[0].graph.as_default():
        for node in topological_order(flat):
            inputs = tuple(new[i] for i in node.inputs)
            if node.op in STATEFUL:
                new[node] = node if inputs == node.inputs else _copy(node, inputs)
                continue
            out = node
            if node.op != "Const" and inputs and all(i.op == "Const" for i in inputs):
                value = KERNELS[node.op](*(i.value for i in inputs), **node.attrs)
                out = constant(np.asarray(value, node.dtype), name=f"{node.name}/folded")
                inputs = ()
            key = _key(out, inputs)
            if key not in seen:
                seen[key] = out if inputs == out.inputs else _copy(out, inputs)
            new[node] = seen[key]
    return rebuild(fetches, new)
