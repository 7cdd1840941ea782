"""Walk an autograd graph (torch's or miniautograd's) into plain, deterministic data."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np

NodeKind = Literal["leaf", "parameter", "intermediate", "output", "function", "saved"]
EdgeKind = Literal["grad_fn", "next", "variable", "saved"]

SAVED_PREFIX = "_saved_"
SMALL = 6  # tensors with at most this many elements are summarised by their values


@dataclass(frozen=True)
class GraphNode:
    """One box in the drawing: a tensor (leaf, parameter, output, ...) or a backward function."""

    id: str
    kind: NodeKind
    label: str
    shape: tuple[int, ...] | None = None
    dtype: str | None = None
    data: str | None = None
    grad: str | None = None
    attrs: tuple[tuple[str, str], ...] = ()
    next_functions: tuple[tuple[str | None, int], ...] = ()


@dataclass(frozen=True)
class GraphEdge:
    """``src -> dst``, the way gradients flow; ``slot`` is the index in ``src.next_functions``."""

    src: str
    dst: str
    kind: EdgeKind
    slot: int = 0
    input_nr: int = 0
    name: str = ""


@dataclass(frozen=True)
class Graph:
    """An autograd graph as plain data; node ids follow a BFS from the roots (canonical)."""

    engine: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]

    @cached_property
    def by_id(self) -> dict[str, GraphNode]:
        return {n.id: n for n in self.nodes}

    def __len__(self) -> int:
        return len(self.nodes)


@dataclass
class Walk:
    """A traced graph plus the live objects behind each node id (what the stepper hooks into)."""

    graph: Graph
    objects: dict[str, Any] = field(repr=False)


def is_tensor(value: object) -> bool:
    """Duck-typed tensor test, true for torch and miniautograd tensors (not numpy arrays)."""
    return hasattr(value, "shape") and hasattr(value, "requires_grad") and hasattr(value, "grad_fn")


def engine_of(value: object) -> str:
    return type(value).__module__.partition(".")[0]


def op_name(fn: Any) -> str:
    """``fn.name()`` without torch's ``torch::autograd::`` namespace, so both engines agree."""
    return fn.name().rpartition("::")[2]


def to_numpy(t: Any) -> np.ndarray:
    """A host copy of a tensor's values, for either engine and any device."""
    d = t.detach()
    if hasattr(d, "cpu"):
        d = d.cpu()
    try:
        return np.array(d.numpy())
    except TypeError:  # dtypes numpy lacks, e.g. torch.bfloat16
        return np.array(d.float().numpy())


def fmt_number(v: float | int | bool) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    v = float(v)
    return "0" if v == 0 else f"{v:.4g}"  # also turns -0.0 into 0


def _nested(a: np.ndarray) -> str:
    if a.ndim == 0:
        return fmt_number(a.item())
    return "[" + ", ".join(_nested(row) for row in a) + "]"


def summarize(values: np.ndarray | None) -> str | None:
    """Short, engine- and locale-independent text for a tensor's values."""
    if values is None:
        return None
    a = np.asarray(values)
    if a.size <= SMALL:
        return _nested(a)
    f = a.astype(np.float64)
    lo, hi = f.min(), f.max()
    if lo == hi:
        return f"all {fmt_number(lo)}"
    return f"mean {f.mean():.3g}, range [{lo:.3g}, {hi:.3g}]"


def _attr_text(value: object) -> str:
    if isinstance(value, (bool, int, float, np.number)):
        text = fmt_number(value)
    elif isinstance(value, (tuple, list)):
        text = "(" + ", ".join(map(_attr_text, value)) + ("," if len(value) == 1 else "") + ")"
    elif isinstance(value, str):
        text = value
    else:
        text = type(value).__name__
    return text if len(text) <= 32 else text[:31] + "…"


def _is_custom(fn: Any) -> bool:
    """Custom Function nodes are named ``<Class>Backward``; built-in ones end in a digit."""
    return re.search(r"Backward\d+$", op_name(fn)) is None and hasattr(fn, "saved_tensors")


def _saved_values(fn: Any) -> list[tuple[str, object]]:
    """(name, value) of what ``fn`` saved: torch's ``_saved_*`` attributes, and custom
    Functions' ``saved_tensors`` (torch's built-in nodes have no ``saved_tensors``)."""
    found: list[tuple[str, object]] = []
    names = [a for a in dir(fn) if a.startswith(SAVED_PREFIX) and not a.endswith("_sym_strides")]
    if _is_custom(fn):
        names.append("saved_tensors")
    for attr in names:
        name = attr.removeprefix(SAVED_PREFIX)
        try:
            value = getattr(fn, attr)
        except RuntimeError:  # torch frees saved tensors after backward
            found.append((name, "freed"))
            continue
        if isinstance(value, (tuple, list)) and any(is_tensor(v) for v in value):
            found.extend((f"{name}[{i}]", v) for i, v in enumerate(value) if v is not None)
        elif value is not None:
            found.append((name, value))
    return found


