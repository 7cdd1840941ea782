"""Record a backward pass node by node and replay it as a widget that works on a static page."""

from __future__ import annotations

import hashlib
import html
import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np

from .autograd.backward_function import BackwardFunction
from .graph import Decorations, Graph, Layout, draw, summarize, to_numpy, walk
from .ops.op import OpNode

TIMES = "\N{MULTIPLICATION SIGN}"  # in captions: gradient × local derivative
MAX_FRAMES = 150  # more would weigh megabytes: the widget shows the text listing instead

Grads = tuple[np.ndarray | None, ...]


def _copy(grads: Any) -> Grads:
    return tuple(None if g is None else to_numpy(g) for g in grads)


def _text(grads: Grads) -> str:
    parts = [str(summarize(g)) for g in grads]
    return parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"


@dataclass(frozen=True)
class Step:
    """One node running in backward: what reached it, what it sent, every leaf's .grad after."""

    index: int
    node: str
    op: str
    grad_outputs: Grads
    grad_inputs: Grads
    grads: Mapping[str, np.ndarray | None]
    local: Grads | None = None  # per input, what the node multiplies its gradient by


def _as_tuple(grads: Any) -> tuple:
    return grads if isinstance(grads, tuple) else (grads,)


def _times(gradient: np.ndarray, local: np.ndarray, sent: np.ndarray) -> bool:
    """Whether `sent` is `gradient` times `local`, element by element, in `sent`'s shape."""
    try:
        product = gradient * local
    except ValueError:  # shapes that do not broadcast
        return False
    return product.shape == sent.shape and bool(np.allclose(product, sent, rtol=1e-5,
                                                            atol=1e-7))


def local_derivatives(node: Any, grad_outputs: Any) -> Grads | None:
    """Per input, the local derivative that `node` multiplies its incoming gradient by, where
    its vector-Jacobian product is that product (an operation element by element, or a sum or
    mean spreading one gradient): the node called on a gradient of ones, kept for an input
    only if the node called on a probe gradient of distinct values (fixed draws in [1, 2))
    returns the probe times it. A matrix product, a broadcast summed back, or a mixing of
    elements fails that test, short of a Jacobian tuned to the draws; its input gets None.
    None for a node with several outputs, and for a custom Function's node, which is never
    called (PyTorch's cannot be): its backward is the user's code, which may print or count
    its calls."""
    custom = isinstance(node, BackwardFunction) and not isinstance(node, OpNode)
    if len(grad_outputs) != 1 or grad_outputs[0] is None or custom or not callable(node):
        return None
    g = grad_outputs[0]
    engine = importlib.import_module(type(g).__module__.partition(".")[0])
    weights = np.random.default_rng(0).uniform(1.0, 2.0, tuple(g.shape))
    probe = engine.tensor(weights, dtype=g.dtype, device=g.device)
    local = _copy(_as_tuple(node(engine.ones_like(g))))
    probed = _copy(_as_tuple(node(probe)))
    weights = to_numpy(probe)
    return tuple(None if d is None or sent is None or not _times(weights, d, sent) else d
                 for d, sent in zip(local, probed, strict=True))


