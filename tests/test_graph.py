"""miniautograd.graph: trace, draw and same_graph, on torch and on miniautograd.

The op table builds each expression on both engines and checks that the graphs match and
that their DOT text is identical but for the engine's name.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any
from xml.etree import ElementTree

import pytest
import torch

import miniautograd as mt
from miniautograd.graph import (
    Graph,
    GraphComparison,
    _dot,
    draw,
    draw_side_by_side,
    same_graph,
    trace,
)
from miniautograd.graph._trace import summarize

Builder = Callable[[ModuleType, Any, Any, Any], Any]  # (engine module, a, b, m) -> result

# Each entry builds one expression from leaves a (3, 4), b (3, 4) and m (4, 2).
OPS: dict[str, Builder] = {
    "add": lambda lib, a, b, m: a + b,
    "sub": lambda lib, a, b, m: a - b,
    "mul": lambda lib, a, b, m: a * b,
    "div": lambda lib, a, b, m: a / b,
    "pow": lambda lib, a, b, m: a**2,
    "pow_tensor": lambda lib, a, b, m: a.abs() ** b,
    "neg": lambda lib, a, b, m: -a,
    "scalars": lambda lib, a, b, m: 2 * a + 1 - a / 3,
    "rsub": lambda lib, a, b, m: 1 - a,
    "matmul_operator": lambda lib, a, b, m: a @ m,
    "mm": lambda lib, a, b, m: a.mm(m),
    "matmul": lambda lib, a, b, m: lib.matmul(a, m),
    "exp": lambda lib, a, b, m: lib.exp(a),
    "log": lambda lib, a, b, m: (a * a + 1).log(),
    "sin": lambda lib, a, b, m: a.sin(),
    "cos": lambda lib, a, b, m: a.cos(),
    "tanh": lambda lib, a, b, m: a.tanh(),
    "sigmoid": lambda lib, a, b, m: a.sigmoid(),
    "relu": lambda lib, a, b, m: lib.relu(a),
    "abs": lambda lib, a, b, m: a.abs(),
    "sqrt": lambda lib, a, b, m: (a * a + 1).sqrt(),
    "clamp": lambda lib, a, b, m: a.clamp(min=0),
    "sum": lambda lib, a, b, m: a.sum(),
    "sum_dim": lambda lib, a, b, m: a.sum(dim=1),
    "mean": lambda lib, a, b, m: a.mean(),
    "max": lambda lib, a, b, m: a.max(),
    "max_dim": lambda lib, a, b, m: a.max(dim=1)[0] + a.min(dim=1).values,
    "stack": lambda lib, a, b, m: lib.stack([a, b * 2]),
    "reshape": lambda lib, a, b, m: a.reshape(4, 3),
    "view": lambda lib, a, b, m: a.view(12),
    "transpose": lambda lib, a, b, m: a.transpose(0, 1),
    "t": lambda lib, a, b, m: a.t(),
    "cat": lambda lib, a, b, m: lib.cat([a, b], dim=0),
    "index": lambda lib, a, b, m: a[0],
    "unsqueeze": lambda lib, a, b, m: a.unsqueeze(0),
    "broadcast": lambda lib, a, b, m: a + m[:, 0],
    "softmax": lambda lib, a, b, m: lib.softmax(a, dim=1),
    "log_softmax": lambda lib, a, b, m: lib.log_softmax(a, dim=1),
    "constant": lambda lib, a, b, m: a * lib.ones(3, 4),
    "reuse": lambda lib, a, b, m: a * a + a,
    "mse": lambda lib, a, b, m: ((a - b) ** 2).mean(),
    "two_layers": lambda lib, a, b, m: lib.relu(a.mm(m)).sum(),
}


def leaves(lib: ModuleType) -> tuple[Any, Any, Any]:
    lib.manual_seed(0)
    return (
        lib.randn(3, 4, requires_grad=True),
        lib.randn(3, 4, requires_grad=True),
        lib.randn(4, 2, requires_grad=True),
    )


def both(build: Builder) -> tuple[Any, Any]:
    """The same expression on miniautograd and on torch, from the same random leaves."""
    return build(mt, *leaves(mt)), build(torch, *leaves(torch))


def x2_exp(lib: ModuleType) -> tuple[Any, Any]:
    lib.manual_seed(0)
    x = lib.randn(3, 4, requires_grad=True)
    return x**2 * lib.exp(x), x


def custom_functions(lib: ModuleType) -> tuple[type, type]:
    """The book's custom ReLU and Exp, written once for either engine."""

    class MyReLU(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, i: Any) -> Any:
            ctx.save_for_backward(i)
            return i.clamp(min=0)

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (i,) = ctx.saved_tensors
            return grad_output * (i > 0)

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, i: Any) -> Any:
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (result,) = ctx.saved_tensors
            return grad_output * result

    return MyReLU, Exp


