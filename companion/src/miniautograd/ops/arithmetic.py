"""Elementwise operations (read this op file third, after function.py and engine.py).

Each backward is the local derivative times the incoming gradient, written with tensor
operations so that it can itself be differentiated (double backward).

Broadcasting needs no code here: ``a + b`` with ``b`` broadcast returns ``grad`` for ``b``
too, and the engine sums it back to ``b``'s shape (``engine.fit_gradient``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _backend, _rounding
from .._backend import xp_of
from .._tensor import Tensor
from ._util import floating, on_arrays, operands, quiet, result_dtype
from .op import Op
from .table import op

# ---- binary arithmetic -----------------------------------------------------------------------


class Add(Op):
    @staticmethod
    def forward(ctx, a, b, alpha=1):
        x, y = operands(a, b)
        ctx.alpha = alpha
        return x + y if alpha == 1 else x + alpha * y

    @staticmethod
    def backward(ctx, grad):
        grad_b = None
        if ctx.needs_input_grad[1]:
            grad_b = grad if ctx.alpha == 1 else grad * ctx.alpha
        return grad, grad_b


def _is_bool(value: Any) -> bool:
    if isinstance(value, Tensor):
        return value._data.dtype == np.bool_
    return isinstance(value, bool)


def _refuse_bool_subtraction(a: Any, b: Any) -> None:
    if _is_bool(a) and _is_bool(b) and isinstance(a, Tensor) and isinstance(b, Tensor):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead."
        )
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


class Sub(Op):
    @staticmethod
    def forward(ctx, a, b, alpha=1):
        _refuse_bool_subtraction(a, b)
        x, y = operands(a, b)
        ctx.alpha = alpha
        return x - y if alpha == 1 else x - alpha * y

    @staticmethod
    def backward(ctx, grad):
        grad_b = None
        if ctx.needs_input_grad[1]:
            grad_b = -grad if ctx.alpha == 1 else grad * -ctx.alpha
        return grad, grad_b


class Rsub(Op):
    """``number - tensor``: torch records it as ``RsubBackward1`` with one input."""

    node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx, a, other=0):
        _refuse_bool_subtraction(a, other)
        x, y = operands(a, other)
        return y - x

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Mul(Op):
    @staticmethod
    def forward(ctx, a, b):
        need_a, need_b = ctx.needs_input_grad
        ctx.save(self=a if need_b else None, other=b if need_a else None)
        x, y = operands(a, b)
        return x * y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return grad * b if need_a else None, grad * a if need_b else None


class Div(Op):
    @staticmethod
    @quiet
    def forward(ctx, a, b):
        ctx.save(self=a if ctx.needs_input_grad[1] else None, other=b)
        x, y = operands(a, b)
        if x.dtype.kind != "f":  # true division of integers gives the default float dtype
            x, y = floating(x), floating(y)
        return x / y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return grad / b if need_a else None, -grad * a / (b * b) if need_b else None


class Pow(Op):
    """``tensor ** number``."""

    @staticmethod
    @quiet
    def forward(ctx, a, exponent=1.0):
        x, e = operands(a, exponent)
        if x.dtype.kind in "iu" and isinstance(exponent, int) and exponent < 0:
            raise RuntimeError(
                "Integers to negative integer powers are not allowed. Use a float tensor "
                "(t.float() ** -1) or a float exponent."
            )
        ctx.save(self=a)
        ctx.exponent = exponent
        return x**e

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if ctx.exponent == 0:
            return zeros_like_constant(a)
        if ctx.exponent == 2:  # the common square: skip computing a ** 1
            if on_arrays(grad, a):  # Speed: the same products on the arrays (see on_arrays)
                return Tensor._make(grad._data * (a._data * 2))
            return grad * (2 * a)
        return grad * (ctx.exponent * a ** (ctx.exponent - 1))


class PowTensor(Op):
    """``tensor ** tensor``."""

    node_name = "PowBackward1"
    saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, a, b):
        ctx.save(self=a, exponent=b)
        x, y = operands(a, b)
        return x**y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        if need_a:  # torch: 0 where the exponent is 0 (not 0 * 0**-1 = nan)
            grad_a = where(b == 0, 0.0, grad * b * a ** (b - 1))
        if need_b:  # d(a**b)/db = a**b * log(a); torch defines it as 0 where a == 0 and b >= 0
            grad_b = grad * where((a == 0) & (b >= 0), 0.0, ctx.result * a.log())
        return grad_a, grad_b


class RPow(Op):
    """``number ** tensor``."""

    node_name = "PowBackward2"
    saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, exponent_tensor, base=1.0):
        x, b = operands(exponent_tensor, base)
        ctx.base = base
        ctx.save(exponent=exponent_tensor)
        return b**x

    @staticmethod
    def backward(ctx, grad):
        log_base = float(np.log(ctx.base))  # -inf at base 0 (the engine silences numpy)
        if ctx.base == 0:  # torch: 0 where the base is 0 and the exponent >= 0 (and, as there,
            (exponent,) = ctx.saved_tensors  # grad outside the where: its derivative is nan)
            return grad * where(exponent >= 0, 0.0, ctx.result * log_base)
        return grad * ctx.result * log_base


# ---- unary maths -------------------------------------------------------------------------------


class Neg(Op):
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
    saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, a):
        return 1 / floating(a)

    @staticmethod
    def backward(ctx, grad):
        result = ctx.result
        return -grad * result * result


class Exp(Op):
    saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, a):
        return np.exp(floating(a))

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.result


class Expm1(Op):
    """exp(x) - 1, accurate where exp(x) is close to 1."""

    saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, a):
        return np.expm1(floating(a))

    @staticmethod
    def backward(ctx, grad):
        return grad * (ctx.result + 1)


class Log(Op):
    @staticmethod
    @quiet
    def forward(ctx, a):
        ctx.save(self=a)
        return np.log(floating(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / a


class Log10(Op):
    """log(x) / log(10): makemore plots the loss as loss.log10()."""

    @staticmethod
    @quiet
    def forward(ctx, a):
        ctx.save(self=a)
        return np.log10(floating(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (a * math.log(10))


class Log2(Op):
    @staticmethod
    @quiet
    def forward(ctx, a):
        ctx.save(self=a)
        return np.log2(floating(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (a * math.log(2))


class Sqrt(Op):
    saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, a):
        return np.sqrt(floating(a))

    @staticmethod
    def backward(ctx, grad):
        return grad / (2 * ctx.result)


class Sin(Op):
    @staticmethod
    def forward(ctx, a):
        ctx.save(self=a)
        return np.sin(floating(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a.cos()


class Cos(Op):
    @staticmethod
    def forward(ctx, a):
        ctx.save(self=a)
        return np.cos(floating(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return -grad * a.sin()


class Tanh(Op):
    saves_result = True

    @staticmethod
    def forward(ctx, a):
        return np.tanh(floating(a))

    @staticmethod
    def backward(ctx, grad):
        return TanhBackward.apply(grad, ctx.result)


class TanhBackward(Op):
    """tanh's gradient, ``grad * (1 - y * y)``, as torch's kernel computes it: its compiler
    fuses ``1 - y * y`` into one FMA, rounded once. So autograd's gradient and a hand-written
    ``(1 - h**2) * dh`` (rounded twice) differ in the last bit where torch's do: the
    backprop-ninja lecture's "exact: False". An op of its own, as torch's ``tanh_backward``,
    whose own backward the double backward runs."""

    @staticmethod
    def forward(ctx, grad, output):
        ctx.save(grad_output=grad, output=output)
        g, y = operands(grad, output)
        fused = (_rounding.fma32 if y.dtype == np.float32 else _rounding.fma)(-y, y, 1)
        return g * fused.astype(y.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        grad_output, output = ctx.saved_tensors
        need_grad_output, need_output = ctx.needs_input_grad
        return (TanhBackward.apply(grad, output) if need_grad_output else None,
                grad * (-2 * output * grad_output) if need_output else None)


class Sigmoid(Op):
    saves_result = True

    @staticmethod
    def forward(ctx, a):
        x = floating(a)
        # exp(-|x|) never overflows; pick the algebraically equal form for each sign.
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        result = ctx.result
        return grad * (1 - result) * result  # in torch's order: the same roundings


class Relu(Op):
    saves_result = True

    @staticmethod
    def forward(ctx, a):
        return np.maximum(a._data, 0)

    @staticmethod
    def backward(ctx, grad):
        # torch's threshold_backward: 0 where the unit was off (result <= 0), whatever arrives,
        # even nan, which a product with a 0/1 mask would pass on. The zeros are result * 0, so
        # that double backward reaches the input (with zeros), as torch's does.
        result = ctx.result
        if on_arrays(grad, result):  # Speed: the same where on the arrays (see on_arrays)
            r = result._data
            return Tensor._make(np.where(r <= 0, r * 0, grad._data))
        return where(result <= 0, result * 0, grad)


def zeros_like_constant(tensor: Tensor) -> Tensor:
    """Zeros that record no graph: the derivative of a piecewise-constant function."""
    return Tensor._make(np.zeros_like(tensor._data))


class _PiecewiseConstant(Op):
    """A step function (sign, round, floor, ceil): its gradient is zero everywhere it is
    defined. Each subclass names the NumPy ``function`` it computes."""

    function: Any = None

    @classmethod
    def forward(cls, ctx, a):
        return cls.function(a._data)

    @staticmethod
    def backward(ctx, grad):
        return zeros_like_constant(grad)


class Sign(_PiecewiseConstant):
    function = staticmethod(np.sign)


class Round(_PiecewiseConstant):
    function = staticmethod(np.round)  # halves to even, as torch.round


class RoundDecimals(_PiecewiseConstant):
    node_name = "RoundBackward1"  # torch's overload with the ``decimals`` keyword

    @staticmethod
    def forward(ctx, a, *, decimals):
        return np.round(a._data, decimals)


def round_to(self: Tensor, *, decimals: int | None = None) -> Tensor:
    """``round``: torch records its other overload whenever ``decimals`` is given, even 0."""
    return Round.apply(self) if decimals is None else RoundDecimals.apply(self, decimals=decimals)


class Floor(_PiecewiseConstant):
    function = staticmethod(np.floor)


class Ceil(_PiecewiseConstant):
    function = staticmethod(np.ceil)


class Fill(Op):
    """``fill_(value)``: the old values no longer matter, so their gradient is zero."""

    node_name = "FillBackward2"

    @staticmethod
    def forward(ctx, a, value=0):
        return np.full_like(a._data, value)

    @staticmethod
    def backward(ctx, grad):
        return zeros_like_constant(grad)


class Zero(Fill):
    pass


class Copy(Op):
    """``self.copy_(src)``: src's values, broadcast to self's shape and cast to its dtype. The
    old values are overwritten, not combined (``inf`` or ``nan`` in self leave no trace), so
    their gradient is zero; src's is the incoming gradient (the engine sums it back to src's
    shape and casts it to src's dtype)."""

    node_name = "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx, a, src):
        target = a._data
        if np.broadcast_shapes(src._data.shape, target.shape) != target.shape:
            raise RuntimeError(
                f"output with shape {list(target.shape)} doesn't match the broadcast shape "
                f"{list(np.broadcast_shapes(src._data.shape, target.shape))}: copy_ cannot "
                "grow self; src must broadcast to self's shape"
            )
        data = _backend.asarray(src._data, target.dtype, a.device)
        return xp_of(target).broadcast_to(data, target.shape).copy()

    @staticmethod
    def backward(ctx, grad):
        return zeros_like_constant(grad), grad


