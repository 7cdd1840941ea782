"""The op table: every covered operation and its interesting variants, one ``check_op`` line each.

Each row runs on torch and on miniautograd and compares forward values, dtypes, the backward
graph (node names and edges), gradients for a random output weight, and double backward, in
float64 (tight tolerances) and float32 (looser: different summation orders round differently).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import NoGrad, check_op, uniform
from torch_versions import skip_if_changed

from miniautograd.ops import TABLE

POS = uniform((3, 4), 0.5, 2.0)  # log, sqrt, fractional powers, denominators
POS_ROW = uniform((4,), 0.5, 2.0, seed=2)
SIGNS = np.where(np.random.default_rng(3).random((3, 4)) < 0.5, -1.0, 1.0)
NONZERO = uniform((3, 4), 0.5, 2.0, seed=4) * SIGNS  # denominators of both signs
INTS = NoGrad(np.arange(12, dtype=np.int64).reshape(3, 4) - 5)
POS_INTS = NoGrad(np.arange(1, 13, dtype=np.int64).reshape(3, 4))
BOOLS = NoGrad(np.random.default_rng(5).random((3, 4)) < 0.5)
MASK = NoGrad(np.random.default_rng(6).random((3, 4)) < 0.5)
INDEX = NoGrad(np.array([2, 0, 2], dtype=np.int64))
TARGET = NoGrad(np.array([1, 0, 3], dtype=np.int64))
LOOKUP = NoGrad(np.array([[0, 2, 2], [4, 1, 2]], dtype=np.int64))  # rows of a (5, d) table
PROBS = uniform((3, 4), 0.0, 1.0, seed=7)  # soft targets of binary cross-entropy
# Logits whose sigmoid rounds to 0 or 1: the loss must come from the logits, not log(sigmoid).
LARGE_LOGITS = np.array([[-100.0, -30.0, 30.0, 100.0], [-5.0, 0.0, 5.0, 40.0],
                         [-40.0, -17.0, 17.0, 60.0]])
MIXED = {"rtol": 2e-5, "atol": 2e-6}  # rows that compute in float32 whatever the input dtype


# Rows where miniautograd knowingly differs from torch, by name, with the reason: each runs as a
# strict xfail, so that a fix is noticed, and is listed in companion/README.md's "Known
# differences from torch". None at present.
KNOWN_DIFFERENCES: dict[str, str] = {}


def row(name, inputs, fn, *, changed=None, **options):
    """A row of the table; `changed`: the torch_versions.CHANGES entry it meets, on the
    releases that made it (skipped there: test_torch_versions.py checks both rules)."""
    marks = []
    if name in KNOWN_DIFFERENCES:
        marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_DIFFERENCES[name]))
    if changed:
        marks.append(skip_if_changed(changed))
    return pytest.param(inputs, fn, options, id=name, marks=marks)


OPS = [
    # ---- + - * / with broadcasting, numbers on either side, and dtype promotion ----
    row("add", [(3, 4), (3, 4)], lambda t, a, b: a + b),
    row("add_broadcast_row", [(3, 4), (4,)], lambda t, a, b: a + b),
    row("add_broadcast_outer", [(3, 1), (1, 4)], lambda t, a, b: a + b),
    row("add_broadcast_batch", [(2, 1, 4), (3, 1)], lambda t, a, b: a + b),
    row("add_0d", [(), (3, 4)], lambda t, a, b: a + b),
    row("add_float_right", [(3, 4)], lambda t, a: a + 2.5),
    row("add_float_left", [(3, 4)], lambda t, a: 2.5 + a),
    row("add_int_number", [(3, 4)], lambda t, a: a + 2),
    row("add_alpha", [(3, 4), (4,)], lambda t, a, b: t.add(a, b, alpha=2)),
    row("add_int_tensor", [(3, 4), INTS], lambda t, a, b: a + b),
    row("add_bool_tensor", [(3, 4), BOOLS], lambda t, a, b: a + b),
    row("add_mixed_dtypes", [(3, 4), (4,)], lambda t, a, b: a.float() + b.double(), **MIXED),
    row("mul_0d_double", [(3, 4), ()], lambda t, a, b: a.float() * b.double(), **MIXED),
    row("add_method", [(3, 4), (3, 4)], lambda t, a, b: a.add(b)),
    row("add_self", [(3, 4)], lambda t, a: a + a),
    row("sub", [(3, 4), (3, 4)], lambda t, a, b: a - b),
    row("sub_broadcast", [(3, 1), (4,)], lambda t, a, b: a - b),
    row("sub_float_right", [(3, 4)], lambda t, a: a - 1.5),
    row("rsub_float", [(3, 4)], lambda t, a: 1.5 - a),
    row("rsub_int", [(3, 4)], lambda t, a: 1 - a),
    row("sub_alpha", [(3, 4), (3, 4)], lambda t, a, b: a.sub(b, alpha=3)),
    row("sub_int_tensor_left", [INTS, (3, 4)], lambda t, a, b: a - b),
    row("mul", [(3, 4), (3, 4)], lambda t, a, b: a * b),
    row("mul_broadcast", [(3, 1), (1, 4)], lambda t, a, b: a * b),
    row("mul_self", [(3, 4)], lambda t, a: a * a),
    row("mul_float_right", [(3, 4)], lambda t, a: a * 3.0),
    row("mul_float_left", [(3, 4)], lambda t, a: 3.0 * a),
    row("mul_int_number", [(3, 4)], lambda t, a: a * 3),
    row("mul_int_tensor", [(3, 4), INTS], lambda t, a, b: a * b),
    row("mul_bool_tensor", [(3, 4), BOOLS], lambda t, a, b: b * a),
    row("mul_0d_both", [(), ()], lambda t, a, b: a * b),
    row("mul_0d_vector", [(), (4,)], lambda t, a, b: t.mul(a, b)),
    row("mul_fn", [(3, 4), (4,)], lambda t, a, b: t.mul(a, b)),
    row("div", [(3, 4), NONZERO], lambda t, a, b: a / b),
    row("div_broadcast", [(3, 4), POS_ROW], lambda t, a, b: a / b),
    row("div_float", [(3, 4)], lambda t, a: a / 4.0),
    row("div_int_number", [(3, 4)], lambda t, a: a / 4),
    row("rdiv", [NONZERO], lambda t, a: 2.0 / a),
    row("div_by_int_tensor", [(3, 4), NoGrad(np.array([1, 2, -3, 4]))], lambda t, a, b: a / b),
    row("div_int_by_tensor", [INTS, NONZERO], lambda t, a, b: a / b),
    row("div_fn", [(3, 4), NONZERO], lambda t, a, b: t.div(a, b)),
    row("div_ints_true", [INTS, NoGrad(np.array([1, 2, -3, 4]))], lambda t, a, b: a / b),
    row("neg", [(3, 4)], lambda t, a: -a),
    row("neg_fn", [(3, 4)], lambda t, a: t.neg(a)),
    row("pos", [(3, 4)], lambda t, a: +a * 1),
    # ---- powers ----
    row("pow_2", [(3, 4)], lambda t, a: a**2),
    row("pow_3_float", [(3, 4)], lambda t, a: a**3.0),
    row("pow_0", [(3, 4)], lambda t, a: a**0),
    row("pow_1", [(3, 4)], lambda t, a: a**1),
    row("pow_minus_1", [NONZERO], lambda t, a: a**-1),
    row("pow_half", [POS], lambda t, a: a**0.5),
    row("pow_method", [(3, 4)], lambda t, a: a.pow(2)),
    row("pow_fn", [POS], lambda t, a: t.pow(a, 1.5)),
    row("pow_tensor", [POS, (3, 4)], lambda t, a, b: a**b),
    row("pow_tensor_broadcast", [POS, (4,)], lambda t, a, b: a**b),
    row("pow_tensor_0d_exponent", [POS, ()], lambda t, a, b: a**b),
    row("rpow", [(3, 4)], lambda t, a: 2.0**a),
    row("rpow_int", [(3, 4)], lambda t, a: 3**a),
    row("pow_int_tensor_to_float", [INTS], lambda t, a: a**2.0),
    # ---- elementwise functions ----
    row("exp", [(3, 4)], lambda t, a: a.exp()),
    row("exp_fn", [(3, 4)], lambda t, a: t.exp(a)),
    row("expm1", [(3, 4)], lambda t, a: t.expm1(a) + (a * 2).expm1_()),
    row("log", [POS], lambda t, a: a.log()),
    row("log_fn", [POS], lambda t, a: t.log(a)),
    row("sqrt", [POS], lambda t, a: a.sqrt()),
    row("log10", [POS], lambda t, a: a.log10()),
    row("log2_fn", [POS], lambda t, a: t.log2(a)),
    row("sin", [(3, 4)], lambda t, a: a.sin()),
    row("cos", [(3, 4)], lambda t, a: t.cos(a)),
    row("tanh", [(3, 4)], lambda t, a: a.tanh()),
    row("sigmoid", [(3, 4)], lambda t, a: a.sigmoid()),
    row("sigmoid_fn", [(3, 4)], lambda t, a: t.sigmoid(a)),
    row("relu", [(3, 4)], lambda t, a: a.relu()),
    row("relu_fn", [(3, 4)], lambda t, a: t.relu(a)),
    row("abs", [(3, 4)], lambda t, a: a.abs()),
    row("abs_builtin", [(3, 4)], lambda t, a: abs(a)),
    row("round", [(3, 4)], lambda t, a: a.round() * a),
    row("round_half_even", [np.array([0.5, 1.5, 2.5, -0.5])], lambda t, a: t.round(a)),
    row("round_decimals", [(3, 4)], lambda t, a: a.round(decimals=1) * a + t.round(a, decimals=0)),
    row("round_decimals_", [(3, 4)], lambda t, a: (a * 3).round_(decimals=1) * a),
    row("floor", [(3, 4)], lambda t, a: a.floor()),
    row("ceil", [(3, 4)], lambda t, a: t.ceil(a) + a),
    row("floor_int", [INTS], lambda t, a: a.floor()),
    row("clamp", [(3, 4)], lambda t, a: a.clamp(-0.5, 0.5)),
    row("clamp_min", [(3, 4)], lambda t, a: a.clamp(min=0.0)),
    row("clamp_min_method", [(3, 4)], lambda t, a: a.clamp_min(0.25)),
    row("clamp_max", [(3, 4)], lambda t, a: a.clamp(max=0.3)),
    row("clamp_fn", [(3, 4)], lambda t, a: t.clamp(a, -1, 1)),
    row("maximum", [(3, 4), (3, 4)], lambda t, a, b: t.maximum(a, b)),
    row("maximum_mixed_dtypes", [(3, 4), (4,)],
        lambda t, a, b: t.maximum(a.double(), b.float()), **MIXED),
    row("maximum_broadcast", [(3, 4), (4,)], lambda t, a, b: t.maximum(a, b)),
    row("minimum", [(3, 4), (3, 1)], lambda t, a, b: t.minimum(a, b)),
    row("max_elementwise", [(3, 4), (3, 4)], lambda t, a, b: a.max(b)),
    row("where", [MASK, (3, 4), (3, 4)], lambda t, c, a, b: t.where(c, a, b)),
    row("where_broadcast", [MASK, (3, 4), (4,)], lambda t, c, a, b: t.where(c, a, b)),
    row("where_mixed_dtypes", [MASK, (3, 4), (3, 4)],
        lambda t, c, a, b: t.where(c, a.float(), b.double()), **MIXED),
    row("where_scalar", [(3, 4)], lambda t, a: t.where(a > 0, a, 0.0)),
    row("where_scalar_left", [(3, 4)], lambda t, a: t.where(a > 0, 1.0, a)),
    # ---- integer inputs: floating functions compute in the default dtype ----
    row("exp_int", [INTS], lambda t, a: a.exp()),
    row("log_int", [POS_INTS], lambda t, a: t.log(a)),
    row("sqrt_int", [POS_INTS], lambda t, a: a.sqrt()),
    row("sin_int", [INTS], lambda t, a: a.sin()),
    row("cos_int", [INTS], lambda t, a: a.cos()),
    row("tanh_int", [INTS], lambda t, a: a.tanh()),
    row("sigmoid_int", [INTS], lambda t, a: a.sigmoid()),
    row("relu_int", [INTS], lambda t, a: a.relu()),
    row("abs_int", [INTS], lambda t, a: a.abs()),
    row("neg_int", [INTS], lambda t, a: -a),
    row("clamp_int", [INTS], lambda t, a: a.clamp(-2, 3)),
    row("pow_int_int", [INTS], lambda t, a: a**2),
    row("max_int", [INTS], lambda t, a: a.max()),
    row("exp_bool", [BOOLS], lambda t, a: a.exp()),
    # ---- reductions ----
    row("sum", [(3, 4)], lambda t, a: a.sum()),
    row("sum_fn", [(3, 4)], lambda t, a: t.sum(a)),
    row("sum_dim0", [(3, 4)], lambda t, a: a.sum(0)),
    row("sum_dim_neg", [(2, 3, 4)], lambda t, a: a.sum(-1)),
    row("sum_keepdim", [(2, 3, 4)], lambda t, a: a.sum(dim=1, keepdim=True)),
    row("sum_dim_tuple", [(2, 3, 4)], lambda t, a: a.sum((0, 2))),
    row("sum_dim_tuple_neg_keepdim", [(2, 3, 4)], lambda t, a: a.sum((-1, 0), keepdim=True)),
    row("sum_0d", [()], lambda t, a: a.sum()),
    row("sum_0d_dim", [()], lambda t, a: a.sum(0)),
    row("sum_empty", [(0, 3)], lambda t, a: a.sum()),
    row("sum_empty_dim", [(0, 3)], lambda t, a: a.sum(0)),
    row("sum_bool", [BOOLS], lambda t, a: a.sum()),
    row("sum_int_dim", [INTS], lambda t, a: a.sum(1)),
    row("mean", [(3, 4)], lambda t, a: a.mean()),
    row("mean_dim", [(3, 4)], lambda t, a: a.mean(1)),
    row("mean_dim_neg_keepdim", [(2, 3, 4)], lambda t, a: a.mean(-2, keepdim=True)),
    row("mean_dim_tuple", [(2, 3, 4)], lambda t, a: t.mean(a, (0, 1))),
    row("var", [(3, 4)], lambda t, a: a.var()),
    row("var_dim", [(3, 4)], lambda t, a: a.var(1)),
    row("var_biased", [(3, 4)], lambda t, a: a.var(unbiased=False)),
    row("var_dim_biased_keepdim", [(3, 4)], lambda t, a: a.var(0, unbiased=False, keepdim=True)),
    row("var_correction", [(3, 4)], lambda t, a: a.var(dim=1, correction=2)),
    row("var_dim_tuple", [(2, 3, 4)], lambda t, a: a.var((0, 2))),
    row("std", [(3, 4)], lambda t, a: a.std()),
    row("std_dim", [(3, 4)], lambda t, a: a.std(0)),
    row("std_biased", [(3, 4)], lambda t, a: t.std(a, unbiased=False)),
    row("std_dim_keepdim", [(3, 4)], lambda t, a: a.std(-1, keepdim=True)),
    row("std_correction_0", [(3, 4)], lambda t, a: a.std(dim=0, correction=0)),
    row("max", [(3, 4)], lambda t, a: a.max()),
    row("min", [(3, 4)], lambda t, a: t.min(a)),
    row("max_dim", [(3, 4)], lambda t, a: a.max(1)),
    row("max_dim_values", [(3, 4)], lambda t, a: a.max(dim=0).values),
    row("max_dim_keepdim", [(2, 3, 4)], lambda t, a: a.max(-1, keepdim=True)),
    row("min_dim", [(3, 4)], lambda t, a: a.min(0)),
    row("min_dim_indices", [(3, 4)], lambda t, a: t.min(a, dim=1).indices),
    row("max_ties", [np.array([1.0, 3.0, 3.0, 2.0])], lambda t, a: a.max()),
    row("min_ties_3", [np.array([[1.0, 1.0], [1.0, 2.0]])], lambda t, a: a.min()),
    row("maximum_ties", [np.array([1.0, 2.0]), np.array([1.0, 3.0])],
        lambda t, a, b: t.maximum(a, b)),
    row("minimum_ties", [np.array([1.0, 2.0]), np.array([1.0, 3.0])],
        lambda t, a, b: t.minimum(a, b)),
    row("relu_at_zero", [np.array([-1.0, 0.0, 1.0])], lambda t, a: a.relu()),
    row("abs_at_zero", [np.array([-1.0, 0.0, 1.0])], lambda t, a: a.abs()),
    row("clamp_at_bounds", [np.array([-1.0, 0.0, 1.0, 2.0])], lambda t, a: a.clamp(0.0, 1.0),
        changed="clamp_scalar_bound"),
    # tensor bounds (broadcast, one side open, crossed: min > max gives max), no ties
    row("clamp_tensor_bounds", [uniform((3, 4), -2.0, 2.0, seed=8), uniform((3, 4), -1.0, 0.0,
                                                                              seed=9),
                                uniform((4,), 0.0, 1.0, seed=10)],
        lambda t, a, low, high: a.clamp(low, high)),
    row("clamp_tensor_min_only", [uniform((3, 4), -2.0, 2.0, seed=8),
                                  uniform((3, 4), -1.0, 1.0, seed=9)],
        lambda t, a, low: t.clamp(a, min=low)),
    row("clamp_tensor_bounds_crossed", [uniform((3, 4), -2.0, 2.0, seed=8),
                                        uniform((3, 4), 0.5, 1.0, seed=9),
                                        uniform((3, 4), -1.0, 0.0, seed=10)],
        lambda t, a, low, high: a.clamp(low, high)),
    row("max_dim_ties", [np.array([[3.0, 3.0, 1.0], [2.0, 5.0, 5.0]])], lambda t, a: a.max(1)),
    row("min_dim_ties", [np.array([[3.0, 1.0, 1.0], [0.0, 5.0, 0.0]])], lambda t, a: a.min(1)),
    row("sqrt_at_zero", [np.array([0.0, 1.0, 4.0])], lambda t, a: a.sqrt()),
    row("pow_tensor_base_zero", [np.array([0.0, 1.0, 2.0]), np.array([2.0, 0.5, 1.0])],
        lambda t, a, b: a**b),
    # special points: first derivatives, then (rows "*_2nd") double backward as well
    row("pow_tensor_zero_exponent_at_zero", [np.array([0.0, 2.0]), np.array([0.0, 0.0])],
        lambda t, a, b: a**b, double_backward=False),
    row("rpow_zero_base", [np.array([0.0, 2.0])], lambda t, a: 0.0**a, double_backward=False),
    row("pow_tensor_zero_base", [np.array([0.0, 0.0]), np.array([0.0, 2.0])],
        lambda t, a, b: a**b, double_backward=False),
    row("std_of_constant", [np.array([1.0, 1.0, 1.0])], lambda t, a: a.std(),
        double_backward=False),
    row("std_dim_of_constant_row", [np.array([[1.0, 1.0], [1.0, 2.0]])], lambda t, a: a.std(1),
        double_backward=False),
    row("var_of_one_element", [np.array([1.5])], lambda t, a: a.var(), double_backward=False),
    row("pow_tensor_zero_exponent_at_zero_2nd", [np.array([0.0, 2.0]), np.array([0.0, 0.0])],
        lambda t, a, b: a**b),
    row("rpow_zero_base_2nd", [np.array([0.0, 2.0])], lambda t, a: 0.0**a),
    row("pow_tensor_zero_base_2nd", [np.array([0.0, 0.0]), np.array([0.0, 2.0])],
        lambda t, a, b: a**b),
    row("std_of_constant_2nd", [np.array([1.0, 1.0, 1.0])], lambda t, a: a.std()),
    row("var_of_one_element_2nd", [np.array([1.5])], lambda t, a: a.var()),
    # ---- logsumexp and norms ----
    row("logsumexp", [(3, 4)], lambda t, a: a.logsumexp(1)),
    row("logsumexp_keepdim", [(3, 4)], lambda t, a: a.logsumexp(0, keepdim=True)),
    row("logsumexp_dims", [(2, 3, 4)], lambda t, a: t.logsumexp(a, (0, 2))),
    row("logsumexp_large", [np.array([[1000.0, 1001.0], [-1000.0, -1002.0]])],
        lambda t, a: a.logsumexp(-1)),
    row("logsumexp_minus_inf", [np.array([[-np.inf, -np.inf], [-np.inf, 1.0]])],
        lambda t, a: a.logsumexp(1), grad=False),
    row("logsumexp_ints", [INTS], lambda t, a: a.logsumexp(1)),
    row("norm", [(3, 4)], lambda t, a: a.norm()),
    row("norm_fn_fro", [(3, 4)], lambda t, a: t.norm(a, "fro")),
    row("norm_dim", [(3, 4)], lambda t, a: a.norm(dim=1)),
    row("norm_fro_dims_keepdim", [(2, 3, 4)], lambda t, a: a.norm("fro", dim=(0, 2), keepdim=True)),
    row("norm_1", [(3, 4)], lambda t, a: a.norm(1, dim=0)),
    row("norm_3", [(3, 4)], lambda t, a: a.norm(3)),
    row("norm_1_5", [(3, 4)], lambda t, a: a.norm(1.5, 1)),
    row("norm_half", [(3, 4)], lambda t, a: a.norm(0.5, dim=1)),
    row("norm_0", [(3, 4)], lambda t, a: a.norm(0) + a.sum()),
    row("norm_inf", [(3, 4)], lambda t, a: a.norm(float("inf"), dim=1)),
    row("norm_minus_inf", [(3, 4)], lambda t, a: t.norm(a, -float("inf"))),
    row("norm_inf_ties", [np.array([[2.0, -2.0, 1.0], [0.5, 1.0, -1.0]])],
        lambda t, a: a.norm(float("inf"), dim=1)),
    row("norm_of_zeros", [np.array([[0.0, 0.0], [1.0, 2.0]])], lambda t, a: a.norm(dim=1)),
    row("norm_3_of_zeros", [np.array([[0.0, 0.0], [1.0, 2.0]])], lambda t, a: a.norm(3, dim=1)),
    row("vector_norm", [(3, 4)], lambda t, a: t.linalg.vector_norm(a)),
    row("vector_norm_ord_dim", [(3, 4)], lambda t, a: t.linalg.vector_norm(a, 4, -1, True)),
    row("vector_norm_0d", [()], lambda t, a: t.linalg.vector_norm(a, ord=1)),
    # ---- gather and sort ----
    row("gather", [(3, 4), NoGrad(np.array([[0, 3], [1, 1], [2, 0]]))],
        lambda t, a, i: a.gather(1, i)),
    row("gather_dim0_fn", [(3, 4), NoGrad(np.array([[2, 0, 1, 2]]))],
        lambda t, a, i: t.gather(a, 0, i)),
    row("gather_longer_index", [(3, 4), NoGrad(np.array([[0, 3, 3, 1, 0, 2]] * 2))],
        lambda t, a, i: a.gather(-1, i)),
    row("sort", [(3, 4)], lambda t, a: a.sort()),
    row("sort_dim0_descending", [(3, 4)], lambda t, a: t.sort(a, 0, True)),
    row("sort_ties_stable", [np.array([[2.0, 1.0, 2.0, 1.0, 0.5]])],
        lambda t, a: a.sort(stable=True, descending=True)),
    row("sort_ties_ascending", [np.array([[2.0, 1.0, 2.0, 1.0, 0.5]])],
        lambda t, a: t.sort(a, stable=True)),
    row("sort_nan", [np.array([1.0, np.nan, -1.0])], lambda t, a: (a.sort(), a.sort(0, True))[1],
        grad=False),
    row("sort_0d", [()], lambda t, a: a.sort()),
    row("index_alias", [(3, 4), ()], lambda t, a, b: a[...] + b[()] + a[:]),
    row("sort_ints", [INTS], lambda t, a: a.sort(1, descending=True)),
    # ---- matrix products ----
    row("mm", [(3, 4), (4, 5)], lambda t, a, b: a.mm(b)),
    row("mm_fn", [(3, 4), (4, 5)], lambda t, a, b: t.mm(a, b)),
    row("matmul_2d", [(3, 4), (4, 5)], lambda t, a, b: a @ b),
    row("matmul_fn", [(3, 4), (4, 5)], lambda t, a, b: t.matmul(a, b)),
    row("matmul_dot", [(4,), (4,)], lambda t, a, b: a @ b),
    row("matmul_mv", [(3, 4), (4,)], lambda t, a, b: a @ b),
    row("matmul_vm", [(4,), (4, 5)], lambda t, a, b: a @ b),
    row("matmul_batched", [(2, 3, 4), (2, 4, 5)], lambda t, a, b: a @ b),
    row("matmul_batched_broadcast", [(2, 3, 4), (4, 5)], lambda t, a, b: a @ b),
    row("matmul_batched_broadcast_left", [(3, 4), (2, 4, 5)], lambda t, a, b: a @ b),
    row("matmul_batched_vector", [(2, 3, 4), (4,)], lambda t, a, b: a @ b),
    row("matmul_4d", [(2, 1, 3, 4), (3, 4, 2)], lambda t, a, b: a @ b),
    row("matmul_4d_both_expand", [(2, 2, 3, 4), (2, 1, 4, 5)], lambda t, a, b: a @ b),
    row("matmul_vector_batched", [(4,), (2, 4, 5)], lambda t, a, b: a @ b),
    row("matmul_batch_of_one_right", [(2, 3, 4), (1, 4, 5)], lambda t, a, b: a @ b),
    row("matmul_batch_of_one_left", [(1, 3, 4), (2, 4, 5)], lambda t, a, b: a @ b),
    row("matmul_matrix_batched_3d", [(3, 4), (2, 3, 4, 5)], lambda t, a, b: t.matmul(a, b)),
    row("bmm", [(2, 3, 4), (2, 4, 5)], lambda t, a, b: a.bmm(b)),
    row("bmm_fn", [(2, 3, 4), (2, 4, 5)], lambda t, a, b: t.bmm(a, b)),
    row("matmul_self", [(3, 3)], lambda t, a: a @ a),
    row("matmul_transpose", [(3, 4)], lambda t, a: a @ a.T),
    # ---- shapes ----
    row("reshape", [(3, 4)], lambda t, a: a.reshape(2, 6)),
    row("reshape_tuple_infer", [(3, 4)], lambda t, a: a.reshape((-1, 3))),
    row("reshape_fn", [(3, 4)], lambda t, a: t.reshape(a, (12,))),
    row("reshape_non_contiguous", [(3, 4)], lambda t, a: a.t().reshape(12)),
    row("reshape_permuted", [(2, 3, 4)], lambda t, a: a.permute(2, 0, 1).reshape(4, 6)),
    row("view", [(3, 4)], lambda t, a: a.view(4, 3)),
    row("view_infer", [(2, 3, 4)], lambda t, a: a.view(-1, 4)),
    row("flatten", [(2, 3, 4)], lambda t, a: a.flatten()),
    row("flatten_start", [(2, 3, 4)], lambda t, a: a.flatten(1)),
    row("flatten_fn", [(2, 3, 4)], lambda t, a: t.flatten(a, 0, 1)),
    row("flatten_0d", [()], lambda t, a: a.flatten()),
    row("flatten_one_dim", [(2, 3, 4)], lambda t, a: a.flatten(1, 1) * 2),
    row("unflatten", [(3, 4)], lambda t, a: a.unflatten(1, (2, 2))),
    row("unflatten_infer", [(3, 4)], lambda t, a: a.t().unflatten(-1, (-1, 1))),
    row("unflatten_fn", [(2, 6)], lambda t, a: t.unflatten(a, 1, [3, 2])),
    row("squeeze", [(3, 1, 4, 1)], lambda t, a: a.squeeze()),
    row("squeeze_dim", [(3, 1, 4)], lambda t, a: a.squeeze(1)),
    row("squeeze_dim_neg", [(3, 4, 1)], lambda t, a: a.squeeze(-1)),
    row("squeeze_dim_not_1", [(3, 4)], lambda t, a: a.squeeze(0)),
    row("unsqueeze", [(3, 4)], lambda t, a: a.unsqueeze(0)),
    row("unsqueeze_neg", [(3, 4)], lambda t, a: a.unsqueeze(-1)),
    row("unsqueeze_fn", [(3, 4)], lambda t, a: t.unsqueeze(a, 1)),
    row("transpose", [(2, 3, 4)], lambda t, a: a.transpose(0, 2)),
    row("transpose_neg", [(2, 3, 4)], lambda t, a: a.transpose(-1, -2)),
    row("transpose_fn", [(3, 4)], lambda t, a: t.transpose(a, 0, 1)),
    row("t", [(3, 4)], lambda t, a: a.t()),
    row("t_1d", [(4,)], lambda t, a: a.t()),
    row("T", [(3, 4)], lambda t, a: a.T),
    row("permute", [(2, 3, 4)], lambda t, a: a.permute(2, 0, 1)),
    row("permute_tuple_neg", [(2, 3, 4)], lambda t, a: a.permute((-1, 0, 1))),
    row("expand", [(3, 1)], lambda t, a: a.expand(3, 4)),
    row("expand_new_dims", [(1, 4)], lambda t, a: a.expand(2, 3, 4)),
    row("expand_minus_one", [(3, 1)], lambda t, a: a.expand(-1, 5)),
    row("expand_as", [(3, 1), (3, 4)], lambda t, a, b: a.expand_as(b) * b),
    row("view_then_mul", [(3, 4), (4, 3)], lambda t, a, b: a.view(4, 3) * b),
    # ---- indexing ----
    row("index_int", [(3, 4)], lambda t, a: a[1]),
    row("index_neg_int", [(3, 4)], lambda t, a: a[-1]),
    row("index_two_ints", [(3, 4)], lambda t, a: a[1, 2]),
    row("index_slice", [(3, 4)], lambda t, a: a[1:3]),
    row("index_slice_step", [(5, 4)], lambda t, a: a[::2]),
    row("index_column", [(3, 4)], lambda t, a: a[:, 1]),
    row("index_column_slice", [(3, 4)], lambda t, a: a[:, 1:3]),
    row("index_ellipsis", [(2, 3, 4)], lambda t, a: a[..., 0]),
    row("index_none", [(3, 4)], lambda t, a: a[None]),
    row("index_list", [(3, 4)], lambda t, a: a[[0, 2]]),
    row("index_list_repeated", [(3, 4)], lambda t, a: a[[0, 2, 0]]),
    row("index_long_tensor", [(3, 4), INDEX], lambda t, a, i: a[i]),
    row("index_mask", [(3, 4), MASK], lambda t, a, m: a[m]),
    row("index_mask_from_compare", [(3, 4)], lambda t, a: a[a > 0]),
    row("index_row_mask", [(3, 4)], lambda t, a: a[t.tensor([True, False, True])]),
    row("index_pairs", [(3, 4), INDEX], lambda t, a, i: a[i, t.arange(3)]),
    row("index_slice_then_int", [(3, 4)], lambda t, a: a[1:, 0]),
    row("iterate", [(3, 4)], lambda t, a: tuple(a)),
    # ---- joining ----
    row("cat", [(2, 4), (3, 4)], lambda t, a, b: t.cat([a, b])),
    row("cat_dim1", [(3, 2), (3, 4)], lambda t, a, b: t.cat([a, b], dim=1)),
    row("cat_dim_neg", [(3, 2), (3, 4), (3, 1)], lambda t, a, b, c: t.cat((a, b, c), -1)),
    row("cat_same_twice", [(2, 3)], lambda t, a: t.cat([a, a * 2, a])),
    row("cat_with_constant", [(2, 3), NoGrad(np.ones((1, 3)))], lambda t, a, b: t.cat([a, b])),
    row("cat_mixed_dtypes", [(2, 3), (1, 3)],
        lambda t, a, b: t.cat([a.float(), b.double()]), **MIXED),
    row("cat_int_and_float", [(2, 3), NoGrad(np.ones((1, 3), dtype=np.int64))],
        lambda t, a, b: t.cat([a, b])),
    row("stack", [(3, 4), (3, 4)], lambda t, a, b: t.stack([a, b])),
    row("stack_dim1", [(3, 4), (3, 4)], lambda t, a, b: t.stack([a, b], dim=1)),
    row("stack_dim_neg", [(3, 4), (3, 4), (3, 4)], lambda t, a, b, c: t.stack([a, b, c], -1)),
    row("stack_0d", [(), ()], lambda t, a, b: t.stack([a, b])),
    row("stack_mixed_dtypes", [(3,), (3,)],
        lambda t, a, b: t.stack([a.float(), b.double()]), **MIXED),
    # ---- softmax and losses ----
    row("softmax", [(3, 4)], lambda t, a: a.softmax(-1)),
    row("softmax_dim0", [(3, 4)], lambda t, a: t.softmax(a, dim=0)),
    row("softmax_3d", [(2, 3, 4)], lambda t, a: a.softmax(1)),
    row("log_softmax", [(3, 4)], lambda t, a: a.log_softmax(dim=1)),
    row("log_softmax_dim0", [(3, 4)], lambda t, a: t.log_softmax(a, 0)),
    row("F_relu", [(3, 4)], lambda t, a: t.nn.functional.relu(a)),
    row("F_softmax", [(3, 4)], lambda t, a: t.nn.functional.softmax(a, dim=1)),
    row("F_log_softmax", [(3, 4)], lambda t, a: t.nn.functional.log_softmax(a, dim=-1)),
    # dtype=: the input cast first (ToCopyBackward0 under the softmax), the result float64.
    row("softmax_dtype", [(3, 4)], lambda t, a: a.softmax(1, dtype=t.float64)),
    row("log_softmax_dtype", [(3, 4)], lambda t, a: t.log_softmax(a, 0, dtype=t.float64)),
    row("F_softmax_dtype", [(3, 4)],
        lambda t, a: t.nn.functional.softmax(a, dim=1, dtype=t.float64)),
    row("F_softmax_implicit_dim_3d", [(2, 3, 4)],
        lambda t, a: _implicit(t.nn.functional.softmax, a)),
    row("F_softmax_implicit_dim_2d", [(3, 4)], lambda t, a: _implicit(t.nn.functional.softmax, a)),
    row("F_log_softmax_implicit_dim_1d", [(4,)],
        lambda t, a: _implicit(t.nn.functional.log_softmax, a)),
    row("Softmax_module_implicit_dim", [(2, 3, 4)], lambda t, a: _implicit(t.nn.Softmax(), a)),
    row("F_mse_loss", [(3, 4), (3, 4)], lambda t, a, b: t.nn.functional.mse_loss(a, b)),
    row("F_mse_loss_sum", [(3, 4), (3, 4)],
        lambda t, a, b: t.nn.functional.mse_loss(a, b, reduction="sum")),
    row("F_mse_loss_none", [(3, 4), (3, 4)],
        lambda t, a, b: t.nn.functional.mse_loss(a, b, reduction="none")),
    row("F_mse_loss_const_target", [(3, 4), NoGrad(np.ones((3, 4)))],
        lambda t, a, b: t.nn.functional.mse_loss(a, b)),
    row("F_mse_loss_mixed_dtypes", [(3, 4), (3, 4)],
        lambda t, a, b: t.nn.functional.mse_loss(a.float(), b.double()),
        changed="mse_loss_mixed_dtypes", **MIXED),
    row("F_bce_with_logits", [(3, 4), PROBS], lambda t, a, y: _bce(t, a, y)),
    row("F_bce_with_logits_sum", [(3, 4), NoGrad(PROBS)],
        lambda t, a, y: _bce(t, a, y, reduction="sum")),
    row("F_bce_with_logits_none", [(3, 4), PROBS], lambda t, a, y: _bce(t, a, y, reduction="none")),
    row("F_bce_with_logits_weights", [(3, 4), PROBS, NoGrad(POS_ROW), NoGrad(POS_ROW[::-1].copy())],
        lambda t, a, y, w, pw: _bce(t, a, y, weight=w, pos_weight=pw)),
    row("F_bce_with_logits_pos_weight_none", [(3, 4), PROBS, NoGrad(POS_ROW)],
        lambda t, a, y, pw: _bce(t, a, y, reduction="none", pos_weight=pw)),
    row("F_bce_with_logits_large_logits", [LARGE_LOGITS, NoGrad(PROBS), NoGrad(POS_ROW)],
        lambda t, a, y, pw: _bce(t, a, y, pos_weight=pw)),
    row("BCEWithLogitsLoss_module", [(3, 4), NoGrad(PROBS), NoGrad(POS_ROW)],
        lambda t, a, y, pw: t.nn.BCEWithLogitsLoss(pos_weight=pw, reduction="sum")(a, y)),
    row("F_cross_entropy", [(3, 4), TARGET], lambda t, a, y: t.nn.functional.cross_entropy(a, y)),
    row("F_cross_entropy_sum", [(3, 4), TARGET],
        lambda t, a, y: t.nn.functional.cross_entropy(a, y, reduction="sum")),
    row("F_cross_entropy_none", [(3, 4), TARGET],
        lambda t, a, y: t.nn.functional.cross_entropy(a, y, reduction="none")),
    row("F_cross_entropy_1d", [(4,), NoGrad(np.array(2))],
        lambda t, a, y: t.nn.functional.cross_entropy(a, y)),
    # ---- embedding lookup and batch normalisation ----
    row("F_embedding", [(5, 3), LOOKUP], lambda t, w, i: t.nn.functional.embedding(i, w)),
    row("F_embedding_padding", [(5, 3), LOOKUP],
        lambda t, w, i: t.nn.functional.embedding(i, w, padding_idx=-3)),
    row("F_batch_norm_train", [(4, 3), POS_ROW[:3], (3,)],
        lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b, training=True)),
    row("F_batch_norm_train_3d", [(4, 3, 2), (3,), (3,)],
        lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b, training=True)),
    row("F_batch_norm_train_no_affine", [(5, 2)],
        lambda t, x: t.nn.functional.batch_norm(x, None, None, training=True, eps=0.1)),
    row("F_batch_norm_eval", [(4, 3), (3,), (3,), NoGrad(np.array([0.5, -1.0, 2.0])),
                              NoGrad(POS_ROW[:3])],
        lambda t, x, w, b, m, v: t.nn.functional.batch_norm(x, m.clone(), v.clone(), w, b)),
    row("F_batch_norm_running_stats", [(4, 3), NoGrad(np.array([0.5, -1.0, 2.0])),
                              NoGrad(POS_ROW[:3])],
        lambda t, x, m, v: _running_stats(t, x, m.clone(), v.clone())),
    # ---- copies, conversions, comparisons ----
    row("clone", [(3, 4)], lambda t, a: a.clone()),
    row("clone_fn", [(3, 4)], lambda t, a: t.clone(a)),
    row("contiguous_of_transpose", [(3, 4)], lambda t, a: a.t().contiguous().view(12)),
    row("contiguous_already", [(3, 4)], lambda t, a: (a * 2).contiguous()),
    row("to_same_dtype", [(3, 4)], lambda t, a: a.to(a.dtype) * 1),
    row("double", [(3, 4)], lambda t, a: a.float().double()),
    row("to_float32", [(3, 4)], lambda t, a: a.to(t.float32)),
    row("detach", [(3, 4)], lambda t, a: a.detach() * a),
    row("lt", [(3, 4), (3, 4)], lambda t, a, b: a < b),
    row("ge_number", [(3, 4)], lambda t, a: a >= 0),
    row("eq_broadcast", [INTS, NoGrad(np.array([0, 1, 2, 3]))], lambda t, a, b: a == b),
    row("ne_fn", [(3, 4), (3, 4)], lambda t, a, b: t.ne(a, b)),
    row("gt_int_float", [INTS, (3, 4)], lambda t, a, b: a > b),
    row("mask_times", [(3, 4)], lambda t, a: a * (a > 0)),
    row("logical_not", [INTS, (3, 4)], lambda t, a, b: (a.logical_not(), (b > 0).logical_not(),
                                                        (b * 0).logical_not())),
    row("bitwise_not", [INTS, BOOLS], lambda t, a, m: (~a, ~m, t.bitwise_not(a), m.bitwise_not())),
    row("isclose", [(3, 4), (3, 4)], lambda t, a, b: a.isclose(a + 1e-9) & ~t.isclose(a, b)),
    row("isclose_tolerances", [NoGrad(np.array([1.0, np.nan, np.inf, -np.inf, 1.0])),
                               NoGrad(np.array([1.1, np.nan, np.inf, np.inf, 1.0 + 1e-6]))],
        lambda t, a, b: t.stack([a.isclose(b, rtol=0.2), t.isclose(a, b, atol=0, rtol=0),
                                 a.isclose(b, equal_nan=True)])),
    row("isclose_broadcast_ints", [INTS, NoGrad(np.array([0, 1, 2, 3]))],
        lambda t, a, b: t.isclose(a, b)),
    # ---- in place on non-leaves (recorded in the graph) ----
    row("add_", [(3, 4), (3, 4)], lambda t, a, b: (a * 1).add_(b)),
    row("iadd", [(3, 4), (4,)], lambda t, a, b: _iadd(a.clone(), b)),
    row("sub_", [(3, 4), (3, 4)], lambda t, a, b: (a * 1).sub_(b)),
    row("isub_number", [(3, 4)], lambda t, a: _isub(a.clone(), 2.0)),
    row("mul_", [(3, 4), (3, 4)], lambda t, a, b: a.clone().mul_(b)),
    row("mul_number_", [(3, 4)], lambda t, a: a.sin().mul_(3)),
    row("div_", [(3, 4), NONZERO], lambda t, a, b: a.clone().div_(b)),
    row("clamp_", [(3, 4)], lambda t, a: a.clone().clamp_(-0.5, 0.5)),
    row("clamp_min_", [(3, 4)], lambda t, a: a.clone().clamp_(min=0)),
    row("zero_", [(3, 4), (3, 4)], lambda t, a, b: (a * 1).zero_() + b),
    row("copy_", [(3, 4), (4,)], lambda t, a, b: (a * 2).copy_(b) * a),
    # each unary op's in-place form, as a method and (where torch has one) a function
    row("sin_cos_", [(3, 4)], lambda t, a: a.clone().sin_() + t.cos_(a * 2)),
    row("reciprocal_", [NONZERO], lambda t, a: a.clone().reciprocal_() + t.reciprocal_(a * 2)),
    row("sign_round_floor_ceil_", [(3, 4)],
        lambda t, a: a.clone().sign_() + t.round_(a * 2) + (a * 3).floor_() + t.ceil_(a * 4)),
    row("clip_clamp_min_", [(3, 4)],
        lambda t, a: a.clone().clip_(-0.5, 0.5) + t.clip_(a * 2, max=1.0) +
        (a * 3).clamp_min_(0.25) + t.clamp_min_(a * 4, -1.0)),
    row("add_then_use", [(3, 4)], lambda t, a: _add_then_use(a)),
    # ---- table names once without a row of their own ----
    row("sign", [(3, 4)], lambda t, a: a.sign() * a + t.sign(a)),
    row("reciprocal", [NONZERO], lambda t, a: a.reciprocal() + t.reciprocal(a * 2)),
    row("clip", [(3, 4)], lambda t, a: a.clip(-0.5, 0.5) + t.clip(a, min=0.0)),
    row("mv", [(3, 4), (4,)], lambda t, a, b: a.mv(b) + t.mv(a, b * 2)),
    row("view_as", [(3, 4), (4, 3)], lambda t, a, b: a.view_as(b) * b),
    row("reshape_as", [(3, 4), (2, 6)], lambda t, a, b: a.T.reshape_as(b) * b),
    row("logical_xor", [BOOLS, MASK, (3, 4)],
        lambda t, a, b, c: (a.logical_xor(b), a ^ b, (c > 0).logical_xor(c < 0.5), c * 1)),
    row("rmatmul", [(3, 4), (4, 5)], lambda t, a, b: b.__rmatmul__(a)),
    row("sum_to_size", [(3, 4)], lambda t, a: (a.sum_to_size(1, 4), a.sum_to_size((3, 1)))),
    row("rtruediv", [NONZERO], lambda t, a: a.__rtruediv__(3.0) + 2 / a),
    row("le", [(3, 4), (3, 4)], lambda t, a, b: (a <= b, t.le(a, 0.5), a.le(b))),
    row("logical_and", [BOOLS, MASK, (3, 4)],
        lambda t, a, b, c: (a.logical_and(b), a & b, (c > 0).logical_and(c < 1))),
    row("logical_or", [BOOLS, MASK, (3, 4)],
        lambda t, a, b, c: (a.logical_or(b), a | b, (c > 0).logical_or(c < -1))),
    row("any", [BOOLS, (3, 4)], lambda t, a, b: (a.any(), t.any(b > 0, 1), (b > 5).any())),
    row("all", [BOOLS, (3, 4)],
        lambda t, a, b: (a.all(0), t.all(b > -5), (b > 0).all(1, True))),
    row("allclose", [(3, 4), (3, 4)],
        lambda t, a, b: (a.allclose(a + 1e-9), t.allclose(a, b), a.allclose(b, atol=10.0))),
    row("equal", [(3, 4), (3, 4)], lambda t, a, b: (a.equal(a * 1), t.equal(a, b))),
    row("argmax", [(3, 4)], lambda t, a: (a.argmax(), t.argmax(a, 1), a.argmax(0, True))),
    row("argmin", [(3, 4)], lambda t, a: (a.argmin(), t.argmin(a, dim=0, keepdim=True))),
    row("histogram", [(3, 4)], lambda t, a: a.detach().histogram(5) + t.histogram(a.detach(), 3)),
    row("histc", [(3, 4)], lambda t, a: (t.histc(a.detach(), 4, -1.0, 1.0), a.detach().histc())),
    row("unbind", [(3, 4)], lambda t, a: a.unbind(1) + t.unbind(a)),
    row("split", [(5, 4)], lambda t, a: a.split(2) + t.split(a, 3, dim=1)),
    row("split_sizes", [(5, 4)], lambda t, a: a.split([1, 4]) + t.split(a, (1, 3), dim=1)),
    row("chunk", [(5, 4)], lambda t, a: a.chunk(2) + t.chunk(a, 3, dim=1)),
    row("concat", [(2, 4), (3, 4)], lambda t, a, b: t.concat([a, b]) * 2),
    row("numel", [(3, 4)], lambda t, a: a * a.numel() - t.numel(a[0])),
    row("dot", [(4,), (4,)], lambda t, a, b: a.dot(b) + t.dot(a, b * 2)),
    row("addmm", [(5,), (3, 4), (4, 5)], lambda t, c, a, b: t.addmm(c, a, b)),
    row("setitem", [(3, 4), (4,)], lambda t, a, b: _setitem(a * 1, b)),
    row("fill_", [(3, 4)], lambda t, a: (a * 1).fill_(2.5) * a + t.ones_like(a).fill_(-1.0)),
    row("uniform_", [(3, 4)], lambda t, a: _random_fill(t, a, "uniform_", -1.0, 2.0)),
    row("normal_", [(3, 4)], lambda t, a: _random_fill(t, a, "normal_", 0.5, 2.0)),
    # ---- chains: shared subexpressions and several paths ----
    row("torch_tensor_inputs", [torch.tensor([[1.0, -2.0]], requires_grad=True),
                                torch.tensor([3.0, 0.5])], lambda t, a, b: (a * b).exp()),
    row("chain_tanh_linear", [(5, 3), (3, 2), (2,)], lambda t, x, w, b: (x @ w + b).tanh()),
    row("chain_diamond", [(3, 4)], lambda t, a: a.exp() * a.sin() + a),
    row("chain_mlp_loss", [(4, 3), (3, 5), (5,), NoGrad(np.array([0, 4, 2, 1]))],
        lambda t, x, w, b, y: t.nn.functional.cross_entropy((x @ w + b).relu(), y)),
    row("chain_normalize", [(3, 4)],
        lambda t, a: (a - a.mean(1, keepdim=True)) / a.std(1, True, True)),
]


def _implicit(softmax, a):
    """softmax without dim: torch picks one (and warns that the choice is deprecated)."""
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        return softmax(a)


def _iadd(a, b):
    a += b
    return a


def _bce(t, a, y, **options):
    return t.nn.functional.binary_cross_entropy_with_logits(a, y, **options)


def _isub(a, b):
    a -= b
    return a


def _running_stats(t, x, mean, var):
    """Batch norm in training, with running statistics: the output, then both statistics
    updated in place (momentum 0.3: new = 0.3 * batch's + 0.7 * old)."""
    out = t.nn.functional.batch_norm(x, mean, var, training=True, momentum=0.3)
    return out, mean, var


def _setitem(a, b):
    """Writes into a non-leaf: a row from a tensor, a column from a number (CopySlices)."""
    a[1] = b
    a[:, 0] = 7.0
    return a


def _random_fill(t, a, name, *params):
    """uniform_ and normal_ draw torch's numbers after the same seed: on a tensor with a
    history (a node whose gradient is zero), and on a constant."""
    t.manual_seed(0)
    return getattr(a * 1, name)(*params) * a + getattr(t.zeros_like(a), name)()


def _add_then_use(a):
    b = a * 2
    c = b * 3  # saves nothing of b
    b.add_(1)
    return c + b


def test_every_table_name_has_a_row():
    """A row is named after the table line it checks: its name, or its name and a suffix."""
    names = [param.id for param in OPS]
    missing = [entry.name for entry in TABLE
               if not any(n == entry.name or n.startswith(entry.name + "_") for n in names)]
    assert not missing, f"op table names with no row in OPS: {missing}"


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("inputs", "fn", "options"), OPS)
def test_op(inputs, fn, options, dtype, device):
    check_op(inputs, fn, dtype=dtype, device=device, **options)


