"""Module-level functions (``torch.exp(x)``, ``torch.cat([...])``) for the tensor methods."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._tensor import Tensor
from .ops import arithmetic, linalg, shape


def _as_function(method: str) -> Callable[..., Any]:
    def function(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 - torch's name
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{method}(): argument 'input' must be Tensor, not {type(input).__name__}"
            )
        return getattr(input, method)(*args, **kwargs)

    function.__name__ = function.__qualname__ = method
    function.__doc__ = f"``torch.{method}(input, ...)``: the same as ``input.{method}(...)``."
    return function


add, sub, mul, div, pow = (_as_function(n) for n in ("add", "sub", "mul", "div", "pow"))  # noqa: A001
neg, exp, log, sqrt = (_as_function(n) for n in ("neg", "exp", "log", "sqrt"))
sin, cos, tanh, sigmoid = (_as_function(n) for n in ("sin", "cos", "tanh", "sigmoid"))
relu, abs, sign, reciprocal = (_as_function(n) for n in ("relu", "abs", "sign", "reciprocal"))  # noqa: A001
round, floor, ceil = (_as_function(n) for n in ("round", "floor", "ceil"))  # noqa: A001
clamp, clip = _as_function("clamp"), _as_function("clamp")
sum, mean, var, std = (_as_function(n) for n in ("sum", "mean", "var", "std"))  # noqa: A001
max, min, argmax, argmin = (_as_function(n) for n in ("max", "min", "argmax", "argmin"))  # noqa: A001
maximum, minimum = _as_function("maximum"), _as_function("minimum")
mm, mv, dot = _as_function("mm"), _as_function("mv"), _as_function("dot")
reshape, flatten, squeeze = (_as_function(n) for n in ("reshape", "flatten", "squeeze"))
unsqueeze, permute = _as_function("unsqueeze"), _as_function("permute")
transpose, t = _as_function("transpose"), _as_function("t")
softmax, log_softmax = _as_function("softmax"), _as_function("log_softmax")
eq, ne, lt, le, gt, ge = (_as_function(n) for n in ("eq", "ne", "lt", "le", "gt", "ge"))
allclose, equal, numel = _as_function("allclose"), _as_function("equal"), _as_function("numel")
unbind, split, chunk = _as_function("unbind"), _as_function("split"), _as_function("chunk")
where = arithmetic.where


def matmul(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002 - torch's name
    return linalg.matmul(input, other)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:  # noqa: A002 - torch's name
    """``input + mat1 @ mat2`` as one node (``AddmmBackward0``)."""
    return linalg.Addmm.apply(input, mat1, mat2)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return shape.Cat.apply(*tensors, dim=dim)


concat = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for index, item in enumerate(tensors):
        if not isinstance(item, Tensor):
            raise TypeError(
                f"expected Tensor as element {index} in argument 0, but got "
                f"{type(item).__name__}. To make a tensor from numbers use torch.tensor(list)."
            )
    if len({t.shape for t in tensors}) > 1:
        raise RuntimeError(
            "stack expects each tensor to be equal size, but got "
            + " and ".join(str(list(t.shape)) for t in tensors[:2])
        )
    return shape.Stack.apply(*tensors, dim=dim)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def clone(input: Tensor) -> Tensor:  # noqa: A002 - torch's name
    return input.clone()