class Abs(Op):
    @staticmethod
    def forward(ctx, a):
        ctx.save(self=a)
        return np.abs(a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a.sign()


class Clamp(Op):
    node_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, a, min=None, max=None):  # noqa: A002 - torch's keyword names
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        ctx.save(self=a)
        ctx.bounds = (min, max)
        data = a._data
        if data.dtype.kind != "f" or not all(type(b) in (int, float) for b in (min, max)
                                             if b is not None):
            data = data.astype(result_dtype(a, *(b for b in (min, max) if b is not None)),
                               copy=False)
        # maximum and minimum keep nan, as torch does (and take a third of np.clip's time)
        if min is not None:
            data = np.maximum(data, min)
        if max is not None:
            data = np.minimum(data, max)
        return data

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        low, high = ctx.bounds
        inside = Tensor._make(xp_of(a._data).ones(a._data.shape, dtype=bool))
        if low is not None:
            inside = inside & (a >= low)
        if high is not None:
            inside = inside & (a <= high)
        return grad * inside


class ClampMin(Clamp):
    """``clamp_min(min)``: torch records it as its own node."""

    node_name = "ClampMinBackward0"


class ClampTensor(Op):
    """``clamp`` with tensor bounds: each bound is an input and gets the gradient where it is
    the result (torch 2.13's rule: a tie goes to ``a``; torch 2.14 splits it, README.md)."""

    node_name = "ClampBackward0"

    @staticmethod
    def forward(ctx, a, low, high):
        ctx.save(self=a, min=low, max=high)
        data = a._data.astype(result_dtype(*(t for t in (a, low, high) if t is not None)),
                              copy=False)
        if low is not None:
            data = np.maximum(data, low._data)
        if high is not None:
            data = np.minimum(data, high._data)
        return data

    @staticmethod
    def backward(ctx, grad):
        a, low, high = ctx.saved_tensors
        zero = grad * 0
        if low is not None and high is not None:
            return (where((a >= low) & (a <= high), grad, zero),
                    where((a < low) & (low < high), grad, zero),
                    where((a > high) | (low > high), grad, zero))
        if low is not None:
            return where(a >= low, grad, zero), where(a < low, grad, zero), None
        return where(a <= high, grad, zero), None, where(a > high, grad, zero)


