"""Comparisons and logic: their results are bool (or index) tensors, so no gradient flows
through them and they record no node, as in torch."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._tensor import Tensor
from ._util import operands
from .reduction import normalize_dims
from .table import op


def _elementwise(ufunc: np.ufunc) -> Callable[[Tensor, object], Tensor]:
    def compare(self: Tensor, other: object) -> Tensor:
        x, y = operands(self, other)
        return Tensor._make(ufunc(x, y))

    compare.__name__ = ufunc.__name__
    return compare


def logical_not(self: Tensor) -> Tensor:
    if self._data.dtype != np.bool_:
        return Tensor._make(~self._data)
    return Tensor._make(np.logical_not(self._data))


def any_true(self: Tensor) -> Tensor:
    return Tensor._make(np.any(self._data))


def all_true(self: Tensor) -> Tensor:
    return Tensor._make(np.all(self._data))


def allclose(self: Tensor, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8,
             equal_nan: bool = False) -> bool:
    return bool(np.allclose(self._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(self: Tensor, other: Tensor) -> bool:
    return bool(self._data.shape == other._data.shape and np.array_equal(self._data, other._data))


def _arg_extreme(arg: Callable) -> Callable[..., Tensor]:
    def arg_extreme(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
        if dim is None:
            return Tensor._make(np.asarray(arg(self._data), dtype=np.int64))
        (axis,) = normalize_dims(dim, self._data.ndim)
        result = arg(self._data, axis=axis)
        if keepdim:
            result = np.expand_dims(result, axis)
        return Tensor._make(result.astype(np.int64))

    return arg_extreme


TABLE = [
    op("eq", _elementwise(np.equal), operators=("__eq__",)),
    op("ne", _elementwise(np.not_equal), operators=("__ne__",)),
    op("lt", _elementwise(np.less), operators=("__lt__",)),
    op("le", _elementwise(np.less_equal), operators=("__le__",)),
    op("gt", _elementwise(np.greater), operators=("__gt__",)),
    op("ge", _elementwise(np.greater_equal), operators=("__ge__",)),
    op("logical_and", _elementwise(np.logical_and), function=False, operators=("__and__",)),
    op("logical_or", _elementwise(np.logical_or), function=False, operators=("__or__",)),
    op("logical_xor", _elementwise(np.logical_xor), function=False, operators=("__xor__",)),
    op("logical_not", logical_not, function=False, operators=("__invert__",)),
    op("any", any_true, function=False),
    op("all", all_true, function=False),
    op("allclose", allclose),
    op("equal", equal),
    op("argmax", _arg_extreme(np.argmax)),
    op("argmin", _arg_extreme(np.argmin)),
]
