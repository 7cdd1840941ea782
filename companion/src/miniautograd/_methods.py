"""Tensor methods and operators: thin calls into the ops, plus in-place updates.

Kept apart from ``_tensor.py`` so that the class body stays about what autograd stores.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .autograd.grad_mode import STATE
from .ops import arithmetic as ar
from .ops import linalg, nn_ops, reduction, shape
from .ops._util import operands, result_dtype


def _tensor_cls():
    from ._tensor import Tensor

    return Tensor


# ---- arithmetic operators ------------------------------------------------------------------


def _add(self, other, alpha=1):
    return ar.Add.apply(self, other) if alpha == 1 else ar.Add.apply(self, other, alpha=alpha)


def _sub(self, other, alpha=1):
    return ar.Sub.apply(self, other) if alpha == 1 else ar.Sub.apply(self, other, alpha=alpha)


def _binary(op):
    """An operator method calling the op's apply directly (the hottest path of all)."""
    apply = op.apply

    def operator(self, other):
        return apply(self, other)

    return operator


def _rsub(self, other):
    return ar.Rsub.apply(self, other=other)


def _mul(self, other):
    return ar.Mul.apply(self, other)


def _truediv(self, other):
    return ar.Div.apply(self, other)


def _rtruediv(self, other):
    return self.reciprocal() * other


def _reciprocal(self):
    return ar.Reciprocal.apply(self)


def _pow(self, exponent):
    if isinstance(exponent, _tensor_cls()):
        return ar.PowTensor.apply(self, exponent)
    return ar.Pow.apply(self, exponent=exponent)


def _rpow(self, base):
    return ar.RPow.apply(self, base=base)


def _matmul(self, other):
    return linalg.matmul(self, other)


def _rmatmul(self, other):
    return linalg.matmul(other, self)


# ---- comparisons and logic: no gradient ------------------------------------------------------


def _comparison(ufunc):
    def compare(self, other):
        x, y = operands(self, other)
        return _tensor_cls()._make(ufunc(x, y))

    compare.__name__ = ufunc.__name__
    return compare


def _logical(ufunc):
    def combine(self, other):
        x, y = operands(self, other)
        return _tensor_cls()._make(ufunc(x, y))

    return combine


def _invert(self):
    if self._data.dtype != np.bool_:
        return _tensor_cls()._make(~self._data)
    return _tensor_cls()._make(np.logical_not(self._data))


# ---- reductions --------------------------------------------------------------------------------


def _sum(self, dim=None, keepdim=False, dtype=None):
    from ._dtype import to_numpy_dtype

    op = reduction.Sum if dim is None else reduction.SumDim
    return op.apply(self, dim=dim, keepdim=keepdim, dtype=to_numpy_dtype(dtype))


def _mean(self, dim=None, keepdim=False):
    op = reduction.Mean if dim is None else reduction.MeanDim
    return op.apply(self, dim=dim, keepdim=keepdim)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def _var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):  # var(unbiased) positional form
        dim, unbiased = None, dim
    return reduction.Var.apply(self, dim=dim, correction=_correction(unbiased, correction),
                               keepdim=keepdim)


def _std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return reduction.Std.apply(self, dim=dim, correction=_correction(unbiased, correction),
                               keepdim=keepdim)


def _extreme(largest: bool):
    def extreme(self, dim=None, keepdim=False):
        if isinstance(dim, _tensor_cls()):  # max(other): elementwise, like torch.maximum
            return (ar.Maximum if largest else ar.Minimum).apply(self, dim)
        if dim is None:
            return (reduction.MaxAll if largest else reduction.MinAll).apply(self)
        return reduction.extreme_along(self, dim, keepdim, largest)

    return extreme


def _argextreme(largest: bool):
    def argextreme(self, dim=None, keepdim=False):
        arg = np.argmax if largest else np.argmin
        if dim is None:
            return _tensor_cls()._make(np.asarray(arg(self._data), dtype=np.int64))
        result = arg(self._data, axis=dim)
        if keepdim:
            result = np.expand_dims(result, dim)
        return _tensor_cls()._make(result.astype(np.int64))

    return argextreme


def _sum_to_size(self, *size):
    """Sum over broadcast dimensions so the result has shape ``size`` (undoes broadcasting)."""
    target = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    current = self._data.shape
    if current == target:
        return self
    lead = len(current) - len(target)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(target) if n == 1 and current[lead + i] != 1
    )
    out = reduction.SumDim.apply(self, dim=dims, keepdim=True) if dims else self
    return out.reshape(target) if out._data.shape != target else out


# ---- shapes ------------------------------------------------------------------------------------


