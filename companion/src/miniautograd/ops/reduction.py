"""Reductions. Their backward spreads the incoming gradient back over the reduced elements."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._backend import xp_of
from .._dtype import to_numpy_dtype
from .._tensor import MaxResult, MinResult, Tensor
from ..autograd.grad_mode import STATE
from ._util import broadcast_axes, floating, on_arrays, quiet, view_of
from .arithmetic import Maximum, Minimum, where
from .op import Op
from .table import op


def normalize_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """``dim`` as a sorted tuple of non-negative axes (all axes when None)."""
    if dim is None:
        return tuple(range(ndim))
    if type(dim) is int and -ndim <= dim < ndim:
        # Speed: one axis in range (softmax(-1), logsumexp(dim=-1) on every step of a policy)
        # is its own answer; the checks below give the same. test_fast_paths.py compares them.
        return (dim % ndim,)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    rank = max(ndim, 1)
    for d in dims:
        if not -rank <= d < rank:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
                f"but got {d})"
            )
    normalized = [d % rank for d in dims]
    if len(set(normalized)) != len(normalized):
        duplicate = next(d for d in normalized if normalized.count(d) > 1)
        raise RuntimeError(f"dim {duplicate} appears multiple times in the list of dims")
    return tuple(sorted(normalized)) if ndim else ()


def expand_back(grad: Tensor, shape: tuple, dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """Broadcast a reduced gradient back to the input's shape."""
    if grad._data.ndim == 0:  # a full reduction (loss.sum()): nothing to line up
        if on_arrays(grad):  # Speed: the same expand on the array (see on_arrays)
            return view_of(grad, np.broadcast_to(grad._data, shape))
        return grad.expand(shape)
    if not keepdim and dims:
        kept = list(shape)
        for d in dims:
            kept[d] = 1
        grad = grad.reshape(kept)
    return grad.expand(shape)


class _Sum(Op):
    @staticmethod
    def forward(ctx, a, dim=None, keepdim=False, dtype=None):
        data = a._data
        dims = normalize_dims(dim, data.ndim)
        ctx.shape, ctx.dims, ctx.keepdim = data.shape, dims, keepdim
        if dtype is None and data.dtype.kind in "bi":
            dtype = np.int64  # torch sums bools and integers as int64
        return data.sum(axis=dims, keepdims=keepdim, dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        return expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim)


class Sum(_Sum):
    pass


class SumDim(_Sum):
    node_name = "SumBackward1"


class _Mean(Op):
    @staticmethod
    def forward(ctx, a, dim=None, keepdim=False):
        data = a._data
        if data.dtype.kind != "f":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {a.dtype}; convert it first with .float()"
            )
        dims = normalize_dims(dim, data.ndim)
        ctx.shape, ctx.dims, ctx.keepdim = data.shape, dims, keepdim
        ctx.count = int(np.prod([data.shape[d] for d in dims])) if data.ndim else 1
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # mean of nothing is nan, silently
            return data.mean(axis=dims, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        return expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim) / ctx.count


class Mean(_Mean):
    pass


class MeanDim(_Mean):
    node_name = "MeanBackward1"


def _remember_spread(ctx, a: Tensor, dim: Any, correction: float, keepdim: bool,
                     name: str) -> tuple:
    """What var/std backward needs: the input, the reduced dims (returned) and the divisor
    N - correction."""
    shape = a._data.shape
    dims = normalize_dims(dim, len(shape))
    if a._data.dtype.kind != "f":
        raise RuntimeError(
            "std and var only support floating point and complex dtypes; convert with .float()"
        )
    count = int(np.prod([shape[d] for d in dims])) if shape else 1
    if count - correction <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=5,
        )
    ctx.save(self=a)
    ctx.shape, ctx.dims, ctx.keepdim, ctx.correction = shape, dims, keepdim, correction
    ctx.count, ctx.whole = count, dim is None or not shape
    return dims