def two_layer_net(lib: ModuleType) -> tuple[Any, dict[str, Any]]:
    lib.manual_seed(0)
    x, y = lib.randn(5, 3), lib.randn(5, 2)
    w1 = lib.randn(3, 4, requires_grad=True)
    w2 = lib.randn(4, 2, requires_grad=True)
    myrelu = custom_functions(lib)[0]
    y_pred = myrelu.apply(x.mm(w1)).mm(w2)
    return (y_pred - y).pow(2).sum(), {"w1": w1, "w2": w2}


def without_engine(dot: str, engine: str) -> str:
    return dot.replace(engine, "ENGINE")


# ---- trace ------------------------------------------------------------------------------------


def test_trace_lists_nodes_in_bfs_order_with_torch_names() -> None:
    y, x = x2_exp(torch)
    g = trace(y.sum(), names={"x": x})
    assert [(n.id, n.kind, n.label) for n in g.nodes[:7]] == [
        ("n0", "output", ""),
        ("n1", "function", "SumBackward0"),
        ("n2", "function", "MulBackward0"),
        ("n3", "function", "PowBackward0"),
        ("n4", "function", "ExpBackward0"),
        ("n5", "function", "AccumulateGrad"),
        ("n6", "parameter", "x"),
    ]
    assert g.by_id["n2"].next_functions == (("n3", 0), ("n4", 0))
    assert g.by_id["n5"].next_functions == ()
    assert ("n0", "n1", "grad_fn") in {(e.src, e.dst, e.kind) for e in g.edges}
    assert ("n5", "n6", "variable") in {(e.src, e.dst, e.kind) for e in g.edges}
    assert g.by_id["n6"].shape == (3, 4) and g.by_id["n6"].dtype == "float32"
    assert g.engine == "torch"


def test_trace_exposes_saved_tensors_and_values() -> None:
    y, _ = x2_exp(torch)
    g = trace(y)
    saved = {(g.by_id[e.dst].label, e.name) for e in g.edges if e.kind == "saved"}
    assert saved == {
        ("MulBackward0", "self"),
        ("MulBackward0", "other"),
        ("PowBackward0", "self"),
        ("ExpBackward0", "result"),
    }
    pow_node = next(n for n in g.nodes if n.label == "PowBackward0")
    assert ("exponent", "2") in pow_node.attrs
    assert all(n.kind == "saved" for n in g.nodes[7:])  # numbered after the skeleton


def test_trace_saved_tensors_of_a_custom_function() -> None:
    myrelu, _ = custom_functions(torch)
    x = torch.randn(2, 3, requires_grad=True)
    g = trace(myrelu.apply(x))
    assert g.by_id["n1"].label == "MyReLUBackward"
    assert [e.name for e in g.edges if e.kind == "saved"] == ["saved_tensors[0]"]


def test_trace_after_backward_marks_saved_tensors_freed() -> None:
    y, _ = x2_exp(torch)
    loss = y.sum()
    loss.backward()
    g = trace(loss)
    mul = next(n for n in g.nodes if n.label == "MulBackward0")
    assert ("self", "freed") in mul.attrs
    assert not [e for e in g.edges if e.kind == "saved"]


@pytest.mark.parametrize("lib", [torch, mt], ids=["torch", "miniautograd"])
def test_next_functions_keep_none_for_inputs_without_grad(lib: ModuleType) -> None:
    x = lib.randn(3, requires_grad=True)
    c = lib.randn(3)
    g = trace((x * c).sum())
    mul = next(n for n in g.nodes if n.label == "MulBackward0")
    assert mul.next_functions == (("n3", 0), (None, 0))


def test_trace_kinds() -> None:
    x = torch.randn(3, requires_grad=True)
    assert [n.kind for n in trace(torch.zeros(2)).nodes] == ["leaf"]
    assert [n.kind for n in trace(x).nodes] == ["parameter"]
    assert [n.kind for n in trace(torch.nn.Parameter(torch.ones(2))).nodes] == ["parameter"]
    h = x.exp()
    loss = h.sum()
    g = trace([h, loss])
    assert [n.kind for n in g.nodes if n.kind != "function"][:2] == ["intermediate", "output"]
    assert trace([x, x]).nodes == trace(x).nodes  # one box per tensor