def _shape_tuple(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return args


def _reshape(self, *shape_args):
    return shape.reshape(self, _shape_tuple(shape_args))


def _view(self, *shape_args):
    if len(shape_args) == 1 and not isinstance(shape_args[0], (int, tuple, list)):
        return self.to(shape_args[0])  # view(dtype) is a reinterpretation in torch; rare here
    return shape.View.apply(self, shape=_shape_tuple(shape_args))


def _flatten(self, start_dim=0, end_dim=-1):
    dims = self._data.shape
    if not dims:
        return self.reshape(1)
    (start,) = reduction.normalize_dims(start_dim, len(dims))
    (end,) = reduction.normalize_dims(end_dim, len(dims))
    merged = int(np.prod(dims[start:end + 1], dtype=np.int64))
    return self.reshape(*dims[:start], merged, *dims[end + 1:])


def _squeeze(self, dim=None):
    if dim is None:
        return shape.Squeeze.apply(self)
    return shape.SqueezeDim.apply(self, dim=dim)


def _expand(self, *sizes):
    return shape.Expand.apply(self, shape=_shape_tuple(sizes))


def _permute(self, *dims):
    return shape.Permute.apply(self, dims=_shape_tuple(dims))


def _transpose(self, dim0, dim1):
    return shape.Transpose.apply(self, dim0=dim0, dim1=dim1)


def _big_t(self):
    return shape.Permute.apply(self, dims=tuple(reversed(range(self._data.ndim))))


def _getitem(self, key):
    return shape.index(self, key)


def _unbind(self, dim=0):
    return shape.Unbind.apply(self, dim)


def _split(self, split_size_or_sections, dim=0):
    (axis,) = reduction.normalize_dims(dim, self._data.ndim)
    sizes = shape.split_sizes(self._data.shape[axis], split_size_or_sections)
    return shape.Split.apply(self, tuple(sizes), axis)


def _chunk(self, chunks, dim=0):
    (axis,) = reduction.normalize_dims(dim, self._data.ndim)
    length = self._data.shape[axis]
    return _split(self, -(-length // chunks) if length else 1, axis)


def _softmax(self, dim, dtype=None):
    return nn_ops.Softmax.apply(self, dim=dim)


def _log_softmax(self, dim, dtype=None):
    return nn_ops.LogSoftmax.apply(self, dim=dim)


def _clamp(self, min=None, max=None):  # noqa: A002 - torch's keyword names
    return ar.Clamp.apply(self, min=min, max=max)


def _sign(self):
    return ar.Sign.apply(self)


# ---- in place ------------------------------------------------------------------------------------

_LEAF_IN_PLACE = (
    "a leaf Variable that requires grad is being used in an in-place operation. (Updating "
    "weights? Do it inside `with torch.no_grad():`, or change a copy made with .clone().)"
)


def _write(self, result_data) -> None:
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
        names = {"f": "Float", "i": "Long", "b": "Bool", "u": "Byte"}
        raise RuntimeError(
            f"result type {names.get(result_data.dtype.kind, result_data.dtype)} can't be cast "
            f"to the desired output type {names.get(target.dtype.kind, target.dtype)}"
        )
    target[...] = result_data
    self._vc[0] += 1


def _in_place(self, compute):
    """Run ``compute(tensor) -> Tensor`` and make its result this tensor's new value.

    When a graph is recorded, this tensor takes over the result's ``grad_fn`` and the old
    value lives on, as a copy, inside the graph (torch rebases history the same way). For a
    view, the base's history is rebased instead (a ``CopySlices`` node), as in torch.
    """
    if not STATE.enabled:
        _write(self, compute(self)._data)
        return self
    _refuse_leaf(self)
    old = self
    if self._requires_grad:
        old = _tensor_cls()._make(self._data.copy(), True, self.grad_fn, self._output_nr)
    result = compute(old)
    base = self._view_base
    if base is not None and result._requires_grad:
        positions = shape.positions_in_base(self, base)
        _copy_into(base, positions, result)
        _become_view_of(self, base, positions)
        return self
    _write(self, result._data)
    if result._requires_grad:
        self.grad_fn, self._output_nr, self._requires_grad = result.grad_fn, 0, True
    return self


def _direct_update(self, ufunc, args, kwargs) -> bool:
    """``w -= lr * w.grad`` under no_grad: update the storage in place, no temporary copy.
    Only for same-shape, same-dtype tensor operands when nothing is recorded."""
    if kwargs or len(args) != 1:
        return False
    other = args[0]
    if STATE.enabled and (self._requires_grad or getattr(other, "_requires_grad", False)):
        return False
    if not isinstance(other, _tensor_cls()):
        return False
    target, source = self._data, other._data
    if source.shape != target.shape or source.dtype != target.dtype \
            or target.dtype.kind != "f" or type(source) is not type(target):
        return False
    ufunc(target, source, out=target)
    self._vc[0] += 1
    return True


def _refuse_leaf(tensor) -> None:
    """In-place changes to a leaf that requires grad (or to a view of one) are refused."""
    if tensor.grad_fn is None and tensor._requires_grad:
        raise RuntimeError(_LEAF_IN_PLACE)
    base = tensor._view_base
    if base is not None and base.grad_fn is None and base._requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place "
            "operation. Update it inside `with torch.no_grad():`, or change a .clone()."
        )


def _copy_into(base, positions, value) -> None:
    """Write ``value`` at ``positions`` of ``base`` and record it (``CopySlices``)."""
    result = shape.CopySlices.apply(base._alias(), value, positions=positions)
    _write(base, result._data)
    if result._requires_grad:
        base.grad_fn, base._output_nr, base._requires_grad = result.grad_fn, 0, True


def _become_view_of(view, base, positions) -> None:
    """After its base was rebased, a view's history is "these positions of the new base"."""
    fresh = shape.Index.apply(base.reshape(-1), key=positions)
    view.grad_fn, view._output_nr, view._requires_grad = fresh.grad_fn, 0, True


def _inplace_method(fn, ufunc=None):
    def method(self, *args, **kwargs):
        if ufunc is not None and _direct_update(self, ufunc, args, kwargs):
            return self
        return _in_place(self, lambda t: fn(t, *args, **kwargs))

    method.__name__ = fn.__name__ + "_"
    return method


def _fill_(self, value, op=ar.Fill):
    if isinstance(value, _tensor_cls()):
        value = value.item()
    if not (STATE.enabled and self._requires_grad):  # nothing to record: write directly
        self._data[...] = value
        self._vc[0] += 1
        return self
    return _in_place(self, lambda t: op.apply(t, value=value))


def _zero_(self):
    return _fill_(self, 0, ar.Zero)


def _copy_(self, src):
    return _in_place(self, lambda t: t * 0 + src.to(self.dtype).expand(self._data.shape))


def _setitem(self, key, value):
    Tensor = _tensor_cls()
    key = shape.unwrap_key(key)
    value_grad = isinstance(value, Tensor) and value._requires_grad
    if STATE.enabled and (self._requires_grad or value_grad):
        _refuse_leaf(self)
        base = self._view_base if self._view_base is not None else self
        own = np.arange(self._data.size, dtype=np.int64).reshape(self._data.shape)[key]
        positions = own if base is self else \
            shape.positions_in_base(self, base).reshape(-1)[own.reshape(-1)].reshape(own.shape)
        _copy_into(base, positions, value)
        if base is not self:
            _become_view_of(self, base, shape.positions_in_base(self, base))
        return
    self._data[key] = value._data if isinstance(value, Tensor) else value
    self._vc[0] += 1


def _uniform_(self, a=0.0, b=1.0, generator=None):
    from . import _random

    with_no_grad_write(self, _random.uniform_(self._data.shape, a, b, self._data.dtype, generator))
    return self


def _normal_(self, mean=0.0, std=1.0, generator=None):
    from . import _random

    values = _random.normal_(self._data.shape, mean, std, self._data.dtype, generator)
    with_no_grad_write(self, values)
    return self


def with_no_grad_write(self, values) -> None:
    """Initialisers (uniform_, normal_) write like torch's: a leaf in place, under no_grad."""
    if STATE.enabled and self.grad_fn is None and self._requires_grad:
        raise RuntimeError(_LEAF_IN_PLACE)
    from . import _backend

    _write(self, _backend.asarray(values, self._data.dtype, self.device))


def _promote_like(self, other):
    return result_dtype(self, other)


def install(Tensor) -> None:  # noqa: N803 - the class being extended
    """Attach operators and methods to ``Tensor``."""
    methods: dict[str, Any] = {
        "__add__": _binary(ar.Add), "__radd__": _binary(ar.Add), "add": _add,
        "__sub__": _binary(ar.Sub), "__rsub__": _rsub, "sub": _sub,
        "__mul__": _binary(ar.Mul), "__rmul__": _binary(ar.Mul), "mul": _mul,
        "__truediv__": _binary(ar.Div), "__rtruediv__": _rtruediv, "div": _truediv,
        "__pow__": _pow, "__rpow__": _rpow, "pow": _pow,
        "__matmul__": _matmul, "__rmatmul__": _rmatmul, "matmul": _matmul,
        "mm": lambda self, other: linalg.Mm.apply(self, other),
        "mv": lambda self, vec: linalg.Mv.apply(self, vec),
        "dot": lambda self, other: linalg.Dot.apply(self, other),
        "__neg__": lambda self: ar.Neg.apply(self), "neg": lambda self: ar.Neg.apply(self),
        "__pos__": lambda self: self,
        "__abs__": lambda self: ar.Abs.apply(self),
        "reciprocal": _reciprocal,
        "exp": lambda self: ar.Exp.apply(self),
        "log": lambda self: ar.Log.apply(self),
        "sqrt": lambda self: ar.Sqrt.apply(self),
        "sin": lambda self: ar.Sin.apply(self),
        "cos": lambda self: ar.Cos.apply(self),
        "tanh": lambda self: ar.Tanh.apply(self),
        "sigmoid": lambda self: ar.Sigmoid.apply(self),
        "relu": lambda self: ar.Relu.apply(self),
        "abs": lambda self: ar.Abs.apply(self),
        "sign": _sign,
        "round": lambda self: ar.Round.apply(self),
        "floor": lambda self: ar.Floor.apply(self),
        "ceil": lambda self: ar.Ceil.apply(self),
        "clamp": _clamp, "clip": _clamp,
        "maximum": lambda self, other: ar.Maximum.apply(self, other),
        "minimum": lambda self, other: ar.Minimum.apply(self, other),
        "softmax": _softmax, "log_softmax": _log_softmax,
        "__eq__": _comparison(np.equal), "eq": _comparison(np.equal),
        "__ne__": _comparison(np.not_equal), "ne": _comparison(np.not_equal),
        "__lt__": _comparison(np.less), "lt": _comparison(np.less),
        "__le__": _comparison(np.less_equal), "le": _comparison(np.less_equal),
        "__gt__": _comparison(np.greater), "gt": _comparison(np.greater),
        "__ge__": _comparison(np.greater_equal), "ge": _comparison(np.greater_equal),
        "__and__": _logical(np.logical_and), "__or__": _logical(np.logical_or),
        "__xor__": _logical(np.logical_xor), "__invert__": _invert,
        "logical_not": _invert,
        "any": lambda self: _tensor_cls()._make(np.any(self._data)),
        "all": lambda self: _tensor_cls()._make(np.all(self._data)),
        "allclose": lambda self, other, rtol=1e-5, atol=1e-8, equal_nan=False: bool(
            np.allclose(self._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan)
        ),
        "equal": lambda self, other: bool(
            self._data.shape == other._data.shape and np.array_equal(self._data, other._data)
        ),
        "sum": _sum, "mean": _mean, "var": _var, "std": _std,
        "max": _extreme(True), "min": _extreme(False),
        "argmax": _argextreme(True), "argmin": _argextreme(False),
        "sum_to_size": _sum_to_size,
        "reshape": _reshape, "view": _view, "flatten": _flatten,
        "view_as": lambda self, other: _view(self, other.shape),
        "reshape_as": lambda self, other: _reshape(self, other.shape),
        "squeeze": _squeeze,
        "unsqueeze": lambda self, dim: shape.Unsqueeze.apply(self, dim=dim),
        "expand": _expand, "expand_as": lambda self, other: _expand(self, other.shape),
        "permute": _permute, "transpose": _transpose,
        "t": lambda self: shape.T.apply(self),
        "T": property(_big_t), "mT": property(lambda self: self.transpose(-2, -1)),
        "__getitem__": _getitem, "__setitem__": _setitem,
        "unbind": _unbind, "split": _split, "chunk": _chunk,
        "zero_": _zero_, "fill_": _fill_, "copy_": _copy_,
        "uniform_": _uniform_, "normal_": _normal_,
    }
    direct = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}
    for name, compute in {
        "add": _add, "sub": _sub, "mul": _mul, "div": _truediv, "pow": _pow, "clamp": _clamp,
        "exp": methods["exp"], "relu": methods["relu"], "sigmoid": methods["sigmoid"],
        "tanh": methods["tanh"], "neg": methods["neg"], "sqrt": methods["sqrt"],
        "abs": methods["abs"], "log": methods["log"],
    }.items():
        methods[name + "_"] = _inplace_method(compute, direct.get(name))
    methods["clamp_min"] = lambda self, min: _clamp(self, min=min)  # noqa: A006
    methods["__iadd__"] = methods["add_"]
    methods["__isub__"] = methods["sub_"]
    methods["__imul__"] = methods["mul_"]
    methods["__itruediv__"] = methods["div_"]
    for name, value in methods.items():
        setattr(Tensor, name, value)
