"""Edge cases of the newer ops, each against torch: an empty inner dimension, torch's overload
choice, empty reductions, keyword-only options and deprecated positional arguments."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import miniautograd as mini

CASES = {
    # [3, 5, 0] @ [0, 2] folds into one mm: the row count must not be inferred from a 0.
    "batch @ matrix, inner size 0": lambda t: (
        t.ones(3, 5, 0, requires_grad=True) @ t.ones(0, 2, requires_grad=True)),
    # Any ``stable=`` selects torch's other overload, SortBackward1, even stable=False.
    "sort(stable=False)": lambda t: t.tensor([3.0, 1.0, 2.0], requires_grad=True).sort(
        stable=False).values,
    "sort()": lambda t: t.tensor([3.0, 1.0, 2.0], requires_grad=True).sort().values,
    # The inf norm is only undefined when a reduced dimension is empty.
    "vector_norm(inf) over a non-empty dim": lambda t: t.linalg.vector_norm(
        t.zeros(2, 0, requires_grad=True), ord=float("inf"), dim=0),
    "round_(decimals=1)": lambda t: t.tensor([1.55, -2.55, 0.25]).round_(decimals=1),
    "round(decimals=-1)": lambda t: t.tensor([15.0, -25.0, 149.0]).round(decimals=-1),
    # reduction in its own position, after torch's deprecated size_average and reduce
    "bce_with_logits(x, y, None, None, None, 'sum')": lambda t: (
        t.nn.functional.binary_cross_entropy_with_logits(
            t.tensor([0.5, -1.0]), t.tensor([1.0, 0.0]), None, None, None, "sum")),
}


def _described(value: Any) -> tuple:
    node = value.grad_fn.name() if value.grad_fn is not None else None
    return tuple(value.shape), node, np.round(value.detach().numpy(), 6).tolist()


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_case_as_in_torch(name):
    assert _described(CASES[name](mini)) == _described(CASES[name](torch))


def test_inf_norm_over_an_empty_dim_raises_as_in_torch():
    for t in (torch, mini):
        with pytest.raises(RuntimeError, match="cannot compute the inf norm"):
            t.linalg.vector_norm(t.zeros(2, 0), ord=float("inf"), dim=1)