def test_trace_is_deterministic_and_independent_of_object_ids() -> None:
    first = trace(x2_exp(torch)[0])
    junk = [torch.randn(3) for _ in range(100)]  # different object ids next time
    second = trace(x2_exp(torch)[0])
    assert first == second
    del junk


def test_trace_rejects_non_tensors() -> None:
    with pytest.raises(TypeError, match="trace"):
        trace([1.0, 2.0])
    with pytest.raises(TypeError, match="trace"):
        trace([])


# 20,000 is far past Python's recursion limit. (torch itself segfaults freeing a chain of
# ~50,000+ nodes once Python has walked its next_functions: its iterative deleteNode is bypassed.)
@pytest.mark.parametrize("lib", [torch, mt], ids=["torch", "miniautograd"])
def test_trace_is_iterative_on_deep_graphs(lib: ModuleType) -> None:
    depth = 20_000
    x = lib.ones(2, requires_grad=True)
    y = x
    for _ in range(depth):
        y = y + 1
    g = trace(y, saved=False, summaries=False)
    assert len(g) == depth + 3  # output, depth AddBackward0, AccumulateGrad, x
    assert f"… {depth + 3 - 400} more nodes" in draw(g, max_nodes=400).source


@pytest.mark.parametrize(
    ("values", "text"),
    [
        ([1.0, -0.0, 2.5], "[1, 0, 2.5]"),
        ([[1, 2], [3, 4]], "[[1, 2], [3, 4]]"),
        (3.14159265, "3.142"),
        ([True, False], "[True, False]"),
        (list(range(12)), "mean 5.5, range [0, 11]"),
        ([[-0.0] * 4] * 3, "all 0"),
        ([], "[]"),
        (None, None),
    ],
)
def test_summaries_are_short_and_engine_independent(values: Any, text: str | None) -> None:
    import numpy as np

    assert summarize(None if values is None else np.array(values)) == text


# ---- the two engines agree --------------------------------------------------------------------


@pytest.mark.parametrize("name", list(OPS))
def test_op_graphs_match_torch(name: str) -> None:
    mini, ref = both(OPS[name])
    result = same_graph(mini, ref)
    assert result, str(result)
    assert without_engine(draw(mini).source, "miniautograd") == without_engine(
        draw(ref).source, "torch"
    )


def test_saved_tensors_match_torch() -> None:
    for name in ("mul", "mm", "sin", "exp", "clamp", "sum"):
        result = same_graph(*both(OPS[name]), saved=True)
        assert result, f"{name}: {result}"


def test_seed_examples_draw_the_same_dot_on_both_engines() -> None:
    (ym, xm), (yt, xt) = x2_exp(mt), x2_exp(torch)
    assert without_engine(draw(ym, names={"x": xm}).source, "miniautograd") == without_engine(
        draw(yt, names={"x": xt}).source, "torch"
    )
    (lm, nm), (lt, nt) = two_layer_net(mt), two_layer_net(torch)
    assert without_engine(draw(lm, names=nm).source, "miniautograd") == without_engine(
        draw(lt, names=nt).source, "torch"
    )
    em, et = (custom_functions(lib)[1].apply(x2_exp(lib)[1]) for lib in (mt, torch))
    assert same_graph(em, et)
    assert without_engine(draw(em).source, "miniautograd") == without_engine(
        draw(et).source, "torch"
    )
    assert "MyReLUBackward" in draw(lm).source and "ExpBackward" in draw(em).source


def test_different_graphs_give_a_readable_diff() -> None:
    x, y = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
    result = same_graph((x * y).sum(), (x + y).sum())
    assert not result
    text = str(result)
    assert text.startswith("graphs differ")
    assert "-#2 function MulBackward0" in text and "+#2 function AddBackward0" in text
    assert '<span style="color:#c92a2a">-#2 function MulBackward0' in result._repr_html_()
    assert isinstance(result, GraphComparison) and "equal=False" in repr(result)


def test_shapes_are_compared() -> None:
    a, b = torch.randn(3, requires_grad=True), torch.randn(4, requires_grad=True)
    assert not same_graph(a.exp(), b.exp())
    assert same_graph(a.exp(), b.exp(), shapes=False)


