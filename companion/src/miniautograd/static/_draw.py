"""See a static graph: ``draw`` (Graphviz, deterministic: node ids are the unique op names)
and ``listing`` (one line per op, in the order a session computes them)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import FILL, WRITE, new_digraph
from ._dataflow import Tensor, flatten, shape_text, topological_order

_FILL = {"Placeholder": FILL["leaf"], "VariableV2": FILL["parameter"], "Const": "#ffffff",
         "Assign": FILL["saved"], "NoOp": FILL["saved"]}
GRADIENT_FILL = FILL["intermediate"]


def _const_text(value: np.ndarray) -> str:
    if value.size > 4:
        return ""
    return str(value[()]) if value.ndim == 0 else np.array2string(value, separator=", ")


def _label(node: Tensor) -> str:
    lines = [node.name if node.op in ("Placeholder", "VariableV2") else node.op]
    if node.op == "Const":
        lines[0] = f"Const {_const_text(node.value)}".strip()
    flags = [k for k, v in node.attrs.items() if v is True]
    if node.attrs.get("axis") is not None:
        flags.append(f"axis={node.attrs['axis']}")
    if node.op == "MatMul" and flags:
        lines[0] += " (" + ", ".join(flags) + ")"
    if node.op != "NoOp":
        lines.append(shape_text(node.shape))
    return "\n".join(lines)


def draw(fetches: Any, *, gradient_scope: str = "gradients") -> Any:
    """Draw what ``fetches`` depend on, inputs at the top: placeholders grey, variables blue,
    fetched tensors green, ops built by ``gradients`` (names under ``gradient_scope``) purple
    and boxed together, assigns orange with a dashed arrow to the variable they write."""
    nodes = topological_order(fetches)
    nodes += [n.attrs["ref"] for n in nodes if n.op == "Assign" and n.attrs["ref"] not in nodes]
    fetched = set(flatten(fetches))
    g = new_digraph("static")
    grad = g.subgraph(name="cluster_gradients")
    with grad as cluster:
        cluster.attr(label=f"{gradient_scope}/ (built by gradients())", style="rounded,dashed",
                     color="#8c8c8c", fontsize="11")
        for node in nodes:
            in_scope = node.name.startswith(gradient_scope + "/")
            fill = GRADIENT_FILL if in_scope else _FILL.get(node.op, FILL["function"])
            if node in fetched and node.op != "Assign":
                fill = FILL["output"]
            (cluster if in_scope else g).node(node.name, _label(node), fillcolor=fill,
                                              style="filled,rounded")
    for node in nodes:
        for source in node.inputs:
            g.edge(source.name, node.name)
        if node.op == "Assign":
            g.edge(node.name, node.attrs["ref"].name, style="dashed", color=WRITE,
                   constraint="false")
    return g


def listing(fetches: Any) -> str:
    """``name = Op(inputs)  shape`` per op, in the order a session runs them."""
    lines = []
    for node in topological_order(fetches):
        args = ", ".join(i.name for i in node.inputs)
        if node.op == "Const":
            args = _const_text(node.value) or f"<{node.value.size} values>"
        if node.op == "Assign":
            args = f"{node.attrs['ref'].name}, {args}"
        lines.append(f"{node.name} = {node.op}({args})  {shape_text(node.shape)}")
    return "\n".join(lines)