class BackwardRecording:
    """The steps of one backward pass; displays as a stepper with one SVG frame per step.

    Frame 0 is the state before backward; frame ``k`` shows the graph after ``k`` nodes ran,
    with the running node and the edges it just filled highlighted and each edge labelled
    with the gradient it carried.
    """

    def __init__(
        self,
        graph: Graph,
        steps: list[Step],
        initial: Mapping[str, np.ndarray | None],
        root_edge: tuple[str, str],
    ) -> None:
        self.graph = graph
        self.steps = steps
        self.initial = initial
        self.root_edge = root_edge

    def __len__(self) -> int:
        return len(self.steps) + 1

    def __repr__(self) -> str:
        return f"<BackwardRecording: {len(self.steps)} steps on a {self.graph.engine} graph>"

    def grads(self, k: int) -> Mapping[str, np.ndarray | None]:
        """Every leaf's ``.grad`` (by node id) in frame ``k``, i.e. after ``k`` steps."""
        return self.steps[k - 1].grads if k else self.initial

    @property
    def seed(self) -> np.ndarray | None:
        """The gradient backward started from (``ones_like(root)`` unless one was passed)."""
        fid = self.root_edge[1]
        first = next((s for s in self.steps if s.node == fid), None)
        return first.grad_outputs[0] if first else None

    def _sent(self, step: Step) -> list[tuple[int, str, np.ndarray]]:
        """(slot, target node, gradient) for every edge this step sent a gradient along."""
        nexts = self.graph.by_id[step.node].next_functions
        return [
            (slot, nid, g)
            for slot, ((nid, _), g) in enumerate(zip(nexts, step.grad_inputs, strict=True))
            if nid is not None and g is not None
        ]

    @cached_property
    def _leaf_of(self) -> dict[str, str]:
        """AccumulateGrad node id -> the id of the leaf it fills."""
        return {e.src: e.dst for e in self.graph.edges if e.kind == "variable"}

    def _who(self, nid: str) -> str:
        node = self.graph.by_id[nid]
        leaf = self.graph.by_id.get(self._leaf_of.get(nid, ""))
        return f"{node.label} of {leaf.label}" if leaf is not None and leaf.label else node.label

    def _arrivals(self, step: Step) -> list[np.ndarray]:
        """The gradients that reached ``step``'s node along its edges, in the order they were
        sent; the engine added them in the node's buffer before the node ran."""
        return [g for earlier in self.steps[: step.index - 1]
                for _, target, g in self._sent(earlier) if target == step.node]

    def caption(self, k: int) -> str:
        """What frame ``k`` shows, in one sentence, with the sums the engine did: gradients
        that arrived along several edges, and a leaf's ``.grad`` added to one already there."""
        if k == 0:
            start = self._who(self.root_edge[1])
            return f"Before backward: the seed gradient {summarize(self.seed)} goes to {start}."
        step = self.steps[k - 1]
        head = f"Step {k} of {len(self.steps)}: {self._who(step.node)} runs"
        got = _text(step.grad_outputs)
        arrivals = self._arrivals(step)
        if len(arrivals) > 1 and len(step.grad_outputs) == 1:
            got = " + ".join(str(summarize(g)) for g in arrivals) + f" = {got}"
        leaf = self._leaf_of.get(step.node)
        if leaf is not None:
            now = summarize(step.grads[leaf])
            before = self.grads(k - 1)[leaf]
            if before is not None:  # accumulated onto a .grad from an earlier backward
                now = f"{summarize(before)} + {_text(step.grad_outputs)} = {now}"
            arrived = f": gets {got}" if len(arrivals) > 1 else ""
            return f"{head}{arrived}; .grad is now {now}."
        sent = [f"{self._product(step, slot)}{summarize(g)} to {self._who(nid)}"
                for slot, nid, g in self._sent(step)]
        tail = f" and sends {'; '.join(sent)}" if sent else ""
        return f"{head}: gets {got}{tail}."

    @staticmethod
    def _product(step: Step, slot: int) -> str:
        """'gradient × local derivative = ' for an element-by-element step, else ''."""
        if step.local is None or step.local[slot] is None:
            return ""
        gradient, local = step.grad_outputs[0], step.local[slot]
        if not _times(gradient, local, step.grad_inputs[slot]):  # e.g. summed to a shape
            return ""
        return f"{summarize(gradient)} {TIMES} {summarize(local)} = "

    def decorations(self, k: int) -> Decorations:
        """Highlights and labels of frame ``k``: what has run, what runs, what each edge carried."""
        root_key = (*self.root_edge, 0)
        labels = {root_key: str(summarize(self.seed))}
        active: set[tuple[str, str, int]] = set()
        for step in self.steps[:k]:
            for slot, nid, g in self._sent(step):
                labels[(step.node, nid, slot)] = str(summarize(g))
                if step.index == k:
                    active.add((step.node, nid, slot))
        return Decorations(
            active_nodes=frozenset({self.steps[k - 1].node} if k else set()),
            done_nodes=frozenset(s.node for s in self.steps[: max(k - 1, 0)]),
            active_edges=frozenset(active if k else {root_key}),
            edge_labels=labels,
            grads={nid: summarize(g) for nid, g in self.grads(k).items()},
            edge_ids=True,
        )

    @cached_property
    def _layout(self) -> Layout:
        """One dot layout with every label at its widest: frames do not jump as values appear."""
        frames = range(len(self))
        widest = {
            nid: max((str(summarize(self.grads(k)[nid])) for k in frames), key=len)
            for nid in self.initial
        }
        deco = replace(self.decorations(len(self) - 1), grads=widest)
        return Layout.of(self._draw(deco))

    def _draw(self, deco: Decorations) -> Any:
        return draw(self.graph, show_grad=True, max_nodes=len(self.graph), decorations=deco)

    def frame(self, k: int) -> Any:
        """Frame ``k`` as a graphviz drawing."""
        if not 0 <= k < len(self):
            raise IndexError(f"frame {k} out of range: this recording has 0..{len(self) - 1}")
        return self._draw(replace(self.decorations(k), layout=self._layout))

    def filmstrip(self, svg: bool = False) -> str:
        """All frames in order: a numbered text listing, or (``svg=True``) stacked SVG figures."""
        if not svg:
            return "\n".join(f"{k}. {self.caption(k)}" for k in range(len(self)))
        return "\n".join(
            f"<figure><figcaption>{html.escape(self.caption(k))}</figcaption>{svg_text}</figure>"
            for k, svg_text in enumerate(self._svgs)
        )

    @cached_property
    def _svgs(self) -> list[str]:
        return [_inline(self.frame(k).svg()) for k in range(len(self))]

    def _repr_html_(self) -> str:
        if len(self) > MAX_FRAMES:
            return (
                f"<p>{len(self.steps)} steps are too many to draw; the listing:</p>"
                f"<pre>{html.escape(self.filmstrip())}</pre>"
            )
        return stepper_html(
            self._svgs, [self.caption(k) for k in range(len(self))], self.filmstrip()
        )


