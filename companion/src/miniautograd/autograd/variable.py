"""``Variable``: kept so that pre-0.4 programs still run, exactly as torch keeps it."""

from __future__ import annotations

import warnings
from typing import Any

from .._tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """Since PyTorch 0.4, ``Variable(t, requires_grad=...)`` just returns a Tensor.

    Before 0.4 a Variable wrapped a tensor (``.data``) and carried ``.grad`` and ``.grad_fn``;
    ``volatile=True`` meant inference. Tensors now do all of this themselves, and ``volatile``
    became ``torch.no_grad()``. ``isinstance(t, Variable)`` is true for every tensor.
    """

    def __new__(cls, data: Tensor, requires_grad: bool = False, volatile: bool = False) -> Tensor:  # type: ignore[misc]
        warnings.warn(
            "Variable is deprecated since PyTorch 0.4: Variable(t) returns a plain Tensor. "
            "Write t.requires_grad_() or torch.tensor(..., requires_grad=True) instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        tensor = data.detach()
        tensor._vc = [0]  # a new Variable was a new version-tracked object
        tensor.requires_grad_(requires_grad)
        return tensor
