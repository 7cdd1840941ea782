"""``Tensor.register_post_accumulate_grad_hook`` against torch: when it runs, what it sees,
its errors, and the optimizer-step-in-backward program it exists for."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import miniautograd as mini


def _events(t: Any) -> list:
    """What the hooks saw, in order, across backward(), backward(inputs=), autograd.grad and
    a removed handle."""
    x = t.tensor([1.0, -2.0, 0.5], dtype=t.float64, requires_grad=True)
    events: list = []
    x.register_hook(lambda g: events.append(("tensor hook", g.tolist())))
    handle = x.register_post_accumulate_grad_hook(
        lambda leaf: events.append(("post", leaf.grad.tolist())))
    (x**2).sum().backward()
    (x * 3).sum().backward()  # accumulates: the hook sees the sum
    events.append("inputs=")
    (x.exp()).sum().backward(inputs=[x])
    events.append("autograd.grad")  # no .grad is filled: no post-accumulate hook
    t.autograd.grad((x * 2).sum(), x)
    handle.remove()
    events.append("removed")
    (x * 5).sum().backward()
    return events


def test_the_hook_runs_after_accumulation_as_in_torch():
    expected, got = _events(torch), _events(mini)
    assert got == expected
    assert ("post", [5.0, -1.0, 4.0]) in got  # 2x + 3, accumulated


def test_the_hook_sees_the_leaf_itself_with_create_graph():
    def program(t: Any) -> list:
        x = t.tensor([0.5, 1.5], requires_grad=True)
        seen = []
        x.register_post_accumulate_grad_hook(
            lambda leaf: seen.append((leaf is x, leaf.grad.requires_grad, leaf.grad.tolist())))
        (x**3).sum().backward(create_graph=True)
        return seen

    with pytest.warns(UserWarning):  # torch warns of the parameter-gradient cycle
        expected = program(torch)
    assert program(mini) == expected


@pytest.mark.parametrize("case", ["non-leaf", "no grad", "returns a tensor", "returns a number"])
def test_errors_are_torchs(case):
    errors = []
    for t in (torch, mini):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises((RuntimeError, TypeError)) as info:
            if case == "non-leaf":
                (x * 2).register_post_accumulate_grad_hook(lambda leaf: None)
            elif case == "no grad":
                t.ones(2).register_post_accumulate_grad_hook(lambda leaf: None)
            else:
                returned = (lambda leaf: leaf * 2) if case == "returns a tensor" else (
                    lambda leaf: 5)
                x.register_post_accumulate_grad_hook(returned)
                (x * 3).sum().backward()
        errors.append(info)
    assert errors[1].type is errors[0].type
    assert str(errors[1].value) == str(errors[0].value)


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_an_optimizer_step_inside_backward(optimizer):
    """One optimizer per parameter, stepped by its hook as soon as its gradient is ready (the
    memory-saving pattern of torch's tutorial), gives torch's parameters after three steps."""
    def program(t: Any) -> list:
        t.manual_seed(0)
        model = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.Tanh(), t.nn.Linear(4, 1))
        inputs, targets = t.randn(8, 3), t.randn(8, 1)
        optimizers = {p: getattr(t.optim, optimizer)([p], lr=0.1) for p in model.parameters()}

        def step(parameter: Any) -> None:
            optimizers[parameter].step()
            optimizers[parameter].zero_grad()

        for parameter in model.parameters():
            parameter.register_post_accumulate_grad_hook(step)
        losses = []
        for _ in range(3):
            loss = ((model(inputs) - targets) ** 2).mean()
            loss.backward()
            losses.append(loss.item())
        return [losses, *[p.detach().numpy().copy() for p in model.parameters()]]

    expected, got = program(torch), program(mini)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5)
    for g, e in zip(got[1:], expected[1:], strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    assert not np.allclose(got[0][0], got[0][-1])  # the hooks did step the model
