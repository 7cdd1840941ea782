"""``miniautograd.nn``: modules, parameters and ``functional``."""

from . import functional
from .modules import (
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Linear,
    Module,
    MSELoss,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Dropout",
    "Linear",
    "MSELoss",
    "Module",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "functional",
]
