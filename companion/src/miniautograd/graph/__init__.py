"""See the graph: trace, draw and compare autograd graphs of miniautograd and PyTorch."""

from ._compare import GraphComparison, same_graph
from ._dot import Options, draw, draw_side_by_side
from ._trace import Graph, GraphEdge, GraphNode, trace

__all__ = [
    "Graph",
    "GraphComparison",
    "GraphEdge",
    "GraphNode",
    "Options",
    "draw",
    "draw_side_by_side",
    "same_graph",
    "trace",
]
