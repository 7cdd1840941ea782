"""See the graph: trace, draw and compare autograd graphs of miniautograd and PyTorch.

Also public, for the package's other drawings (``stepper``, ``static``): ``walk`` (a graph
with the objects behind its nodes), ``summarize`` and ``to_numpy`` (values as the drawings
print them), ``Decorations`` and ``Layout`` (highlights, and one layout for many frames),
``new_digraph`` and the palette ``FILL``/``WRITE``.
"""

from ._compare import GraphComparison, same_graph
from ._dot import FILL, WRITE, Decorations, Layout, Options, draw, draw_side_by_side, new_digraph
from ._trace import Graph, GraphEdge, GraphNode, summarize, to_numpy, trace, walk

__all__ = [
    "FILL",
    "WRITE",
    "Decorations",
    "Graph",
    "GraphComparison",
    "GraphEdge",
    "GraphNode",
    "Layout",
    "Options",
    "draw",
    "draw_side_by_side",
    "new_digraph",
    "same_graph",
    "summarize",
    "to_numpy",
    "trace",
    "walk",
]
