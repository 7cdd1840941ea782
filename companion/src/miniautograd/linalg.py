"""``torch.linalg``: the norms miniautograd has (matrix products are Tensor ops: ``@``, mm)."""

from __future__ import annotations

from .ops.reduction import vector_norm

__all__ = ["vector_norm"]