def test_input_order_matters_unless_commutative() -> None:
    x = torch.randn(3, requires_grad=True)
    w = torch.randn(3, requires_grad=True)
    swapped = same_graph((x.exp() * w.sin()).sum(), (w.sin() * x.exp()).sum())
    assert not swapped
    assert "commutative=True" in str(swapped)
    assert same_graph((x.exp() * w.sin()).sum(), (w.sin() * x.exp()).sum(), commutative=True)
    assert not same_graph((x.exp() - w.sin()).sum(), (w.sin() - x.exp()).sum(), commutative=True)
    assert not same_graph((x * x).sum(), (x * w).sum(), commutative=True)  # sharing counts


def test_same_graph_accepts_traced_graphs_and_lists() -> None:
    y, _ = x2_exp(torch)
    g = trace(y)
    assert isinstance(g, Graph)
    assert same_graph(g, [y])
    # x**2 * exp(x): Mul, Pow, Exp and AccumulateGrad, and two tensors, the output and x
    assert "same graph (4 backward nodes, 2 tensors;" in str(same_graph(y, y))


# ---- draw -------------------------------------------------------------------------------------


def test_svg_is_byte_identical_run_to_run() -> None:
    first = draw(x2_exp(torch)[0], show_data=True, show_grad=True, show_saved=True).svg()
    second = draw(x2_exp(torch)[0], show_data=True, show_grad=True, show_saved=True).svg()
    assert first == second
    assert "Generated by graphviz" not in first
    assert not re.search(r"0x[0-9a-f]{6,}", first)
    assert 'fill="white"' not in first  # transparent background: reads on light and dark
    bundle = draw(x2_exp(torch)[0])._repr_mimebundle_()
    assert "Generated by graphviz" not in bundle["image/svg+xml"]


