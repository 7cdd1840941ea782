"""``miniautograd.nn``: modules, parameters and ``functional``."""

from . import functional, init
from .modules import (
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Flatten,
    Linear,
    Module,
    MSELoss,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
    Unflatten,
)
from .parameter import Parameter

__all__ = [
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Dropout",
    "Flatten",
    "Linear",
    "MSELoss",
    "Module",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "Unflatten",
    "functional",
    "init",
]
