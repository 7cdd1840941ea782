"""Cross-check miniautograd against PyTorch: same function, same inputs, compare everything.

``compare_with_torch(fn, *inputs)`` runs ``fn`` once on miniautograd tensors and once on torch
tensors built from the same numbers, backpropagates the same output weighting through both,
and reports the largest differences of the outputs and of every input's gradient.
``TOLERANCES`` is how near two results must be to count as the same, here and in the
package's own tests (``tests/engine/helpers.py``, ``check_op``); ``close`` is the comparison.
``rebound`` runs code written for torch on miniautograd unchanged, by rebinding its names.
"""

from __future__ import annotations

import contextlib
import html
import inspect
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import miniautograd

from . import _backend
from ._creation import tensor
from ._tensor import Tensor
from .graph import GraphComparison, same_graph

# (rtol, atol) for each floating dtype: how far apart two correct engines' results may be. In
# float32 they differ in the last bits (the order of a sum, a vectorised or a scalar exp).
TOLERANCES = {np.dtype(np.float64): (1e-7, 1e-10), np.dtype(np.float32): (2e-5, 2e-6)}


def tolerances(dtype: Any) -> tuple[float, float]:
    """``(rtol, atol)`` for results of ``dtype``; other dtypes (integers, bools) must be equal."""
    return TOLERANCES.get(np.dtype(dtype), (0.0, 0.0))


