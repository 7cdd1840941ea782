"""``Session``: runs the part of a graph that some fetched tensors need, with fed inputs.

A session owns the variables' values; a graph only describes them. One ``run`` computes each
needed op once, in topological order. Every read of a variable in a run sees its value from the
start of that run, and an assign stores its value as it runs. That is what TensorFlow's resource
variables give a training step (the gradient reuses the value the forward pass read); TensorFlow
1's reference variables are read when the reading op runs, which can race with an assign.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import numpy as np

from .._creation import randn
from ._dataflow import (
    KERNELS,
    Graph,
    Tensor,
    compatible,
    get_default_graph,
    group,
    rebuild,
    shape_text,
    topological_order,
)


class OpError(Exception):
    """An op failed while a session ran it."""


class InvalidArgumentError(OpError):
    """An input was missing or malformed (e.g. a placeholder left out of ``feed_dict``)."""


class FailedPreconditionError(OpError):
    """The graph was run in a state it cannot run in (e.g. a variable read before its init)."""


def global_variables_initializer() -> Tensor:
    """One op that runs every variable's initializer (run it once, first, in each session)."""
    graph = get_default_graph()
    return group(*(v.initializer for v in graph.variables), name="init")


class Session:
    """Holds variable values between runs; ``with Session() as sess:`` closes it at the end."""

    def __init__(self, target: str = "", graph: Graph | None = None, config: Any = None) -> None:
        """TF1's signature; ``target`` (a remote runtime) and ``config`` (thread pools) are
        accepted and ignored: this session runs in the calling thread."""
        self.graph = graph or get_default_graph()
        self.variable_values: dict[Tensor, np.ndarray] = {}
        self._closed = False

    def __enter__(self) -> Session:
        return self

    def __exit__(self, kind: type | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self.variable_values.clear()
        self._closed = True

    def run(self, fetches: Any, feed_dict: dict[Tensor, Any] | None = None) -> Any:
        """Compute ``fetches`` (a tensor, or nested lists/tuples of them) as numpy arrays."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        values: dict[Tensor, Any] = {key: self._check_feed(key, value)
                                     for key, value in (feed_dict or {}).items()}
        start = dict(self.variable_values)  # what every read in this run sees
        for node in topological_order(fetches):
            if node not in values:
                values[node] = self._compute(node, values, start)
        return rebuild(fetches, values)

    def _check_feed(self, key: Tensor, value: Any) -> np.ndarray:
        if not isinstance(key, Tensor) or key.graph is not self.graph:
            raise TypeError(f"Cannot interpret feed_dict key {key!r}: feed this session's "
                            "placeholders (or other tensors of its graph)")
        array = np.asarray(value.detach().numpy() if hasattr(value, "detach") else value,
                           dtype=key.dtype)
        if not compatible(key.shape, array.shape):
            raise ValueError(f"Cannot feed value of shape {shape_text(array.shape)} for Tensor "
                             f"'{key.name}', which has shape {shape_text(key.shape)}")
        return array

    def _compute(self, node: Tensor, values: dict[Tensor, Any], start: dict) -> Any:
        if node.op == "Placeholder":
            raise InvalidArgumentError(
                f"You must feed a value for placeholder tensor '{node.name}' with dtype "
                f"{node.dtype} and shape {shape_text(node.shape)}: pass it in feed_dict")
        if node.op == "VariableV2":
            if node not in start:
                raise FailedPreconditionError(
                    f"Attempting to use uninitialized value {node.name}: run "
                    "tf.global_variables_initializer() in this session first")
            return start[node]
        if node.op == "Assign":
            value = values[node.inputs[0]]
            self.variable_values[node.attrs["ref"]] = value
            return value
        if node.op == "NoOp":
            return None
        if node.op == "Const":
            return node.value
        if node.op == "RandomStandardNormal":
            sample = randn(*node.shape).numpy()
            return (sample * node.attrs["stddev"] + node.attrs["mean"]).astype(node.dtype)
        return KERNELS[node.op](*(values[i] for i in node.inputs), **node.attrs)
