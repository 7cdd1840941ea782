"""Comparisons and logic: their results are bool (or index) tensors, so no gradient flows
through them and they record no node, as in torch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._backend import xp_of
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
    """True where the element is zero (or False), of any dtype."""
    return Tensor._make(np.logical_not(self._data))


def bitwise_not(self: Tensor) -> Tensor:
    """``~t``: every bit flipped (integers), or logical not (bools)."""
    if self._data.dtype.kind not in "biu":
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors; for "
            "a mask of the zero elements of a float tensor, write t == 0 or t.logical_not()"
        )
    return Tensor._make(~self._data)


def _logical_reduction(name: str) -> Callable[..., Tensor]:
    """``any``/``all`` over ``dim`` (an int, a tuple, or every dimension): bool, or uint8 for
    a uint8 input, as torch keeps it."""
    def reduction(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
        data = self._data
        result = getattr(xp_of(data), name)(data, axis=normalize_dims(dim, data.ndim),
                                            keepdims=keepdim)
        return Tensor._make(result.astype(np.uint8) if data.dtype == np.uint8 else result)

    reduction.__name__ = name
    return reduction


def allclose(self: Tensor, other: Tensor, rtol: float = 1e-5, atol: float = 1e-8,
             equal_nan: bool = False) -> bool:
    return bool(np.allclose(self._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """|self - other| <= atol + rtol * |other|, elementwise; equal infinities are close."""
    if not isinstance(other, Tensor):
        raise TypeError(
            f"isclose(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
        )
    if self.dtype != other.dtype:
        raise RuntimeError(
            f"{self.dtype.scalar_name} did not match {other.dtype.scalar_name}: isclose compares "
            "tensors of one dtype; convert one with .to(other.dtype)"
        )
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value:g}")
    x, y = operands(self, other)
    if x.dtype == np.bool_:
        return Tensor._make(x == y)
    return Tensor._make(np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(self: Tensor, other: Tensor) -> bool:
    return bool(self._data.shape == other._data.shape and np.array_equal(self._data, other._data))


def _arg_extreme(arg: Callable) -> Callable[..., Tensor]:
    def arg_extreme(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
        if dim is None:
            return Tensor._make(xp_of(self._data).asarray(arg(self._data), dtype=np.int64))
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
    op("logical_not", logical_not, function=False),
    op("bitwise_not", bitwise_not, operators=("__invert__",)),
    op("any", _logical_reduction("any")),
    op("all", _logical_reduction("all")),
    op("allclose", allclose),
    op("isclose", isclose),
    op("equal", equal),
    op("argmax", _arg_extreme(np.argmax)),
    op("argmin", _arg_extreme(np.argmin)),
]