def test_each_kind_has_its_own_style() -> None:
    h = x2_exp(torch)[0].exp()
    dot = draw([h, h.sum(), torch.zeros(1)], show_saved=True).source
    for kind in ("output", "intermediate", "parameter", "leaf", "function", "saved"):
        assert f'fillcolor="{_dot.FILL[kind]}"' in dot, kind
    assert len(set(_dot.FILL.values())) == len(_dot.FILL)
    assert 'style="filled,rounded"' in dot and 'style="filled,dashed"' in dot
    assert _dot.ACTIVE not in dot


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours."""

    def luminance(color: str) -> float:
        channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("page", ["#ffffff", "#121212"], ids=["light", "dark"])
def test_palette_reads_on_light_and_dark_pages(page: str) -> None:
    fills = [*_dot.FILL.values(), _dot.LABEL_FILL, _dot.CLUSTER_FILL, _dot.ACTIVE_FILL]
    fills.append(_dot.DONE_FILL)
    for fill in fills:  # all text is dark ink on a light fill
        assert contrast(_dot.INK, fill) >= 7, fill
        assert max(contrast(fill, page), contrast(_dot.BORDER, page)) >= 3, fill  # box visible
    for line in (_dot.EDGE_GREY, _dot.ACTIVE, _dot.DONE):  # edges and highlight strokes
        assert contrast(line, page) >= 3, line


def test_labels_show_what_was_asked() -> None:
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    loss = (x * 3).sum()
    loss.backward()
    plain = draw(loss, names={"x": x}).source
    assert "x\n(2,)" in plain and "data:" not in plain and "grad:" not in plain
    full = draw(loss, names={"x": x}, show_data=True, show_grad=True, show_shapes=False).source
    assert "data: [1, -2]" in full and "grad: [3, 3]" in full and "(2,)" not in full
    assert "float64" in draw(torch.ones(2, dtype=torch.float64, requires_grad=True) * 2).source


def test_forward_view_folds_accumulate_grad_and_reverses_edges() -> None:
    y, x = x2_exp(torch)
    dot = draw(y, view="forward", names={"x": x}).source
    assert "AccumulateGrad" not in dot and "Backward" not in dot
    assert "label=Mul " in dot and "label=Pow " in dot
    back = draw(y, names={"x": x}).source
    assert "n0 -> n1" in back and "n1 -> n0" in dot  # output -> grad_fn, grad_fn -> output
    assert "n5 -> n2" in dot and "n5 -> n3" in dot  # x feeds Pow and Exp directly


def test_options_are_checked() -> None:
    y, _ = x2_exp(torch)
    with pytest.raises(ValueError, match="view must be 'backward' or 'forward'"):
        draw(y, view="sideways")
    with pytest.raises(ValueError, match="max_nodes"):
        draw(y, max_nodes=0)
    with pytest.raises(TypeError, match="show_everything"):
        draw(y, show_everything=True)


def test_long_edges_become_stubs_so_dot_stays_fast() -> None:
    x = torch.randn(2, requires_grad=True)
    y = x
    for i in range(300):
        y = y + x if i % 10 == 0 else y.tanh()
    dot = draw(y, max_nodes=1000)
    assert "↪ AccumulateGrad" in dot.source
    start = time.perf_counter()
    dot.svg()
    assert time.perf_counter() - start < 20  # without stubs: minutes, or a dot crash


def test_a_large_graph_renders_in_about_a_second() -> None:
    torch.manual_seed(0)
    h = torch.randn(8, 16)
    for _ in range(150):
        w = torch.randn(16, 16, requires_grad=True)
        b = torch.randn(16, requires_grad=True)
        h = torch.relu(h @ w + b)
    loss = h.pow(2).mean()
    start = time.perf_counter()
    g = trace(loss)
    svg = draw(g, max_nodes=2000).svg()
    seconds = time.perf_counter() - start
    print(f"{len(g)} nodes traced and drawn in {seconds:.2f} s")
    assert len(g) > 1000 and svg.count('class="node"') > 1000
    assert seconds < 20  # ~1 s on an idle core; generous for a shared CI box


def test_side_by_side_has_two_labelled_clusters() -> None:
    ym, yt = x2_exp(mt)[0], x2_exp(torch)[0]
    g = draw_side_by_side(ym, yt)
    assert "subgraph cluster_m" in g.source and "subgraph cluster_t" in g.source
    assert "<td>miniautograd</td>" in g.source and "<td>PyTorch</td>" in g.source
    assert g.source.count("label=MulBackward0") == 2
    svg = g.svg()
    assert svg.count('class="cluster"') == 2 and svg == draw_side_by_side(ym, yt).svg()


def test_graphviz_is_imported_only_when_drawing() -> None:
    code = (
        "import sys, miniautograd\n"
        "from miniautograd.graph import same_graph, trace\n"
        "x = miniautograd.ones(2, requires_grad=True)\n"
        "trace(x.exp()); same_graph(x.exp(), x.sin())\n"
        "assert 'graphviz' not in sys.modules\n"
        "from miniautograd.graph import draw\n"
        "draw(x.exp())\n"
        "assert 'graphviz' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- geometry: every edge is drawn where it belongs ------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
TOUCH = 3.0  # points: an edge end that meets its node's border, with Graphviz's rounding
LABEL_GAP = 6.0  # points between an edge's label box and the nearest point of its own path

Point = tuple[float, float]
Box = tuple[float, float, float, float]


def _coordinates(text: str) -> list[Point]:
    values = [float(v) for v in NUMBER.findall(text)]
    return list(zip(values[::2], values[1::2], strict=True))


def _shape_points(shape: Any) -> list[Point]:
    """The absolute points of one Graphviz shape (Graphviz writes absolute M/C paths)."""
    tag = shape.tag.removeprefix(SVG)
    if tag in ("polygon", "polyline"):
        return _coordinates(shape.get("points", ""))
    if tag == "path":
        return _coordinates(shape.get("d", ""))
    if tag == "ellipse":
        cx, cy, rx, ry = (float(shape.get(k)) for k in ("cx", "cy", "rx", "ry"))
        return [(cx - rx, cy - ry), (cx + rx, cy + ry)]
    if tag == "text":
        return [(float(shape.get("x")), float(shape.get("y")))]
    return []


def _box(points: list[Point]) -> Box:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def _to_box(p: Point, box: Box) -> float:
    dx = max(box[0] - p[0], 0.0, p[0] - box[2])
    dy = max(box[1] - p[1], 0.0, p[1] - box[3])
    return (dx * dx + dy * dy) ** 0.5


def _bezier(d: str) -> list[Point]:
    """Points along a Graphviz edge path ``M p0 C p1 p2 p3 [p4 p5 p6 ...]``."""
    pts = _coordinates(d)
    curve = [pts[0]]
    for i in range(1, len(pts) - 2, 3):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = pts[i - 1 : i + 3]
        for k in range(1, 21):
            t = k / 20
            a, b, c, e = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t**3
            curve.append((a * x0 + b * x1 + c * x2 + e * x3, a * y0 + b * y1 + c * y2 + e * y3))
    return curve


def edge_problems(svg_text: str) -> tuple[int, list[str]]:
    """(edges checked, problems) of one Graphviz SVG: each edge titled ``A->B`` must start at
    A's box, end (its arrow's tip, if it has one) at B's box, and carry its label on its path."""
    root = ElementTree.fromstring(svg_text[svg_text.index("<svg") :])
    boxes: dict[str, Box] = {}
    for node in root.iter(f"{SVG}g"):
        if node.get("class") == "node":
            shapes = [p for s in node if s.tag != f"{SVG}text" for p in _shape_points(s)]
            if shapes:
                boxes[node.findtext(f"{SVG}title")] = _box(shapes)
    problems: list[str] = []
    checked = 0
    for edge in root.iter(f"{SVG}g"):
        if edge.get("class") != "edge":
            continue
        checked += 1
        title = edge.findtext(f"{SVG}title")
        tail, head = (end.partition(":")[0] for end in title.split("->"))
        path = edge.find(f"{SVG}path")
        if path is None or tail not in boxes or head not in boxes:
            problems.append(f"{title}: no path, or an end that is not a drawn node")
            continue
        curve = _bezier(path.get("d"))
        if _to_box(curve[0], boxes[tail]) > TOUCH:
            problems.append(f"{title}: starts at {curve[0]}, away from {tail} {boxes[tail]}")
        polygons = edge.findall(f"{SVG}polygon")
        arrows = [_shape_points(p) for p in polygons if p.get("stroke") == path.get("stroke")]
        if arrows:
            tip = min((p for a in arrows for p in a), key=lambda p: _to_box(p, boxes[head]))
            near = min(_to_box(curve[-1], _box(a)) for a in arrows)
            if _to_box(tip, boxes[head]) > TOUCH or near > TOUCH:
                problems.append(f"{title}: arrow at {tip}, away from {head} {boxes[head]}")
        elif _to_box(curve[-1], boxes[head]) > TOUCH:
            problems.append(f"{title}: ends at {curve[-1]}, away from {head} {boxes[head]}")
        boxes_drawn = [s for s in polygons if s.get("stroke") != path.get("stroke")]
        label = [p for s in boxes_drawn or edge.findall(f"{SVG}text") for p in _shape_points(s)]
        if label:
            gap = min(_to_box(p, _box(label)) for p in curve)
            if gap > LABEL_GAP:
                problems.append(f"{title}: label {_box(label)} is {gap:.0f} pt from its path")
    return checked, problems


