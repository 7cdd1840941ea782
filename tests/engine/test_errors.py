"""The mistakes a learner makes: the same exception class as torch (so an ``except`` written for
torch works), and a message that names the problem and says what to do."""

from __future__ import annotations

import warnings

import pytest
import torch
from helpers import raises_like_torch, same_on_both

import miniautograd as mini


def _backward_twice(t):
    x = t.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    y.backward()


def _version_error(t):
    x = t.ones(2, requires_grad=True)
    y = x.exp()
    y.add_(1)
    y.sum().backward()


def _module_without_init(t):
    class Net(t.nn.Module):
        def __init__(self):
            self.layer = t.nn.Linear(2, 2)

    Net()


def _non_leaf_in_optimizer(t):
    x = t.ones(2, requires_grad=True)
    t.optim.SGD([x * 2], lr=0.1)


def _hooked(t, hook):
    x = t.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(hook)
    y.sum().backward()


def _non_scalar_grad(t):
    x = t.ones(2, requires_grad=True)
    t.autograd.grad(x * 2, x)


def _unused_input(t):
    x, y = t.ones(2, requires_grad=True), t.ones(2, requires_grad=True)
    t.autograd.grad((x * 2).sum(), [x, y])


ERRORS = [
    # ---- wrong shapes ----
    ("broadcast", lambda t: t.ones(2) + t.ones(3), ["must match the size", "broadcast"]),
    ("broadcast_2d", lambda t: t.ones(2, 3) * t.ones(3, 2), ["must match", "broadcast"]),
    ("mm_shapes", lambda t: t.ones(2, 3).mm(t.ones(2, 3)), ["(2x3 and 2x3)", "transpose"]),
    ("matmul_shapes", lambda t: t.ones(2, 3) @ t.ones(2, 3), ["(2x3 and 2x3)", "transpose"]),
    ("linear_in_features", lambda t: t.nn.Linear(3, 2)(t.ones(4, 5)), ["(4x5 and 3x2)"]),
    ("sequential_sizes", lambda t: t.nn.Sequential(t.nn.Linear(2, 3), t.nn.Linear(2, 3))(
        t.ones(1, 2)), ["(1x3 and 2x3)"]),
    ("mv_shapes", lambda t: t.ones(2, 3) @ t.ones(2), ["size mismatch"]),
    ("dot_shapes", lambda t: t.ones(3) @ t.ones(4), ["inconsistent tensor size"]),
    ("matmul_0d", lambda t: t.tensor(2.0) @ t.ones(2), ["at least 1D"]),
    ("cat_shapes", lambda t: t.cat([t.ones(2, 3), t.ones(2, 4)]), ["Sizes of tensors must match"]),
    ("cat_empty", lambda t: t.cat([]), ["non-empty"]),
    ("cat_0d", lambda t: t.cat([t.tensor(1.0), t.tensor(2.0)]), ["zero-dimensional", "stack"]),
    ("stack_shapes", lambda t: t.stack([t.ones(2, 3), t.ones(2, 4)]), ["equal size"]),
    ("stack_number", lambda t: t.stack([t.ones(2), 3]), ["expected Tensor", "tensor("]),
    ("view_size", lambda t: t.ones(2, 3).view(5), ["'[5]' is invalid for input of size 6"]),
    ("view_not_contiguous", lambda t: t.ones(2, 3).t().view(6), ["reshape"]),
    ("reshape_size", lambda t: t.ones(2, 3).reshape(4, 2), ["invalid for input of size 6"]),
    ("expand_size", lambda t: t.ones(2, 3).expand(3, 3), ["must match the existing size"]),
    ("expand_fewer_dims", lambda t: t.ones(2, 3).expand(2), ["number of sizes provided"]),
    ("permute_duplicate", lambda t: t.ones(2, 3).permute(0, 0), ["dims"]),
    ("permute_length", lambda t: t.ones(2, 3).permute(1), ["dims"]),
    ("index_out_of_range", lambda t: t.ones(3)[5], ["index 5 is out of bounds"]),
    ("index_column_out_of_range", lambda t: t.ones(3, 2)[:, 4], ["out of bounds"]),
    ("float_index", lambda t: t.ones(2, 3)[t.tensor([0.5])], ["indices"]),
    ("sum_dim", lambda t: t.ones(3, 2).sum(2), ["Dimension out of range"]),
    ("sum_dim_twice", lambda t: t.ones(2, 3).sum(dim=(0, 0)), ["multiple times"]),
    ("mean_dim", lambda t: t.ones(2, 3).mean(5), ["Dimension out of range"]),
    ("var_dim", lambda t: t.ones(2, 3).var(3), ["Dimension out of range"]),
    ("max_dim", lambda t: t.ones(2, 3).max(2), ["Dimension out of range"]),
    ("softmax_dim", lambda t: t.ones(2, 3).softmax(2), ["Dimension out of range"]),
    ("unsqueeze_dim", lambda t: t.ones(2, 3).unsqueeze(3), ["Dimension out of range"]),
    ("squeeze_dim", lambda t: t.ones(2, 3).squeeze(2), ["Dimension out of range"]),
    ("transpose_dim", lambda t: t.ones(2, 3).transpose(0, 2), ["Dimension out of range"]),
    ("flatten_dim", lambda t: t.ones(2, 3).flatten(3), ["Dimension out of range"]),
    ("max_of_empty", lambda t: t.ones(0).max(), ["numel() == 0", "dim"]),
    ("len_0d", lambda t: len(t.tensor(1.0)), ["0-d"]),
    ("grad_shape", lambda t: setattr(t.ones(2, requires_grad=True), "grad", t.ones(3)), ["size"]),
    ("ragged_list", lambda t: t.tensor([[1, 2], [3]]), ["expected sequence of length 2"]),
    ("tensor_of_tensors", lambda t: t.tensor([t.ones(2), t.ones(2)]), ["one element", "stack"]),
    # ---- wrong dtypes ----
    ("requires_grad_int", lambda t: t.tensor([1, 2], requires_grad=True),
     ["floating point", ".float()"]),
    ("requires_grad_int_method", lambda t: t.arange(3).requires_grad_(),
     ["floating point", ".float()"]),
    ("mm_dtypes", lambda t: t.ones(2, 2).mm(t.ones(2, 2, dtype=t.float64)),
     ["same dtype", ".to("]),
    ("matmul_int", lambda t: t.ones(2, 2) @ t.ones(2, 2, dtype=t.int64), ["same dtype", ".to("]),
    ("dot_dtypes", lambda t: t.ones(2) @ t.ones(2, dtype=t.float64), ["same dtype", ".to("]),
    ("mean_int", lambda t: t.tensor([1, 2]).mean(), ["floating point", ".float()"]),
    ("var_int", lambda t: t.ones(2, 3, dtype=t.int64).var(), ["floating point"]),
    ("std_int", lambda t: t.ones(2, 3, dtype=t.int64).std(), ["floating point"]),
    ("softmax_int", lambda t: t.ones(2, 3, dtype=t.int64).softmax(0), ["Long"]),
    ("where_float_condition", lambda t: t.where(t.ones(3), t.ones(3), t.zeros(3)),
     ["boolean", "x > 0"]),
    ("cross_entropy_float_target", lambda t: t.nn.functional.cross_entropy(
        t.zeros(2, 3), t.tensor([0.0, 1.0])), ["Long", ".long()"]),
    ("add_str", lambda t: t.ones(2, 3) + "a", ["unsupported operand"]),
    ("tensor_str", lambda t: t.tensor("abc"), []),
    ("in_place_int_float", lambda t: t.zeros(3, dtype=t.int64).add_(1.5), ["can't be cast"]),
    ("in_place_broadcast", lambda t: t.ones(3).add_(t.ones(2, 3)), ["broadcast shape"]),
    ("in_place_int_times_float", lambda t: t.ones(2, dtype=t.int64).mul_(2.5), ["can't be cast"]),
    ("in_place_bool_plus_int", lambda t: t.ones(2, dtype=t.bool).add_(1), ["can't be cast"]),
    ("in_place_int_div", lambda t: t.ones(2, dtype=t.int64).div_(2), ["can't be cast"]),
    # ---- logsumexp, norms, gather, sort, isclose ----
    ("logsumexp_no_dim", lambda t: t.logsumexp(t.ones(2)), ["dim"]),
    ("logsumexp_dim_range", lambda t: t.ones(2, 3).logsumexp(2), ["Dimension out of range"]),
    ("norm_int", lambda t: t.arange(3).norm(), ["floating point", "Long"]),
    ("norm_order_name", lambda t: t.ones(2, 3).norm("abc"), ["Order abc not supported"]),
    ("norm_fro_three_dims", lambda t: t.ones(2, 3, 4).norm("fro", dim=(0, 1, 2)), ["2-tuple"]),
    ("norm_dim_range", lambda t: t.ones(2, 3).norm(dim=5), ["Dimension out of range"]),
    ("norm_inf_empty", lambda t: t.zeros(3, 0).norm(float("inf")), ["empty tensor"]),
    ("vector_norm_ord_string", lambda t: t.linalg.vector_norm(t.ones(2), "fro"),
     ["'ord' must be Number"]),
    ("gather_float_index", lambda t: t.ones(2, 3).gather(1, t.zeros(2, 1)), ["int64"]),
    ("gather_index_dims", lambda t: t.ones(2, 3).gather(1, t.tensor([0, 1])),
     ["same number of dimensions"]),
    ("gather_index_range", lambda t: t.ones(2, 3).gather(1, t.tensor([[3], [0]])),
     ["index 3 is out of bounds for dimension 1 with size 3"]),
    ("gather_index_too_big", lambda t: t.ones(2, 3).gather(1, t.zeros(3, 1, dtype=t.int64)),
     ["Size does not match at dimension 0"]),
    ("gather_dim_range", lambda t: t.ones(2, 3).gather(2, t.zeros(2, 1, dtype=t.int64)),
     ["Dimension out of range"]),
    ("sort_dim_range", lambda t: t.ones(2, 3).sort(2), ["Dimension out of range"]),
    ("isclose_dtypes", lambda t: t.isclose(t.ones(2), t.ones(2, dtype=t.float64)),
     ["Float did not match Double"]),
    ("isclose_number", lambda t: t.isclose(t.ones(2), 1.0), ["must be Tensor, not float"]),
    ("isclose_rtol", lambda t: t.ones(2).isclose(t.ones(2), rtol=-1),
     ["rtol must be greater than or equal to zero"]),
    ("isclose_atol", lambda t: t.ones(2).isclose(t.ones(2), atol=-0.5),
     ["atol must be greater than or equal to zero, but got -0.5"]),
    ("invert_float", lambda t: ~t.ones(2), ["integer and Boolean"]),
    # ---- losses ----
    ("cross_entropy_int32_target", lambda t: t.nn.functional.cross_entropy(
        t.zeros(1, 2), t.tensor([1], dtype=t.int32)), ["Long"]),
    ("cross_entropy_target_range", lambda t: t.nn.functional.cross_entropy(
        t.zeros(2, 3), t.tensor([0, 5])), ["Target 5 is out of bounds"]),
    ("cross_entropy_target_2d", lambda t: t.nn.functional.cross_entropy(
        t.zeros(2, 3), t.tensor([[0], [1]])), ["1D target tensor expected"]),
    ("cross_entropy_batch", lambda t: t.nn.functional.cross_entropy(
        t.zeros(2, 3), t.tensor([0, 1, 2])), ["batch_size"]),
    # ---- backward ----
    ("non_scalar_backward", lambda t: (t.ones(2, requires_grad=True) * 2).backward(),
     ["implicitly created only for scalar outputs", "gradient=", ".sum()"]),
    ("non_scalar_grad", _non_scalar_grad, ["implicitly created only for scalar outputs",
                                           "grad_outputs"]),
    ("no_requires_grad_backward", lambda t: (t.ones(2) * 2).sum().backward(),
     ["does not require grad", "requires_grad=True"]),
    ("gradient_shape", lambda t: (t.ones(2, requires_grad=True) * 2).backward(t.ones(3)),
     ["Mismatch in shape"]),
    ("backward_twice", _backward_twice, ["retain_graph=True"]),
    ("version", _version_error, ["modified by an inplace operation", "is at version 1",
                                 "expected version 0", ", which is output 0 of"]),
    ("in_place_leaf", lambda t: t.ones(2, requires_grad=True).add_(1),
     ["leaf Variable", "no_grad"]),
    ("unused_input", _unused_input, ["allow_unused=True"]),
    ("grad_of_non_requiring", lambda t: t.autograd.grad(t.ones(2, requires_grad=True).sum(),
                                                        t.ones(2)), ["does not require grad"]),
    ("numpy_requires_grad", lambda t: t.ones(2, requires_grad=True).numpy(),
     ["detach().numpy()"]),
    ("item_many", lambda t: t.ones(2).item(), ["2 elements"]),
    ("float_many", lambda t: float(t.ones(2)), ["one element"]),
    ("bool_many", lambda t: bool(t.ones(2)), ["ambiguous", ".any()"]),
    ("requires_grad_false_non_leaf", lambda t: (t.ones(2, requires_grad=True) * 2)
     .requires_grad_(False), ["detach()"]),
    ("hook_changes_shape", lambda t: _hooked(t, lambda g: t.ones(3)), ["size"]),
    ("hook_changes_dtype", lambda t: _hooked(t, lambda g: g.double()), ["type"]),
    # ---- modules and optimizers ----
    ("module_forward", lambda t: t.nn.Module()(1), ["forward"]),
    ("module_without_init", _module_without_init, ["__init__()"]),
    ("optimizer_non_leaf", _non_leaf_in_optimizer, ["non-leaf"]),
    ("optimizer_empty", lambda t: t.optim.SGD([], lr=0.1), ["empty parameter list"]),
    ("sgd_lr", lambda t: t.optim.SGD([t.ones(2, requires_grad=True)], lr=-1), ["-1"]),
    ("adam_lr", lambda t: t.optim.Adam([t.ones(2, requires_grad=True)], lr=-1),
     ["-1"]),
    ("dropout_probability", lambda t: t.nn.Dropout(1.5), ["between 0 and 1"]),
    ("softmax_method_without_dim", lambda t: t.ones(2, 3).softmax(), ["dim"]),
    ("clamp_nothing", lambda t: t.ones(3).clamp(), ["min", "max"]),
    ("bad_device", lambda t: t.zeros(2).to("gpu"), ["device string"]),
]


