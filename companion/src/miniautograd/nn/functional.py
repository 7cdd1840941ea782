"""``nn.functional``: stateless layers and losses."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import _backend, _random
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..ops import linalg, nn_ops


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 - torch's name
    return input.relu_() if inplace else input.relu()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return input.tanh()


def _implicit_dim(name: str, ndim: int) -> int:
    """torch's legacy choice when no ``dim`` is given (with its deprecation warning)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        UserWarning,
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
            dtype: Any = None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("softmax", input.dim())
    return nn_ops.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
                dtype: Any = None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("log_softmax", input.dim())
    return nn_ops.log_softmax(input, dim, dtype)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``F.one_hot``: int64 rows with a 1 at each class index; the last dimension has
    ``num_classes`` entries (by default, the largest index plus one). Not differentiable."""
    data = tensor._data
    if data.dtype != np.int64:
        raise RuntimeError(
            "one_hot is only applicable to index tensor of type LongTensor. (Convert class "
            "indices with .long().)"
        )
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size and int(data.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if data.size and int(data.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    xp = _backend.xp_of(data)
    return Tensor._make((data[..., None] == xp.arange(num_classes)).astype(np.int64))


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """``input @ weight.T + bias``, recorded as torch records it: ``AddmmBackward0`` on the
    input flattened to 2-D (and viewed back), ``MmBackward0`` without a bias."""
    if bias is None:
        return input.matmul(weight.t())
    if input.dim() == 2:
        return linalg.linear_2d(input, weight, bias)
    rows = input.reshape(-1, input.shape[-1])
    out = linalg.Addmm.apply(bias, rows, weight.t())
    return out.reshape(*input.shape[:-1], weight.shape[0])


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,  # noqa: A002
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of ``weight`` at ``input``'s indices; ``padding_idx``'s row gets no gradient."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "embedding: max_norm, scale_grad_by_freq and sparse are not supported by "
            "miniautograd; leave them at their defaults"
        )
    row = padding_row(padding_idx, weight.shape[0])
    return nn_ops.Embedding.apply(weight, indices=input, padding_idx=-1 if row is None else row)


def padding_row(padding_idx: int | None, rows: int) -> int | None:
    """``padding_idx`` as a row number (a negative one counts from the end), or None."""
    if padding_idx is None:
        return None
    if not -rows <= padding_idx < rows:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % rows


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,  # noqa: A002
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dimension 1) over the batch, then ``* weight + bias``: in
    training by the batch's statistics (and ``running_mean``/``running_var`` updated in place),
    else by the running ones."""
    shape = tuple(input.shape)
    if training and math.prod(shape[:1] + shape[2:]) == 1:
        raise ValueError("Expected more than 1 value per channel when training, got input size "
                         f"{input.shape}")
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat is not None and stat.numel() != shape[1]:
            raise RuntimeError(f"{name} should contain {shape[1]} elements not {stat.numel()}")
    if not training and running_mean is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    return nn_ops.NativeBatchNorm.apply(input, weight, bias, running_mean=running_mean,
                                        running_var=running_var, training=training,
                                        momentum=momentum, eps=eps)


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    return nn_ops.MseLoss.apply(input, target, reduction=reduction)


def refuse_legacy_reduction(size_average: Any, reduce: Any) -> None:
    """torch's losses still take ``size_average`` and ``reduce``, deprecated for ``reduction``."""
    if size_average is not None or reduce is not None:
        raise NotImplementedError(
            "size_average and reduce are deprecated in torch and not supported here: use "
            "reduction='mean', 'sum' or 'none'"
        )


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                     weight: Tensor | None = None, size_average: None = None,
                                     reduce: None = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross-entropy of ``sigmoid(input)``, computed stably from the logits.
    ``size_average`` and ``reduce`` hold torch's positions for its deprecated arguments."""
    refuse_legacy_reduction(size_average, reduce)
    for name, value in (("weight", weight), ("pos_weight", pos_weight)):
        if value is not None and value.requires_grad and is_grad_enabled():
            raise RuntimeError(
                "The function 'binary_cross_entropy_with_logits' is not differentiable with "
                f"respect to argument '{name}'. This input cannot have requires_grad True: pass "
                f"{name}.detach()"
            )
    return nn_ops.BinaryCrossEntropyWithLogits.apply(
        input, target, weight=weight, pos_weight=pos_weight, reduction=reduction)


def nll_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    return nn_ops.NllLoss.apply(input, target=target, reduction=reduction)


def cross_entropy(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Log-softmax over classes (dim 1) followed by the negative log-likelihood."""
    return nll_loss(log_softmax(input, 1 if input.dim() > 1 else 0), target, reduction)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Zero each element with probability p and scale the rest by 1/(1-p) (training only)."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    keep = _random.bernoulli_(input.shape, 1 - p, input._data.dtype)  # drawn on the host
    mask = Tensor._make(_backend.to_device(keep / (1 - p), input.device))
    return input.mul_(mask) if inplace else input * mask
