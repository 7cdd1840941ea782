"""``autograd.functional`` against torch: values, and the nesting of tuples and tensors.

Each program takes the module ``t`` (torch or miniautograd) and runs unchanged on both.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import miniautograd as mini

X = np.random.default_rng(0).uniform(-1.5, 1.5, (3,))
Y = np.random.default_rng(1).uniform(-1.5, 1.5, (2, 3))
V3 = np.random.default_rng(2).uniform(-1, 1, (3,))
V23 = np.random.default_rng(3).uniform(-1, 1, (2, 3))


def _leaves(t: Any) -> tuple:
    x = t.tensor(X, requires_grad=True)
    y = t.tensor(Y, requires_grad=True)
    return x, y


def _cube(t: Any, x: Any) -> Any:
    return x**3 * x.sin()


def _two_in_two_out(t: Any, x: Any, y: Any) -> tuple:
    """Several inputs and outputs; the second output ignores x's middle element."""
    return (x * y).tanh(), (y.exp() @ x).sum() + x[0] * x[2]


def _scalar(t: Any, x: Any, y: Any) -> Any:
    return (x.exp() * y).sum() + (x**2).sum() * y[1, 2]


def _structure(value: Any) -> Any:
    """The nesting of tuples and lists, with each tensor replaced by (shape, dtype,
    requires_grad)."""
    if isinstance(value, (tuple, list)):
        return type(value)(_structure(v) for v in value)
    return (tuple(value.shape), str(value.dtype).split(".")[-1], value.requires_grad)


def _arrays(value: Any) -> list:
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _arrays(v)]
    return [value.detach().numpy()]


def _same(program: Callable[[Any], Any]) -> None:
    """Run ``program`` on both modules: the same nesting, shapes, flags and values."""
    expected, got = program(torch), program(mini)
    assert _structure(got) == _structure(expected)
    for g, e in zip(_arrays(got), _arrays(expected), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)


def _f(t: Any) -> Any:
    return t.autograd.functional


@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_of_one_input_and_one_output(create_graph, vectorize):
    _same(lambda t: _f(t).jacobian(lambda x: _cube(t, x), _leaves(t)[0],
                                   create_graph=create_graph, vectorize=vectorize))


@pytest.mark.parametrize("as_tuple", [False, True])
def test_jacobian_of_several_inputs_and_outputs_nests_like_torch(as_tuple):
    """J[i][j] = d output_i / d input_j; a single input passed as (x,) keeps its tuple level."""
    def program(t: Any) -> Any:
        x, y = _leaves(t)
        f = _f(t)
        both = f.jacobian(lambda a, b: _two_in_two_out(t, a, b), (x, y))
        one_in = f.jacobian(lambda a: _two_in_two_out(t, a, y), (x,) if as_tuple else x)
        one_out = f.jacobian(lambda a, b: _two_in_two_out(t, a, b)[1], (x, y))
        return both, one_in, one_out

    _same(program)


