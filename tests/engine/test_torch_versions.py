"""The rows of companion/README.md's "torch across versions" table (torch_versions.CHANGES).
On every supported torch (make test runs them on the pinned one, Colab's and the newest),
miniautograd behaves as the pinned release does, and torch as its own release does."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch_versions import CHANGES, PINNED, table_row

import miniautograd as mini

README = Path(__file__).resolve().parents[2] / "companion" / "README.md"


def sides(name: str) -> list[Any]:
    """(engine, whether it has the new behaviour): miniautograd that of the pinned release,
    torch that of its own."""
    change = CHANGES[name]
    return [pytest.param(mini, change.applies(PINNED), id="miniautograd"),
            pytest.param(torch, change.applies(), id="torch")]


def test_the_table_lists_every_change_with_its_test() -> None:
    """Each change has its test here and its row in companion/README.md, and the README's
    table has no other row."""
    tests = {name for name in globals() if name.startswith("test_")}
    assert {change.test for change in CHANGES.values()} <= tests
    readme = README.read_text()
    table = readme[readme.index("## torch across versions"):]
    table = table[:table.index("\n## ")]
    rows = [line for line in table.splitlines() if re.match(r"\| \d+\.\d+ \|", line)]
    assert rows == [table_row(change) for change in CHANGES.values()]


@pytest.mark.parametrize(("t", "new"), sides("uniform_upper_bound"))
def test_uniform_of_a_one_float_interval(t: Any, new: bool) -> None:
    for dtype in (t.float32, t.float64):
        low = 1.0
        high = float(np.nextafter(np.ones((), np.dtype(str(dtype).split(".")[-1])), 2))
        t.manual_seed(0)
        values = t.empty(1000, dtype=dtype).uniform_(low, high).numpy()
        assert (values == low).all() if new else (values == high).any()


@pytest.mark.parametrize(("t", "new"), sides("mse_loss_mixed_dtypes"))
def test_mse_loss_of_two_dtypes(t: Any, new: bool) -> None:
    a = t.ones(3, requires_grad=True)
    b = t.zeros(3, dtype=t.float64, requires_grad=True)
    loss = t.nn.functional.mse_loss(a, b)
    if new:
        loss.backward()
        np.testing.assert_allclose(a.grad.numpy(), 2 / 3)
    else:
        with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
            loss.backward()


@pytest.mark.parametrize(("t", "new"), sides("batch_norm_repr"))
def test_batch_norm_repr(t: Any, new: bool) -> None:
    assert ("bias=True" in repr(t.nn.BatchNorm1d(3))) == new


@pytest.mark.parametrize(("t", "new"), sides("inplace_error_node"))
def test_inplace_error_names_the_operation(t: Any, new: bool) -> None:
    y = t.ones(3, requires_grad=True).sigmoid()
    y.add_(1)
    name = "Sigmoid" if new else "SigmoidBackward0"
    with pytest.raises(RuntimeError, match=rf"which is output 0 of {name}, is at version 1"):
        y.sum().backward()


@pytest.mark.parametrize(("t", "new"), sides("unused_input_index"))
def test_unused_input_is_named_by_its_index(t: Any, new: bool) -> None:
    a, b = t.ones(2, requires_grad=True), t.ones(2, requires_grad=True)
    message = ("The differentiated Tensor at index 1 appears" if new
               else "One of the differentiated Tensors appears")
    with pytest.raises(RuntimeError, match=message):
        t.autograd.grad((a * 2).sum(), [a, b])


@pytest.mark.parametrize(("t", "new"), sides("function_node_name"))
def test_name_of_a_function_s_node(t: Any, new: bool) -> None:
    class Cube(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x**3

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = t.ones(2, requires_grad=True)
    held = Cube.apply(x)
    assert held.grad_fn.name() == "CubeBackward"  # every release, while the output lives
    node = Cube.apply(x).grad_fn  # the output is freed at once
    assert type(node).__name__ == "CubeBackward"
    if new:
        assert node.name() == "CubeBackward"
    else:
        with pytest.raises(RuntimeError, match="Attribute 'name' is invalid"):
            node.name()


@pytest.mark.parametrize(("t", "new"), sides("sum_axis_and_dim"))
def test_sum_of_axis_and_dim(t: Any, new: bool) -> None:
    message = ("sum() got an unexpected keyword argument 'axis'" if new
               else "sum() received an invalid combination of arguments")
    with pytest.raises(TypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        t.ones(2, 3).sum(dim=1, axis=1)


def test_normal_with_plain_kernels() -> None:
    """miniautograd gives the bits of torch's plain kernels as 2.13 computes them; before
    2.13, torch's own differ from them in the last bits only (float32 rounding)."""
    script = textwrap.dedent("""
        import json, numpy as np, torch
        from miniautograd import _random as R
        torch.manual_seed(0); R.manual_seed(0)
        ours, theirs = R.normal_(37, 0.5, 3.0), torch.empty(37).normal_(0.5, 3.0).numpy()
        relative = np.abs(ours.astype(np.float64) - theirs) / np.abs(theirs)
        print(json.dumps([int((ours != theirs).sum()), float(relative.max())]))
    """)
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300, check=True)
    differing, largest = json.loads(done.stdout)
    if CHANGES["plain_kernel_normal"].applies():
        assert differing == 0
    else:
        assert differing > 0 and largest < 1e-6


