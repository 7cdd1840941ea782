"""Shape operations, copies and indexing. Views share storage (and the version counter)."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from .. import _backend, _dtype
from .._backend import device as Device
from .._tensor import SortResult, Tensor, shape_args
from ..autograd.function import Function
from ._util import on_arrays, raise_device_mismatch, result_dtype, view_of
from .op import Op
from .reduction import normalize_dims
from .table import op


def resolve_shape(shape: tuple, numel: int) -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in shape if s != -1)
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
    is_view = True

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

    @staticmethod
    def forward(ctx, a, shape=()):
        ctx.shape = a._data.shape
        return a._data.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape)


class ReshapeAlias(View):
    """A reshape that is a view of a non-contiguous tensor (torch's ``_reshape_alias``)."""


def reshape(self: Tensor, *shape: Any) -> Tensor:
    """A view when the memory layout allows it, else a copy (torch's rule)."""
    data = self._data
    target = resolve_shape(shape_args(shape), data.size)
    if viewable(data, target):
        contiguous = data.flags.c_contiguous or data.size <= 1
        return (View if contiguous else ReshapeAlias).apply(self, shape=target)
    return UnsafeView.apply(Clone.apply(self), shape=target)


class Transpose(Op):
    is_view = True

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
    is_view = True

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
        if on_arrays(grad):  # Speed: the same view on the array (see on_arrays)
            return view_of(grad, grad._data.T)
        return grad.t()


class Permute(Op):
    is_view = True

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
    is_view = True

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
    node_name = "SqueezeBackward1"


class SqueezeDims(Squeeze):
    """Squeeze with a list of dims (what ``vector @ matrix`` records in torch)."""

    node_name = "SqueezeBackward4"


class Unsqueeze(Op):
    is_view = True

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
    is_view = True

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
        ctx.shape = a._data.shape
        return a._data[keep_key(ctx, key)]

    @staticmethod
    def backward(ctx, grad):
        return IndexPutIntoZeros.apply(grad, key=saved_key(ctx), shape=ctx.shape)


class Select(_Index):
    """``t[..., i, ...]`` on one dimension: a view without that dimension."""

    is_view = True


class Slice(_Index):
    """``t[..., a:b:c, ...]`` on one dimension: a view."""

    is_view = True


class Index(_Index):
    """Advanced indexing (integer lists, tensors, boolean masks): a copy."""


class Gather(_Index):
    """``gather(dim, index)``: the input at the full coordinates of each picked element (a
    copy), so that backward adds each gradient back where its element came from."""


class Sort(_Index):
    """The values of ``sort``: the input at its sorting permutation, gathered the same way."""


class SortStable(Sort):
    node_name = "SortBackward1"  # torch's overload with the ``stable`` keyword


def along(picks: Any, axis: int) -> tuple:
    """The coordinates that take ``picks`` as the positions along ``axis`` and keep the
    others: ``a[along(p, 1)][i, j] == a[i, p[i, j]]``, what gather and sort index with."""
    grid = list(_backend.xp_of(picks).indices(picks.shape, sparse=True))
    grid[axis] = picks
    return tuple(grid)


def _with_tensor(key: tuple, axis: int, index: Tensor) -> tuple:
    """``key`` with ``index`` itself (int64) at ``axis``: the op saves it (``keep_key``), so
    that an index changed in place before backward is refused, as torch refuses it."""
    if index._data.dtype != np.int64:
        index = Tensor._make(index._data.astype(np.int64))
    return (*key[:axis], index, *key[axis + 1:])


def gather(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = self[i][index[i][j]]`` for ``dim=1``, with torch's checks of ``index``.
    ``sparse_grad`` is accepted; the gradient is always a dense tensor."""
    if not isinstance(index, Tensor) or index._data.dtype.kind not in "iu":
        raise RuntimeError("gather(): Expected dtype int64 for index (make it with .long())")
    data, picks = self._data, index._data
    if picks.ndim != data.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    (axis,) = normalize_dims(dim, data.ndim) or (0,)
    for d, (wanted, size) in enumerate(zip(picks.shape, data.shape, strict=True)):
        if d != axis and wanted > size:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(picks.shape)} to "
                f"be no larger than self {list(data.shape)} apart from dimension {axis}"
            )
    size = data.shape[axis] if data.ndim else 1
    outside = picks[(picks < 0) | (picks >= size)]
    if outside.size:
        raise RuntimeError(
            f"index {int(outside[0])} is out of bounds for dimension {axis} with size {size}"
        )
    if not data.ndim:
        return Gather.apply(self, key=())
    return Gather.apply(self, key=_with_tensor(along(picks, axis), axis, index))


def sort(self: Tensor, dim: int = -1, descending: bool = False, *,
         stable: bool | None = None) -> SortResult:
    """Sorted values and their indices; equal elements keep their order (torch's ``stable``,
    which miniautograd always gives), nan counts as the largest. Passing ``stable`` at all,
    even False, selects torch's other overload, whose node is ``SortBackward1``."""
    data = self._data
    if not data.ndim:
        values = (Sort if stable is None else SortStable).apply(self, key=())
        return SortResult(values, Tensor._make(_backend.xp_of(data).zeros((), np.int64)))
    (axis,) = normalize_dims(dim, data.ndim)
    if descending:  # sorted ascending from the end, then read backwards: ties stay in order
        order = np.flip(np.argsort(np.flip(data, axis), axis=axis, kind="stable"), axis)
        order = data.shape[axis] - 1 - order
    else:
        order = np.argsort(data, axis=axis, kind="stable")
    indices = Tensor._make(order.astype(np.int64, copy=False))
    key = _with_tensor(along(indices._data, axis), axis, indices)
    values = (Sort if stable is None else SortStable).apply(self, key=key)
    return SortResult(values, indices)


class _KeyTensor:
    """Where a tensor was in an index key kept on ctx: the tensor itself is saved."""


_KEY_TENSOR = _KeyTensor()


def keep_key(ctx: Any, key: Any) -> Any:
    """Keep an index key for backward, and return it with arrays for forward. Its tensors
    (indices, masks) are saved as every saved tensor is: checked for in-place changes when
    backward reads them, and freed by backward (as torch saves ``indices``); the rest of the
    key (slices, numbers, arrays made from lists) stays on ctx as it is."""
    tensors: list[Tensor] = []

    def template(entry: Any) -> Any:
        if isinstance(entry, Tensor):
            tensors.append(entry)
            return _KEY_TENSOR
        return tuple(template(e) for e in entry) if isinstance(entry, tuple) else entry

    ctx.key = template(key)
    if tensors:
        ctx.save_for_backward(*tensors)
    return unwrap_key(key)


def saved_key(ctx: Any) -> Any:
    """The key ``keep_key`` kept, its tensors read back from the saved ones."""
    if not _has_tensor(ctx.key):
        return ctx.key
    tensors = iter(ctx.saved_tensors)

    def filled(entry: Any) -> Any:
        if entry is _KEY_TENSOR:
            return next(tensors)
        return tuple(filled(e) for e in entry) if isinstance(entry, tuple) else entry

    return filled(ctx.key)


def _has_tensor(key: Any) -> bool:
    if isinstance(key, tuple):
        return any(_has_tensor(e) for e in key)
    return key is _KEY_TENSOR


def check_key(key: Any) -> Any:
    """An index key as ``unwrap_key`` would accept it, its tensors left as tensors (the op
    saves them: ``keep_key``), its lists made arrays."""
    if isinstance(key, Tensor):
        unwrap_key(key)  # raises for a float tensor
        return key
    if isinstance(key, tuple):
        return tuple(check_key(k) for k in key)
    return np.asarray(key) if isinstance(key, list) else key


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
        return Index.apply(a, key=check_key(key))
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
    if result is a:  # t[:], or t[...] and t[()] (an alias): still a new view, as in torch
        whole = all(e is Ellipsis for e in (key if isinstance(key, tuple) else (key,)))
        result = Alias.apply(a) if whole else Slice.apply(a, key=(slice(None),))
    return result


class Alias(Op):
    """``t[...]`` or ``t[()]``: a view of the whole tensor."""

    is_view = True

    @staticmethod
    def forward(ctx, a):
        return a._data[...]

    @staticmethod
    def backward(ctx, grad):
        return grad


class IndexPutIntoZeros(Op):
    """Backward of indexing: zeros, with the gradient added at the indexed positions."""

    node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, grad, key=None, shape=()):
        key = keep_key(ctx, key)
        data = grad._data
        out = np.zeros(shape, dtype=data.dtype) if isinstance(data, np.ndarray) else \
            _backend.xp_of(data).zeros(shape, dtype=data.dtype)
        _backend.add_at(out, key, data)
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad[saved_key(ctx)]


class CopySlices(Op):
    """Writing into part of a tensor (``t[key] = v``, or an in-place op on a view of it):
    the new tensor is the old one with ``positions`` (flat indices) replaced by ``value``.
    The old values there get no gradient; the value gets the gradient at those positions."""

    node_name = "torch::autograd::CopySlices"

    @staticmethod
    def forward(ctx, old, value, positions=None):
        ctx.positions, ctx.shape = positions, old._data.shape
        data = old._data.copy()
        xp = _backend.xp_of(data)
        flat_positions = xp.asarray(positions)
        data.reshape(-1)[flat_positions] = value._data if isinstance(value, Tensor) else value
        return data

    @staticmethod
    def backward(ctx, grad):
        xp = _backend.xp_of(grad._data)  # the positions were worked out on the host
        positions = xp.asarray(ctx.positions)
        keep = xp.ones(int(np.prod(ctx.shape, dtype=np.int64)), dtype=bool)
        keep[positions.reshape(-1)] = False
        grad_old = grad * Tensor._make(keep.reshape(ctx.shape))
        return grad_old, grad.reshape(-1)[Tensor._make(positions)]


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

    @staticmethod
    def forward(ctx, *tensors, dim=0):
        arrays = [t._data for t in tensors]
        for tensor in tensors[1:]:  # arrays of two devices do not mix: torch's error first
            if type(tensor._data) is not type(arrays[0]):
                raise_device_mismatch(tensors[0], tensor)
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
        ctx.axis = axis
        ctx.bounds = np.cumsum([0] + [arr.shape[axis] for arr in arrays])
        dtype = result_dtype(*tensors)
        return np.concatenate([arr.astype(dtype, copy=False) for arr in arrays], axis=axis)

    @staticmethod
    def backward(ctx, grad):
        lead = (slice(None),) * ctx.axis
        return tuple(grad[(*lead, slice(int(start), int(stop)))]
                     for start, stop in itertools.pairwise(ctx.bounds))


class Stack(Op):

    @staticmethod
    def forward(ctx, *tensors, dim=0):
        arrays = [t._data if isinstance(t, Tensor) else t for t in tensors]
        axis = dim % (arrays[0].ndim + 1)
        ctx.axis, ctx.count = axis, len(tensors)
        dtype = result_dtype(*tensors)
        return np.stack([arr.astype(dtype, copy=False) for arr in arrays], axis=axis)

    @staticmethod
    def backward(ctx, grad):
        lead = (slice(None),) * ctx.axis
        return tuple(grad[(*lead, i)] for i in range(ctx.count))


class _Pieces(Function):
    """An op with several outputs, each a view of a piece of the input."""

    is_view = True


class Unbind(_Pieces):
    node_name = "UnbindBackward0"

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
    node_name = "SplitBackward0"

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


class SplitWithSizes(Split):
    """``split`` given a list of sizes: torch's node has another name."""

    node_name = "SplitWithSizesBackward0"


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

    @staticmethod
    def forward(ctx, a):
        return a._data.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


def contiguous(self: Tensor) -> Tensor:
    """The tensor itself when its memory is already in row-major order, else a copy that is."""
    data = self._data
    return self if data.flags.c_contiguous or data.size <= 1 else Clone.apply(self)


class ToCopy(Op):
    """A dtype or device conversion; the gradient converts back."""

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


# ---- what the table calls: torch's signatures ----------------------------------------------


def view(self: Tensor, *shape: Any) -> Tensor:
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):
        return self.to(shape[0])  # view(dtype) is a reinterpretation in torch; rare here
    return View.apply(self, shape=shape_args(shape))