class Var(Op):
    @staticmethod
    def forward(ctx, a, dim=None, correction=1, keepdim=False):
        data = a._data
        dims = _remember_spread(ctx, a, dim, correction, keepdim, "var")
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # numpy's own dof warning
            return data.var(axis=dims, ddof=correction, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        return _var_backward(ctx, grad)


def _var_backward(ctx, grad: Tensor) -> Tensor:
    """torch's var_backward, which std's backward also ends in: 2 (a - mean) / (N - correction).
    With no degrees of freedom over the whole tensor, torch gives inf (nan where an element
    equals the mean) through a constant: that gradient is not connected to ``a``."""
    (a,) = ctx.saved_tensors
    grad = expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim)
    dof = ctx.count - ctx.correction
    if dof <= 0 and ctx.whole:
        return grad * where(a == a.mean(), float("nan"), float("inf"))
    scale = 2.0 / dof if dof != 0 else float("inf")
    return grad * scale * (a - a.mean(dim=ctx.dims, keepdim=True))


class Std(Op):
    saves_result = True

    @staticmethod
    def forward(ctx, a, dim=None, correction=1, keepdim=False):
        data = a._data
        dims = _remember_spread(ctx, a, dim, correction, keepdim, "std")
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return data.std(axis=dims, ddof=correction, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        # torch: d std = d var / (2 std), set to 0 where the spread is 0 before it meets
        # (a - mean), so that double backward there is 0 too (not 0 * inf)
        result = ctx.result
        return _var_backward(ctx, where(result == 0, 0.0, grad / (result * 2)))


class _Extreme(Op):
    """max()/min() over all elements: ties share the gradient evenly (torch's rule)."""

    saves_result = True
    reducer: Any = None

    @classmethod
    def forward(cls, ctx, a):
        if a._data.size == 0:
            raise RuntimeError(
                f"{cls.reducer.__name__}(): Expected reduction dim to be specified for "
                "input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )
        ctx.save(self=a)
        return cls.reducer(a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        hits = a == ctx.result
        return grad * hits / hits.sum()


class MaxAll(_Extreme):
    node_name = "MaxBackward1"
    reducer = staticmethod(np.max)


class MinAll(_Extreme):
    node_name = "MinBackward1"
    reducer = staticmethod(np.min)


class _ExtremeDim(Op):
    """max(dim)/min(dim): the gradient goes to the selected index only."""

    @staticmethod
    def forward(ctx, a, indices=None, axis=0, keepdim=False):
        """``indices``: the tensor of indices that max(dim) returns, saved (torch's
        ``_saved_indices``): changed in place, it is refused by backward."""
        data = a._data
        ctx.shape, ctx.axis, ctx.keepdim = data.shape, axis, keepdim
        ctx.save(indices=indices)
        picked = indices._data if keepdim else np.expand_dims(indices._data, axis)
        values = np.take_along_axis(data, picked, axis=axis)
        return values if keepdim else np.squeeze(values, axis)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        picked = indices._data if ctx.keepdim else np.expand_dims(indices._data, ctx.axis)
        positions = xp_of(picked).arange(ctx.shape[ctx.axis]).reshape(
            [-1 if d == ctx.axis else 1 for d in range(len(ctx.shape))]
        )
        chosen = Tensor._make(positions == picked)
        return expand_back(grad, ctx.shape, (ctx.axis,), ctx.keepdim) * chosen


def extreme_along(a: Tensor, dim: int, keepdim: bool, largest: bool):
    """``max(dim)``/``min(dim)``: (values, indices), as torch returns them."""
    (axis,) = normalize_dims(dim, a._data.ndim)
    arg = np.argmax if largest else np.argmin
    indices = arg(a._data, axis=axis)
    index_tensor = Tensor._make(np.expand_dims(indices, axis) if keepdim else indices)
    op = MaxDim if largest else MinDim
    values = op.apply(a, indices=index_tensor, axis=axis, keepdim=keepdim)
    return (MaxResult if largest else MinResult)(values, index_tensor)


class MaxDim(_ExtremeDim):
    node_name = "MaxBackward0"


class MinDim(_ExtremeDim):
    node_name = "MinBackward0"


@quiet
def logsumexp_of(data: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
    """``Logsumexp``'s forward on a floating array (``dims`` normalised): also what
    ``Categorical`` computes with, on the array, when it records nothing."""
    # Speed: the array's max method, not np.max's Python wrapper (a third of this function
    # on a policy's logits); ``initial`` only where a reduced axis is empty.
    peak = data.max(axis=dims, keepdims=True) if data.size else \
        np.max(data, axis=dims, keepdims=True, initial=-np.inf)
    # All -inf (or an inf): no shift, as torch. Speed: written into peak, a new array, with a
    # mask where it can be (np.where's copy: ~1 us more on a policy's logits); a 0-d input's
    # max is a NumPy scalar, which np.where handles. test_fast_paths.py compares the two.
    if type(peak) is np.ndarray:
        peak[np.isinf(peak)] = 0
    else:
        peak = np.where(np.isinf(peak), 0, peak)
    out = np.log(np.exp(data - peak).sum(axis=dims, keepdims=True)) + peak
    return out if keepdim else np.squeeze(out, dims)


class Logsumexp(Op):
    """log(sum(exp(a))) along ``dim``, computed after subtracting the largest element (so that
    exp does not overflow), as torch does; its gradient is softmax: exp(a - result)."""

    saves_result = True

    @staticmethod
    def forward(ctx, a, dim=None, keepdim=False):
        data = floating(a)
        dims = normalize_dims(dim, data.ndim)
        ctx.save(self=a)
        ctx.shape, ctx.dims, ctx.keepdim = data.shape, dims, keepdim
        return logsumexp_of(data, dims, keepdim)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        result = expand_back(ctx.result, ctx.shape, ctx.dims, ctx.keepdim)
        return expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim) * (a - result).exp()


class LinalgVectorNorm(Op):
    """The vector ``ord``-norm over ``dim`` (all elements when None): (sum |a|^ord)^(1/ord),
    with ord 0 (count of nonzeros), inf (max |a|) and -inf (min |a|) as limits."""

    saves_result = True

    @staticmethod
    @quiet
    def forward(ctx, a, ord=2.0, dim=None, keepdim=False):  # noqa: A002 - torch's name
        data = a._data
        if data.dtype.kind != "f":
            raise RuntimeError(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                f"{a.dtype.scalar_name}. Convert it first with .float()."
            )
        dims = normalize_dims(dim, data.ndim)
        if abs(ord) == np.inf and 0 in [data.shape[d] for d in dims]:
            raise RuntimeError(
                "linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
                "operation does not have an identity"
            )
        ctx.save(self=a)
        ctx.ord, ctx.shape, ctx.dims, ctx.keepdim = ord, data.shape, dims, keepdim
        size = np.abs(data)
        if ord == np.inf or ord == -np.inf:
            extreme = np.max if ord > 0 else np.min
            return extreme(size, axis=dims, keepdims=keepdim)
        if ord == 0:
            return (size != 0).sum(axis=dims, keepdims=keepdim).astype(data.dtype)
        if ord == 1:
            return size.sum(axis=dims, keepdims=keepdim)
        if ord == 2:
            return np.sqrt((size * size).sum(axis=dims, keepdims=keepdim))
        return (size**ord).sum(axis=dims, keepdims=keepdim) ** (1.0 / ord)

    @staticmethod
    def backward(ctx, grad):
        """torch's norm_backward, case by case (masked to 0 where the norm is 0)."""
        (a,) = ctx.saved_tensors
        p = ctx.ord
        if p == 0:
            return None  # piecewise constant: torch leaves the gradient undefined
        grad = expand_back(grad, ctx.shape, ctx.dims, ctx.keepdim)
        norm = expand_back(ctx.result, ctx.shape, ctx.dims, ctx.keepdim)
        if p == 1:
            return a.sign() * grad
        if p == 2:
            return grad * where(norm == 0, 0.0, a / norm)
        size = a.abs()
        if p == np.inf or p == -np.inf:  # the gradient is shared by the elements that tie
            hits = (size == norm) | (size != size)
            count = hits.sum(dim=ctx.dims, keepdim=True) if ctx.dims else hits.sum()
            return a.sign() * (grad / count * hits)
        if p < 1:
            return a.sign() * where(a == 0, 0.0, size ** (p - 1)) * grad * norm ** (1 - p)
        scale = where(norm == 0, 0.0, grad / norm ** (p - 1))
        return (a.sign() * size ** (p - 1) if p < 2 else a * size ** (p - 2)) * scale


# ---- what the table calls: torch's signatures ----------------------------------------------


def total(self, dim=None, keepdim=False, dtype=None):
    """``sum``: all elements (``SumBackward0``) or along ``dim`` (``SumBackward1``)."""
    reduce = Sum if dim is None else SumDim
    return reduce.apply(self, dim=dim, keepdim=keepdim, dtype=to_numpy_dtype(dtype))


def mean(self, dim=None, keepdim=False):
    return (Mean if dim is None else MeanDim).apply(self, dim=dim, keepdim=keepdim)


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):  # var(unbiased) positional form
        dim, unbiased = None, dim
    return Var.apply(self, dim=dim, correction=_correction(unbiased, correction), keepdim=keepdim)


def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return Std.apply(self, dim=dim, correction=_correction(unbiased, correction), keepdim=keepdim)


def _extreme(largest: bool):
    def extreme(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):  # max(other): elementwise, like torch.maximum
            return (Maximum if largest else Minimum).apply(self, dim)
        if dim is None:
            return (MaxAll if largest else MinAll).apply(self)
        return extreme_along(self, dim, keepdim, largest)

    return extreme


def sum_to_size(self, *size):
    """Sum over broadcast dimensions so the result has shape ``size`` (undoes broadcasting)."""
    target = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    data = self._data
    if data.shape == target:
        return self
    axes = broadcast_axes(data.shape, target)
    if not STATE.enabled and type(data) is np.ndarray and data.dtype.kind == "f":
        # Speed: the engine fits every broadcast gradient (a bias's) with this call, under
        # no_grad unless create_graph. Here nothing is recorded, so the same sum and reshape on
        # the array, without the two op calls (and resolve_shape, viewable) of the path below:
        # the small MLP's backward ~10% faster. tests/engine/test_fast_paths.py checks both.
        out = Tensor._make(data.sum(axis=axes, keepdims=True))
        if out._data.shape == target:
            return out
        return view_of(out, out._data.reshape(target))  # a view of the sum, as View's
    out = SumDim.apply(self, dim=axes, keepdim=True)
    return out.reshape(target) if out._data.shape != target else out


def logsumexp(self, dim, keepdim=False):
    return Logsumexp.apply(self, dim=dim, keepdim=keepdim)


def vector_norm(x, ord=2, dim=None, keepdim=False):  # noqa: A002 - torch's name
    """``torch.linalg.vector_norm``: ``ord`` is a number (inf and -inf included)."""
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(
            f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}"
        )
    return LinalgVectorNorm.apply(x, ord=float(ord), dim=dim, keepdim=keepdim)


def norm(self, p="fro", dim=None, keepdim=False):
    """``torch.norm``: 'fro' (the default) is the 2-norm of the elements over ``dim``."""
    if p is None or p == "fro":
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
        p = 2
    elif p == "nuc":
        raise NotImplementedError(
            "miniautograd has no nuclear norm (p='nuc': the sum of singular values); use a "
            "number or 'fro'."
        )
    elif isinstance(p, str):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    return vector_norm(self, p, dim, keepdim)


TABLE = [
    op("sum", total),
    op("mean", mean),
    op("var", var),
    op("std", std),
    op("max", _extreme(largest=True)),
    op("min", _extreme(largest=False)),
    op("logsumexp", logsumexp),
    op("norm", norm),
    op("sum_to_size", sum_to_size, function=False),
]
