"""``nn.init``: fill a parameter in place with the values a layer should start from.

Each function works under ``no_grad`` (filling a parameter is not part of any model's
computation), returns the tensor it filled, and draws from torch's generator with torch's
arithmetic for the bounds, so that after the same ``manual_seed`` the numbers are torch's,
bit for bit. The scaled ones (Xavier/Glorot, Kaiming/He) keep the variance of the signal
about constant from layer to layer: the spread shrinks as the number of inputs ``fan_in``
(or outputs ``fan_out``) grows.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

__all__ = [
    "calculate_gain",
    "constant_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor by which a nonlinearity's output spread should be scaled back up."""
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4  # torch's value, found empirically
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Any = None) -> Tensor:
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(inputs, outputs) per unit of a weight of shape (out, in, *kernel): each counts the
    kernel's elements too."""
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive_field = 1
    for size in tensor.shape[2:]:
        receptive_field *= size
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _xavier_std(tensor: Tensor, gain: float) -> float:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return gain * math.sqrt(2.0 / float(fan_in + fan_out))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot & Bengio (2010): uniform with variance 2 / (fan_in + fan_out), times gain^2."""
    bound = math.sqrt(3.0) * _xavier_std(tensor, gain)  # a uniform's std is bound / sqrt(3)
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot & Bengio (2010), drawn from a normal distribution."""
    return normal_(tensor, 0.0, _xavier_std(tensor, gain), generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    """He et al. (2015): gain / sqrt(fan); None for a tensor with no elements (nothing to do,
    as torch warns)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan_in if mode == "fan_in" else fan_out)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He initialisation, uniform; ``a`` is the negative slope of a leaky ReLU."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """He initialisation, normal."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0, std, generator)
