"""In-place operations (``add_``, ``x[i] = v``, ``fill_``, ...): torch's rules for changing a
tensor that autograd may still need.

An in-place op is its out-of-place op followed by a write into the tensor's own storage
(views see it) and a bump of its version counter, so that backward refuses a saved value that
was overwritten. When a graph is recorded, the tensor takes over the result's history (torch
"rebases" it); for a view, its base's history is rebased instead, with a ``CopySlices`` node.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _backend, _random
from .._tensor import Tensor
from ..autograd.grad_mode import STATE
from .arithmetic import Copy, Fill, Zero
from .shape import CopySlices, Index, positions_in_base, unwrap_key
from .table import op

_LEAF_IN_PLACE = (
    "a leaf Variable that requires grad is being used in an in-place operation. (Updating "
    "weights? Do it inside `with torch.no_grad():`, or change a copy made with .clone().)"
)


def write(self: Tensor, result_data: Any) -> None:
    """Store new values into this tensor's own storage (views see them) and bump the version."""
    target = self._data
    if result_data.shape != target.shape and \
            np.broadcast_shapes(result_data.shape, target.shape) != target.shape:
        raise RuntimeError(
            f"output with shape {list(target.shape)} doesn't match the broadcast shape "
            f"{list(np.broadcast_shapes(result_data.shape, target.shape))}: an in-place "
            "operation cannot grow its tensor; use the out-of-place form (t = t + u)"
        )
    if result_data.dtype != target.dtype and not np.can_cast(
        result_data.dtype, target.dtype, "same_kind"
    ):
        raise RuntimeError(
            f"result type {_scalar_name(result_data)} can't be cast to the desired output type "
            f"{_scalar_name(target)}"
        )
    refuse_shared_memory(target)
    target[...] = result_data
    self._vc[0] += 1


def refuse_shared_memory(data: Any) -> None:
    """An expanded tensor (``expand``, or the gradient of a ``sum``) is a read-only NumPy view
    whose elements share memory; writing into it raises torch's error for such tensors."""
    if not getattr(data.flags, "writeable", True):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


def _scalar_name(data: Any) -> str:
    return Tensor._make(data).dtype.scalar_name


def in_place(self: Tensor, compute: Callable[[Tensor], Tensor]) -> Tensor:
    """Run ``compute(tensor) -> Tensor`` and make its result this tensor's new value.

    When a graph is recorded, this tensor takes over the result's ``grad_fn`` and the old
    value lives on, as a copy, inside the graph (torch rebases history the same way). For a
    view, the base's history is rebased instead (a ``CopySlices`` node), as in torch.
    """
    if not STATE.enabled:
        write(self, compute(self)._data)
        return self
    refuse_leaf(self)
    old = self
    if self._requires_grad:
        old = Tensor._make(self._data.copy(), True, self.grad_fn, self._output_nr)
    result = compute(old)
    base = self._view_base
    if base is not None and result._requires_grad:
        positions = positions_in_base(self, base)
        _copy_into(base, positions, result)
        _become_view_of(self, base, positions)
        return self
    write(self, result._data)
    if result._requires_grad:
        self.grad_fn, self._output_nr, self._requires_grad = result.grad_fn, 0, True
    return self


def refuse_leaf(tensor: Tensor) -> None:
    """In-place changes to a leaf that requires grad (or to a view of one) are refused."""
    if tensor.grad_fn is None and tensor._requires_grad:
        raise RuntimeError(_LEAF_IN_PLACE)
    base = tensor._view_base
    if base is not None and base.grad_fn is None and base._requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place "
            "operation. Update it inside `with torch.no_grad():`, or change a .clone()."
        )


def _copy_into(base: Tensor, positions: np.ndarray, value: Any) -> None:
    """Write ``value`` at ``positions`` of ``base`` and record it (``CopySlices``)."""
    result = CopySlices.apply(base._alias(), value, positions=positions)
    write(base, result._data)
    if result._requires_grad:
        base.grad_fn, base._output_nr, base._requires_grad = result.grad_fn, 0, True


def _become_view_of(view: Tensor, base: Tensor, positions: np.ndarray) -> None:
    """After its base was rebased, a view's history is "these positions of the new base"."""
    fresh = Index.apply(base.reshape(-1), key=positions)
    view.grad_fn, view._output_nr, view._requires_grad = fresh.grad_fn, 0, True