def _inline(svg: str) -> str:
    """SVG text ready to sit inside HTML: no XML prolog, DOCTYPE or comments."""
    svg = svg[svg.index("<svg") :]
    return re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)


# The widget is a light card on any page: every colour it shows is set here, with selectors
# that outrank a theme's (e.g. a dark theme's muted figcaption grey), so text keeps >= 4.5:1.
CSS = """
.mag-stepper{max-width:100%;margin:.5em 0;padding:.4em .6em;border-radius:6px}
.mag-stepper{background:#fff;color:#1f2328;color-scheme:light}
.mag-stepper figure{margin:0 0 1em 0}
.mag-stepper svg{max-width:100%;height:auto}
.mag-stepper figcaption,.mag-stepper .mag-caption{color:#1f2328;text-align:left;
  font-weight:normal;margin:.3em 0;min-height:2.6em}
.mag-stepper .mag-controls{display:none;gap:.6em;align-items:center;flex-wrap:wrap}
.mag-stepper .mag-caption{display:none}
.mag-stepper.mag-js .mag-controls{display:flex}
.mag-stepper.mag-js .mag-caption{display:block}
.mag-stepper.mag-js .mag-frame figcaption{display:none}
.mag-stepper.mag-js .mag-frame{display:none}
.mag-stepper.mag-js .mag-frame.mag-on{display:block}
.mag-stepper button{font:inherit;min-width:44px;min-height:44px;padding:.3em .9em;
  cursor:pointer;color:#1f2328;background:#f1f3f5;border:1px solid #868e96;border-radius:4px}
.mag-stepper button[aria-disabled=true]{color:#495057;cursor:default}
.mag-stepper input[type=range]{flex:1;max-width:22em;min-height:44px;margin:0;
  accent-color:#1c6fb8}
.mag-stepper :focus-visible{outline:2px solid #1c6fb8;outline-offset:2px}
"""

# Plain ES5, no libraries: runs in Jupyter, in Colab's output iframe and on the static book page.
# Keys are handled here, for the whole widget, and the slider's own arrow-key action is
# cancelled: otherwise a key pressed on the slider moves it twice.
JS = """
(function () {
  var script = document.currentScript;
  var root = (script && script.closest('[data-mag-stepper]')) || document.getElementById('%s');
  if (!root || root.hasAttribute('data-mag-ready')) { return; }
  root.setAttribute('data-mag-ready', '');
  root.classList.add('mag-js');
  var frames = root.querySelectorAll('.mag-frame');
  var slider = root.querySelector('.mag-slider');
  var prev = root.querySelector('.mag-prev');
  var next = root.querySelector('.mag-next');
  var caption = root.querySelector('.mag-caption');
  var last = frames.length - 1;
  function show(k) {
    k = Math.max(0, Math.min(last, k));
    for (var i = 0; i <= last; i++) { frames[i].classList.toggle('mag-on', i === k); }
    slider.value = String(k);
    slider.setAttribute('aria-valuetext', 'step ' + k + ' of ' + last);
    caption.textContent = frames[k].querySelector('figcaption').textContent;
    // At either end a button says it does nothing but stays focusable: a disabled button
    // would drop the keyboard's focus to the page.
    prev.setAttribute('aria-disabled', String(k === 0));
    next.setAttribute('aria-disabled', String(k === last));
  }
  // Room for the longest caption, so that the drawing under it does not move between steps.
  function reserve() {
    var shown = caption.textContent, tallest = 0;
    caption.style.minHeight = '';
    for (var i = 0; i <= last; i++) {
      caption.textContent = frames[i].querySelector('figcaption').textContent;
      tallest = Math.max(tallest, caption.offsetHeight);
    }
    caption.textContent = shown;
    if (tallest) { caption.style.minHeight = tallest + 'px'; }
  }
  prev.addEventListener('click', function () { show(+slider.value - 1); });
  next.addEventListener('click', function () { show(+slider.value + 1); });
  slider.addEventListener('input', function () { show(+slider.value); });
  root.addEventListener('keydown', function (e) {
    var k = +slider.value;
    var to = {ArrowRight: k + 1, ArrowDown: k + 1, ArrowLeft: k - 1, ArrowUp: k - 1,
              PageDown: k + 1, PageUp: k - 1, Home: 0, End: last}[e.key];
    if (to === undefined || e.altKey || e.ctrlKey || e.metaKey) { return; }
    e.preventDefault();
    show(to);
  });
  show(0);
  reserve();
  window.addEventListener('resize', reserve);
})();
"""