def drawings() -> dict[str, Any]:
    """One of each kind of drawing the book shows, with labels, stubs and clusters."""
    import miniautograd.static as st

    y, x = x2_exp(torch)
    loss, params = two_layer_net(torch)
    loss.backward(retain_graph=True)
    deep = torch.randn(2, requires_grad=True)
    chain = deep
    for i in range(200):
        chain = chain + deep if i % 10 == 0 else chain.tanh()
    with st.Graph().as_default():
        a = st.placeholder(st.float32, (None, 3), name="a")
        w = st.Variable(st.random_normal((3, 2)), name="w")
        cost = st.reduce_sum(st.matmul(a, w) ** 2.0)
        (g,) = st.gradients(cost, [w])
        static = st.draw([cost, g, w.assign(w - 0.1 * g)])
    return {
        "backward": draw(y, names={"x": x}, show_data=True, show_grad=True, show_saved=True),
        "forward": draw(loss, names=params, view="forward", show_saved=True),
        "reuse": draw(OPS["reuse"](torch, *leaves(torch))),
        "stubs": draw(chain, max_nodes=1000),
        "cut": draw(loss, max_nodes=6),
        "side_by_side": draw_side_by_side(*(two_layer_net(lib)[0] for lib in (mt, torch))),
        "static": static,
    }


def test_every_drawing_draws_each_edge_from_its_tail_to_its_head() -> None:
    for name, drawing in drawings().items():
        checked, problems = edge_problems(drawing.svg())
        assert checked == drawing.source.count(" -> ") and problems == [], name


def test_the_geometry_check_finds_an_edge_drawn_to_the_wrong_node() -> None:
    svg = draw(OPS["reuse"](torch, *leaves(torch))).svg()
    assert edge_problems(svg)[1] == []
    # Swap the paths of two edges, as a layout applied in the wrong order would.
    paths = re.findall(r'(<g id="[^"]+" class="edge">\n<title>[^<]*</title>\n)(<path[^>]*>)', svg)
    (head_a, path_a), (head_b, path_b) = paths[1], paths[2]
    swapped = svg.replace(head_a + path_a, head_a + "\0").replace(head_b + path_b, head_b + path_a)
    problems = edge_problems(swapped.replace("\0", path_b))[1]
    assert len(problems) >= 2 and all("away from" in p for p in problems), problems
