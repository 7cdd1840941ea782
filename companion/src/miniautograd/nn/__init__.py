"""``miniautograd.nn``: modules, parameters and ``functional``."""

from . import functional, init
from .modules import (
    BatchNorm1d,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Embedding,
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
    "BatchNorm1d",
    "CrossEntropyLoss",
    "Dropout",
    "Embedding",
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
