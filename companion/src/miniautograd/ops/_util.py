"""Helpers shared by the op modules: torch's type promotion and broadcasting rules."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtype import get_default_dtype
from .._tensor import Tensor
from ..autograd.function import mark_views
from ..autograd.grad_mode import STATE

_CATEGORY = {"b": 0, "i": 1, "u": 1, "f": 2}


def _scalar_dtype(value: Any) -> np.dtype:
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(value, (int, np.integer)):
        return np.dtype(np.int64)
    if isinstance(value, (float, np.floating)):
        return get_default_dtype().np_dtype
    if isinstance(value, np.ndarray):
        return value.dtype
    raise TypeError(
        f"unsupported operand type for a tensor operation: '{type(value).__name__}' (use a "
        "Tensor or a Python number)"
    )


def floating(value: Any) -> Any:
    """The array of ``value`` in a floating dtype: integer and bool data become the default
    float dtype, as torch computes exp, log, division, ... of integer tensors."""
    if isinstance(value, (bool, int, float)):  # a number: a NumPy scalar mixes with any device
        return get_default_dtype().np_dtype.type(value)
    data = value._data if isinstance(value, Tensor) else value  # an array, of any device
    return data if data.dtype.kind == "f" else data.astype(get_default_dtype().np_dtype)


def on_arrays(*tensors: Tensor) -> bool:
    """Whether a backward formula may compute on the tensors' arrays instead of with tensor
    operations: no graph is recorded (backward without ``create_graph``), and every array is
    a NumPy array of one dtype (a formula on tensors would refuse or promote the others).

    Speed: each tensor operation a formula saves is an op call, a node and a Tensor; where
    a formula takes this path (``Mm``/``Addmm``, ``Pow``, ``Relu``, ``MseLoss``, ``T``, a full
    ``sum``'s), its readable form on tensors stays beside it, and
    tests/engine/test_fast_paths.py checks that both give the same gradients bit for bit (with
    and without ``create_graph``)."""
    if STATE.enabled:
        return False
    dtype = tensors[0]._data.dtype
    for tensor in tensors:
        data = tensor._data
        if type(data) is not np.ndarray or data.dtype != dtype:
            return False
    return True


def view_of(base: Tensor, data: Any) -> Tensor:
    """A tensor of ``data``, a view of ``base``'s array made when nothing is recorded (see
    ``on_arrays``), marked as the view op's output is (``mark_views``)."""
    out = Tensor._make(data)
    mark_views((out,), base)
    return out


def quiet(forward: Callable) -> Callable:
    """Compute without numpy's floating-point warnings: like torch, inf and nan are results,
    not warnings (log(0) is -inf, 1/0 is inf, ...)."""

    @functools.wraps(forward)
    def silenced(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(all="ignore"):
            return forward(*args, **kwargs)

    return silenced


def result_dtype(*values: Any) -> np.dtype:
    """torch's promotion: tensors with dimensions outrank 0-d tensors, which outrank numbers,
    unless a lower-ranked value brings a higher category (bool < integer < floating)."""
    ranked: tuple[list, list, list] = ([], [], [])
    for value in values:
        if isinstance(value, Tensor):
            ranked[0 if value._data.ndim else 1].append(value._data.dtype)
        else:
            ranked[2].append(_scalar_dtype(value))
    category = max(_CATEGORY[d.kind] for group in ranked for d in group)
    for group in ranked:
        in_category = [d for d in group if _CATEGORY[d.kind] == category]
        if in_category:
            return np.result_type(*in_category)
    raise AssertionError("unreachable: some value has the top category")


def operands(a: Any, b: Any) -> tuple[Any, Any]:
    """Arrays (or numbers) for a binary op, cast to the dtype torch would compute in."""
    if isinstance(b, Tensor) and isinstance(a, Tensor):
        x, y = a._data, b._data
        if type(x) is not type(y):
            raise_device_mismatch(a, b)
        if x.shape != y.shape:
            check_broadcast(x.shape, y.shape)
        if x.dtype == y.dtype:
            return x, y
    elif type(b) in (float, int) and isinstance(a, Tensor) and a._data.dtype.kind == "f":
        return a._data, b  # numpy keeps float32 * Python number in float32, as torch does
    dtype = result_dtype(a, b)
    return _cast(a, dtype), _cast(b, dtype)


def check_broadcast(shape_a: tuple, shape_b: tuple) -> None:
    """Raise torch's error (a RuntimeError) when two shapes cannot be broadcast together."""
    ndim = max(len(shape_a), len(shape_b))
    for i in range(1, ndim + 1):
        size_a = shape_a[-i] if i <= len(shape_a) else 1
        size_b = shape_b[-i] if i <= len(shape_b) else 1
        if size_a != size_b and 1 not in (size_a, size_b):
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at "
                f"non-singleton dimension {ndim - i}. Shapes {list(shape_a)} and {list(shape_b)} "
                "cannot broadcast: counted from the right, each pair of sizes must be equal or "
                "one of them 1 (reshape or unsqueeze one operand to line them up)."
            )


def _cast(value: Any, dtype: np.dtype) -> Any:
    """A tensor's array, or a number as a NumPy scalar of ``dtype``: a scalar mixes with the
    arrays of any device (a 0-d NumPy array would be a host array, which CuPy refuses)."""
    if isinstance(value, Tensor):
        data = value._data
        return data if data.dtype == dtype else data.astype(dtype)
    return np.dtype(dtype).type(value)


def raise_device_mismatch(a: Tensor, b: Tensor) -> None:
    raise RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{a.device} and {b.device}! Move one of them with .to(other.device)."
    )


def broadcast_axes(shape: tuple, target: tuple) -> tuple[int, ...]:
    """The axes of an array of shape ``shape`` that broadcasting added or stretched to reach
    it from ``target``: summing over them (keepdims) and reshaping undoes the broadcast."""
    lead = len(shape) - len(target)
    stretched = (lead + i for i, n in enumerate(target) if n == 1 and shape[lead + i] != 1)
    return (*range(lead), *stretched)
