"""NumPy's parameter names, as torch's argument parser takes them: ``axis`` for ``dim`` and
``keepdims`` for ``keepdim``, on every method and function of the op table that has those
parameters (``x.sum(axis=1, keepdims=True)`` in makemore, ``y_hat.argmax(axis=1)`` in d2l)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from torch_versions import skip_if_changed

import miniautograd as mini
from miniautograd.ops import TABLE
from miniautograd.ops.table import NUMPY_NAMES, _parameters

# One call per table line with a dim or keepdim parameter, written with NumPy's names.
CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "all": lambda t, x: (x > 0).all(axis=1, keepdims=True),
    "any": lambda t, x: t.any(x > 2, axis=0),
    "argmax": lambda t, x: x.argmax(axis=1, keepdims=True),
    "argmin": lambda t, x: t.argmin(x, axis=0),
    "cat": lambda t, x: t.cat([x, x], axis=1),
    "chunk": lambda t, x: x.chunk(3, axis=1),
    "concat": lambda t, x: t.concat([x, x], axis=0),
    "gather": lambda t, x: x.gather(axis=1, index=t.tensor([[0, 2], [1, 1]])),
    "log_softmax": lambda t, x: x.log_softmax(axis=1),
    "logsumexp": lambda t, x: x.logsumexp(axis=1, keepdims=True),
    "max": lambda t, x: x.max(axis=1, keepdims=True).values,
    "mean": lambda t, x: t.mean(x, axis=0, keepdims=True),
    "min": lambda t, x: x.min(axis=0).values,
    "softmax": lambda t, x: t.softmax(x, axis=0),
    "sort": lambda t, x: x.sort(axis=1).values,
    "squeeze": lambda t, x: x.unsqueeze(0).squeeze(axis=0),
    "stack": lambda t, x: t.stack([x, x], axis=2),
    "std": lambda t, x: x.std(axis=1, keepdims=True),
    "sum": lambda t, x: x.sum(axis=1, keepdims=True),
    "unbind": lambda t, x: x.unbind(axis=1),
    "unflatten": lambda t, x: t.unflatten(x, axis=1, sizes=(3, 1)),
    "unsqueeze": lambda t, x: t.unsqueeze(x, axis=1),
    "var": lambda t, x: t.var(x, axis=0, keepdims=True),
}
# Bindings torch writes in Python, outside its argument parser: NumPy's names are refused.
REFUSED: dict[str, Callable[[Any, Any], Any]] = {
    "norm": lambda t, x: t.norm(x, axis=1),
    "norm method": lambda t, x: x.norm(axis=1),
    "split": lambda t, x: t.split(x, 1, axis=0),
    "split method": lambda t, x: x.split(1, axis=0),
    "unflatten method": lambda t, x: x.unflatten(axis=1, sizes=(3, 1)),
}


def test_every_table_line_with_a_dim_or_keepdim_is_called_here() -> None:
    with_names = {e.name for e in TABLE if set(NUMPY_NAMES.values()) & _parameters(e.impl)}
    assert with_names == set(CALLS) | {name.split()[0] for name in REFUSED}


@pytest.mark.parametrize("name", sorted(REFUSED))
@pytest.mark.parametrize("engine", [torch, mini], ids=["torch", "miniautograd"])
def test_where_torch_binds_in_python_numpy_names_are_refused(engine: Any, name: str) -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
        REFUSED[name](engine, engine.ones(2, 3))


def arrays(result: Any) -> list[np.ndarray]:
    results = result if isinstance(result, (tuple, list)) else (result,)
    return [np.asarray(r.detach().numpy()) for r in results]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_numpy_names_give_torch_results(name: str) -> None:
    data = np.array([[0.5, -1.0, 2.0], [3.0, 0.25, -0.5]], dtype=np.float32)
    expected = arrays(CALLS[name](torch, torch.tensor(data)))
    found = arrays(CALLS[name](mini, mini.tensor(data)))
    assert [a.shape for a in found] == [a.shape for a in expected]
    for got, want in zip(found, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("engine", [
    pytest.param(torch, id="torch", marks=skip_if_changed("sum_axis_and_dim")),
    pytest.param(mini, id="miniautograd")])
def test_both_names_at_once_is_a_type_error(engine: Any) -> None:
    x = engine.ones(2, 3)
    with pytest.raises(TypeError, match=r"sum\(\) got an unexpected keyword argument 'axis'"):
        x.sum(dim=1, axis=1)
