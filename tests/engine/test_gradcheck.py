"""``gradcheck``/``gradgradcheck``: every differentiable row of the op table passes both (float64,
finite differences against backward), and both catch a deliberately wrong backward as torch's do."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
import torch
from helpers import make_arrays, make_input, same_on_both
from test_ops import OPS

import miniautograd as mini

# Rows that sit on a kink or a tie on purpose (finite differences are meaningless there), that
# round through float32, or that differ from their own finite differences by design (detach).
# torch's gradcheck fails on them too.
NOT_CHECKABLE = {
    "relu_at_zero", "abs_at_zero", "clamp_at_bounds", "max_ties", "min_ties_3", "maximum_ties",
    "minimum_ties", "max_dim_ties", "min_dim_ties", "sqrt_at_zero", "pow_tensor_base_zero",
    "double", "to_float32", "detach", "pow_tensor_zero_exponent_at_zero", "rpow_zero_base",
    "pow_tensor_zero_base", "std_of_constant", "std_dim_of_constant_row", "var_of_one_element",
    "pow_tensor_zero_exponent_at_zero_2nd", "rpow_zero_base_2nd", "pow_tensor_zero_base_2nd",
    "std_of_constant_2nd", "var_of_one_element_2nd", "round_half_even", "logsumexp_minus_inf",
    "norm_inf_ties", "norm_of_zeros", "norm_3_of_zeros", "sort_ties_stable",
    "sort_ties_ascending", "sort_nan",
    # Outputs that depend on an input with no gradient, by definition: the padding row of an
    # embedding, and the running statistics batch norm updates outside autograd.
    "F_embedding_padding", "F_batch_norm_running_stats",
}


def _inputs(t, values):
    """The row's inputs for module ``t``, in float64 (finite differences need it)."""
    arrays = make_arrays(values, np.dtype(np.float64), np.random.default_rng(0))
    return [make_input(t, array, True, "cpu") for array in arrays]


def _differentiable_rows():
    """Rows with a differentiable output, as torch decides (a miniautograd bug must fail the
    test, not hide the row)."""
    for row in OPS:
        inputs, fn, options = row.values
        if row.id in NOT_CHECKABLE or "rtol" in options:  # "rtol": computes in float32 inside
            continue
        made = _inputs(torch, inputs)
        if not any(isinstance(v, torch.Tensor) and v.requires_grad for v in made):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(torch, *made)
        outputs = out if isinstance(out, tuple) else (out,)
        if any(isinstance(o, torch.Tensor) and o.requires_grad for o in outputs):
            yield pytest.param(inputs, fn, id=row.id)


ROWS = list(_differentiable_rows())


@pytest.mark.parametrize(("inputs", "fn"), ROWS)
def test_gradcheck(inputs, fn):
    assert mini.autograd.gradcheck(lambda *xs: fn(mini, *xs), _inputs(mini, inputs), eps=1e-6,
                                   atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize(("inputs", "fn"), ROWS)
def test_gradgradcheck(inputs, fn):
    assert mini.autograd.gradgradcheck(lambda *xs: fn(mini, *xs), _inputs(mini, inputs), eps=1e-6,
                                       atol=1e-5, rtol=1e-3)


def gradcheck_error(t) -> type:
    """``torch.autograd.gradcheck`` is the function; the error lives in the module of that name."""
    return importlib.import_module(f"{t.__name__}.autograd.gradcheck").GradcheckError


def wrong(t, second_order_only: bool):
    """``x ** 2`` with a broken backward: wrong values, or right values that are not
    differentiable correctly (``x.detach()`` hides x from double backward)."""

    class WrongSquare(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x.detach() if second_order_only else grad * 3 * x

    return WrongSquare


@pytest.mark.parametrize("t", [torch, mini], ids=["torch", "miniautograd"])
def test_gradcheck_catches_a_wrong_backward(t):
    x = t.tensor([0.5, -1.5, 2.0], dtype=t.float64, requires_grad=True)
    square = wrong(t, second_order_only=False)
    with pytest.raises(gradcheck_error(t), match="Jacobian mismatch") as caught:
        t.autograd.gradcheck(square.apply, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert isinstance(caught.value, RuntimeError)
    assert t.autograd.gradcheck(square.apply, (x,), raise_exception=False) is False


@pytest.mark.parametrize("t", [torch, mini], ids=["torch", "miniautograd"])
def test_gradgradcheck_catches_a_wrong_double_backward(t):
    x = t.tensor([0.5, -1.5, 2.0], dtype=t.float64, requires_grad=True)
    square = wrong(t, second_order_only=True)
    assert t.autograd.gradcheck(square.apply, (x,))
    with pytest.raises(gradcheck_error(t)):
        t.autograd.gradgradcheck(square.apply, (x,))
    assert t.autograd.gradgradcheck(square.apply, (x,), raise_exception=False) is False


@pytest.mark.parametrize("t", [torch, mini], ids=["torch", "miniautograd"])
def test_gradcheck_warns_for_float32(t):
    x = t.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="double precision"):
        t.autograd.gradcheck(lambda v: v * 2, (x,), eps=1e-3, atol=1e-2, rtol=1e-2)


def test_gradcheck_several_inputs_and_outputs():
    rng = np.random.default_rng(7)
    x = mini.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    w = mini.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    c = mini.tensor(rng.standard_normal(2))  # a constant among the inputs

    def f(x, w, c, k):
        return (x @ w + c).tanh() * k, x.exp().sum(1)

    assert mini.autograd.gradcheck(f, (x, w, c, 2.0))
    assert mini.autograd.gradgradcheck(f, (x, w, c, 2.0))


def test_random_numbers_after_gradgradcheck_are_torchs():
    """gradgradcheck draws its grad_outputs from the default generator (make_tensor's uniform
    in [-1, 1)), so a program's later draws depend on it: the double-backward tutorial's."""

    def program(t):
        t.manual_seed(0)
        x = t.randn(3, 2, dtype=t.double, requires_grad=True)
        w = t.randn(2, 4, dtype=t.double, requires_grad=True)
        passed = t.autograd.gradgradcheck(lambda a, b: (a @ b).tanh(), (x, w))
        after = t.randn(5, dtype=t.double)
        passed_single = t.autograd.gradcheck(lambda a: a.exp(), (x,))
        return passed, after, t.rand(3), passed_single

    same_on_both(program)