X = [-1.0, 0.0, 1.0, 2.0]  # below, at the lower bound, at the upper bound, above
LOW, HIGH = 0.0, 1.0
UPSTREAM = [1.0, 2.0, 3.0, 4.0]


def clamp_gradients(t: Any, *, tensor_bounds: bool) -> tuple[np.ndarray, ...]:
    """x.grad of x.clamp(low, high), with the bounds' gradients where they are tensors."""
    x = t.tensor(X, dtype=t.float64, requires_grad=True)
    low: Any = LOW
    high: Any = HIGH
    if tensor_bounds:
        low = t.full((4,), LOW, dtype=t.float64, requires_grad=True)
        high = t.full((4,), HIGH, dtype=t.float64, requires_grad=True)
    x.clamp(low, high).backward(t.tensor(UPSTREAM, dtype=t.float64))
    leaves = (x, low, high) if tensor_bounds else (x,)
    return tuple(leaf.grad.numpy() for leaf in leaves)


@pytest.mark.parametrize(("t", "new"), sides("clamp_scalar_bound"))
def test_clamp_at_a_number_bound(t: Any, new: bool) -> None:
    x, upstream = np.array(X), np.array(UPSTREAM)
    inside = (x > LOW) & (x < HIGH) if new else (x >= LOW) & (x <= HIGH)
    [grad] = clamp_gradients(t, tensor_bounds=False)
    np.testing.assert_array_equal(grad, np.where(inside, upstream, 0.0))


@pytest.mark.parametrize(("t", "new"), sides("clamp_tensor_bound"))
def test_clamp_at_a_tensor_bound(t: Any, new: bool) -> None:
    x, upstream = np.array(X), np.array(UPSTREAM)
    at_low, at_high, inside = x == LOW, x == HIGH, (x > LOW) & (x < HIGH)
    share = 0.5 if new else 1.0  # of a tie's gradient, to x; the rest to the bound
    expected = (np.where(inside, upstream, 0.0) + share * upstream * (at_low | at_high),
                np.where(x < LOW, upstream, 0.0) + (1 - share) * upstream * at_low,
                np.where(x > HIGH, upstream, 0.0) + (1 - share) * upstream * at_high)
    for got, want in zip(clamp_gradients(t, tensor_bounds=True), expected, strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("program", [lambda t: -t.tensor([True]),
                                     lambda t: t.tensor([True]) - t.tensor([False])],
                         ids=["negate", "subtract"])
@pytest.mark.parametrize(("t", "new"), sides("bool_minus"))
def test_minus_on_bools(t: Any, new: bool, program: Any) -> None:
    with pytest.raises(RuntimeError, match="the `-` operator") as raised:
        program(t)
    assert type(raised.value) is (NotImplementedError if new else RuntimeError)
