"""miniautograd.stepper: what record_backward records, and the frames and HTML it renders.

Frame k must show exactly the .grad values filled after k steps of backward; the check
compares against a separate run that watches the leaves with tensor hooks.
"""

from __future__ import annotations

import html
import re
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch
from test_graph import custom_functions, edge_problems, two_layer_net

import miniautograd as mt
from miniautograd.graph._dot import ACTIVE, edge_id
from miniautograd.graph._trace import summarize
from miniautograd.stepper import MAX_FRAMES, BackwardRecording, record_backward
from miniautograd.stepper import TIMES as X

ENGINES = pytest.mark.parametrize("lib", [torch, mt], ids=["torch", "miniautograd"])


def small(lib: ModuleType) -> tuple[Any, dict[str, Any]]:
    """(x * w).exp().sum() + (2 * x).sum(): two leaves, one of them used twice."""
    x = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
    w = lib.tensor([0.5, 0.25, -1.0], requires_grad=True)
    return (x * w).exp().sum() + (x * 2).sum(), {"x": x, "w": w}


def leaf_arrivals(lib: ModuleType, build: Any) -> tuple[list[str], dict[str, np.ndarray]]:
    """An independent run: the order in which leaves receive their gradient (tensor hooks),
    and the gradients themselves (autograd.grad), on a freshly built graph."""
    root, leaves = build(lib)
    grads = lib.autograd.grad(root, list(leaves.values()), retain_graph=True)
    order: list[str] = []
    for name, t in leaves.items():
        t.register_hook(lambda g, name=name: order.append(name))
    root.backward()
    return order, {n: np.asarray(g.detach().numpy()) for n, g in zip(leaves, grads, strict=True)}


def leaf_ids(rec: BackwardRecording, leaves: dict[str, Any]) -> dict[str, str]:
    return {n.label: n.id for n in rec.graph.nodes if n.label in leaves}


@ENGINES
@pytest.mark.parametrize("build", [small, two_layer_net], ids=["small", "two_layer_net"])
def test_frame_k_shows_the_grads_filled_after_k_steps(lib: ModuleType, build: Any) -> None:
    order, expected = leaf_arrivals(lib, build)
    root, leaves = build(lib)
    rec = record_backward(root, names=leaves)
    ids = leaf_ids(rec, leaves)
    functions = [n for n in rec.graph.nodes if n.kind == "function"]
    assert len(rec.steps) == len(functions) and len(rec) == len(functions) + 1
    assert sorted(s.node for s in rec.steps) == sorted(n.id for n in functions)  # each runs once
    filled: list[str] = []
    for k in range(len(rec)):
        grads = rec.grads(k)
        now = [name for name in leaves if grads[ids[name]] is not None]
        filled += [name for name in now if name not in filled]
        assert filled == order[: len(filled)], f"frame {k}: leaves filled out of order"
        for name in leaves:
            value = grads[ids[name]]
            if name in now:
                np.testing.assert_allclose(value, expected[name], rtol=1e-6)
    assert filled == order  # every leaf filled by the last frame
    for name, t in leaves.items():
        np.testing.assert_allclose(t.grad.numpy(), expected[name], rtol=1e-6)


@ENGINES
def test_steps_record_what_each_edge_carried(lib: ModuleType) -> None:
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, -1.0], requires_grad=True)
    rec = record_backward((a * (b * 2)).sum(), names={"a": a, "b": b})
    assert [s.op for s in rec.steps] == [
        "SumBackward0",
        "MulBackward0",
        "AccumulateGrad",
        "MulBackward0",
        "AccumulateGrad",
    ]
    sum_step, mul_step, acc_a, mul2_step, _ = rec.steps
    np.testing.assert_array_equal(sum_step.grad_outputs[0], 1.0)
    np.testing.assert_array_equal(sum_step.grad_inputs[0], [1.0, 1.0])
    np.testing.assert_array_equal(mul_step.grad_inputs[0], [6.0, -2.0])  # d/da = 2b
    np.testing.assert_array_equal(mul_step.grad_inputs[1], [1.0, 2.0])  # d/d(2b) = a
    np.testing.assert_array_equal(mul2_step.grad_inputs[0], [2.0, 4.0])
    assert mul2_step.grad_inputs[1] is None  # the constant 2 gets no gradient
    assert acc_a.grad_inputs == ()
    np.testing.assert_array_equal(rec.seed, 1.0)
    assert rec.filmstrip().splitlines() == [
        "0. Before backward: the seed gradient 1 goes to SumBackward0.",
        f"1. Step 1 of 5: SumBackward0 runs: gets 1 and sends 1 {X} [1, 1] = [1, 1] to"
        " MulBackward0.",
        f"2. Step 2 of 5: MulBackward0 runs: gets [1, 1] and sends [1, 1] {X} [6, -2] = [6, -2]"
        f" to AccumulateGrad of a; [1, 1] {X} [1, 2] = [1, 2] to MulBackward0.",
        "3. Step 3 of 5: AccumulateGrad of a runs; .grad is now [6, -2].",
        f"4. Step 4 of 5: MulBackward0 runs: gets [1, 2] and sends [1, 2] {X} [2, 2] = [2, 4] to"
        " AccumulateGrad of b.",
        "5. Step 5 of 5: AccumulateGrad of b runs; .grad is now [2, 4].",
    ]