class Maximum(Op):
    function: Any = staticmethod(np.maximum)
    wins: Any = staticmethod(np.greater)

    @classmethod
    def forward(cls, ctx, a, b):
        x, y = operands(a, b)
        ctx.save(self=a, other=b)
        return cls.function(x, y)

    @classmethod
    def backward(cls, ctx, grad):
        """The winner takes the gradient; on a tie each side gets half (torch's convention)."""
        a, b = ctx.saved_tensors
        a_wins = Tensor._make(cls.wins(a._data, b._data))
        b_wins = Tensor._make(cls.wins(b._data, a._data))
        share = where(a == b, grad / 2, grad)
        return where(b_wins, 0.0, share), where(a_wins, 0.0, share)


class Minimum(Maximum):
    function = staticmethod(np.minimum)
    wins = staticmethod(np.less)


class Where(Op):
    @staticmethod
    def forward(ctx, a, b, condition=None):
        x, y = operands(a, b)
        ctx.save(condition=condition)
        return np.where(condition._data, x, y)

    @staticmethod
    def backward(ctx, grad):
        (condition,) = ctx.saved_tensors
        zero = grad * 0
        return where(condition, grad, zero), where(condition, zero, grad)


# ---- what the table calls: torch's signatures ----------------------------------------------


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


