"""Elementwise operations. Each backward is the local derivative times the incoming gradient,
written with tensor operations so that it can itself be differentiated (double backward)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op
from ._util import broadcast_meta, floating, meta, operands, quiet, reduce_grad, result_dtype

# ---- binary arithmetic -----------------------------------------------------------------------


class Add(Op):
    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        x, y = operands(a, b)
        ctx.meta = broadcast_meta(a, b)
        ctx.alpha = alpha
        return x + y if alpha == 1 else x + alpha * y

    @staticmethod
    def backward(ctx, grad):
        grad_b = grad if ctx.alpha == 1 else grad * ctx.alpha
        if ctx.meta is None:
            return grad, grad_b
        meta_a, meta_b = ctx.meta
        return reduce_grad(grad, meta_a), reduce_grad(grad_b, meta_b)


def _is_bool(value: Any) -> bool:
    if isinstance(value, Tensor):
        return value._data.dtype == np.bool_
    return isinstance(value, bool)


def _refuse_bool_subtraction(a: Any, b: Any) -> None:
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


class Sub(Op):
    _node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        _refuse_bool_subtraction(a, b)
        x, y = operands(a, b)
        ctx.meta = (meta(a), meta(b))
        ctx.alpha = alpha
        return x - y if alpha == 1 else x - alpha * y

    @staticmethod
    def backward(ctx, grad):
        meta_a, meta_b = ctx.meta
        return reduce_grad(grad, meta_a), reduce_grad(-grad * ctx.alpha, meta_b)


class Rsub(Op):
    """``number - tensor``: torch records it as ``RsubBackward1`` with one input."""

    _node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a, other=0):
        _refuse_bool_subtraction(a, other)
        x, y = operands(a, other)
        return y - x

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Mul(Op):
    _node_name = "MulBackward0"
    _names_saved = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        x, y = operands(a, b)
        need_a, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        if need_a or need_b:
            if isinstance(b, Tensor):
                ctx._save(a if need_b else None, b if need_a else None)
            else:  # a Python number needs no saving as a tensor (and never needs a gradient)
                ctx._save(None, None)
                ctx.number = b
            ctx.meta = broadcast_meta(a, b)
        return x * y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        if b is None and ctx.needs_input_grad[0]:
            b = ctx.number
        grad_a = grad * b if ctx.needs_input_grad[0] else None
        grad_b = grad * a if ctx.needs_input_grad[1] else None
        if ctx.meta is None:
            return grad_a, grad_b
        meta_a, meta_b = ctx.meta
        return reduce_grad(grad_a, meta_a), reduce_grad(grad_b, meta_b)


class Div(Op):
    _node_name = "DivBackward0"
    _names_saved = ("self", "other")

    @staticmethod
    @quiet
    def forward(ctx, a, b):
        x, y = operands(a, b)
        if x.dtype.kind != "f":  # true division of integers gives the default float dtype
            x, y = floating(x), floating(y)
        if ctx.needs_input_grad[0] or ctx.needs_input_grad[1]:
            divisor = b if isinstance(b, Tensor) else None
            ctx._save(a if ctx.needs_input_grad[1] else None, divisor)
            ctx.number = b if divisor is None else None
            ctx.meta = (meta(a), meta(b))
        return x / y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        if b is None:
            b = ctx.number
        meta_a, meta_b = ctx.meta
        grad_a = reduce_grad(grad / b, meta_a) if ctx.needs_input_grad[0] else None
        grad_b = reduce_grad(-grad * a / (b * b), meta_b) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Pow(Op):
    """``tensor ** number``."""

    _node_name = "PowBackward0"
    _names_saved = ("self",)

    @staticmethod
    @quiet
    def forward(ctx, a, exponent=1.0):
        x, e = operands(a, exponent)
        if x.dtype.kind in "iu" and isinstance(exponent, int) and exponent < 0:
            raise RuntimeError(
                "Integers to negative integer powers are not allowed. Use a float tensor "
                "(t.float() ** -1) or a float exponent."
            )
        ctx._save(a)
        ctx.exponent = exponent
        return x**e

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if ctx.exponent == 0:
            return zeros_like_constant(a)
        if ctx.exponent == 2:  # the common square: skip computing a ** 1
            return grad * (2 * a)
        return grad * (ctx.exponent * a ** (ctx.exponent - 1))


class PowTensor(Op):
    """``tensor ** tensor``."""

    _node_name = "PowBackward1"
    _names_saved = ("self", "exponent")
    _saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, a, b):
        x, y = operands(a, b)
        ctx._save(a, b)
        ctx.meta = (meta(a), meta(b))
        return x**y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        meta_a, meta_b = ctx.meta
        grad_a = None
        if ctx.needs_input_grad[0]:  # torch: 0 where the exponent is 0 (not 0 * 0**-1 = nan)
            grad_a = reduce_grad(where(b == 0, 0.0, grad * b * a ** (b - 1)), meta_a)
        grad_b = None
        if ctx.needs_input_grad[1]:
            # d(a**b)/db = a**b * log(a); torch defines it as 0 where a == 0 and b >= 0.
            safe = where((a == 0) & (b >= 0), 0.0, ctx.result * a.log())
            grad_b = reduce_grad(grad * safe, meta_b)
        return grad_a, grad_b


class RPow(Op):
    """``number ** tensor``."""

    _node_name = "PowBackward2"
    _names_saved = ("exponent",)
    _saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, exponent_tensor, base=1.0):
        x, b = operands(exponent_tensor, base)
        ctx.base = base
        ctx._save(exponent_tensor)
        return b**x

    @staticmethod
    def backward(ctx, grad):
        with np.errstate(divide="ignore"):
            log_base = float(np.log(ctx.base))
        if ctx.base == 0:  # torch: 0 where the base is 0 and the exponent >= 0
            (exponent,) = ctx.saved_tensors
            return where(exponent >= 0, 0.0, grad * ctx.result * log_base)
        return grad * ctx.result * log_base


# ---- unary maths -------------------------------------------------------------------------------


class Neg(Op):
    _node_name = "NegBackward0"

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype == np.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return -a._data

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Reciprocal(Op):
    _node_name = "ReciprocalBackward0"
    _saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, a):
        return 1 / floating(a)

    @staticmethod
    def backward(ctx, grad):
        result = ctx.result
        return -grad * result * result


class Exp(Op):
    _node_name = "ExpBackward0"
    _saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, a):
        return np.exp(floating(a))

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.result


class Log(Op):
    _node_name = "LogBackward0"
    _names_saved = ("self",)

    @staticmethod
    @quiet
    def forward(ctx, a):
        ctx._save(a)
        return np.log(floating(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / a


class Sqrt(Op):
    _node_name = "SqrtBackward0"
    _saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, a):
        return np.sqrt(floating(a))

    @staticmethod
    def backward(ctx, grad):
        return grad / (2 * ctx.result)


class Sin(Op):
    _node_name = "SinBackward0"
    _names_saved = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx._save(a)
        return np.sin(floating(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a.cos()


class Cos(Op):
    _node_name = "CosBackward0"
    _names_saved = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx._save(a)
        return np.cos(floating(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return -grad * a.sin()


class Tanh(Op):
    _node_name = "TanhBackward0"
    _saves_result = True

    @staticmethod
    def forward(ctx, a):
        return np.tanh(floating(a))

    @staticmethod
    def backward(ctx, grad):
        result = ctx.result
        return grad * (1 - result * result)


class Sigmoid(Op):
    _node_name = "SigmoidBackward0"
    _saves_result = True

    @staticmethod
    def forward(ctx, a):
        x = floating(a)
        # exp(-|x|) never overflows; pick the algebraically equal form for each sign.
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        result = ctx.result
        return grad * (result * (1 - result))


class Relu(Op):
    _node_name = "ReluBackward0"
    _saves_result = True

    @staticmethod
    def forward(ctx, a):
        return np.maximum(a._data, 0)

    @staticmethod
    def backward(ctx, grad):
        # sign(result) is the 0/1 mask; as an op it keeps double backward connected (to zeros).
        return grad * ctx.result.sign()


def zeros_like_constant(tensor: Tensor) -> Tensor:
    """Zeros that record no graph: the derivative of a piecewise-constant function."""
    return Tensor._make(np.zeros_like(tensor._data))


class Sign(Op):
    """Piecewise constant: its gradient is zero everywhere it is defined."""

    _node_name = "SignBackward0"
    function: Any = staticmethod(np.sign)

    @classmethod
    def forward(cls, ctx, a):
        return cls.function(a._data)

    @staticmethod
    def backward(ctx, grad):
        return zeros_like_constant(grad)


class Round(Sign):
    _node_name = "RoundBackward0"
    function = staticmethod(np.round)  # halves to even, as torch.round


class Floor(Sign):
    _node_name = "FloorBackward0"
    function = staticmethod(np.floor)


class Ceil(Sign):
    _node_name = "CeilBackward0"
    function = staticmethod(np.ceil)


class Fill(Op):
    """``fill_(value)``: the old values no longer matter, so their gradient is zero."""

    _node_name = "FillBackward2"

    @staticmethod
    def forward(ctx, a, value=0):
        return np.full_like(a._data, value)

    @staticmethod
    def backward(ctx, grad):
        return zeros_like_constant(grad)


class Zero(Fill):
    _node_name = "ZeroBackward0"


class Abs(Op):
    _node_name = "AbsBackward0"
    _names_saved = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx._save(a)
        return np.abs(a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a.sign()


class Clamp(Op):
    _node_name = "ClampBackward1"
    _names_saved = ("self",)

    @staticmethod
    def forward(ctx, a, min=None, max=None):  # noqa: A002 - torch's keyword names
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        ctx._save(a)
        ctx.bounds = (min, max)
        dtype = result_dtype(a, *(b for b in (min, max) if b is not None))
        data = a._data.astype(dtype, copy=False)
        low = -np.inf if min is None else min
        high = np.inf if max is None else max
        return np.clip(data, low, high).astype(dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        low, high = ctx.bounds
        inside = Tensor._make(np.ones(a._data.shape, dtype=bool))
        if low is not None:
            inside = inside & (a >= low)
        if high is not None:
            inside = inside & (a <= high)
        return grad * inside


class Maximum(Op):
    _node_name = "MaximumBackward0"
    _names_saved = ("self", "other")
    function: Any = staticmethod(np.maximum)
    wins: Any = staticmethod(np.greater)

    @classmethod
    def forward(cls, ctx, a, b):
        x, y = operands(a, b)
        ctx._save(a, b)
        ctx.meta = (meta(a), meta(b))
        return cls.function(x, y)

    @classmethod
    def backward(cls, ctx, grad):
        return _split_ties(ctx, grad, lambda a, b: Tensor._make(cls.wins(a._data, b._data)))


class Minimum(Maximum):
    _node_name = "MinimumBackward0"
    function = staticmethod(np.minimum)
    wins = staticmethod(np.less)


def _split_ties(ctx, grad: Tensor, wins) -> tuple:
    """The winner takes the gradient; on a tie each side gets half (torch's convention)."""
    a, b = ctx.saved_tensors
    meta_a, meta_b = ctx.meta
    share = where(a == b, grad / 2, grad)
    return (
        reduce_grad(where(wins(b, a), 0.0, share), meta_a),
        reduce_grad(where(wins(a, b), 0.0, share), meta_b),
    )


class Where(Op):
    _node_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, a, b, condition=None):
        x, y = operands(a, b)
        ctx.condition = condition
        ctx.meta = (meta(a), meta(b))
        return np.where(condition._data, x, y)

    @staticmethod
    def backward(ctx, grad):
        meta_a, meta_b = ctx.meta
        zero = grad * 0
        return (
            reduce_grad(where(ctx.condition, grad, zero), meta_a),
            reduce_grad(where(ctx.condition, zero, grad), meta_b),
        )


def where(condition: Tensor, a: Any, b: Any) -> Tensor:
    """``torch.where(condition, a, b)``: elements of ``a`` where condition holds, else ``b``."""
    if not isinstance(condition, Tensor):
        condition = Tensor._make(np.asarray(condition))
    if condition._data.dtype != np.bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition.dtype.name.capitalize()}. Write a comparison, e.g. "
            "torch.where(x > 0, a, b)."
        )
    return Where.apply(a, b, condition=condition)
