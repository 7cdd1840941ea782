"""``nn.Flatten`` and ``nn.Unflatten`` against torch: printing, values, gradients, errors.
(``Tensor.flatten`` and ``unflatten`` themselves are rows of the op table, test_ops.py.)"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import miniautograd as mini


def _model(t: Any) -> Any:
    """An image-shaped batch through Flatten, Linear and back: what tutorials build."""
    t.manual_seed(0)
    return t.nn.Sequential(
        t.nn.Flatten(),
        t.nn.Linear(12, 6),
        t.nn.Unflatten(1, (2, 3)),
        t.nn.Tanh(),
        t.nn.Flatten(0, -1),
        t.nn.Unflatten(0, t.Size([4, 1, 3])),
        t.nn.Flatten(start_dim=1, end_dim=2),
        t.nn.Unflatten(-1, [3, -1]),
    )


def test_a_sequential_prints_like_torchs():
    assert repr(_model(mini)).replace("miniautograd", "torch") == repr(_model(torch))
    assert "Flatten(start_dim=1, end_dim=-1)" in repr(_model(mini))


def test_forward_and_backward_match_torch():
    def program(t: Any) -> list:
        model = _model(t)
        images = t.randn(2, 3, 2, 2)
        out = model(images)
        (out * t.arange(out.numel()).reshape(out.shape)).sum().backward()
        return [out.shape, out.grad_fn.name(), out.detach().numpy(),
                *[p.grad.numpy() for p in model.parameters()]]

    expected, got = program(torch), program(mini)
    assert tuple(got[0]) == tuple(expected[0]) == (4, 3, 1)
    assert got[1] == expected[1] == "ViewBackward0"
    for g, e in zip(got[2:], expected[2:], strict=True):
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", ["sizes do not multiply up", "no sizes", "dim out of range",
                                  "start after end", "size not a tuple",
                                  "size of floats"])
def test_errors_are_torchs(case):
    programs = {
        "sizes do not multiply up": lambda t: t.nn.Unflatten(1, (2, 2))(t.ones(2, 6)),
        "no sizes": lambda t: t.ones(2, 6).unflatten(1, ()),
        "dim out of range": lambda t: t.ones(2, 6).unflatten(2, (2, 3)),
        "start after end": lambda t: t.nn.Flatten(2, 1)(t.ones(2, 3, 4)),
        "size not a tuple": lambda t: t.nn.Unflatten(1, 6),
        "size of floats": lambda t: t.nn.Unflatten(1, (2.0, 3)),
    }
    errors = []
    for t in (torch, mini):
        with pytest.raises((RuntimeError, TypeError, IndexError)) as info:
            programs[case](t)
        errors.append(info)
    assert errors[1].type is errors[0].type
    assert str(errors[1].value) == str(errors[0].value)


def test_flatten_of_one_dimension_is_the_tensor_itself():
    for t in (torch, mini):
        x = t.ones(2, 3, requires_grad=True)
        assert x.flatten(1, 1) is x and t.nn.Flatten(1, 1)(x) is x