def add(self, other, alpha=1):
    return Add.apply(self, other) if alpha == 1 else Add.apply(self, other, alpha=alpha)


def sub(self, other, alpha=1):
    return Sub.apply(self, other) if alpha == 1 else Sub.apply(self, other, alpha=alpha)


def rsub(self, other):
    return Rsub.apply(self, other=other)


def rtruediv(self, other):
    return self.reciprocal() * other


def power(self, exponent):
    if isinstance(exponent, Tensor):
        return PowTensor.apply(self, exponent)
    return Pow.apply(self, exponent=exponent)


def rpow(self, base):
    return RPow.apply(self, base=base)


def clamp(self, min=None, max=None):  # noqa: A002 - torch's keyword names
    bounds = (min, max)
    if not any(isinstance(b, Tensor) for b in bounds):
        return Clamp.apply(self, min=min, max=max)
    if not all(b is None or isinstance(b, Tensor) for b in bounds):
        raise TypeError("clamp() received an invalid combination of arguments: give both "
                        "bounds as tensors, or both as numbers (None leaves a side open)")
    return ClampTensor.apply(self, min, max)


def clamp_min(self, min):  # noqa: A002 - torch's keyword name
    return ClampMin.apply(self, min=min)


def identity(self):
    return self


TABLE = [
    op("add", add, inplace="method", operators=("__add__", "__radd__")),
    op("sub", sub, inplace="method", operators=("__sub__",)),
    op("rsub", rsub, method=False, function=False, operators=("__rsub__",)),
    op("mul", Mul, inplace="method", operators=("__mul__", "__rmul__")),
    op("div", Div, inplace="method", operators=("__truediv__",)),
    op("rtruediv", rtruediv, method=False, function=False, operators=("__rtruediv__",)),
    op("pow", power, inplace="method", operators=("__pow__",)),
    op("rpow", rpow, method=False, function=False, operators=("__rpow__",)),
    op("neg", Neg, inplace=True, operators=("__neg__",)),
    op("pos", identity, method=False, function=False, operators=("__pos__",)),
    op("reciprocal", Reciprocal, inplace=True),
    op("exp", Exp, inplace=True),
    op("expm1", Expm1, inplace=True),
    op("log", Log, inplace=True),
    op("sqrt", Sqrt, inplace=True),
    op("sin", Sin, inplace=True),
    op("cos", Cos, inplace=True),
    op("log10", Log10, inplace=True),
    op("log2", Log2, inplace=True),
    op("tanh", Tanh, inplace=True),
    op("sigmoid", Sigmoid, inplace=True),
    op("relu", Relu, inplace=True),
    op("abs", Abs, inplace=True, operators=("__abs__",)),
    op("sign", Sign, inplace="method"),
    op("round", round_to, inplace=True),
    op("floor", Floor, inplace=True),
    op("ceil", Ceil, inplace=True),
    op("clamp", clamp, inplace=True),
    op("clip", clamp, inplace=True),
    op("clamp_min", clamp_min, function=False, inplace=True),
    op("maximum", Maximum),
    op("minimum", Minimum),
    op("where", where, method=False),
]
