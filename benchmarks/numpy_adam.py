"""torch's Adam update on numpy arrays, for engines without optimizers (mygrad).

The same arithmetic, in the same order, as ``miniautograd.optim.Adam`` (which follows torch's
single-tensor implementation), so that every engine takes the same steps from the same
gradients and the final losses can be compared.
"""

from __future__ import annotations

import math

import numpy as np


class Adam:
    def __init__(self, params: list[np.ndarray], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> None:
        self.params, self.lr, self.betas, self.eps = params, lr, betas, eps
        self.exp_avg = [np.zeros_like(p) for p in params]
        self.exp_avg_sq = [np.zeros_like(p) for p in params]
        self.steps = 0

    def step(self, grads: list[np.ndarray]) -> None:
        """Update every parameter in place from its gradient."""
        beta1, beta2 = self.betas
        self.steps += 1
        step_size = self.lr / (1 - beta1**self.steps)
        bias_correction2_sqrt = math.sqrt(1 - beta2**self.steps)
        for param, grad, exp_avg, exp_avg_sq in zip(self.params, grads, self.exp_avg,
                                                      self.exp_avg_sq, strict=True):
            exp_avg += (grad - exp_avg) * (1 - beta1)  # torch: exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq *= beta2
            exp_avg_sq += grad * grad * (1 - beta2)
            denom = np.sqrt(exp_avg_sq) / bias_correction2_sqrt + self.eps
            param -= exp_avg / denom * step_size