class _Builder:
    def __init__(self, names: Mapping[str, Any] | None, summaries: bool) -> None:
        self.nodes: list[dict[str, Any]] = []
        self.edges: list[GraphEdge] = []
        self.objects: dict[str, Any] = {}
        self.ids: dict[int, str] = {}  # id(obj) -> node id; objects stay alive in self.objects
        self.names = {id(t): n for n, t in (names or {}).items()}
        self.summaries = summaries

    def add(self, obj: Any, *, shared: bool = True, **fields: Any) -> str:
        """A new node for ``obj``; ``shared`` ones are found again when reached another way."""
        nid = f"n{len(self.nodes)}"
        self.nodes.append({"id": nid, **fields})
        self.objects[nid] = obj
        if shared:
            self.ids[id(obj)] = nid
        return nid

    def update(self, nid: str, **fields: Any) -> None:
        self.nodes[int(nid[1:])].update(fields)

    def tensor(self, t: Any, kind: NodeKind, label: str | None = None) -> str:
        if kind != "saved" and id(t) in self.ids:
            return self.ids[id(t)]
        grad = None  # reading .grad of a non-leaf makes torch warn, so only leaves are asked
        has_grad = t.is_leaf or getattr(t, "retains_grad", False)
        if self.summaries and has_grad and t.grad is not None:
            grad = summarize(to_numpy(t.grad))
        name = self.names.get(id(t))
        if label is None:
            label = name or ""
        elif name:
            label = f"{label} ({name})"
        return self.add(
            t,
            shared=kind != "saved",  # each saved slot gets its own box
            kind=kind,
            label=label,
            shape=tuple(int(s) for s in t.shape),
            dtype=str(t.dtype).rpartition(".")[2],
            data=summarize(to_numpy(t)) if self.summaries else None,
            grad=grad,
        )

    def function(self, fn: Any) -> tuple[str, bool]:
        if id(fn) in self.ids:
            return self.ids[id(fn)], False
        return self.add(fn, kind="function", label=op_name(fn)), True


def walk(
    roots: Any | Sequence[Any],
    *,
    names: Mapping[str, Any] | None = None,
    saved: bool = True,
    summaries: bool = True,
) -> Walk:
    """Iterative BFS over ``grad_fn.next_functions`` from the roots; see :func:`trace`."""
    root_list = list(roots) if isinstance(roots, (list, tuple)) else [roots]
    if not root_list or not all(is_tensor(r) for r in root_list):
        raise TypeError("trace() expects a tensor or a list/tuple of tensors, e.g. trace(loss)")
    b = _Builder(names, summaries)
    queue: deque[Any] = deque()
    root_fns: list[tuple[str, Any]] = []
    for r in root_list:
        if r.grad_fn is None:
            b.tensor(r, "parameter" if r.requires_grad else "leaf")
            continue
        tid = b.tensor(r, "output")
        fid, new = b.function(r.grad_fn)
        output_nr = int(getattr(r, "output_nr", 0))
        b.edges.append(GraphEdge(tid, fid, "grad_fn", input_nr=output_nr))
        root_fns.append((tid, r.grad_fn))
        if new:
            queue.append(r.grad_fn)
    reached: set[str] = set()
    while queue:
        fn = queue.popleft()
        fid = b.ids[id(fn)]
        if b.nodes[int(fid[1:])]["label"] == "AccumulateGrad":  # the leaf whose .grad it fills
            var = fn.variable
            b.edges.append(GraphEdge(fid, b.tensor(var, "parameter"), "variable"))
        ids: list[tuple[str | None, int]] = []
        for slot, (nxt, input_nr) in enumerate(fn.next_functions):
            if nxt is None:
                ids.append((None, int(input_nr)))
                continue
            nid, new = b.function(nxt)
            ids.append((nid, int(input_nr)))
            reached.add(nid)
            b.edges.append(GraphEdge(fid, nid, "next", slot=slot, input_nr=int(input_nr)))
            if new:
                queue.append(nxt)
        b.update(fid, next_functions=tuple(ids))
    for tid, fn in root_fns:  # a root that feeds another root is an intermediate result
        if b.ids[id(fn)] in reached:
            b.update(tid, kind="intermediate")
    functions = [n["id"] for n in b.nodes if n["kind"] == "function"]
    for fid in functions:
        attrs = []
        for name, value in _saved_values(b.objects[fid]) if saved else ():
            if is_tensor(value):
                sid = b.tensor(value, "saved", name)
                b.edges.append(GraphEdge(sid, fid, "saved", name=name))
            else:
                attrs.append((name, _attr_text(value)))
        b.update(fid, attrs=tuple(attrs))
    engine = engine_of(root_list[0])
    graph = Graph(engine, tuple(GraphNode(**n) for n in b.nodes), tuple(b.edges))
    return Walk(graph, b.objects)


def trace(
    roots: Any | Sequence[Any],
    *,
    names: Mapping[str, Any] | None = None,
    saved: bool = True,
    summaries: bool = True,
) -> Graph:
    """The autograd graph behind ``roots`` (a tensor or list of tensors) as plain data.

    Works on torch and miniautograd tensors alike. ``names`` maps labels to tensors (e.g.
    ``dict(model.named_parameters())``); ``saved``/``summaries`` can be switched off to trace
    huge graphs faster. Saved tensors are numbered after all other nodes, so the ids of the
    graph's skeleton do not depend on what an engine chooses to save.
    """
    return walk(roots, names=names, saved=saved, summaries=summaries).graph
