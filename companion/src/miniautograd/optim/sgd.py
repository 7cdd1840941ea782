"""Stochastic gradient descent with torch's momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer


class SGD(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False,
                 maximize: bool = False) -> None:
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize})

    @no_grad()
    def step(self) -> None:
        for group in self.param_groups:
            for param in group["params"]:
                if param._grad is None:
                    continue
                grad = param._grad if not group["maximize"] else -param._grad
                if group["weight_decay"]:
                    grad = grad + group["weight_decay"] * param
                if group["momentum"]:
                    state = self.state.setdefault(param, {})
                    buffer = state.get("momentum_buffer")
                    if buffer is None:
                        buffer = state["momentum_buffer"] = grad.clone()
                    else:
                        buffer.mul_(group["momentum"]).add_(grad * (1 - group["dampening"]))
                    grad = grad + group["momentum"] * buffer if group["nesterov"] else buffer
                param.sub_(group["lr"] * grad)