def close(mine: np.ndarray, theirs: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Where ``|mine - theirs| <= atol + rtol * |theirs|``, nan matching nan (numpy's and
    torch's ``isclose`` with ``equal_nan=True``)."""
    return np.isclose(mine, theirs, rtol=rtol, atol=atol, equal_nan=True)


@dataclass
class Difference:
    """Largest absolute and relative difference between two arrays."""

    name: str
    shape: tuple
    max_abs: float
    max_rel: float
    ok: bool


@dataclass
class Comparison:
    """The outcome of ``compare_with_torch``; truthy when everything agrees."""

    rows: list[Difference] = field(default_factory=list)
    graph: GraphComparison | None = None  # None when an output is not a tensor
    atol: float = 0.0
    rtol: float = 0.0

    @property
    def same_graph(self) -> bool:
        return self.graph is None or self.graph.equal

    @property
    def passed(self) -> bool:
        return all(row.ok for row in self.rows) and self.same_graph

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        lines = [f"{'quantity':<14}{'shape':<14}{'max abs diff':>14}{'max rel diff':>14}  ok"]
        for row in self.rows:
            lines.append(f"{row.name:<14}{list(row.shape)!s:<14}{row.max_abs:>14.3e}"
                         f"{row.max_rel:>14.3e}  {'yes' if row.ok else 'NO'}")
        graph = "same" if self.same_graph else f"DIFFERENT\n{self.graph}"
        lines.append(f"graph: {graph}")
        lines.append(f"verdict: {'agree' if self.passed else 'DISAGREE'} "
                     f"(atol={self.atol:g}, rtol={self.rtol:g})")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><td>{html.escape(r.name)}</td><td>{list(r.shape)}</td>"
            f"<td>{r.max_abs:.3e}</td><td>{r.max_rel:.3e}</td>"
            f"<td>{'✔' if r.ok else '✘'}</td></tr>"
            for r in self.rows
        )
        graph = "same op names and edges" if self.same_graph else (
            f"<pre>{html.escape(str(self.graph))}</pre>")
        verdict = "agree" if self.passed else "DISAGREE"
        return (
            "<table><thead><tr><th>quantity</th><th>shape</th><th>max abs diff</th>"
            f"<th>max rel diff</th><th>ok</th></tr></thead><tbody>{cells}</tbody></table>"
            f"<p>graph: {graph}. Verdict: <b>{verdict}</b> "
            f"(atol={self.atol:g}, rtol={self.rtol:g}).</p>"
        )


def _as_array(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach()
        value = value.cpu().numpy() if hasattr(value, "cpu") else value
    if isinstance(value, Tensor):
        return value._numpy_view()
    return _backend.to_numpy(value) if not isinstance(value, np.ndarray) else value


def _difference(name: str, mine: Any, theirs: Any, atol: float, rtol: float) -> Difference:
    if mine is None or theirs is None:
        ok = mine is None and theirs is None
        return Difference(name, (), 0.0 if ok else float("inf"), 0.0 if ok else float("inf"), ok)
    a, b = _as_array(mine).astype(np.float64), _as_array(theirs).astype(np.float64)
    if a.shape != b.shape:
        return Difference(name, a.shape, float("inf"), float("inf"), False)
    diff = np.abs(a - b)
    max_abs = float(diff.max()) if diff.size else 0.0
    max_rel = float((diff / np.maximum(np.abs(b), 1e-300)).max()) if diff.size else 0.0
    return Difference(name, a.shape, max_abs, max_rel, bool(close(a, b, rtol, atol).all()))


@contextlib.contextmanager
def rebound(namespace: MutableMapping[str, Any], **names: Any) -> Iterator[None]:
    """Inside the block, these names of ``namespace`` (a notebook's ``globals()``) stand for
    other objects, and afterwards for what they stood for before, even if the block raised:
    ``with rebound(globals(), torch=miniautograd): train()`` runs ``train``, written for torch,
    on miniautograd without a second copy of it."""
    missing = sorted(set(names) - set(namespace))
    if missing:
        raise NameError(f"rebound: {', '.join(missing)} not defined in this namespace; define "
                       "the name first (rebound only replaces names for the block)")
    saved = {name: namespace[name] for name in names}
    namespace.update(names)
    try:
        yield
    finally:
        namespace.update(saved)


def _call(fn: Callable, module: Any, tensors: list) -> Any:
    try:
        takes_module = "torch" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        takes_module = False
    return fn(*tensors, torch=module) if takes_module else fn(*tensors)


def compare_with_torch(fn: Callable[..., Any], *inputs: Any, device: str = "cpu",
                       atol: float | None = None, rtol: float | None = None,
                       seed: int = 0) -> Comparison:
    """Run ``fn`` on both engines and compare outputs, gradients and graph shape.

    ``inputs`` are arrays, lists or tensors of either engine; floating ones become leaves
    that require grad. ``fn`` may take a keyword argument named ``torch``: it receives the
    engine's module (``miniautograd`` or ``torch``), so ``torch.relu(x)`` works in both runs.
    Tolerances default to ``TOLERANCES``: float64's when an input is float64, else float32's.
    """
    import torch  # lazy: torch is an optional dependency of miniautograd

    arrays = [np.array(_as_array(value) if not isinstance(value, (list, float, int)) else value)
              for value in inputs]
    minis, torches = [], []
    for array in arrays:
        floating = array.dtype.kind == "f"
        minis.append(tensor(array, device=device, requires_grad=floating))
        torches.append(torch.tensor(array, device=device, requires_grad=floating))
    out_mini, out_torch = _call(fn, miniautograd, minis), _call(fn, torch, torches)
    double = any(a.dtype == np.float64 for a in arrays)
    default_rtol, default_atol = tolerances(np.float64 if double else np.float32)
    atol = atol if atol is not None else default_atol
    rtol = rtol if rtol is not None else default_rtol
    report = Comparison(atol=atol, rtol=rtol)
    report.rows.append(_difference("output", out_mini, out_torch, atol, rtol))
    if getattr(out_torch, "requires_grad", False):
        weights = np.random.default_rng(seed).standard_normal(out_torch.shape)
        weights = weights.astype(_as_array(out_torch).dtype)
        out_mini.backward(tensor(weights, device=device))
        out_torch.backward(torch.tensor(weights, device=device))
        for index, (mine, theirs) in enumerate(zip(minis, torches, strict=True)):
            if theirs.requires_grad:
                report.rows.append(
                    _difference(f"grad input {index}", mine.grad, theirs.grad, atol, rtol))
    if isinstance(out_mini, Tensor) and isinstance(out_torch, torch.Tensor):
        report.graph = same_graph(out_mini, out_torch)
    return report
