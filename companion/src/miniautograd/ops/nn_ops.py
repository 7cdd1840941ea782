"""Softmax, log-softmax and losses, each one node as in torch."""

from __future__ import annotations

import warnings

import numpy as np

from .._backend import xp_of
from .._tensor import Tensor
from ._util import operands
from .op import Op
from .reduction import normalize_dims
from .table import op


def floating_only(a: Tensor, name: str):
    data = a._data
    if data.dtype.kind != "f":
        raise NotImplementedError(
            f'"{name}_kernel_impl" not implemented for \'{a.dtype.scalar_name}\'; convert with '
            ".float()"
        )
    return data


class Softmax(Op):
    saves_result = True

    @staticmethod
    def forward(ctx, a, dim=-1):
        data = floating_only(a, "softmax")
        (axis,) = normalize_dims(dim, data.ndim) or (0,)
        ctx.dim = axis
        shifted = np.exp(data - data.max(axis=axis, keepdims=True))
        return shifted / shifted.sum(axis=axis, keepdims=True)

    @staticmethod
    def backward(ctx, grad):
        result = ctx.result
        return result * (grad - (grad * result).sum(dim=ctx.dim, keepdim=True))


class LogSoftmax(Op):
    saves_result = True

    @staticmethod
    def forward(ctx, a, dim=-1):
        data = floating_only(a, "log_softmax")
        (axis,) = normalize_dims(dim, data.ndim) or (0,)
        ctx.dim = axis
        shifted = data - data.max(axis=axis, keepdims=True)
        return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))

    @staticmethod
    def backward(ctx, grad):
        return grad - ctx.result.exp() * grad.sum(dim=ctx.dim, keepdim=True)


def _reduce(values, reduction: str, count: int):
    if reduction == "mean":
        return values.sum() / count
    if reduction == "sum":
        return values.sum()
    if reduction == "none":
        return values
    raise ValueError(
        f"{reduction} is not a valid value for reduction (use 'mean', 'sum' or 'none')"
    )


class NllLoss(Op):
    """Negative log-likelihood of the target classes, from log-probabilities (N, C)."""

    @staticmethod
    def forward(ctx, log_probs, target=None, reduction="mean"):
        data, classes = log_probs._data, target._data
        if classes.dtype != np.int64:
            raise RuntimeError(
                f"expected scalar type Long but found {target.dtype}: class targets must be "
                "integer indices (use .long())"
            )
        if classes.ndim > 1:
            raise RuntimeError(
                "0D or 1D target tensor expected, multi-target not supported: pass one class "
                f"index per row, shape [{data.shape[0]}], not {list(target.shape)}"
            )
        if data.ndim == 1:
            data, classes = data[None], classes.reshape(1)
        if classes.shape[0] != data.shape[0]:
            raise ValueError(
                f"Expected input batch_size ({data.shape[0]}) to match target batch_size "
                f"({classes.shape[0]})."
            )
        if classes.size and (classes.min() < 0 or classes.max() >= data.shape[1]):
            raise IndexError(f"Target {int(classes.max())} is out of bounds.")
        ctx.save(target=target)
        xp = xp_of(data)
        rows = xp.arange(data.shape[0])
        one_hot = xp.zeros(data.shape, dtype=data.dtype)
        one_hot[rows, classes] = 1
        ctx.one_hot, ctx.reduction, ctx.count = one_hot, reduction, data.shape[0]
        ctx.shape = log_probs._data.shape
        picked = -data[rows, classes]
        return _reduce(picked, reduction, data.shape[0])

    @staticmethod
    def backward(ctx, grad):
        one_hot = Tensor._make(ctx.one_hot)
        if ctx.reduction == "none":
            spread = grad.reshape(-1, 1)
        elif ctx.reduction == "mean":
            spread = grad / ctx.count
        else:
            spread = grad
        return (-one_hot * spread).reshape(ctx.shape)


