"""Shape operations, copies and indexing. Views share storage (and the version counter)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import _backend
from .._tensor import Tensor
from ..autograd.function import Function, Op
from ._util import meta, reduce_grad, result_dtype
from .reduction import normalize_dims


def resolve_shape(shape: tuple, numel: int) -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def viewable(data: Any, shape: tuple) -> bool:
    """Whether ``data`` can take ``shape`` without copying (numpy refuses when it cannot)."""
    probe = data.view()
    try:
        probe.shape = shape
    except AttributeError:
        return False
    return True


class View(Op):
    _node_name = "ViewBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, shape=()):
        data = a._data
        target = resolve_shape(shape, data.size)
        if not viewable(data, target):
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            )
        ctx.shape = data.shape
        return data.reshape(target)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape)


class UnsafeView(Op):
    """The reshape of a copy: what torch records when the input cannot be viewed."""

    _node_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, a, shape=()):
        ctx.shape = a._data.shape
        return a._data.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape)


class ReshapeAlias(View):
    """A reshape that is a view of a non-contiguous tensor (torch's ``_reshape_alias``)."""

    _node_name = "ReshapeAliasBackward0"


def reshape(a: Tensor, shape: tuple) -> Tensor:
    """A view when the memory layout allows it, else a copy (torch's rule)."""
    data = a._data
    target = resolve_shape(shape, data.size)
    if viewable(data, target):
        contiguous = data.flags.c_contiguous or data.size <= 1
        return (View if contiguous else ReshapeAlias).apply(a, shape=target)
    return UnsafeView.apply(Clone.apply(a), shape=target)


class Transpose(Op):
    _node_name = "TransposeBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, dim0=0, dim1=1):
        normalize_dims(dim0, a._data.ndim)
        normalize_dims(dim1, a._data.ndim)
        ctx.dims = (dim0, dim1)
        return np.swapaxes(a._data, dim0, dim1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims)


class T(Op):
    _node_name = "TBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a):
        if a._data.ndim > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {a._data.ndim}D; use "
                "transpose(dim0, dim1) or mT"
            )
        return a._data.T

    @staticmethod
    def backward(ctx, grad):
        return grad.t()


class Permute(Op):
    _node_name = "PermuteBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, dims=()):
        dims = tuple(d % max(a._data.ndim, 1) for d in dims)
        if sorted(dims) != list(range(a._data.ndim)):
            raise RuntimeError(
                f"permute: dims {list(dims)} must be a reordering of 0..{a._data.ndim - 1} "
                f"(the tensor has {a._data.ndim} dimensions)"
            )
        ctx.inverse = tuple(np.argsort(dims))
        return np.transpose(a._data, dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(*ctx.inverse)


class Squeeze(Op):
    _node_name = "SqueezeBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, dim=None):
        data = a._data
        ctx.shape = data.shape
        if dim is None:
            return np.squeeze(data)
        dims = tuple(d for d in normalize_dims(dim, data.ndim) if data.shape[d] == 1)
        return np.squeeze(data, dims) if dims else data

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape)


class SqueezeDim(Squeeze):
    _node_name = "SqueezeBackward1"


class SqueezeDims(Squeeze):
    """Squeeze with a list of dims (what ``vector @ matrix`` records in torch)."""

    _node_name = "SqueezeBackward4"


class Unsqueeze(Op):
    _node_name = "UnsqueezeBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, dim=0):
        ndim = a._data.ndim + 1
        if not -ndim <= dim < ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but "
                f"got {dim})"
            )
        ctx.dim = dim % ndim
        return np.expand_dims(a._data, dim % ndim)

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx.dim)


class Expand(Op):
    _node_name = "ExpandBackward0"
    _is_view = True

    @staticmethod
    def forward(ctx, a, shape=()):
        data = a._data
        ctx.shape = data.shape
        lead = len(shape) - data.ndim
        if lead < 0:
            raise RuntimeError(
                f"expand: the number of sizes provided ({len(shape)}) must be greater or equal to "
                f"the number of dimensions in the tensor ({data.ndim})"
            )
        target = tuple(data.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
        try:
            return np.broadcast_to(data, target)
        except ValueError:
            raise RuntimeError(
                f"The expanded size of the tensor ({target}) must match the existing size "
                f"{tuple(data.shape)} at each non-singleton dimension."
            ) from None

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.shape)


class _Index(Op):
    """``t[key]``: the gradient is scattered back into zeros of the input's shape."""

    @staticmethod
    def forward(ctx, a, key=None):
        ctx.shape, ctx.key = a._data.shape, key
        return a._data[key]

    @staticmethod
    def backward(ctx, grad):
        return IndexPutIntoZeros.apply(grad, key=ctx.key, shape=ctx.shape)


class Select(_Index):
    """``t[..., i, ...]`` on one dimension: a view without that dimension."""

    _node_name = "SelectBackward0"
    _is_view = True


