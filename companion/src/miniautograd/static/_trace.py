"""``trace``: turn an eager function into a graph by running it once on example inputs.

Each input becomes a placeholder that also carries its example's value, and every op the
function applies is recorded *and* computed, so the Python code runs as usual. What Python
decides from a value (``if x.sum() > 0:``) is not an op: the branch taken on the example is
all the graph holds, as with ``torch.jit.trace``, and the same kind of warning says so.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .._creation import from_numpy
from ._dataflow import Graph, Tensor, convert_to_tensor, placeholder
from ._session import Session


class TracedFunction:
    """A recorded function: ``graph``, its ``inputs`` (placeholders) and ``output``; calling it
    runs the graph on new inputs and returns a miniautograd tensor."""

    def __init__(self, graph: Graph, inputs: list[Tensor], output: Tensor) -> None:
        self.graph, self.inputs, self.output = graph, inputs, output

    def __call__(self, *args: Any) -> Any:
        with Session(graph=self.graph) as sess:
            value = sess.run(self.output, dict(zip(self.inputs, args, strict=True)))
        return from_numpy(np.array(value))


def trace(fn: Callable[..., Any], example_inputs: Any) -> TracedFunction:
    """Record ``fn`` (written with tensor methods and operators) run on ``example_inputs`` (a
    tensor or a tuple of them). The graph is specialised to the examples' shapes and dtypes."""
    examples = example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)
    names = [p.name for p in inspect.signature(fn).parameters.values()][: len(examples)]
    graph = Graph(tracing=True)
    with graph.as_default():
        inputs = []
        for name, example in zip(names, examples, strict=True):
            array = np.asarray(example.detach().numpy() if hasattr(example, "detach") else example)
            inputs.append(placeholder(array.dtype, array.shape, name=name))
            inputs[-1].value = array
        output = convert_to_tensor(fn(*inputs))
    graph.tracing = False
    return TracedFunction(graph, inputs, output)
