"""Backward formulas that round as torch's CPU kernels round, so that a learner's check of a
hand-written gradient for exact equality (the backprop-ninja lecture's ``cmp``) prints torch's
True or False. tanh's backward, ``grad * (1 - y * y)``, rounds ``1 - y * y`` once (the kernel's
compiler fuses it into an FMA); sigmoid's, ``grad * (1 - y) * y``, rounds each step."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import miniautograd as mini
from miniautograd.ops.arithmetic import TanhBackward


def _arrays(dtype: str, size: int = 10_007) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return (rng.uniform(-1, 1, size).astype(dtype), rng.standard_normal(size).astype(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tanh_backward_is_torchs_bit_for_bit(dtype):
    y, g = _arrays(dtype)
    theirs = torch.ops.aten.tanh_backward(torch.tensor(g), torch.tensor(y)).numpy()
    mine = TanhBackward.apply(mini.tensor(g), mini.tensor(y)).numpy()
    assert np.count_nonzero(mine != theirs) == 0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_backward_is_torchs_bit_for_bit(dtype):
    x, g = _arrays(dtype)
    x = mini.tensor(x * 4, requires_grad=True)
    y = x.sigmoid()
    y.backward(mini.tensor(g))
    theirs = torch.ops.aten.sigmoid_backward(torch.tensor(g), torch.from_numpy(y.detach().numpy()))
    assert np.count_nonzero(x.grad.numpy() != theirs.numpy()) == 0


def test_a_hand_written_tanh_gradient_is_exact_where_torchs_is():
    """The lecture's row for hpreact: (1 - h**2) * dh by hand against autograd's."""

    def exact(t):
        t.manual_seed(0)
        pre = t.randn(32, 64, requires_grad=True)
        h = t.tanh(pre)
        dh = t.randn(32, 64)
        h.backward(dh)
        by_hand = (1.0 - h.detach() ** 2) * dh
        return t.all(by_hand == pre.grad).item()

    assert exact(mini) is exact(torch) is False