def view_as(self: Tensor, other: Tensor) -> Tensor:
    return view(self, other.shape)


def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return reshape(self, other.shape)


def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    dims = self._data.shape
    if not dims:
        return reshape(self, 1)
    (start,) = normalize_dims(start_dim, len(dims))
    (end,) = normalize_dims(end_dim, len(dims))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self  # nothing to merge: torch returns the tensor itself, no node
    merged = int(np.prod(dims[start:end + 1], dtype=np.int64))
    return reshape(self, *dims[:start], merged, *dims[end + 1:])


def unflatten(self: Tensor, dim: int, sizes: Any) -> Tensor:
    """Split dimension ``dim`` into ``sizes`` (one of them may be -1): always a view."""
    dims = self._data.shape
    (position,) = normalize_dims(dim, len(dims))
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred; give at most one -1")
    length = dims[position]
    known = int(np.prod([s for s in sizes if s != -1], dtype=np.int64))
    if (known != length if -1 not in sizes else known == 0 or length % known):
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
            f"{position} ({length}) in the input tensor"
        )
    sizes = tuple(length // known if s == -1 else s for s in sizes)
    return View.apply(self, shape=(*dims[:position], *sizes, *dims[position + 1:]))


def squeeze(self: Tensor, dim: Any = None) -> Tensor:
    return Squeeze.apply(self) if dim is None else SqueezeDim.apply(self, dim=dim)


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    return Unsqueeze.apply(self, dim=dim)


def expand(self: Tensor, *sizes: Any) -> Tensor:
    return Expand.apply(self, shape=shape_args(sizes))


def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return expand(self, other.shape)


def permute(self: Tensor, *dims: Any) -> Tensor:
    return Permute.apply(self, dims=shape_args(dims))


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return Transpose.apply(self, dim0=dim0, dim1=dim1)


def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    return Unbind.apply(self, dim)


def split(self: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    (axis,) = normalize_dims(dim, self._data.ndim)
    sizes = split_sizes(self._data.shape[axis], split_size_or_sections)
    by_sizes = not isinstance(split_size_or_sections, int)
    return (SplitWithSizes if by_sizes else Split).apply(self, tuple(sizes), axis)


def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    (axis,) = normalize_dims(dim, self._data.ndim)
    length = self._data.shape[axis]
    return split(self, -(-length // chunks) if length else 1, axis)


def cat(tensors: Any, dim: int = 0) -> Tensor:
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return Cat.apply(*tensors, dim=dim)


def stack(tensors: Any, dim: int = 0) -> Tensor:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for index, item in enumerate(tensors):
        if not isinstance(item, Tensor):
            raise TypeError(
                f"expected Tensor as element {index} in argument 0, but got "
                f"{type(item).__name__}. To make a tensor from numbers use torch.tensor(list)."
            )
    if len({t.shape for t in tensors}) > 1:
        raise RuntimeError(
            "stack expects each tensor to be equal size, but got "
            + " and ".join(str(list(t.shape)) for t in tensors[:2])
        )
    return Stack.apply(*tensors, dim=dim)


def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``to(device)``, ``to(dtype)``, ``to(device, dtype)`` or ``to(other_tensor)``."""
    target_device, target_dtype = kwargs.get("device"), kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, Tensor):
            target_device, target_dtype = arg.device, arg.dtype
        elif isinstance(arg, (str, Device)):
            target_device = arg
        elif arg is not None:
            target_dtype = arg
    np_dtype = _dtype.to_numpy_dtype(target_dtype) if target_dtype is not None else None
    new_device = Device(target_device) if target_device is not None else None
    if (np_dtype is None or np_dtype == self._data.dtype) and (
        new_device is None or new_device == self.device
    ):
        return self
    if np_dtype is not None and np_dtype.kind != "f":
        with_device = self if new_device is None else to(self.detach(), new_device)
        return Tensor._make(with_device._data.astype(np_dtype))  # integers carry no graph
    return ToCopy.apply(self, dtype=np_dtype, device=new_device)


TABLE = [
    op("reshape", reshape),
    op("view", view, function=False),
    op("view_as", view_as, function=False),
    op("reshape_as", reshape_as, function=False),
    op("flatten", flatten),
    op("unflatten", unflatten),
    op("squeeze", squeeze),
    op("unsqueeze", unsqueeze),
    op("expand", expand, function=False),
    op("expand_as", expand_as, function=False),
    op("permute", permute),
    op("transpose", transpose),
    op("t", T),
    op("index", index, method=False, function=False, operators=("__getitem__",)),
    op("gather", gather),
    op("sort", sort),
    op("unbind", unbind),
    op("split", split),
    op("chunk", chunk),
    op("cat", cat, method=False),
    op("concat", cat, method=False),
    op("stack", stack, method=False),
    op("clone", Clone),
    op("contiguous", contiguous, function=False),
    op("to", to, function=False),
    op("numel", Tensor.numel),
]
