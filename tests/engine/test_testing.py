"""One rule for "the same result" in the learner's ``compare_with_torch`` and in the package's
own cross-checks (``check_op``, ``same_on_both``): the same tolerances, the same comparison."""

from __future__ import annotations

import numpy as np
import pytest
import torch as pytorch
from helpers import assert_same_tensor

import miniautograd as mini
from miniautograd.testing import TOLERANCES, compare_with_torch, rebound

X = [0.5, -1.25, 2.0]


def off_by(relative: float):
    """``x * 3`` on torch, and on miniautograd off by ``relative``."""

    def fn(x, torch):  # `torch`: the engine compare_with_torch passes
        scale = 3.0 * (1 + relative) if torch is mini else 3.0
        return x * scale

    return fn


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("inside", [True, False], ids=["inside", "outside"])
def test_compare_with_torch_and_the_tests_draw_the_line_at_the_same_place(dtype, inside):
    rtol, _ = TOLERANCES[np.dtype(dtype)]
    relative = rtol / 2 if inside else rtol * 2.5
    x = np.array(X, dtype=dtype)
    report = compare_with_torch(off_by(relative), x)
    assert report.passed is inside
    assert (report.rtol, report.atol) == TOLERANCES[np.dtype(dtype)]
    mine = off_by(relative)(mini.tensor(x), mini)
    theirs = off_by(relative)(pytorch.tensor(x), pytorch)
    if inside:
        assert_same_tensor(mine, theirs, "x * 3")
    else:
        with pytest.raises(AssertionError, match="x \\* 3"):
            assert_same_tensor(mine, theirs, "x * 3")


def test_compare_with_torch_reports_values_gradients_and_graph():
    report = compare_with_torch(lambda x, torch: torch.tanh(x) * x, np.array(X))
    assert report and report.same_graph
    assert [row.name for row in report.rows] == ["output", "grad input 0"]
    assert "verdict: agree (atol=1e-10, rtol=1e-07)" in repr(report)


def train_step():
    """Code written for torch, as a notebook writes it: it reads the global name `torch`."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)  # noqa: F821 (bound by the test below)
    (x * x).sum().backward()
    return x.grad


def test_rebound_runs_torch_code_on_miniautograd_and_puts_the_names_back_even_after_an_error():
    namespace = train_step.__globals__
    namespace["torch"] = pytorch
    try:
        assert isinstance(train_step(), pytorch.Tensor)
        with rebound(namespace, torch=mini):
            grad = train_step()
        assert isinstance(grad, mini.Tensor) and grad.tolist() == [2.0, 4.0]
        assert namespace["torch"] is pytorch
        with pytest.raises(ValueError), rebound(namespace, torch=mini):
            raise ValueError("an error inside the block")
        assert namespace["torch"] is pytorch
        with pytest.raises(NameError, match="not_there"), rebound(namespace, not_there=1):
            pass
        assert "not_there" not in namespace
    finally:
        del namespace["torch"]