class Slice(_Index):
    """``t[..., a:b:c, ...]`` on one dimension: a view."""

    _node_name = "SliceBackward0"
    _is_view = True


class Index(_Index):
    """Advanced indexing (integer lists, tensors, boolean masks): a copy."""

    _node_name = "IndexBackward0"


def unwrap_key(key: Any) -> Any:
    """Turn tensors inside an index into arrays (a bool tensor is a mask, as in torch)."""
    if isinstance(key, Tensor):
        if key._data.dtype.kind not in "iub":
            raise IndexError(
                "tensors used as indices must be long, int, byte or bool tensors (this one is "
                f"{key.dtype}; convert it with .long())"
            )
        return key._data
    if isinstance(key, tuple):
        return tuple(unwrap_key(k) for k in key)
    if isinstance(key, list):
        return np.asarray(key)
    return key


def _is_basic(entry: Any) -> bool:
    return entry is None or entry is Ellipsis or isinstance(entry, (int, np.integer, slice))


def index(a: Tensor, key: Any) -> Tensor:
    """Basic indexing becomes a chain of views, one per dimension, exactly as torch records
    it (Select, Slice, Unsqueeze); anything with arrays, lists or masks is one Index copy."""
    entries = key if isinstance(key, tuple) else (key,)
    if not all(_is_basic(e) and not isinstance(e, bool) for e in entries):
        return Index.apply(a, key=unwrap_key(key))
    if Ellipsis in entries:
        at = entries.index(Ellipsis)
        used = sum(1 for e in entries if e is not None and e is not Ellipsis)
        entries = entries[:at] + (slice(None),) * (a._data.ndim - used) + entries[at + 1:]
    used = sum(1 for e in entries if e is not None)
    if used and a._data.ndim == 0:
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    if used > a._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a._data.ndim}")
    result, dim = a, 0
    for entry in entries:
        if entry is None:
            result = Unsqueeze.apply(result, dim=dim)
            dim += 1
        elif isinstance(entry, slice):
            if entry != slice(None):
                result = Slice.apply(result, key=(slice(None),) * dim + (entry,))
            dim += 1
        else:
            size = result._data.shape[dim]
            if not -size <= entry < size:
                raise IndexError(
                    f"index {entry} is out of bounds for dimension {dim} with size {size}"
                )
            result = Select.apply(result, key=(slice(None),) * dim + (int(entry),))
    if result is a:  # t[:] or t[...]: still a new view, as in torch
        result = Slice.apply(a, key=(slice(None),))
    return result


class IndexPutIntoZeros(Op):
    """Backward of indexing: zeros, with the gradient added at the indexed positions."""

    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, grad, key=None, shape=()):
        ctx.key = key
        data = grad._data
        out = np.zeros(shape, dtype=data.dtype) if isinstance(data, np.ndarray) else \
            _backend.xp_of(data).zeros(shape, dtype=data.dtype)
        np.add.at(out, key, data) if isinstance(out, np.ndarray) else out.__setitem__(key, data)
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad[ctx.key]


class CopySlices(Op):
    """Writing into part of a tensor (``t[key] = v``, or an in-place op on a view of it):
    the new tensor is the old one with ``positions`` (flat indices) replaced by ``value``.
    The old values there get no gradient; the value gets the gradient at those positions."""

    _node_name = "CopySlices"
    _node_qualname = "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, old, value, positions=None):
        ctx.positions, ctx.shape = positions, old._data.shape
        ctx.value_meta = meta(value)
        data = old._data.copy()
        xp = _backend.xp_of(data)
        flat_positions = xp.asarray(positions)
        data.reshape(-1)[flat_positions] = value._data if isinstance(value, Tensor) else value
        return data

    @staticmethod
    def backward(ctx, grad):
        keep = np.ones(int(np.prod(ctx.shape, dtype=np.int64)), dtype=bool)
        keep[ctx.positions.reshape(-1)] = False
        grad_old = grad * Tensor._make(keep.reshape(ctx.shape))
        grad_value = reduce_grad(grad.reshape(-1)[Tensor._make(ctx.positions)], ctx.value_meta)
        return grad_old, grad_value


