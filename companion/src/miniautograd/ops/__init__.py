"""Built-in operations, one ``Op`` each: forward on arrays, backward on differentiable tensors.

- ``arithmetic``: elementwise maths (``+ - * / **``, exp, log, relu, ...)
- ``comparison``: comparisons and logic (no gradient)
- ``counting``: histograms (no gradient)
- ``reduction``: sum, mean, var, std, max, min
- ``shape``: views and copies (reshape, transpose, indexing, cat, ...)
- ``linalg``: matrix products
- ``nn_ops``: softmax, log-softmax and losses
- ``inplace``: torch's rules for in-place changes (``add_``, ``t[i] = v``, ...)

Each module ends with its part of the op table (``table.py`` says what a line means);
``install`` turns the whole table into Tensor methods and module-level functions.
"""

from __future__ import annotations

from typing import Any

from . import arithmetic, comparison, counting, inplace, linalg, nn_ops, reduction, shape
from ._util import broadcast_axes
from .table import Entry, bindings

# What other subpackages may use: the table, and the axes a broadcast added (the static
# graph's gradients undo broadcasting with it, as reduction.sum_to_size does).
__all__ = ["TABLE", "Entry", "broadcast_axes", "install"]

TABLE: tuple[Entry, ...] = (*arithmetic.TABLE, *comparison.TABLE, *counting.TABLE,
                            *reduction.TABLE,
                            *shape.TABLE, *linalg.TABLE, *nn_ops.TABLE, *inplace.TABLE)


def install(tensor_cls: type, namespace: dict[str, Any]) -> None:
    """Attach every table line's methods to ``tensor_cls`` and its functions to ``namespace``
    (the package's, so that ``miniautograd.exp`` exists)."""
    for entry in TABLE:
        methods, functions = bindings(entry, inplace.inplace_method)
        for name, method in methods.items():
            setattr(tensor_cls, name, method)
        namespace.update(functions)
