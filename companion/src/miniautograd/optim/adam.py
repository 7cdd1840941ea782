"""Adam, following torch's single-tensor implementation step by step."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from .._creation import tensor, zeros_like
from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer


class Adam(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, maximize: bool = False) -> None:
        if lr < 0 or eps < 0 or not (0 <= betas[0] < 1 and 0 <= betas[1] < 1):
            raise ValueError(f"Invalid Adam hyper-parameters: lr={lr}, betas={betas}, eps={eps}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize})

    @no_grad()
    def step(self) -> None:
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for param in group["params"]:
                if param._grad is None:
                    continue
                grad = param._grad if not group["maximize"] else -param._grad
                if group["weight_decay"]:
                    grad = grad + group["weight_decay"] * param
                state = self.state.setdefault(param, {})
                if not state:
                    state["step"] = tensor(0.0)  # a tensor, as torch keeps it
                    state["exp_avg"] = zeros_like(param)
                    state["exp_avg_sq"] = zeros_like(param)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = zeros_like(param)
                if _step_on_arrays(param, grad, state, group):
                    continue
                state["step"] += 1
                step = state["step"].item()
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.add_((grad - exp_avg) * (1 - beta1))  # torch: exp_avg.lerp_(grad, 1-beta1)
                exp_avg_sq.mul_(beta2).add_(grad * grad * (1 - beta2))
                step_size = group["lr"] / (1 - beta1**step)
                bias_correction2_sqrt = math.sqrt(1 - beta2**step)
                second = exp_avg_sq
                if group["amsgrad"]:
                    state["max_exp_avg_sq"].copy_(state["max_exp_avg_sq"].maximum(exp_avg_sq))
                    second = state["max_exp_avg_sq"]
                denom = second.sqrt() / bias_correction2_sqrt + group["eps"]
                param.sub_(exp_avg / denom * step_size)


# Speed: the common case (no weight decay, amsgrad or maximize; a NumPy gradient of the
# parameter's shape and dtype) computes the lines above on the arrays themselves, with the
# same operations in the same order (so the same numbers, bit for bit), without making a
# Tensor per operation. Measured on the small-MLP benchmark (Adam on 4 parameters, 1000 steps):
# see the commit message. tests/engine/test_fast_paths.py checks both paths agree.
def _step_on_arrays(param: Any, grad: Any, state: dict, group: dict) -> bool:
    """One Adam step of ``param`` on its arrays; False (nothing done) where it does not apply."""
    data, g = param._data, grad._data
    if group["weight_decay"] or group["amsgrad"] or group["maximize"] \
            or type(data) is not np.ndarray or type(g) is not np.ndarray \
            or g.shape != data.shape or g.dtype != data.dtype or data.dtype.kind != "f" \
            or not isinstance(group["lr"], (int, float)):
        return False
    beta1, beta2 = group["betas"]
    counter, exp_avg, exp_avg_sq = state["step"], state["exp_avg"], state["exp_avg_sq"]
    counter._data += 1
    step = counter._data.item()
    m, v = exp_avg._data, exp_avg_sq._data
    m += (g - m) * (1 - beta1)
    v *= beta2
    v += g * g * (1 - beta2)
    step_size = group["lr"] / (1 - beta1**step)
    bias_correction2_sqrt = math.sqrt(1 - beta2**step)
    data -= m / (np.sqrt(v) / bias_correction2_sqrt + group["eps"]) * step_size
    for changed in (counter, exp_avg, param):  # one version each, as add_, mul_ and sub_ give
        changed._vc[0] += 1
    exp_avg_sq._vc[0] += 2
    return True