class MseLoss(Op):
    @staticmethod
    def forward(ctx, a, target, reduction="mean"):
        if a._data.shape != target._data.shape:
            warnings.warn(
                f"Using a target size ({target.shape}) that is different to the input size "
                f"({a.shape}). This will likely lead to incorrect results due to broadcasting. "
                "Please ensure they have the same size.",
                UserWarning,
                stacklevel=4,
            )
        ctx.save(self=a, target=target)
        ctx.reduction = reduction
        x, y = operands(a, target)
        diff = x - y
        ctx.count = diff.size
        return _reduce(diff * diff, reduction, diff.size)

    @staticmethod
    def backward(ctx, grad):
        a, target = ctx.saved_tensors
        scale = grad * (2.0 / ctx.count) if ctx.reduction == "mean" else grad * 2.0
        diff = a - target
        need_a, need_target = ctx.needs_input_grad
        return diff * scale if need_a else None, -diff * scale if need_target else None


def _log_sigmoid(x):
    """log(sigmoid(x)) without overflow: min(x, 0) - log(1 + exp(-|x|))."""
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


class BinaryCrossEntropyWithLogits(Op):
    """Binary cross-entropy of ``sigmoid(input)`` computed from the logits, one node as in
    torch: ``(1 - target) * input - (1 + (pos_weight - 1) * target) * log_sigmoid(input)``,
    which never takes the log of a sigmoid rounded to 0 or 1. Like torch, only ``input`` and
    ``target`` are differentiable; ``weight`` and ``pos_weight`` are parameters."""

    @staticmethod
    def forward(ctx, a, target, weight=None, pos_weight=None, reduction="mean"):
        if a._data.shape != target._data.shape:
            raise ValueError(
                f"Target size ({target.shape}) must be the same as input size ({a.shape})"
            )
        if target._data.dtype.kind != "f":  # torch computes 1 - target in target's dtype
            raise RuntimeError(
                f"result type {a.dtype.scalar_name} can't be cast to the desired output type "
                f"{target.dtype.scalar_name}: binary cross-entropy needs float targets (use "
                "target.float())"
            )
        x, y = operands(a, target)
        loss = (1 - y) * x - _scaled(_log_sigmoid(x), pos_weight, y)
        if weight is not None:
            loss = loss * weight._data
        ctx.save(self=a, target=target, weight=weight, pos_weight=pos_weight)
        ctx.reduction, ctx.count = reduction, loss.size
        return _reduce(loss.astype(x.dtype, copy=False), reduction, loss.size)

    @staticmethod
    def backward(ctx, grad):
        a, target, weight, pos_weight = ctx.saved_tensors
        need_a, need_target = ctx.needs_input_grad
        if ctx.reduction == "mean":
            grad = grad / ctx.count
        if weight is not None:
            grad = grad * weight
        grad_a = grad_target = None
        if need_a:  # d/dx: sigmoid(x) - y, or (1 + (pw - 1) y) sigmoid(x) - pw y
            if pos_weight is None:
                grad_a = (a.sigmoid() - target) * grad
            else:
                weighted = pos_weight * target
                grad_a = ((weighted + 1 - target) * a.sigmoid() - weighted) * grad
        if need_target:  # d/dy: -x - (pw - 1) log_sigmoid(x)
            grad_target = -a * grad
            if pos_weight is not None:
                log_sigmoid = a.clamp(max=0) - (-a.abs()).exp().add(1).log()
                grad_target = grad_target - (pos_weight - 1) * log_sigmoid * grad
        return grad_a, grad_target


def _scaled(log_sigmoid, pos_weight, target):
    """``log_sigmoid`` weighted by ``1 + (pos_weight - 1) * target`` where pos_weight is given."""
    if pos_weight is None:
        return log_sigmoid
    return log_sigmoid * ((pos_weight._data - 1) * target + 1)


def softmax(self, dim, dtype=None):
    """With ``dtype``, the input is cast to it first (``ToCopyBackward0``), as in torch."""
    return Softmax.apply(self if dtype is None else self.to(dtype), dim=dim)


def log_softmax(self, dim, dtype=None):
    """With ``dtype``, the input is cast to it first (``ToCopyBackward0``), as in torch."""
    return LogSoftmax.apply(self if dtype is None else self.to(dtype), dim=dim)


TABLE = [
    op("softmax", softmax),
    op("log_softmax", log_softmax),
]
