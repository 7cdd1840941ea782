"""Softmax, log-softmax, losses, embedding lookup and batch normalisation, each one node as in
torch."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._backend import add_at, xp_of
from .._tensor import Tensor
from ._util import on_arrays, operands
from .arithmetic import where
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


def softmax_of(data: Any, axis: int) -> Any:
    """``Softmax``'s forward on a floating array (``axis`` normalised): also what
    ``Categorical`` computes with, on the array, when it records nothing."""
    shifted = np.exp(data - data.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


class Softmax(Op):
    saves_result = True

    @staticmethod
    def forward(ctx, a, dim=-1):
        data = floating_only(a, "softmax")
        (axis,) = normalize_dims(dim, data.ndim) or (0,)
        ctx.dim = axis
        return softmax_of(data, axis)

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
        ctx.reduction, ctx.count = reduction, data.shape[0]
        ctx.shape = log_probs._data.shape
        picked = -data[xp_of(data).arange(data.shape[0]), classes]
        return _reduce(picked, reduction, data.shape[0])

    @staticmethod
    def backward(ctx, grad):
        (target,) = ctx.saved_tensors  # checked: a target changed in place is refused
        classes = target._data.reshape(-1)
        xp = xp_of(grad._data)
        one_hot = xp.zeros((ctx.count, ctx.shape[-1]), dtype=grad._data.dtype)
        one_hot[xp.arange(ctx.count), classes] = 1
        one_hot = Tensor._make(one_hot)
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
        need_a, need_target = ctx.needs_input_grad
        factor = 2.0 / ctx.count if ctx.reduction == "mean" else 2.0
        if on_arrays(grad, a, target):  # Speed: the same arithmetic on the arrays (on_arrays)
            scale, diff = grad._data * factor, a._data - target._data
            return (Tensor._make(diff * scale) if need_a else None,
                    Tensor._make(-diff * scale) if need_target else None)
        scale = grad * factor
        diff = a - target
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


class Embedding(Op):
    """Rows of ``weight`` looked up by ``indices``: ``weight[indices]``. Backward adds each
    row's gradient back into the row it came from, except ``padding_idx``'s (a -1 for none)."""

    @staticmethod
    def forward(ctx, weight, indices=None, padding_idx=-1):
        ids, rows = indices._data, weight._data.shape[0]
        if ids.dtype not in (np.int32, np.int64):
            raise RuntimeError(
                "Expected tensor for argument #1 'indices' to have one of the following scalar "
                f"types: Long, Int; but got {indices.type()} instead (while checking arguments "
                "for embedding)"
            )
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= rows):
            raise IndexError("index out of range in self")
        ctx.save(indices=indices)
        ctx.padding_idx, ctx.weight_sym_argsize_0 = padding_idx, rows
        ctx.scale_grad_by_freq = ctx.sparse = False
        return weight._data[ids]

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        return EmbeddingDenseBackward.apply(grad, indices=indices,
                                            num_weights=ctx.weight_sym_argsize_0,
                                            padding_idx=ctx.padding_idx)


class EmbeddingDenseBackward(Op):
    """Embedding's gradient for its weight: zeros, with each looked-up row's gradient added
    into its row (none into ``padding_idx``'s). An op of its own, as in torch, so that a
    second derivative can be taken: backward looks the rows up again."""

    @staticmethod
    def forward(ctx, grad, indices=None, num_weights=0, padding_idx=-1):
        ctx.save(indices=indices)
        ctx.padding_idx = padding_idx
        data = grad._data
        out = xp_of(data).zeros((num_weights, data.shape[-1]), dtype=data.dtype)
        add_at(out, indices._data, data)
        if padding_idx >= 0:
            out[padding_idx] = 0
        return out

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        rows = grad[indices]
        if ctx.padding_idx < 0:
            return rows
        return where((indices != ctx.padding_idx).unsqueeze(-1), rows, 0.0)  # +0, not -0


class NativeBatchNorm(Op):
    """Batch normalisation of ``input`` (N, C) or (N, C, L), channel by channel: in training,
    by the batch's mean and biased variance (and the running statistics updated, with the
    unbiased variance); in evaluation, by the running statistics. Then ``* weight + bias``.
    Like torch's CPU kernel, the statistics are computed in float64."""

    @staticmethod
    def forward(ctx, a, weight, bias, running_mean=None, running_var=None, training=True,
                momentum=0.1, eps=1e-5):
        x = a._data
        xp = xp_of(x)
        dims = (0, *range(2, x.ndim))
        channel = (1, x.shape[1]) + (1,) * (x.ndim - 2)  # a per-channel vector, broadcast
        wide = x.astype(np.float64)
        if training:
            count = x.size // x.shape[1]
            mean = wide.mean(axis=dims)
            squares = ((wide - mean.reshape(channel)) ** 2).sum(axis=dims)
            var = squares / count
            if running_mean is not None:  # the running variance is the unbiased one
                for stat, new in ((running_mean, mean), (running_var, squares / (count - 1))):
                    old = stat._data
                    old[...] = (momentum * new + (1 - momentum) * old).astype(old.dtype)
        else:
            mean, var = running_mean._data.astype(np.float64), running_var._data.astype(np.float64)
        invstd = 1 / xp.sqrt(var + eps)
        scale = invstd if weight is None else invstd * weight._data
        shift = -mean * scale if bias is None else bias._data - mean * scale
        ctx.save(input=a, weight=weight)
        ctx.dims, ctx.channel, ctx.training, ctx.eps = dims, channel, training, eps
        if not training:  # constants of backward; in training it recomputes them from the input
            ctx.mean, ctx.invstd = mean.astype(x.dtype), invstd.astype(x.dtype)
        return (x * scale.reshape(channel).astype(x.dtype)
                + shift.reshape(channel).astype(x.dtype))

    @staticmethod
    def backward(ctx, grad):
        a, weight = ctx.saved_tensors
        need_a, need_weight, need_bias = ctx.needs_input_grad
        dims, channel = ctx.dims, ctx.channel
        if ctx.training:  # mean and variance depend on the input: recomputed, differentiably
            centred = a - a.mean(dims, keepdim=True)
            invstd = ((centred * centred).mean(dims, keepdim=True) + ctx.eps) ** -0.5
        else:
            centred = a - Tensor._make(ctx.mean.reshape(channel))
            invstd = Tensor._make(ctx.invstd.reshape(channel))
        normalised = centred * invstd
        grad_a = grad_weight = grad_bias = None
        if need_a:
            scaled = grad if weight is None else grad * weight.reshape(channel)
            if ctx.training:
                scaled = (scaled - scaled.mean(dims, keepdim=True)
                          - normalised * (scaled * normalised).mean(dims, keepdim=True))
            grad_a = scaled * invstd
        if need_weight:
            grad_weight = (grad * normalised).sum(dims)
        if need_bias:
            grad_bias = grad.sum(dims)
        return grad_a, grad_weight, grad_bias


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
