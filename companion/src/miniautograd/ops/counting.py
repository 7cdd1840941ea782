"""Counting: ``histogram`` and ``histc``. No gradient passes through a count: ``histc``'s
result records nothing, and ``histogram``'s records a node that refuses backward, as torch's."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import _backend
from .._creation import linspace
from .._tensor import Tensor
from ..autograd.function import Function
from .table import op


class HistogramResult(NamedTuple):
    """What ``histogram`` returns: the count (or density) of each bin, and the bins' edges."""

    hist: Tensor
    bin_edges: Tensor

    def __repr__(self) -> str:
        return (f"miniautograd.return_types.histogram(\nhist={self.hist!r},"
                f"\nbin_edges={self.bin_edges!r})")


def _floating(a: Tensor, kernel: str) -> np.ndarray:
    data = _backend.to_numpy(a._data)
    if data.dtype.kind != "f":
        raise NotImplementedError(
            f'"{kernel}" not implemented for \'{a.dtype.scalar_name}\'; convert with .float()')
    return data.reshape(-1)


def _bin_of(values: np.ndarray, edges: np.ndarray, search: bool) -> np.ndarray:
    """Each value's bin, as torch's CPU kernel finds it: ``(x - left) * bins / (right - left)``
    in the values' dtype, truncated; with ``search``, moved to the neighbouring bin where the
    edges say so (linspace's edges and that quotient can disagree in the last bit). The last
    bin holds its right edge."""
    kind = values.dtype.type
    left, right, count = edges[0], edges[-1], len(edges)
    position = ((values - left) * kind(count - 1) / (right - left)).astype(np.int64)
    if search:  # upper_bound over edges[position - 1 : position + 2], minus one
        low = np.maximum(position - 1, 0)
        high = np.minimum(position + 2, count)
        above = np.zeros_like(position)
        for offset in range(3):
            k = low + offset
            within = k < high
            above += within & (edges[np.minimum(k, count - 1)] <= values)
        position = low + above - 1
    return np.where(position == count - 1, count - 2, position)


def _count(values: np.ndarray, edges: np.ndarray, weight: np.ndarray | None,
           search: bool) -> np.ndarray:
    """Per bin, the number (or the summed weight) of the values between the outer edges."""
    inside = (values >= edges[0]) & (values <= edges[-1])  # nan is outside
    hist = np.zeros(len(edges) - 1, dtype=values.dtype)
    added = np.ones(int(inside.sum()), values.dtype) if weight is None else weight[inside]
    np.add.at(hist, _bin_of(values[inside], edges, search), added)
    return hist


class _Histogram(Function):
    """histogram as one node: torch records its outputs with a node that refuses backward."""

    node_name = "torch::autograd::NotImplemented"

    @staticmethod
    def forward(ctx, a, weight, bins, bounds, density):
        values = _floating(a, "histogramdd")
        if bounds is None:
            bounds = (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)
        left, right = (float(b) for b in bounds)
        if not (np.isfinite(left) and np.isfinite(right)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{left}, {right}] is "
                               "not finite")
        if left > right:
            raise RuntimeError("torch.histogramdd: min should not exceed max, but got min "
                               f"{left} max {right} for dimension 0")
        if left == right:
            left, right = left - 0.5, right + 0.5
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                               "dimension 0")
        edges = _backend.to_numpy(linspace(left, right, bins + 1, dtype=a.dtype)._data)
        weights = None if weight is None else _backend.to_numpy(weight._data).reshape(-1)
        hist = _count(values, edges, weights, search=True)
        if density:  # the counts over their total, then over each bin's width
            hist = hist / values.dtype.type(hist.sum()) / np.diff(edges)
        device = a.device
        return (Tensor._make(_backend.to_device(hist, device)),
                Tensor._make(_backend.to_device(edges, device)))

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("derivative for aten::histogram is not implemented")


def histogram(self: Tensor, bins: int = 100, *, range: Any = None,  # noqa: A002 - torch's name
              weight: Tensor | None = None, density: bool = False) -> HistogramResult:
    """``bins`` equal bins between the smallest and largest value (or ``range``): the number
    of values in each (the summed ``weight``), or with ``density`` a density that integrates
    to 1. The last bin includes its right edge."""
    if not isinstance(bins, int):
        raise NotImplementedError("histogram: bins as a tensor of edges is not supported by "
                                  "miniautograd; pass the number of bins")
    hist, edges = _Histogram.apply(self, weight, bins, range, density)
    return HistogramResult(hist, edges)


def histc(self: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """The number of values in each of ``bins`` equal bins between ``min`` and ``max`` (when
    both are 0, the smallest and largest value); values outside are not counted."""
    values = _floating(self, "histogram_cpu")
    left, right = float(min), float(max)
    if left == right and values.size:
        left, right = float(values.min()), float(values.max())
    if left == right:
        left, right = left - 1, right + 1
    if not (np.isfinite(left) and np.isfinite(right)):
        raise RuntimeError(f"torch.histc: range of [{left}, {right}] is not finite")
    if left > right:
        raise RuntimeError("torch.histc: max must be larger than min")
    edges = _backend.to_numpy(linspace(left, right, bins + 1, dtype=self.dtype)._data)
    hist = _count(values, edges, None, search=False)
    return Tensor._make(_backend.to_device(hist, self.device))


TABLE = [
    op("histogram", histogram),
    op("histc", histc),
]
