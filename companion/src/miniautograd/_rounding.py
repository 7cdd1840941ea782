"""Fused multiply-add in NumPy: ``a * b + c`` rounded once, as an FMA instruction rounds it.

torch's CPU kernels for ``arange`` and ``linspace`` compute ``start + step * i`` with the
compiler's FMA contraction, so the product is not rounded before the sum; NumPy has no FMA, and
``a * b + c`` in NumPy rounds twice (``arange(-1, 1, 1/3)[3]`` is -5.55e-17 in torch, 0.0 the
NumPy way). The same single rounding comes from ordinary float64 operations: an exact product
(Veltkamp's split and Dekker's product), an exact sum (Knuth's TwoSum), and one sum rounded to
odd, which Boldo and Melquiond (2008) prove makes the final round-to-nearest correct.
The same holds for ``tanh``'s backward, ``grad * (1 - y * y)``, whose ``1 - y * y`` torch's
kernel rounds once. Each function computes with the array module of its arguments (NumPy, or
CuPy on a GPU).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._backend import xp_of


def _module(*values: Any) -> Any:
    """numpy, or the array module of the first device (non-NumPy) array among ``values``."""
    for value in values:
        if hasattr(value, "dtype") and not isinstance(value, (np.ndarray, np.generic)):
            return xp_of(value)
    return np


_SPLIT = 2.0**27 + 1  # Veltkamp: splits a double into two halves of 26 bits


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s + e == a + b exactly, s the rounded sum."""
    s = a + b
    b_part = s - a
    return s, (a - (s - b_part)) + (b - b_part)


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p + e == a * b exactly, p the rounded product."""
    p = a * b
    a_big, b_big = _SPLIT * a, _SPLIT * b
    a_hi, b_hi = a_big - (a_big - a), b_big - (b_big - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def _sum_rounded_to_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b if a double holds it exactly, else the neighbouring double whose last bit is 1."""
    xp = _module(a, b)
    s, e = _two_sum(a, b)
    even = (s.view(np.int64) & 1) == 0
    toward_exact = xp.nextafter(s, xp.where(e > 0, np.inf, -np.inf))
    return xp.where((e != 0) & even, toward_exact, s)


def fma(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` in float64, rounded once (Boldo and Melquiond's emulated FMA)."""
    xp = _module(a, b, c)
    a, b, c = xp.broadcast_arrays(*(xp.asarray(x, np.float64) for x in (a, b, c)))
    product, product_error = _two_product(a, b)
    high, low = _two_sum(c, product)
    return high + _sum_rounded_to_odd(low, product_error)


def fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` for float32 values, rounded once to float32: the product of two float32
    values is exact in float64, and a float64 sum rounded to odd rounds correctly to float32."""
    xp = _module(a, b, c)
    a, b, c = (xp.asarray(x, np.float32).astype(np.float64) for x in (a, b, c))
    return _sum_rounded_to_odd(*xp.broadcast_arrays(a * b, c)).astype(np.float32)