def positions_in_base(view: Tensor, base: Tensor) -> np.ndarray:
    """Flat indices into ``base`` of each element of ``view`` (read off the memory layout)."""
    base_data, view_data = base._data, view._data
    if not base_data.flags.c_contiguous:
        raise RuntimeError(
            "in-place change of a view whose base is not contiguous is not supported by "
            "miniautograd; change a .clone() of it instead"
        )
    item = base_data.itemsize
    offset = (_address(view_data) - _address(base_data)) // item
    flat = np.arange(base_data.size, dtype=np.int64)
    strides = tuple(s // item * flat.itemsize for s in view_data.strides)
    return np.lib.stride_tricks.as_strided(flat[offset:], view_data.shape, strides).copy()


def _address(array: Any) -> int:
    if isinstance(array, np.ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr


class Cat(Op):
    _node_name = "CatBackward0"

    @staticmethod
    def forward(ctx, *tensors, dim=0):
        arrays = [t._data for t in tensors]
        if any(arr.ndim == 0 for arr in arrays):
            raise RuntimeError(
                "zero-dimensional tensor (at position 0) cannot be concatenated; use "
                "torch.stack, or unsqueeze them first"
            )
        (axis,) = normalize_dims(dim, arrays[0].ndim)
        first = arrays[0].shape
        for number, arr in enumerate(arrays[1:], start=1):
            if arr.ndim != len(first):
                raise RuntimeError(
                    f"Tensors must have same number of dimensions: got {len(first)} and "
                    f"{arr.ndim}"
                )
            for d, (expected, got) in enumerate(zip(first, arr.shape, strict=True)):
                if d != axis and expected != got:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {axis}. Expected size "
                        f"{expected} but got size {got} for tensor number {number} in the list."
                    )
        ctx.axis, ctx.metas = axis, [meta(t) for t in tensors]
        ctx.bounds = np.cumsum([0] + [arr.shape[axis] for arr in arrays])
        dtype = result_dtype(*tensors)
        return np.concatenate([arr.astype(dtype, copy=False) for arr in arrays], axis=axis)

    @staticmethod
    def backward(ctx, grad):
        lead = (slice(None),) * ctx.axis
        return tuple(
            reduce_grad(grad[(*lead, slice(int(start), int(stop)))], input_meta)
            for start, stop, input_meta in zip(
                ctx.bounds[:-1], ctx.bounds[1:], ctx.metas, strict=True
            )
        )


class Stack(Op):
    _node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, *tensors, dim=0):
        arrays = [t._data if isinstance(t, Tensor) else t for t in tensors]
        axis = dim % (arrays[0].ndim + 1)
        ctx.axis, ctx.metas = axis, [meta(t) for t in tensors]
        dtype = result_dtype(*tensors)
        return np.stack([arr.astype(dtype, copy=False) for arr in arrays], axis=axis)

    @staticmethod
    def backward(ctx, grad):
        lead = (slice(None),) * ctx.axis
        return tuple(reduce_grad(grad[(*lead, i)], input_meta)
                     for i, input_meta in enumerate(ctx.metas))


class _Pieces(Function):
    """An op with several outputs, each a view of a piece of the input."""

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> tuple:
        pieces = super().apply(*args, **kwargs)
        base = args[0]
        for piece in pieces:
            piece._vc = base._vc
            piece._view_base = base._view_base if base._view_base is not None else base
        return pieces


class Unbind(_Pieces):
    _node_name = "UnbindBackward0"

    @staticmethod
    def forward(ctx, a, dim=0):
        (axis,) = normalize_dims(dim, a._data.ndim)
        ctx.axis = axis
        lead = (slice(None),) * axis
        return tuple(Tensor._make(a._data[(*lead, i)]) for i in range(a._data.shape[axis]))

    @staticmethod
    def backward(ctx, *grads):
        return Stack.apply(*grads, dim=ctx.axis), None


class Split(_Pieces):
    _node_name = "SplitBackward0"

    @staticmethod
    def forward(ctx, a, sizes=(), dim=0):
        (axis,) = normalize_dims(dim, a._data.ndim)
        ctx.axis = axis
        bounds = np.cumsum([0, *sizes])
        lead = (slice(None),) * axis
        return tuple(Tensor._make(a._data[(*lead, slice(int(lo), int(hi)))])
                     for lo, hi in itertools.pairwise(bounds))

    @staticmethod
    def backward(ctx, *grads):
        return Cat.apply(*grads, dim=ctx.axis), None, None


def split_sizes(length: int, split_size_or_sections: Any) -> list[int]:
    """torch.split's sizes: a list as given, or pieces of one size with a shorter last one."""
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        return [min(size, length - start) for start in range(0, length, size)] or [0]
    sizes = list(split_size_or_sections)
    if sum(sizes) != length:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {length} (input tensor's "
            f"size at the split dimension), but got split_sizes={sizes}"
        )
    return sizes


class Clone(Op):
    _node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, a):
        return a._data.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


class ToCopy(Op):
    """A dtype or device conversion; the gradient converts back."""

    _node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, a, dtype=None, device=None):
        data = a._data
        ctx.dtype, ctx.device = data.dtype, _backend.device_of(data)
        if device is not None:
            data = _backend.to_device(data, device)
        if dtype is not None and dtype != data.dtype:
            data = data.astype(dtype)
        return data

    @staticmethod
    def backward(ctx, grad):
        return grad.to(device=ctx.device, dtype=ctx.dtype)
