"""``Tensor.register_post_accumulate_grad_hook`` against torch: when it runs, what it sees,
its errors, and the optimizer-step-in-backward program it exists for."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
from helpers import same_on_both

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

    with warnings.catch_warnings():  # torch warns of the parameter-gradient cycle, once per
        warnings.simplefilter("ignore", UserWarning)  # process, so other tests may have seen it
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


def test_the_docstring_example_a_hook_that_returns_its_leaf():
    """torch's docstring of register_post_accumulate_grad_hook updates in place with
    ``p.add_(p.grad, alpha=-lr)``, which returns ``p``: torch takes the leaf itself as None."""

    def program(t: Any) -> tuple:
        lr = 0.01
        v = t.tensor([0.0, 0.0, 0.0], requires_grad=True)

        def hook(p: Any) -> Any:
            with t.no_grad():
                return p.add_(p.grad, alpha=-lr)

        v.register_post_accumulate_grad_hook(hook)
        v.backward(t.tensor([1.0, 2.0, 3.0]))
        return v, v.grad

    same_on_both(program)


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


# ---- autograd.graph.saved_tensors_hooks --------------------------------------------------------


def _with_counting_hooks(t: Any, program: Any) -> tuple:
    """Run ``program`` with pack = a copy (counted) and unpack = twice the copy (counted)."""
    calls = {"pack": 0, "unpack": 0}

    def pack(tensor: Any) -> Any:
        calls["pack"] += 1
        return tensor.detach().clone()

    def unpack(packed: Any) -> Any:
        calls["unpack"] += 1
        return packed * 2

    x = t.tensor([0.3, -1.2, 0.8], dtype=t.float64, requires_grad=True)
    w = t.tensor([1.5, 0.5, -0.7], dtype=t.float64, requires_grad=True)
    with t.autograd.graph.saved_tensors_hooks(pack, unpack):
        loss = program(t, x, w)
    packed = dict(calls)
    loss.backward()
    return packed, calls, loss.item(), x.grad.tolist(), w.grad.tolist()


def _cube_function(t: Any) -> Any:
    class Cube(t.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 3 * x**2 * grad

    return Cube


SAVING_PROGRAMS = {
    "mul of two leaves, exp of a result": lambda t, x, w: ((x * w).exp() * x).sum(),
    "sin, tanh, pow": lambda t, x, w: (x.sin() + w.tanh() ** 2).sum(),
    "a custom Function": lambda t, x, w: (_cube_function(t).apply(x) * w).sum(),
}


@pytest.mark.parametrize("name", sorted(SAVING_PROGRAMS))
def test_saved_tensors_hooks_pack_and_unpack_as_in_torch(name):
    """pack runs when a tensor is saved, unpack when backward reads it: the same counts as
    torch, and the gradients torch gets from the doubled saved values."""
    program = SAVING_PROGRAMS[name]
    expected = _with_counting_hooks(torch, program)
    got = _with_counting_hooks(mini, program)
    assert got[:2] == expected[:2]
    assert got[0]["pack"] > 0 and got[1]["unpack"] >= got[0]["pack"]
    np.testing.assert_allclose(got[2], expected[2], rtol=1e-12)
    np.testing.assert_allclose(got[3:], expected[3:], rtol=1e-12)
    plain_x = mini.tensor([0.3, -1.2, 0.8], dtype=mini.float64, requires_grad=True)
    plain_w = mini.tensor([1.5, 0.5, -0.7], dtype=mini.float64, requires_grad=True)
    program(mini, plain_x, plain_w).backward()
    assert not np.allclose(plain_x.grad.tolist(), got[3])  # the unpacked values were used


def _sinh_saving_its_output(t: Any) -> Any:
    class Sinh(t.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            result = (x.exp() - (-x).exp()) / 2
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (result,) = ctx.saved_tensors
            return grad * (result * result + 1).sqrt()  # cosh, from the saved output

    return Sinh


def _function_saving_a_temporary(t: Any) -> Any:
    class Scale(t.autograd.Function):
        """Saves a tensor freed once packed: its id is free for the output made next."""

        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x * 2)
            return x * 3

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (twice,) = ctx.saved_tensors
            return grad * twice

    return Scale


# Second derivatives through tensors packed by a detaching pack hook: the unpacked tensor must
# get the saved tensor's place in the graph back (a leaf, an op's result, a Function's output).
SECOND_ORDER_PROGRAMS = {
    "exp saves its result": lambda t, x: x.exp().sum(),
    "x * x saves the leaf": lambda t, x: (x * x).sum(),
    "sin of a non-leaf saves it": lambda t, x: (x * 3).sin().sum(),
    "a Function saves its output": lambda t, x: _sinh_saving_its_output(t).apply(x).sum(),
    "a Function saves a temporary": lambda t, x: _function_saving_a_temporary(t).apply(x).sum(),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER_PROGRAMS))
def test_double_backward_through_detaching_pack_hooks_as_in_torch(name):
    def second_derivative(t: Any) -> list:
        x = t.tensor([0.5, -1.0, 2.0], dtype=t.float64, requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(lambda s: s.detach().clone(), lambda p: p):
            y = SECOND_ORDER_PROGRAMS[name](t, x)
        (g,) = t.autograd.grad(y, x, create_graph=True)
        (g.sum() + (x * x).sum()).backward()
        return x.grad.tolist()

    np.testing.assert_allclose(second_derivative(mini), second_derivative(torch), rtol=1e-12)


def test_the_hooks_of_the_innermost_context_at_save_time_are_used():
    def program(t: Any) -> tuple:
        log = []
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        outer = t.autograd.graph.saved_tensors_hooks(
            lambda s: log.append("pack outer") or s, lambda p: log.append("unpack outer") or p)
        inner = t.autograd.graph.saved_tensors_hooks(
            lambda s: log.append("pack inner") or s, lambda p: log.append("unpack inner") or p)
        with outer:
            a = x.sin()
            with inner:
                b = a.cos()
        c = b.exp()  # saved outside any context: no hook
        with t.no_grad(), outer:
            x.sin()  # nothing is recorded, so nothing is saved
        c.sum().backward()
        return log, x.grad.tolist()

    assert program(mini) == program(torch)


def test_a_packed_tensor_is_not_checked_for_in_place_changes():
    """As in torch: with hooks, backward uses whatever unpack returns, the changed value."""
    def program(t: Any) -> list:
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(lambda s: s, lambda p: p):
            a = x * 1
            y = a.sin()
        a.add_(1)
        y.sum().backward()
        return x.grad.tolist()

    assert program(mini) == program(torch)


def test_an_unpack_hook_must_return_a_tensor():
    errors = []
    for t in (torch, mini):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(lambda s: s, lambda p: 1):
            y = x.exp()
        with pytest.raises(TypeError) as info:
            y.sum().backward()
        errors.append(str(info.value))
    assert errors[1] == errors[0]


def _hooks_fired_by_grad(t: Any, inputs: str) -> tuple[list[str], list]:
    """The hooks that fire, in order, when autograd.grad asks for the named inputs."""
    log: list[str] = []
    x = t.tensor([1.0, 4.0], requires_grad=True)
    z = x * 2
    z.register_hook(lambda g: log.append("z's hook"))
    r = z.sqrt()
    r.register_hook(lambda g: log.append("r's hook"))
    r.grad_fn.register_prehook(lambda g: log.append("Sqrt's pre-hook"))
    r.grad_fn.register_hook(lambda grad_inputs, grad_outputs: log.append("Sqrt's hook"))
    named = {"x": x, "z": z, "r": r}
    grads = t.autograd.grad((r**3).sum(), [named[name] for name in inputs])
    return log, [g.tolist() for g in grads]


@pytest.mark.parametrize("inputs", ["r", "rz", "zx", "x"])
def test_autograd_grad_runs_no_node_below_the_inputs_it_asks_for(inputs):
    """An input's own node runs only when another input lies below it: asking for r alone,
    only r's tensor hook fires, not the hooks of r's node (Sqrt) or of z below it."""
    assert _hooks_fired_by_grad(mini, inputs) == _hooks_fired_by_grad(torch, inputs)


def test_a_tensor_hook_sees_none_where_no_gradient_arrived():
    """A Function whose backward returns None: the input's hooks still run, with None, and may
    not replace it with a tensor; retain_grad under create_graph keeps a differentiable copy."""

    def program(t):
        seen = []

        class Stop(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, grad):
                return None

        a = t.ones(2, requires_grad=True)
        b = a.exp()
        b.register_hook(lambda g: seen.append(g))
        a.register_hook(lambda g: seen.append(g))
        Stop.apply(b).sum().backward()
        x = t.ones(2, requires_grad=True)
        y = x * 2
        y.retain_grad()
        (y * y).sum().backward(create_graph=True)
        return seen, a.grad, y.grad.grad_fn.name(), y.grad

    same_on_both(program)