def inplace_method(name: str, method: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """``Tensor.<name>_`` from ``Tensor.<name>``: the op, then its result written back."""
    ufunc = _UPDATES.get(name)

    def in_place_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if ufunc is not None and not kwargs and _update(self, ufunc, args):
            return self
        return in_place(self, lambda t: method(t, *args, **kwargs))

    return in_place_method


# Speed: ``w -= lr * w.grad`` under no_grad, the update of every training step, computes into
# w's own storage (np.subtract(w, u, out=w)) instead of making w - u and copying it back: one
# full-size temporary less (measured: the two-layer-net benchmark runs ~7% faster). The
# general path above gives the same values; tests/engine check both.
_UPDATES = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}


def _update(self: Tensor, ufunc: np.ufunc, args: tuple) -> bool:
    """Apply ``ufunc`` in place when nothing is recorded and ``other`` is a tensor of the same
    shape and floating dtype on the same device; False (nothing done) otherwise."""
    if len(args) != 1 or not isinstance(args[0], Tensor):
        return False
    other = args[0]
    if STATE.enabled and (self._requires_grad or other._requires_grad):
        return False
    target, source = self._data, other._data
    if source.shape != target.shape or source.dtype != target.dtype \
            or target.dtype.kind != "f" or type(source) is not type(target):
        return False
    ufunc(target, source, out=target)
    self._vc[0] += 1
    return True


# ---- in-place operations of their own ----------------------------------------------------------


def fill_(self: Tensor, value: Any) -> Tensor:
    return _fill(self, value, Fill)


def zero_(self: Tensor) -> Tensor:
    return _fill(self, 0, Zero)


def _fill(self: Tensor, value: Any, fill: type) -> Tensor:
    if isinstance(value, Tensor):
        value = value.item()
    if not (STATE.enabled and self._requires_grad):  # nothing to record: write directly
        self._data.fill(value)
        self._vc[0] += 1
        return self
    return in_place(self, lambda t: fill.apply(t, value=value))


def copy_(self: Tensor, src: Tensor) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(
            f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}"
        )
    return in_place(self, lambda t: Copy.apply(t, src))


def setitem(self: Tensor, key: Any, value: Any) -> None:
    """``t[key] = value``: recorded as a ``CopySlices`` into the base tensor."""
    key = unwrap_key(key)
    value_grad = isinstance(value, Tensor) and value._requires_grad
    if STATE.enabled and (self._requires_grad or value_grad):
        refuse_leaf(self)
        base = self._view_base if self._view_base is not None else self
        own = np.arange(self._data.size, dtype=np.int64).reshape(self._data.shape)[key]
        positions = own if base is self else \
            positions_in_base(self, base).reshape(-1)[own.reshape(-1)].reshape(own.shape)
        _copy_into(base, positions, value)
        if base is not self:
            _become_view_of(self, base, positions_in_base(self, base))
        return
    refuse_shared_memory(self._data)
    self._data[key] = value._data if isinstance(value, Tensor) else value
    self._vc[0] += 1


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    _initialise(self, _random.uniform_(self._data.shape, a, b, self._data.dtype, generator),
                Uniform)
    return self


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    _initialise(self, _random.normal_(self._data.shape, mean, std, self._data.dtype, generator),
                Normal)
    return self


class Uniform(Fill):
    """``uniform_`` on a tensor whose history is recorded: the old values are replaced by the
    drawn ones, so their gradient is zero (Fill's backward)."""

    node_name = "UniformBackward0"

    @staticmethod
    def forward(ctx, a, value=None):
        return value


class Normal(Uniform):
    node_name = "NormalBackward0"


def _initialise(self: Tensor, values: np.ndarray, recorded_as: type) -> None:
    """Initialisers (uniform_, normal_) write like torch's: a leaf in place, under no_grad; a
    tensor with a history gets a node (``recorded_as``) whose gradient is zero."""
    if STATE.enabled and self.grad_fn is None and self._requires_grad:
        raise RuntimeError(_LEAF_IN_PLACE)
    values = _backend.asarray(values, self._data.dtype, self.device)
    if STATE.enabled and self._requires_grad:
        in_place(self, lambda t: recorded_as.apply(t, value=values))
    else:
        write(self, values)


TABLE = [
    op("setitem", setitem, method=False, function=False, operators=("__setitem__",)),
    op("fill_", fill_, function=False),
    op("zero_", zero_, function=False),
    op("copy_", copy_, function=False),
    op("uniform_", uniform_, function=False),
    op("normal_", normal_, function=False),
]