def test_jacobian_forward_mode_gives_reverse_modes_values():
    """strategy="forward-mode" (torch requires vectorize=True with it)."""
    def program(t: Any) -> Any:
        x, y = _leaves(t)
        return _f(t).jacobian(lambda a, b: _two_in_two_out(t, a, b), (x, y),
                              vectorize=True, strategy="forward-mode")

    _same(program)
    _same(lambda t: _f(t).jacobian(lambda a: (_cube(t, a), a.sum()), _leaves(t)[0],
                                   vectorize=True, strategy="forward-mode"))
    reverse = mini.autograd.functional.jacobian(
        lambda a, b: _two_in_two_out(mini, a, b), _leaves(mini))
    forward = mini.autograd.functional.jacobian(
        lambda a, b: _two_in_two_out(mini, a, b), _leaves(mini), vectorize=True,
        strategy="forward-mode")
    for r, f in zip(_arrays(reverse), _arrays(forward), strict=True):
        np.testing.assert_allclose(f, r, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("create_graph", [False, True])
def test_hessian_of_one_and_of_several_inputs(create_graph):
    def program(t: Any) -> Any:
        x, y = _leaves(t)
        f = _f(t)
        return (f.hessian(lambda a: (_cube(t, a)).sum(), x, create_graph=create_graph),
                f.hessian(lambda a, b: _scalar(t, a, b), (x, y), create_graph=create_graph))

    _same(program)


@pytest.mark.parametrize("name", ["vjp", "jvp"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp_and_jvp_with_several_inputs_and_outputs(name, create_graph):
    def program(t: Any) -> Any:
        x, y = _leaves(t)
        product = getattr(_f(t), name)
        func = lambda a, b: _two_in_two_out(t, a, b)  # noqa: E731 - one line, both engines
        if name == "vjp":
            v = (t.tensor(V23), t.tensor(0.7, dtype=t.float64))
        else:
            v = (t.tensor(V3), t.tensor(V23))
        single = product(lambda a: _cube(t, a), x, t.tensor(V3), create_graph=create_graph)
        return product(func, (x, y), v, create_graph=create_graph), single

    _same(program)


@pytest.mark.parametrize("name", ["vhp", "hvp"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_vhp_and_hvp(name, create_graph):
    def program(t: Any) -> Any:
        x, y = _leaves(t)
        product = getattr(_f(t), name)
        pair = product(lambda a, b: _scalar(t, a, b), (x, y), (t.tensor(V3), t.tensor(V23)),
                       create_graph=create_graph)
        single = product(lambda a: _cube(t, a).sum(), x, t.tensor(V3),
                         create_graph=create_graph)
        return pair, single

    _same(program)


def test_v_may_be_left_out_for_a_single_element():
    def program(t: Any) -> Any:
        x = t.tensor(0.3, dtype=t.float64)
        f = _f(t)
        cube = lambda a: a**3  # noqa: E731 - one line, both engines
        return f.vjp(cube, x), f.jvp(cube, x), f.vhp(cube, x), f.hvp(cube, x)

    _same(program)


def test_create_graph_results_can_be_differentiated_again():
    """A Hessian (and a jvp) with create_graph=True are functions of the inputs: their own
    backward reaches the inputs' .grad, as in torch."""
    def program(t: Any) -> Any:
        x, y = _leaves(t)
        f = _f(t)
        hxx, hxy = f.hessian(lambda a, b: _scalar(t, a, b), (x, y), create_graph=True)[0]
        (hxx.sum() + (hxy**2).sum()).backward()
        _, tangent = f.jvp(lambda a: _cube(t, a), x, t.tensor(V3), create_graph=True)
        (tangent**2).sum().backward()
        return x.grad, y.grad

    _same(program)


def test_without_create_graph_nothing_reaches_the_inputs():
    def program(t: Any) -> Any:
        x = _leaves(t)[0]
        jac = _f(t).jacobian(lambda a: _cube(t, a), x)
        return jac, jac.grad_fn is None, x.grad is None

    expected, got = program(torch), program(mini)
    assert got[1:] == expected[1:] == (True, True)


STRICT_CASES = {
    "jacobian of an input the output ignores": lambda t, f, x, y: f.jacobian(
        lambda a, b: a * 2, (x, y), strict=True),
    "jacobian of an output that needs no grad": lambda t, f, x, y: f.jacobian(
        lambda a: t.ones(3, dtype=t.float64), x, strict=True),
    "hessian of a linear function": lambda t, f, x, y: f.hessian(
        lambda a: (a * 2).sum(), x, strict=True),
    "vjp of an ignored input": lambda t, f, x, y: f.vjp(
        lambda a, b: (a * 2).sum(), (x, y), strict=True),
    "jvp of an ignored input": lambda t, f, x, y: f.jvp(
        lambda a, b: a.exp(), (x, y), (x, y), strict=True),
    "vhp of a linear function": lambda t, f, x, y: f.vhp(
        lambda a: (a * 2).sum(), x, x, strict=True),
    "hvp of a linear function": lambda t, f, x, y: f.hvp(
        lambda a: (a * 2).sum(), x, x, strict=True),
    "strict with vectorize": lambda t, f, x, y: f.jacobian(
        lambda a: a.exp(), x, strict=True, vectorize=True),
    "forward mode without vectorize": lambda t, f, x, y: f.jacobian(
        lambda a: a.exp(), x, strategy="forward-mode"),
    "v of the wrong size": lambda t, f, x, y: f.vjp(lambda a: a.exp(), x, y),
    "v of the wrong length": lambda t, f, x, y: f.jvp(
        lambda a, b: a.exp(), (x, y), (x,)),
    "v left out for many elements": lambda t, f, x, y: f.vjp(lambda a: a.exp(), x),
    "hessian of a vector": lambda t, f, x, y: f.hessian(lambda a: a.exp(), x),
    "an input that is no tensor": lambda t, f, x, y: f.jacobian(lambda a: a, 3.0),
}


@pytest.mark.parametrize("case", sorted(STRICT_CASES))
def test_errors_are_torchs(case):
    """Same exception class, same message (torch's messages name the input at fault)."""
    program = STRICT_CASES[case]
    errors = []
    for t in (torch, mini):
        x, y = _leaves(t)
        with pytest.raises((RuntimeError, TypeError, NotImplementedError)) as info:
            program(t, _f(t), x, y)
        errors.append(info)
    expected, got = errors
    assert got.type is expected.type
    message = str(got.value).replace("miniautograd", "torch")
    assert message == str(expected.value)


def test_the_module_is_reachable_as_in_torch():
    """``import torch.autograd.functional as F`` and attribute access both work."""
    functional = importlib.import_module("miniautograd.autograd.functional")
    assert mini.autograd.functional is functional
    assert functional.jacobian is mini.autograd.functional.jacobian
    for name in ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"):
        assert callable(getattr(functional, name)) and hasattr(torch.autograd.functional, name)