@ENGINES
def test_captions_show_the_sums_the_engine_does(lib: ModuleType) -> None:
    """b reaches its AccumulateGrad along two edges (exp(b) and a * b): the caption shows the
    two gradients and their sum; a second backward adds onto the .grad of the first."""
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([0.0, 1.0], requires_grad=True)
    record_backward((b * 2 + a * b).sum(), names={"a": a, "b": b})
    rec = record_backward((b * 2 + a * b).sum(), names={"a": a, "b": b})
    captions = rec.filmstrip().splitlines()
    assert any("AccumulateGrad of b runs: gets [1, 2] + [2, 2] = [3, 4]; .grad is now "
               "[3, 4] + [3, 4] = [6, 8]." in c for c in captions), captions
    assert any("AccumulateGrad of a runs; .grad is now [0, 1] + [0, 1] = [0, 2]." in c
               for c in captions), captions


@ENGINES
def test_captions_multiply_only_where_a_step_is_one_product_per_element(lib: ModuleType) -> None:
    """tanh, a product with a leaf and a mean multiply each gradient element by a local
    derivative, and the caption says so; a matrix product does not, and the caption shows only
    what it sends."""
    W = lib.tensor([[1.0, 2.0], [0.0, -1.0]], requires_grad=True)
    x = lib.tensor([0.5, 2.0], requires_grad=True)
    s = lib.tensor([3.0, -2.0], requires_grad=True)
    rec = record_backward(((W @ x) * s).tanh().mean(), names={"W": W, "x": x, "s": s})
    captions = dict(zip((step.op for step in rec.steps), rec.filmstrip().splitlines()[1:],
                        strict=True))
    assert f"gets 1 and sends 1 {X} [0.5, 0.5] = [0.5, 0.5] to TanhBackward0" in captions[
        "MeanBackward0"]
    tanh = rec.steps[[step.op for step in rec.steps].index("TanhBackward0")]
    assert f"[0.5, 0.5] {X} {summarize(tanh.local[0])} = " in captions["TanhBackward0"]
    mul = next(step for step in rec.steps if step.op == "MulBackward0")
    assert mul.local is not None
    np.testing.assert_allclose(mul.local[1], (W @ x).detach().numpy())  # d(h * s)/ds = h
    assert X not in captions["MvBackward0"]
    assert not any(next(step for step in rec.steps if step.op == "MvBackward0").local or ())


@ENGINES
def test_captions_multiply_nothing_that_was_summed_back_or_mixed(lib: ModuleType) -> None:
    """A factor broadcast over a vector gets its gradient summed back to its shape, which is no
    product per element; a matrix whose row [1, 0, 1] averages its neighbours' weights would
    pass a probe of 1, 2, 3 (1 + 3 = 2 * 2) but not the probe's distinct draws."""
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    s = lib.tensor(3.0, requires_grad=True)
    rec = record_backward((a * s).sum(), names={"a": a, "s": s})
    mul = next(c for c in rec.filmstrip().splitlines() if "MulBackward0 runs" in c)
    assert f"sends [1, 1] {X} [3, 3] = [3, 3] to AccumulateGrad of a; 3 to" in mul, mul
    x = lib.tensor([1.0, 1.0, 1.0], requires_grad=True)
    W = lib.tensor([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 1.0]])
    rec = record_backward(((W @ x) * lib.tensor([1.0, 2.0, 5.0])).sum(), names={"x": x})
    mv = next(c for c in rec.filmstrip().splitlines() if "MvBackward0 runs" in c)
    assert X not in mv and "sends [1, 6, 5] to AccumulateGrad of x" in mv, mv
    assert not any(next(step for step in rec.steps if step.op == "MvBackward0").local or ())


