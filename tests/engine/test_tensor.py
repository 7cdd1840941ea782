"""Tensors without autograd: creation, dtype inference and promotion, attributes, conversions,
memory sharing and ``repr``, each program compared with torch's result."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import raises_like_torch, same_on_both
from torch_versions import skip_if_changed


def case(name, program, changed=None):
    """`changed`: the torch_versions.CHANGES entry the case meets (skipped where it applies)."""
    return pytest.param(program, id=name, marks=[skip_if_changed(changed)] if changed else [])


CREATION = [
    case("tensor_mixed_numbers", lambda t: t.tensor([1, 2.0])),
    case("tensor_int", lambda t: t.tensor(3)),
    case("tensor_bool", lambda t: t.tensor(True)),
    case("tensor_numpy_float64", lambda t: t.tensor(np.array([1.0, 2.0]))),
    case("tensor_numpy_int32", lambda t: t.tensor(np.array([1, 2], dtype=np.int32))),
    case("tensor_nested_dtype", lambda t: t.tensor([[1, 2], [3, 4]], dtype=t.float64)),
    case("tensor_empty", lambda t: t.tensor([])),
    case("tensor_of_0d_tensors", lambda t: t.tensor([t.tensor(1.0), t.tensor(2.0)])),
    case("Tensor_list", lambda t: t.Tensor([1, 2])),
    case("Tensor_sizes", lambda t: (t.Tensor(2, 3).shape, t.Tensor(2, 3).dtype)),
    case("Tensor_Size", lambda t: t.Tensor(t.Size([2, 3])).shape),  # a shape, not data
    case("Tensor_tuple", lambda t: t.Tensor((2, 3))),  # a plain tuple is data
    case("Tensor_no_arguments", lambda t: t.Tensor()),
    case("as_tensor_list", lambda t: t.as_tensor([1, 2])),
    case("as_tensor_dtype", lambda t: t.as_tensor([1, 2], dtype=t.float32)),
    case("zeros_int", lambda t: t.zeros(2, 3, dtype=t.int64)),
    case("ones_tuple", lambda t: t.ones((2, 3))),
    case("zeros_list", lambda t: t.zeros([2])),
    case("zeros_0d", lambda t: t.zeros(())),
    case("full_int", lambda t: t.full((2,), 3)),
    case("full_float", lambda t: t.full((2,), 3.0)),
    case("full_bool", lambda t: t.full((2,), True)),
    case("full_dtype", lambda t: t.full((2, 2), 1.5, dtype=t.float64)),
    case("arange_int", lambda t: t.arange(5)),
    case("arange_float", lambda t: t.arange(5.0)),
    case("arange_tenths", lambda t: t.arange(0, 1, 0.1)),
    case("arange_halves", lambda t: t.arange(1, 2.5, 0.5)),
    case("arange_negative_step", lambda t: t.arange(10, 0, -3)),
    case("arange_float64", lambda t: t.arange(0, 1, 0.3, dtype=t.float64)),
    case("linspace", lambda t: t.linspace(0, 1, 5)),
    case("linspace_float64", lambda t: t.linspace(-1, 1, 4, dtype=t.float64)),
    case("linspace_one", lambda t: t.linspace(0, 1, 1)),
    case("eye", lambda t: t.eye(3)),
    case("eye_rectangular_int", lambda t: t.eye(2, 3, dtype=t.int64)),
    case("zeros_like_int", lambda t: t.zeros_like(t.ones(2, dtype=t.int64))),
    case("ones_like_dtype", lambda t: t.ones_like(t.ones(2, 3), dtype=t.float64)),
    case("full_like", lambda t: t.full_like(t.ones(2), 7)),
    case("full_like_int_truncates", lambda t: t.full_like(t.ones(2, dtype=t.int64), 2.7)),
    case("zeros_requires_grad", lambda t: t.zeros(2, requires_grad=True)),
    case("requires_grad_returns_self", lambda t: [(x.requires_grad_() is x, x.requires_grad)
                                                  for x in [t.ones(2)]]),
    case("default_dtype", lambda t: t.get_default_dtype()),
]

ATTRIBUTES = [
    case("size", lambda t: t.ones(2, 3).size()),
    case("size_dim", lambda t: (t.ones(2, 3).size(1), t.ones(2, 3).size(-1))),
    case("shape_equals_tuple", lambda t: t.ones(2, 3).shape == (2, 3)),
    case("dim_numel_ndim", lambda t: (t.ones(2, 3).dim(), t.ones(2, 3).numel(),
                                      t.ones(2, 3).ndim, t.numel(t.ones(4)))),
    case("device", lambda t: (str(t.ones(2).device), t.ones(2).device.type)),
    case("T", lambda t: t.tensor([[1.0, 2.0]]).T),
    case("len_and_iter", lambda t: (len(t.ones(4, 2)), list(t.tensor([[1, 2], [3, 4]])))),
    case("tolist", lambda t: (t.tensor([1.5, 2.5]).tolist(), t.tensor(1.5).tolist(),
                              t.tensor([[1, 2]]).tolist())),
    case("item", lambda t: (t.tensor(2.5).item(), t.tensor(3).item(), t.tensor(True).item())),
    case("item_of_float32_is_float", lambda t: type(t.tensor([1.0]).item()).__name__),
    case("python_numbers", lambda t: (float(t.tensor(2.5)), int(t.tensor(3.7)),
                                      bool(t.tensor(0.0)))),
    case("is_tensor", lambda t: (t.is_tensor(t.ones(1)), t.is_tensor([1]))),
    case("equal_allclose", lambda t: (t.tensor([1.0, 2.0]).equal(t.tensor([1.0, 2.0])),
                                      t.allclose(t.tensor([1.0]), t.tensor([1.0 + 1e-9])))),
    case("dtype_names", lambda t: [str(d) for d in (t.float32, t.float64, t.int64, t.bool)]),
    case("size_repr", lambda t: repr(t.ones(2, 3).shape)),
]

CONVERSIONS = [
    case("to_float64", lambda t: t.tensor([1.0, 2.0]).to(t.float64)),
    case("to_device_string", lambda t: t.tensor([1.0, 2.0]).to("cpu")),
    case("to_same_dtype_is_self", lambda t: [x.to(t.float32) is x for x in [t.ones(2)]]),
    case("float_of_int", lambda t: t.tensor([1, 2]).float()),
    case("long_truncates", lambda t: t.tensor([1.7, -2.7]).long()),
    case("bool_of_float", lambda t: t.tensor([1.7, 0.0]).bool()),
    case("double", lambda t: t.tensor([1.0, 2.0]).double()),
    case("float32_rounding", lambda t: t.tensor([0.1, 0.2], dtype=t.float64).to(t.float32)
         .tolist()),
    case("clone_is_a_copy", lambda t: _clone_is_a_copy(t)),
    case("fill_", lambda t: t.ones(2, 3).fill_(2.5)),
    case("fill_int_truncates", lambda t: t.ones(2, 3, dtype=t.int64).fill_(2.5)),
    case("zero_", lambda t: t.ones(2).zero_()),
    case("numpy_shares_memory", lambda t: _numpy_shares(t)),
    case("from_numpy_shares_memory", lambda t: _from_numpy_shares(t)),
    case("as_tensor_shares_memory", lambda t: _as_tensor_shares(t)),
]


def _in_place(t, x, other):
    x += other
    return x


def _clone_is_a_copy(t):
    x = t.tensor([1.0, 2.0])
    y = x.clone()
    y[0] = 9
    return x, y


def _numpy_shares(t):
    x = t.tensor([1.0, 2.0])
    x.numpy()[0] = 7
    return x


def _from_numpy_shares(t):
    a = np.array([1.0, 2.0])
    x = t.from_numpy(a)
    a[0] = 5
    x.add_(1)
    return x, a.tolist()


def _as_tensor_shares(t):
    a = np.array([1.0, 2.0])
    x = t.as_tensor(a)
    a[1] = 5
    return x


VALUES = [
    case("argmax", lambda t: (t.tensor([3.0, 1.0, 2.0]).argmax(),
                              t.tensor([[3.0, 1.0], [0.0, 2.0]]).argmax(1))),
    case("compare", lambda t: (t.tensor([1.0, 2.0]) == t.tensor([1.0, 3.0]),
                               t.tensor([1, 2]) > 1.5)),
    case("logic", lambda t: (t.tensor([True, False]) & t.tensor([True, True]),
                             ~t.tensor([True, False]))),
    case("sum_dtypes", lambda t: (t.tensor([1, 2]).sum(), t.tensor([True, True]).sum())),
    case("int_true_division", lambda t: t.tensor([1, 2]) / t.tensor([2, 4])),
    case("int_times_float", lambda t: t.tensor([1, 2]) * 1.5),
    case("int_plus_bool", lambda t: t.tensor([1, 2]) + True),
    case("bool_plus_bool", lambda t: t.tensor([True, False]) + t.tensor([True, True])),
    case("float64_times_0d_float32", lambda t: t.tensor([1.0], dtype=t.float64) * t.tensor(2.0)),
    case("0d_int_times_float", lambda t: t.tensor(2) * t.tensor([1.5, 2.5])),
    case("rpow_int", lambda t: 2 ** t.tensor([1, 2])),
    case("int_pow", lambda t: t.tensor([1, 2]) ** 2),
    case("int_pow_half", lambda t: t.tensor([4, 9]) ** 0.5),
    case("float_pow_int_tensor", lambda t: t.tensor([2.0]) ** t.tensor([3])),
    case("abs_int", lambda t: t.tensor([1, -2]).abs()),
    case("max_min_dtypes", lambda t: (t.tensor([5.0, 7.0]).max(), t.tensor([5, 7]).min())),
    case("maximum_int_float", lambda t: t.maximum(t.tensor([1, 5]), t.tensor([3.0, 2.0]))),
    case("where_int_float", lambda t: t.where(t.tensor([True, False]), t.tensor([1, 2]),
                                              t.tensor([1.5, 2.5]))),
    case("where_numbers", lambda t: (t.where(t.tensor([True, False]), 1, 0),
                                     t.where(t.tensor([True, False]), 1.0, 0))),
    case("cat_int_float", lambda t: t.cat([t.tensor([1, 2]), t.tensor([3.0])])),
    case("stack_int_float", lambda t: t.stack([t.tensor([1, 2]), t.tensor([3.0, 4.0])])),
    case("clamp_int_by_float", lambda t: t.tensor([1, 2]).clamp(min=1.5)),
    case("clamp_int", lambda t: t.tensor([1, 5]).clamp(2, 4)),
    case("index_int_tensor", lambda t: (t.tensor([[1, 2, 3], [4, 5, 6]])[:, [0, 2]],
                                        t.tensor([[1, 2, 3], [4, 5, 6]])[t.tensor([1, 0])])),
    case("index_mask", lambda t: t.tensor([1.0, 2.0, 3.0])[t.tensor([True, False, True])]),
    case("slice_past_end", lambda t: (t.tensor([1.0, 2.0, 3.0])[1:].shape,
                                      t.tensor([1.0, 2.0, 3.0])[5:].shape)),
    case("reductions", lambda t: (t.tensor([1.0, 2.0]).sum(0, keepdim=True),
                                  t.tensor([[1.0, 2.0]]).mean(dim=[0, 1]),
                                  t.tensor([1.0, 2.0, 4.0]).var(),
                                  t.tensor([1.0, 2.0, 4.0]).std(unbiased=False))),
    case("in_place_keeps_float32", lambda t: _in_place(t, t.ones(2), t.ones(2, dtype=t.float64))),
    case("in_place_int_plus_bool", lambda t: _in_place(t, t.ones(2, dtype=t.int64), True)),
    case("in_place_float64_times_0d", lambda t: t.ones(2, dtype=t.float64).mul_(t.tensor(3.0))),
    case("in_place_broadcast_row", lambda t: t.ones(2, 3).add_(t.ones(3))),
    case("in_place_sub_alpha", lambda t: t.tensor([1.0, -1.0]).sub_(t.tensor([1, 1]), alpha=2)),
    case("in_place_clamp", lambda t: t.ones(2).clamp_(min=2)),
    case("max_dim_fields", lambda t: tuple(t.tensor([1.0, 2.0]).max(0))),
]

REPR = [
    case("floats", lambda t: t.tensor([1.0, 2.0, 3.0])),
    case("fractions", lambda t: t.tensor([1.5, -2.25, 3.0])),
    case("requires_grad", lambda t: t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)),
    case("small", lambda t: t.tensor([1e-5, 1.0])),
    case("large", lambda t: t.tensor([1e10, 1.0])),
    case("mixed", lambda t: t.tensor([123456.0, 0.5])),
    case("zeros", lambda t: t.tensor([0.0, 0.0])),
    case("0d", lambda t: t.tensor(3.14159)),
    case("0d_float64", lambda t: t.tensor(3.14159, dtype=t.float64)),
    case("ints", lambda t: t.tensor([1, 2, 3])),
    case("int32", lambda t: t.tensor([1, 2], dtype=t.int32)),
    case("bools", lambda t: t.tensor([True, False])),
    case("special", lambda t: t.tensor([float("nan"), float("inf"), -float("inf"), 1.5])),
    case("nan_and_whole", lambda t: t.tensor([float("nan"), 1.0])),
    case("negative_zero", lambda t: t.tensor([-0.0, 1.0])),
    case("empty", lambda t: t.zeros(0)),
    case("empty_2d", lambda t: t.zeros(2, 0)),
    case("empty_int", lambda t: t.zeros(0, dtype=t.int64)),
    case("summarized", lambda t: t.arange(2000.0)),
    case("summarized_int", lambda t: t.arange(2000)),
    case("summarized_2d", lambda t: t.arange(3000.0).reshape(30, 100)),
    case("3d", lambda t: t.ones(2, 3, 4)),
    case("grad_fn", lambda t: t.tensor([1.0, 2.0], requires_grad=True) * 2),
    case("grad_fn_float64", lambda t: t.tensor([1.0, 2.0], dtype=t.float64,
                                                requires_grad=True).sum()),
    case("three_magnitudes", lambda t: t.tensor([100.0, 2.5, -0.001])),
    case("ratio_1e4", lambda t: t.tensor([1.0, 10000.0])),
    case("ratio_1e3", lambda t: t.tensor([1.0, 1000.0])),
    case("tenths", lambda t: t.tensor([0.1, 0.25])),
    case("negative", lambda t: t.tensor([-1.0, 2.0])),
    case("huge_whole", lambda t: t.tensor([123456789.0])),
    case("1e8", lambda t: t.tensor([1e8, 1.0])),
    case("1e-4", lambda t: t.tensor([0.0001, 0.5])),
    case("1e-5_alone", lambda t: t.tensor([0.00001])),
    case("float64_matrix", lambda t: t.tensor([[1.0, -2.0], [30.0, 4.5]], dtype=t.float64)),
    case("matrix", lambda t: t.tensor([[0.1234567, -1.5], [2.0, 3.33333]])),
    case("parameter", lambda t: t.nn.Parameter(t.ones(2))),
    case("extremes", lambda t: t.tensor([1e-10, 1e10])),
    case("1e20", lambda t: t.tensor(1e20)),
    case("four_decimals", lambda t: t.tensor([1234.5678, 0.001])),
    case("max_dim_result", lambda t: t.tensor([1.0, 2.0]).max(0)),
]


@pytest.mark.parametrize("program", CREATION + ATTRIBUTES + CONVERSIONS + VALUES)
def test_like_torch(program):
    same_on_both(program)


@pytest.mark.parametrize("program", REPR)
def test_repr_like_torch(program):
    same_on_both(lambda t: repr(program(t)))


def test_uninitialised_legacy_constructor_has_the_right_shape():
    def program(t):
        x = t.Tensor(2, 3)
        return tuple(x.shape), str(x.dtype), x.requires_grad

    same_on_both(program)


NUMPY_ERRORS = [
    case("int_negative_power", lambda t: t.tensor([1, 2]) ** -1),
    case("negate_bool", lambda t: -t.tensor([True]), changed="bool_minus"),
    case("subtract_bools", lambda t: t.tensor([True]) - t.tensor([False]), changed="bool_minus"),
    case("subtract_bool_from_float", lambda t: t.tensor([1.0]) - t.tensor([True]),
         changed="bool_minus"),
]


@pytest.mark.parametrize("program", NUMPY_ERRORS)
def test_numpy_errors_become_torchs(program):
    raises_like_torch(program)


SILENT = [
    case("log_of_zero", lambda t: t.tensor([0.0, 1.0]).log()),
    case("exp_overflow", lambda t: t.tensor([1000.0]).exp()),
    case("divide_by_zero", lambda t: t.tensor([1.0]) / t.tensor([0.0])),
    case("zero_by_zero", lambda t: t.tensor([0.0]) / 0.0),
    case("sqrt_of_negative", lambda t: t.tensor([-1.0]).sqrt()),
    case("power_of_zero", lambda t: t.tensor([0.0]) ** -1),
    case("mean_of_empty", lambda t: t.zeros(0).mean()),
    case("log_gradient_at_zero", lambda t: _gradient(t, lambda x: x.log(), [0.0])),
    case("sqrt_gradient_at_zero", lambda t: _gradient(t, lambda x: x.sqrt(), [0.0])),
    case("fractional_power_of_negative", lambda t: _gradient(t, lambda x: x**1.5, [-1.0, 2.0])),
    case("softmax_of_large", lambda t: t.tensor([1000.0, 0.0]).softmax(0)),
    case("sigmoid_of_large", lambda t: t.tensor([-1000.0, 1000.0]).sigmoid()),
]


def _gradient(t, f, values):
    x = t.tensor(values, requires_grad=True)
    f(x).sum().backward()
    return x.grad


@pytest.mark.parametrize("program", SILENT)
def test_no_numpy_warnings_where_torch_is_silent(program):
    """inf and nan results come without warnings in torch; numpy's RuntimeWarnings must not leak
    (a learner would see them, and a notebook's stderr would differ from torch's)."""

    def recorded(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = program(t)
        return value, [w.category.__name__ for w in caught]

    same_on_both(recorded)


# ---- the size= keyword of creation functions -------------------------------------------------


def test_creation_functions_take_size_as_a_keyword():
    def program(t):
        t.manual_seed(0)
        x = t.randn(size=(), requires_grad=True)
        made = [x, t.rand(size=(2, 3)), t.zeros(size=[2]), t.ones(size=t.Size([1, 2])),
                t.empty(size=(0,)), t.full(size=(2,), fill_value=3.0), t.randn(size=(2,)),
                t.randint(0, 5, size=(3,)), t.randint(5, size=(2,))]
        return [(m.shape, m.dtype, m.requires_grad) for m in made], made[1:3], made[6:]

    same_on_both(program)


@pytest.mark.parametrize("make", [
    lambda t: t.zeros(),
    lambda t: t.ones(),
    lambda t: t.empty(),
    lambda t: t.randn(size=3),
    lambda t: t.rand(size=2.0),
    lambda t: t.randn(2, size=(3,)),
])
def test_creation_size_errors(make):
    raises_like_torch(make, "size")
