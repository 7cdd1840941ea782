"""``nn.init`` against torch: after the same seed, the same numbers bit for bit; torch's
gains, fans, defaults and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import miniautograd as mini

# Shapes on both sides of 16 elements: torch's normal_ draws differently below and above.
SHAPES = [(3, 4), (7, 5), (4, 3, 2, 2), (64, 33)]
CALLS = {
    "uniform_": lambda init, w: init.uniform_(w),
    "uniform_ -2, 3": lambda init, w: init.uniform_(w, -2.0, 3.0),
    "normal_": lambda init, w: init.normal_(w),
    "normal_ 1, 0.1": lambda init, w: init.normal_(w, mean=1.0, std=0.1),
    "zeros_": lambda init, w: init.zeros_(w),
    "ones_": lambda init, w: init.ones_(w),
    "constant_": lambda init, w: init.constant_(w, 0.3),
    "xavier_uniform_": lambda init, w: init.xavier_uniform_(w),
    "xavier_uniform_ tanh gain": lambda init, w: init.xavier_uniform_(
        w, gain=init.calculate_gain("tanh")),
    "xavier_normal_": lambda init, w: init.xavier_normal_(w),
    "xavier_normal_ gain 2": lambda init, w: init.xavier_normal_(w, gain=2.0),
    "kaiming_uniform_": lambda init, w: init.kaiming_uniform_(w),
    "kaiming_uniform_ relu fan_out": lambda init, w: init.kaiming_uniform_(
        w, mode="fan_out", nonlinearity="relu"),
    "kaiming_uniform_ a=sqrt(5)": lambda init, w: init.kaiming_uniform_(w, a=5**0.5),
    "kaiming_normal_": lambda init, w: init.kaiming_normal_(w),
    "kaiming_normal_ relu": lambda init, w: init.kaiming_normal_(w, nonlinearity="relu"),
    "kaiming_normal_ leaky 0.2 fan_out": lambda init, w: init.kaiming_normal_(
        w, a=0.2, mode="fan_out"),
}


def _filled(t: Any, name: str, shape: tuple, dtype: str) -> tuple:
    t.manual_seed(7)
    weight = t.nn.Parameter(t.empty(shape, dtype=getattr(t, dtype)))
    result = CALLS[name](t.nn.init, weight)
    after = t.rand(3)  # the generator moved on by as many numbers as torch's
    return (result is weight, weight.grad_fn is None, weight.requires_grad,
            weight.detach().numpy().copy(), after.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_bit_for_bit_after_the_same_seed(name, shape, dtype):
    expected, got = _filled(torch, name, shape, dtype), _filled(mini, name, shape, dtype)
    assert got[:3] == expected[:3] == (True, True, True)
    np.testing.assert_array_equal(got[3], expected[3])
    np.testing.assert_array_equal(got[4], expected[4])
    assert got[3].dtype == expected[3].dtype


def test_a_generator_argument_is_used():
    weights = []
    for t in (torch, mini):
        generator = t.Generator().manual_seed(3) if t is torch else mini._random.Generator(3)
        weights.append(t.nn.init.kaiming_uniform_(t.empty(5, 4), generator=generator).numpy())
    np.testing.assert_array_equal(weights[1], weights[0])


def test_linear_still_starts_where_torchs_does():
    torch.manual_seed(11)
    mini.manual_seed(11)
    expected, got = torch.nn.Linear(6, 3), mini.nn.Linear(6, 3)
    np.testing.assert_array_equal(got.weight.detach().numpy(), expected.weight.detach().numpy())
    np.testing.assert_array_equal(got.bias.detach().numpy(), expected.bias.detach().numpy())


@pytest.mark.parametrize("nonlinearity, param", [
    ("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
    ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 1), ("selu", None)])
def test_calculate_gain(nonlinearity, param):
    expected = torch.nn.init.calculate_gain(nonlinearity, param)
    got = mini.nn.init.calculate_gain(nonlinearity, param)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5)], ids=str)
def test_fan_in_and_fan_out(shape):
    assert (mini.nn.init._calculate_fan_in_and_fan_out(mini.empty(shape))
            == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape)))


ERRORS = {
    "fans of a vector": lambda t: t.nn.init.xavier_uniform_(t.empty(5)),
    "unknown mode": lambda t: t.nn.init.kaiming_normal_(t.empty(3, 2), mode="fan_avg"),
    "unknown nonlinearity": lambda t: t.nn.init.calculate_gain("gelu"),
    "slope not a number": lambda t: t.nn.init.calculate_gain("leaky_relu", True),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_are_torchs(case):
    messages = []
    for t in (torch, mini):
        with pytest.raises(ValueError) as info:
            ERRORS[case](t)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_a_tensor_without_elements_is_left_alone_with_torchs_warning():
    for t in (torch, mini):
        empty = t.empty(0, 3)
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            assert t.nn.init.kaiming_uniform_(empty) is empty