def test_a_given_gradient_is_the_seed() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    rec = record_backward(x * 3, torch.tensor([1.0, -1.0]))
    np.testing.assert_array_equal(rec.seed, [1.0, -1.0])
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, -3.0])


@ENGINES
def test_grads_from_an_earlier_backward_show_in_frame_zero(lib: ModuleType) -> None:
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    rec = record_backward((x * 5).sum(), names={"x": x})
    (xid,) = leaf_ids(rec, {"x": x}).values()
    np.testing.assert_array_equal(rec.grads(0)[xid], [2.0, 2.0])
    np.testing.assert_array_equal(rec.grads(len(rec) - 1)[xid], [7.0, 7.0])


@ENGINES
def test_hooks_are_removed_afterwards(lib: ModuleType) -> None:
    root, leaves = small(lib)
    rec = record_backward(root, names=leaves, retain_graph=True)
    steps = len(rec.steps)
    root.backward()
    assert len(rec.steps) == steps
    w = leaf_ids(rec, leaves)["w"]
    np.testing.assert_allclose(leaves["w"].grad.numpy(), 2 * rec.grads(len(rec) - 1)[w])


@ENGINES
def test_errors_say_what_to_do(lib: ModuleType) -> None:
    x = lib.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="not a leaf"):
        record_backward(x)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        record_backward(x * 2)  # the engine's own error, as backward() would raise it
    rec = record_backward((x * 2).sum())
    with pytest.raises(IndexError, match=r"0\.\.3"):
        rec.frame(4)


# torch breaks ready-queue ties (AccumulateGrad nodes all have the same sequence number) in
# the order of its std::priority_queue: stack of 4 leaves -> 0, 2, 1, 3.
@pytest.mark.parametrize("lib", [torch, mt], ids=["torch", "miniautograd"])
def test_ties_run_in_torchs_order(lib: ModuleType) -> None:
    def build(lib: ModuleType) -> tuple[Any, dict[str, Any]]:
        leaves = {f"l{i}": lib.full((2,), float(i), requires_grad=True) for i in range(4)}
        return lib.stack(list(leaves.values())).sum(), leaves

    order, _ = leaf_arrivals(torch, build)
    assert order == ["l0", "l2", "l1", "l3"]
    root, leaves = build(lib)
    rec = record_backward(root, names=leaves)
    assert re.findall(r"AccumulateGrad of (l\d) runs", rec.filmstrip()) == order


# ---- frames and HTML --------------------------------------------------------------------------


def svg_header(svg: str) -> str:
    return re.search(r"<svg [^>]*>", svg).group(0)


def node_block(svg: str, node_id: str) -> str:
    return re.search(rf"<title>{node_id}</title>.*?</g>", svg, re.S).group(0)


def test_frames_highlight_the_running_node_and_keep_their_geometry() -> None:
    root, leaves = two_layer_net(torch)
    rec = record_backward(root, names=leaves)
    svgs = [rec.frame(k).svg() for k in range(len(rec))]
    assert len({svg_header(s) for s in svgs}) == 1  # same size: frames do not jump
    first_x = node_block(svgs[0], "n6")
    for k, svg in enumerate(svgs[1:], start=1):
        running = rec.steps[k - 1].node
        assert f'stroke="{ACTIVE}"' in node_block(svg, running)
        others = [n.id for n in rec.graph.nodes if n.id != running]
        assert all(f'stroke="{ACTIVE}"' not in node_block(svg, n) for n in others)
        points = re.findall(r'points="[^"]*"', node_block(svg, "n6"))
        assert points == re.findall(r'points="[^"]*"', first_x)  # same place in every frame
    ids = leaf_ids(rec, leaves)
    for k, svg in enumerate(svgs):
        for name, nid in ids.items():
            grad = rec.grads(k)[nid]
            text = "grad: None" if grad is None else "grad: mean"
            assert text in node_block(svg, nid), (k, name)


def chapter_one(lib: ModuleType) -> tuple[Any, dict[str, Any]]:
    """Chapter 1's recording: b feeds Exp and Mul, so two edges end at b's AccumulateGrad."""
    lib.manual_seed(0)
    a = lib.randn(2, requires_grad=True)
    b = lib.randn(2, requires_grad=True)
    return (b.exp() + a * b).sum(), {"a": a, "b": b}


