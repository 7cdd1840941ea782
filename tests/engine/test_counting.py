"""``histogram`` and ``histc`` give torch's counts, edges and densities bit for bit: makemore's
activation statistics plot ``torch.histogram(t, density=True)`` of a layer's output. A value
next to an edge goes in the bin torch puts it in (the edges come from linspace, and torch's
kernel then moves a value across an edge where the two disagree)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import raises_like_torch
from hypothesis import given
from hypothesis import strategies as st

import miniautograd as mini

DTYPES = ["float32", "float64"]


def _same(theirs, mine) -> None:
    for t, m in zip(theirs, mine, strict=True):
        t_np, m_np = t.detach().numpy(), m.detach().numpy()
        assert t_np.dtype == m_np.dtype and t_np.shape == m_np.shape
        assert np.array_equal(t_np, m_np, equal_nan=True), f"{t_np} != {m_np}"


def _both(values: np.ndarray, dtype: str, call) -> None:
    theirs = call(torch, torch.tensor(values, dtype=getattr(torch, dtype)))
    mine = call(mini, mini.tensor(values, dtype=getattr(mini, dtype)))
    _same(theirs if isinstance(theirs, tuple) else (theirs,),
          mine if isinstance(mine, tuple) else (mine,))


@pytest.mark.parametrize("dtype", DTYPES)
@given(values=st.lists(st.floats(-1e3, 1e3, allow_nan=False, width=32), min_size=1, max_size=60),
       bins=st.integers(1, 40), density=st.booleans())
def test_histogram_is_torchs(dtype, values, bins, density):
    _both(np.array(values), dtype,
          lambda t, x: tuple(t.histogram(x, bins=bins, density=density)))


@pytest.mark.parametrize("dtype", DTYPES)
@given(values=st.lists(st.floats(-50, 50, allow_nan=False, width=32), min_size=1, max_size=60),
       bins=st.integers(1, 40), low=st.floats(-60, 0, width=32), width=st.floats(0, 60, width=32))
def test_histc_and_a_range_are_torchs(dtype, values, bins, low, width):
    high = float(np.float32(low + width))
    _both(np.array(values), dtype, lambda t, x: t.histc(x, bins=bins, min=low, max=high))
    _both(np.array(values), dtype,
          lambda t, x: tuple(t.histogram(x, bins, range=(low, max(high, low)))))


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_layers_activations_as_makemore_plots_them(dtype):
    """tanh of 32 x 200 pre-activations, 100 bins: many values fall near an edge."""
    torch.manual_seed(0)
    values = torch.randn(32, 200, dtype=getattr(torch, dtype)).mul(2).tanh().numpy()
    _both(values, dtype, lambda t, x: tuple(t.histogram(x, density=True)))
    _both(values, dtype, lambda t, x: tuple(x.histogram(bins=7, weight=x.abs())))
    _both(values, dtype, lambda t, x: t.histc(x, bins=50))


def test_constant_and_nan_inputs_and_the_node_that_refuses_backward():
    def program(t):
        x = t.tensor([2.0, 2.0, float("nan"), 2.0], requires_grad=True)
        hist, edges = t.histogram(x, bins=3, range=(0.0, 3.0))
        same = t.histogram(t.tensor([3.0, 3.0]), bins=2)
        return (hist, edges, hist.grad_fn.name(), edges.grad_fn is hist.grad_fn, same,
                t.histc(t.tensor([5.0, 5.0]), bins=4), repr(same))

    from helpers import same_on_both

    same_on_both(program)
    raises_like_torch(lambda t: t.histogram(t.tensor([1.0], requires_grad=True), 2)[0]
                      .sum().backward(), "derivative for aten::histogram is not implemented")
    raises_like_torch(lambda t: t.histogram(t.tensor([1, 2]), 2), "not implemented for 'Long'")
    raises_like_torch(lambda t: t.histogram(t.tensor([1.0]), 2, range=(1.0, 0.0)))
