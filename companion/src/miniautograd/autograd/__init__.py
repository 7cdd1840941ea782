"""``miniautograd.autograd``: the same names as ``torch.autograd``."""

from . import graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import backward, grad
from .function import Function, once_differentiable
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable

__all__ = [
    "Function",
    "GradcheckError",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "is_grad_enabled",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
]