BUILDS = pytest.mark.parametrize(
    "build", [small, two_layer_net, chapter_one], ids=["small", "two_layer_net", "chapter_one"]
)


@ENGINES
@BUILDS
def test_every_frame_draws_each_edge_from_its_tail_to_its_head(lib: ModuleType, build: Any) -> None:
    root, leaves = build(lib)
    rec = record_backward(root, names=leaves)
    drawn = sum(e.kind != "saved" for e in rec.graph.edges)
    for k in range(len(rec)):
        assert edge_problems(rec.frame(k).svg()) == (drawn, []), f"frame {k}"


def edge_labels(svg: str) -> dict[str, str]:
    """Edge id -> the text of its label, read from the SVG."""
    found = {}
    for block in re.findall(r'<g id="([^"]+)" class="edge">(.*?)</g>', svg, re.S):
        texts = re.findall(r"<text[^>]*>([^<]*)</text>", block[1])
        found[block[0]] = html.unescape(" ".join(texts))
    return found


@ENGINES
@BUILDS
def test_each_edge_is_labelled_with_the_gradient_it_carried(lib: ModuleType, build: Any) -> None:
    root, leaves = build(lib)
    rec = record_backward(root, names=leaves)
    last = len(rec) - 1
    labels = edge_labels(rec.frame(last).svg())
    expected = {edge_id(*rec.root_edge, 0): str(summarize(rec.seed))}
    for step in rec.steps:
        nexts = rec.graph.by_id[step.node].next_functions
        for slot, ((nid, _), g) in enumerate(zip(nexts, step.grad_inputs, strict=True)):
            if nid is not None and g is not None:
                expected[edge_id(step.node, nid, slot)] = str(summarize(g))
    assert {k: labels[k] for k in expected} == expected
    # What the edges into a leaf's AccumulateGrad carried adds up to that leaf's .grad.
    for acc, leaf in ((e.src, e.dst) for e in rec.graph.edges if e.kind == "variable"):
        into = [
            step.grad_inputs[slot]
            for step in rec.steps
            for slot, (nid, _) in enumerate(rec.graph.by_id[step.node].next_functions)
            if nid == acc and step.grad_inputs[slot] is not None
        ]
        np.testing.assert_allclose(sum(into), rec.grads(last)[leaf], rtol=1e-6)


def test_html_is_deterministic_self_contained_and_has_unique_ids() -> None:
    first = record_backward(*_small_root(torch))._repr_html_()
    second = record_backward(*_small_root(torch))._repr_html_()
    assert first == second
    ids = re.findall(r' id="([^"]+)"', first)
    assert len(ids) == len(set(ids)) > 20
    assert not re.search(r"(src|href)=\"(https?:)?//", first)
    assert "<link" not in first and "<script src" not in first
    assert first.count('<figure class="mag-frame"') == 9
    assert "<noscript><pre>0. Before backward" in first
    assert 'class="mag-slider" min="0" max="8"' in first
    assert "Generated by graphviz" not in first and "<?xml" not in first


def _small_root(lib: ModuleType) -> tuple[Any]:
    return (small(lib)[0],)


def test_filmstrip_as_stacked_svgs() -> None:
    rec = record_backward(small(torch)[0])
    html = rec.filmstrip(svg=True)
    assert html.count("<figure>") == len(rec) and html.count("<svg") == len(rec)


def test_too_many_frames_fall_back_to_the_listing() -> None:
    x = torch.ones(2, requires_grad=True)
    y = x
    for _ in range(MAX_FRAMES):
        y = y * 1.0
    rec = record_backward(y.sum())
    html = rec._repr_html_()
    assert "<svg" not in html and f"{len(rec) - 1}. Step" in html


def test_custom_function_steps_on_both_engines_agree() -> None:
    runs = []
    for lib in (mt, torch):
        lib.manual_seed(0)
        x = lib.randn(3, requires_grad=True)
        rec = record_backward(custom_functions(lib)[1].apply(x).sum(), names={"x": x})
        runs.append((rec.filmstrip(), [s.op for s in rec.steps]))
    assert runs[0] == runs[1]
    assert runs[1][1] == ["SumBackward0", "ExpBackward", "AccumulateGrad"]