CONTROLS = (
    '<div class="mag-controls">'
    '<button type="button" class="mag-prev" aria-label="previous step">◀ prev</button>'
    '<input type="range" class="mag-slider" min="0" max="%(last)d" step="1" value="0"'
    ' aria-label="step">'
    '<button type="button" class="mag-next" aria-label="next step">next ▶</button></div>'
    '<p class="mag-caption" aria-live="polite"></p>'
)


def stepper_html(svgs: list[str], captions: list[str], fallback: str) -> str:
    """Self-contained stepper: inline SVG frames, buttons, a slider and plain inline JavaScript.

    Without JavaScript every frame shows, stacked under its caption. The DOM id is a hash of
    the content, so re-running a notebook stores byte-identical output.
    """
    digest = hashlib.blake2b("".join(svgs + captions).encode(), digest_size=6).hexdigest()
    uid = f"mag-stepper-{digest}"
    frames = []
    for k, (svg, caption) in enumerate(zip(svgs, captions, strict=True)):
        svg = re.sub(r' id="([^"]+)"', rf' id="{uid}-{k}-\1"', svg)  # graphviz reuses node1, ...
        # One accessible name per frame: the drawing is an image described by its caption.
        svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(caption)}" ', 1)
        frames.append(
            f'<figure class="mag-frame" data-step="{k}">'
            f"<figcaption>{html.escape(caption)}</figcaption>{svg}</figure>"
        )
    return (
        f'<div class="mag-stepper" id="{uid}" data-mag-stepper="" tabindex="0"'
        ' role="group" aria-label="backward pass, step by step">'
        f"<style>{CSS}</style>{CONTROLS % {'last': len(svgs) - 1}}"
        f"<noscript><pre>{html.escape(fallback)}</pre></noscript>"
        + "".join(frames)
        + f"<script>{JS % uid}</script></div>"
    )


def record_backward(
    root: Any,
    gradient: Any = None,
    *,
    names: Mapping[str, Any] | None = None,
    retain_graph: bool | None = None,
) -> BackwardRecording:
    """Run ``root.backward(gradient)`` with hooks on every node and record what each step did.

    Works on torch and miniautograd tensors. Each node gets a pre-hook (what reaches it) and
    a hook (what it sends along ``next_functions``); both are removed afterwards. The
    recording keeps numpy copies only, no reference to the graph.
    """
    if getattr(root, "grad_fn", None) is None:
        raise ValueError(
            "record_backward needs a tensor computed from others (its grad_fn is None); "
            "pass the loss, e.g. record_backward((x * 2).sum()), not a leaf"
        )
    w = walk(root, names=names, saved=False)
    graph = w.graph
    leaves = {e.dst: w.objects[e.dst] for e in graph.edges if e.kind == "variable"}

    def snapshot() -> dict[str, np.ndarray | None]:
        return {nid: None if t.grad is None else to_numpy(t.grad) for nid, t in leaves.items()}

    initial = snapshot()
    steps: list[Step] = []
    arrived: dict[str, tuple[Grads, Grads | None]] = {}
    accumulators = {e.src for e in graph.edges if e.kind == "variable"}

    def prehook(nid: str, fn: Any) -> Any:
        def hook(grad_outputs: Any) -> None:
            # Calling an AccumulateGrad would add to its leaf's .grad: it only stores.
            local = None if nid in accumulators else local_derivatives(fn, grad_outputs)
            arrived[nid] = (_copy(grad_outputs), local)

        return hook

    def posthook(nid: str) -> Any:
        def hook(grad_inputs: Any, grad_outputs: Any) -> None:
            got, local = arrived.pop(nid)
            op = graph.by_id[nid].label
            steps.append(Step(len(steps) + 1, nid, op, got, _copy(grad_inputs), snapshot(),
                              local))

        return hook

    handles = []
    try:
        for node in graph.nodes:
            if node.kind == "function":
                fn = w.objects[node.id]
                handles.append(fn.register_prehook(prehook(node.id, fn)))
                handles.append(fn.register_hook(posthook(node.id)))
        root.backward(gradient, retain_graph=retain_graph)
    finally:
        for h in handles:
            h.remove()
    root_edge = next((e.src, e.dst) for e in graph.edges if e.kind == "grad_fn")
    return BackwardRecording(graph, steps, initial, root_edge)
