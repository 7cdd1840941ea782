"""``arange`` and ``linspace`` give torch's values bit for bit, and the emulated FMA under them
rounds once. d2l's activation-function section plots ``torch.arange(-8.0, 8.0, 0.1)``: NumPy's
``arange`` differs from torch's in 157 of those 160 values, and at index 80 it gives -7.6e-6
where torch gives +4.4e-16, so ReLU's gradient there is 0 instead of torch's 1."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import example, given
from hypothesis import strategies as st

import miniautograd as mini
from miniautograd import _rounding

ARANGES = [
    (-8.0, 8.0, 0.1), (-1, 1, 1 / 3), (0, 1, 0.1), (0.5, 100.3, 0.7), (-3, 3, 0.01),
    (1.1, 3000.7, 0.123), (5, -5, -0.3), (0, 10), (2.5,), (0, 1e6, 37.1), (0, 0, 1),
    (-2.0, 2.0, 0.25), (1e-3, 1.0, 7e-4),
]
LINSPACES = [
    (0, 1, 100), (-8, 8, 161), (0.1, 7.3, 1000), (-3, 2.5, 37), (-1, 1, 7), (2, -5.5, 333),
    (0, 1, 1), (0, 1, 0), (3, 1, 2), (0, 10, 5), (-2.5, 7, 12), (-5, 5, 10_000),
]
DTYPES = ["float32", "float64"]


def _same_bits(theirs: torch.Tensor, mine: mini.Tensor) -> None:
    t, m = theirs.numpy(), mine.numpy()
    assert (str(theirs.dtype), t.shape) == (str(mine.dtype).replace("miniautograd", "torch"),
                                           m.shape)
    differ = np.flatnonzero(t != m) if t.shape == m.shape else []
    assert np.array_equal(t, m, equal_nan=True), (
        f"{np.count_nonzero(t != m)} of {t.size} values differ, first at {differ[:1]}")


@pytest.mark.parametrize("dtype", [None, *DTYPES])
@pytest.mark.parametrize("args", ARANGES, ids=str)
def test_arange_gives_torchs_bits(args, dtype):
    options = {} if dtype is None else {"dtype": dtype}
    _same_bits(torch.arange(*args, **{k: getattr(torch, v) for k, v in options.items()}),
               mini.arange(*args, **{k: getattr(mini, v) for k, v in options.items()}))


@pytest.mark.parametrize("dtype", [*DTYPES, "int64"])
@pytest.mark.parametrize("args", LINSPACES, ids=str)
def test_linspace_gives_torchs_bits(args, dtype):
    _same_bits(torch.linspace(*args, dtype=getattr(torch, dtype)),
               mini.linspace(*args, dtype=getattr(mini, dtype)))


def test_the_relu_gradient_at_the_middle_of_d2ls_range_is_torchs():
    def gradient(engine):
        x = engine.arange(-8.0, 8.0, 0.1, requires_grad=True)
        engine.relu(x).sum().backward()
        return x[80].item(), x.grad[80].item()
    assert gradient(mini) == gradient(torch) == (pytest.approx(4.4e-16, rel=0.01), 1.0)


@pytest.mark.parametrize("args", [(0, 5, 0), (5, 0, 1), (0, 5, -1), (0, float("inf"), 1)])
def test_arange_refuses_what_torch_refuses(args):
    with pytest.raises(RuntimeError) as theirs:
        torch.arange(*args)
    with pytest.raises(RuntimeError, match=str(theirs.value)):
        mini.arange(*args)


def test_linspace_refuses_negative_steps():
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        mini.linspace(0, 1, -1)


FINITE = st.floats(min_value=-2.0**61, max_value=2.0**61, allow_nan=False, allow_subnormal=False)


# The rounding to odd decides these two: without it the product's tail is lost in a tie.
@example(1 + 2.0**-52, 128 - 2.0**-46, 2.0**60)
@given(FINITE, FINITE, FINITE)
def test_fma_rounds_the_exact_value_once(a, b, c):
    assert _rounding.fma(a, b, c) == float(Fraction(a) * Fraction(b) + Fraction(c))


def _nearest_float32(exact: Fraction) -> np.float32:
    near = np.float32(float(exact))  # within one float32 step of the correctly rounded value
    candidates = [near, np.nextafter(near, np.float32(np.inf)),
                  np.nextafter(near, np.float32(-np.inf))]
    return min(candidates, key=lambda v: (abs(Fraction(float(v)) - exact),
                                          int(np.float32(v).view(np.int32)) & 1))


@example(1 + 2.0**-12, 1 + 2.0**-12, 2.0**-60)
@given(FINITE, FINITE, FINITE)
def test_fma32_rounds_the_exact_value_once_to_float32(a, b, c):
    a, b, c = np.float32(a), np.float32(b), np.float32(c)
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    assert _rounding.fma32(a, b, c) == _nearest_float32(exact)
