"""Adam, following torch's single-tensor implementation step by step."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

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
