"""``miniautograd.optim``: SGD and Adam with torch's update rules and defaults."""

from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "Optimizer"]