@pytest.mark.parametrize(("program", "hints"), [pytest.param(p, h, id=n) for n, p, h in ERRORS])
def test_error_like_torch(program, hints):
    raises_like_torch(program, *hints)


def test_version_error_message():
    """torch names the op that made the current version: 'which is output 0 of Add'. The
    tensor type reads like miniautograd's dtypes (``t.type()`` is miniautograd.FloatTensor)."""
    error = raises_like_torch(_version_error,
                              "[miniautograd.FloatTensor [2]], which is output 0 of")
    assert "clone()" in str(error)


def test_mse_loss_shape_mismatch_warns():
    for t in (torch, mini):
        with pytest.warns(UserWarning, match="target size"):
            t.nn.functional.mse_loss(t.zeros(2, 3), t.zeros(3))


def test_non_leaf_grad_access_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = mini.ones(2, requires_grad=True) * 2
        with pytest.raises(UserWarning, match="retain_grad"):
            _ = y.grad


def _backward_with_gradient(t, shape, dtype):
    x = t.ones(3, requires_grad=True)
    (x * 2).backward(t.ones(shape, dtype=dtype))
    return x.grad


@pytest.mark.parametrize("dtype", ["float32", "float64"], ids=["same_dtype", "other_dtype"])
def test_backward_gradient_of_another_shape_is_refused(dtype):
    """The shape is checked before the gradient takes the output's dtype (the check used to
    come after, and a float64 gradient of 5 elements for 3 outputs gave x a 5-element grad)."""
    raises_like_torch(lambda t: _backward_with_gradient(t, 5, getattr(t, dtype)),
                      "Mismatch in shape", "[5]", "[3]")


def test_backward_gradient_of_another_dtype_is_cast():
    same_on_both(lambda t: _backward_with_gradient(t, 3, t.float64))
