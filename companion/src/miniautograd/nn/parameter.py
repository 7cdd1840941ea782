"""``nn.Parameter``: a leaf tensor that a Module registers as something to train."""

from __future__ import annotations

from .._creation import zeros
from .._tensor import Tensor


class Parameter(Tensor):
    """A tensor that requires grad by default and is listed by ``Module.parameters()``."""

    __slots__ = ()

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        source = zeros(0) if data is None else data
        self._init(source._data)
        self.requires_grad_(requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()
