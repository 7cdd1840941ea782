"""Structural comparison of two autograd graphs, with a diff a learner can read."""

from __future__ import annotations

import difflib
import hashlib
import html
from collections import deque
from dataclasses import dataclass
from functools import partial
from typing import Any

from ._trace import Graph, GraphNode, trace

COMMUTATIVE = frozenset({"AddBackward0", "MulBackward0"})


def _describe(node: GraphNode, shapes: bool, dtypes: bool) -> str:
    parts = [node.kind, node.label] if node.label else [node.kind]
    if shapes and node.shape is not None:
        parts.append(str(node.shape))
    if dtypes and node.dtype is not None:
        parts.append(node.dtype)
    return " ".join(parts)


Link = tuple[str | None, int]  # (node id or None, input_nr), like one entry of next_functions


def _links(graph: Graph) -> dict[str, list[Link]]:
    """Each node's out-links: ``next_functions`` for functions, else ``grad_fn``/``variable``."""
    out: dict[str, list[Link]] = {n.id: list(n.next_functions) for n in graph.nodes}
    for e in graph.edges:
        if e.kind in ("grad_fn", "variable"):
            out[e.src].append((e.dst, e.input_nr))
    return out


def _signatures(graph: Graph, out: dict[str, list[Link]], shapes: bool, dtypes: bool) -> dict:
    """Merkle-style digest of each node's sub-graph, bottom-up, inputs of + and * sorted."""
    indegree = dict.fromkeys(out, 0)
    for kids in out.values():
        for dst, _ in kids:
            if dst is not None:
                indegree[dst] += 1
    order, queue = [], deque(n for n, d in indegree.items() if d == 0)
    while queue:
        n = queue.popleft()
        order.append(n)
        for dst, _ in out[n]:
            if dst is not None:
                indegree[dst] -= 1
                if indegree[dst] == 0:
                    queue.append(dst)
    sig: dict[str, str] = {}
    for n in reversed(order):
        node = graph.by_id[n]
        kids = [f"{sig[d] if d is not None else 'None'}:{nr}" for d, nr in out[n]]
        if node.label in COMMUTATIVE:
            kids.sort()
        text = _describe(node, shapes, dtypes) + "|" + ",".join(kids)
        sig[n] = hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
    return sig


def listing(
    graph: Graph,
    *,
    shapes: bool = True,
    dtypes: bool = True,
    saved: bool = False,
    commutative: bool = False,
) -> list[str]:
    """One line per node, renumbered by a BFS from the roots: equal listings mean equal graphs."""
    out = _links(graph)
    if commutative:
        sig = _signatures(graph, out, shapes, dtypes)
        for n, kids in out.items():
            if graph.by_id[n].label in COMMUTATIVE:
                kids.sort(key=lambda k: (sig[k[0]] if k[0] is not None else "", k[1]))
    has_parent = {dst for kids in out.values() for dst, _ in kids}
    roots = [n.id for n in graph.nodes if n.id not in has_parent and n.kind != "saved"]
    number = {r: f"#{i}" for i, r in enumerate(roots)}
    order: list[str] = []
    queue = deque(roots)
    while queue:
        n = queue.popleft()
        order.append(n)
        for dst, _ in out[n]:
            if dst is not None and dst not in number:
                number[dst] = f"#{len(number)}"
                queue.append(dst)
    saved_of: dict[str, list[str]] = {n: [] for n in out}
    if saved:
        for e in graph.edges:
            if e.kind == "saved":
                saved_of[e.dst].append(f"    {_describe(graph.by_id[e.src], shapes, dtypes)}")
    lines = []
    for n in order:
        node = graph.by_id[n]
        line = f"{number[n]} {_describe(node, shapes, dtypes)}"
        if node.kind == "function":
            nexts = [
                f"({number.get(d, 'None')}, {nr})"
                for d, nr in out[n]
                if d is None or graph.by_id[d].kind == "function"
            ]
            line += f" next_functions=({', '.join(nexts)}{',' if len(nexts) == 1 else ''})"
        for d, _ in out[n]:
            if d is not None and graph.by_id[d].kind != "function":
                line += f" variable={number[d]}"
            elif d is not None and node.kind != "function":
                line += f" grad_fn={number[d]}"
        lines.append(line)
        lines.extend(saved_of[n])
    return lines


def _count(lines: tuple[str, ...]) -> str:
    """What a listing holds, in the graph's own terms: backward nodes, and the tensors drawn
    beside them (outputs, leaves), which are no nodes of the autograd graph."""
    boxes = [line for line in lines if line.startswith("#")]
    nodes = sum(1 for line in boxes if " next_functions=" in line)
    return f"{nodes} backward nodes, {len(boxes) - nodes} tensors"


@dataclass(frozen=True)
class GraphComparison:
    """Truthy when the graphs match; ``str()`` and the notebook display show a diff otherwise."""

    equal: bool
    left: tuple[str, ...]
    right: tuple[str, ...]
    left_name: str
    right_name: str
    note: str = ""

    def __bool__(self) -> bool:
        return self.equal

    def diff(self) -> list[str]:
        return list(
            difflib.unified_diff(
                self.left, self.right, self.left_name, self.right_name, lineterm="", n=2
            )
        )

    def __str__(self) -> str:
        if self.equal:
            return f"same graph ({_count(self.left)}; {self.left_name} and {self.right_name})"
        head = (
            f"graphs differ ({_count(self.left)} in {self.left_name}; "
            f"{_count(self.right)} in {self.right_name})"
        )
        return "\n".join([head, *([self.note] if self.note else []), *self.diff()])

    def __repr__(self) -> str:
        return f"<GraphComparison equal={self.equal}>\n{self}"

    def _repr_html_(self) -> str:
        colors = {"+": "#2b8a3e", "-": "#c92a2a", "@": "#868e96"}
        lines = str(self).split("\n")
        body = "\n".join(
            f'<span style="color:{colors[line[0]]}">{html.escape(line)}</span>'
            if line[:1] in colors and i > 0
            else html.escape(line)
            for i, line in enumerate(lines)
        )
        return f'<pre style="white-space:pre-wrap">{body}</pre>'


def same_graph(
    a: Any,
    b: Any,
    *,
    shapes: bool = True,
    dtypes: bool = True,
    saved: bool = False,
    commutative: bool = False,
) -> GraphComparison:
    """Compare two graphs (tensors, lists of tensors or traced graphs) up to node numbering.

    Input order matters, as in torch: ``x * y`` and ``y * x`` have swapped ``next_functions``.
    Pass ``commutative=True`` to let ``+`` and ``*`` match with their inputs in either order.
    """
    ga, gb = (x if isinstance(x, Graph) else trace(x, saved=saved, summaries=False) for x in (a, b))
    show = partial(listing, shapes=shapes, dtypes=dtypes, saved=saved)
    left, right = show(ga, commutative=commutative), show(gb, commutative=commutative)
    note = ""
    swapped = not commutative and show(ga, commutative=True) == show(gb, commutative=True)
    if left != right and swapped:
        note = (
            "They differ only in the order of the inputs of + or *: torch keeps input order "
            "(x * y and y * x have swapped next_functions); commutative=True ignores it."
        )
    names = (ga.engine, gb.engine)
    if ga.engine == gb.engine:
        names = (f"{ga.engine} (a)", f"{gb.engine} (b)")
    return GraphComparison(left == right, tuple(left), tuple(right), *names, note=note)
