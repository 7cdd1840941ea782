"""Functions that create tensors: ``tensor``, ``zeros``, ``randn``, ... (torch's signatures)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import _backend, _dtype, _random, _rounding
from ._tensor import Tensor, shape_args

DtypeLike = Any
DeviceLike = Any


def _finish(array: Any, dtype: DtypeLike, device: DeviceLike, requires_grad: bool) -> Tensor:
    np_dtype = _dtype.to_numpy_dtype(dtype)
    data = _backend.asarray(array, np_dtype, _backend.default_device_or(device))
    return Tensor._make(data).requires_grad_(requires_grad) if requires_grad else Tensor._make(data)


def _infer_dtype(data: Any) -> np.dtype:
    """torch.tensor's inference: Python floats become the default dtype, ints int64."""
    array = np.asarray(data)
    if array.dtype.kind == "f":
        return array.dtype if isinstance(data, np.ndarray) else _dtype.get_default_dtype().np_dtype
    if array.dtype.kind in "iu":
        return array.dtype if isinstance(data, np.ndarray) else np.dtype(np.int64)
    if array.dtype.kind == "b":
        return np.dtype(np.bool_)
    if array.dtype == object:
        raise TypeError(
            "tensor(): could not build a tensor from this data; for a list of tensors use "
            "torch.stack(list), for numbers pass plain Python lists or numpy arrays"
        )
    raise TypeError(f"tensor(): unsupported data type {array.dtype}")


def _plain(data: Any, nested: bool = False) -> Any:
    if isinstance(data, Tensor):
        if nested and data._data.size != 1:
            raise ValueError(
                "only one element tensors can be converted to Python scalars. To combine "
                "tensors into one, use torch.stack(list_of_tensors) (or torch.cat)."
            )
        return data._numpy_view()
    if isinstance(data, (list, tuple)):
        return [_plain(item, nested=True) for item in data]
    return data


def _check_rectangular(data: Any, dim: int = 0) -> None:
    """Nested lists must be rectangular: torch's error names the first ragged dimension."""
    if not isinstance(data, list) or not data or not isinstance(data[0], list):
        return
    length = len(data[0])
    for row in data:
        if not isinstance(row, list) or len(row) != length:
            got = len(row) if isinstance(row, list) else 1
            raise ValueError(
                f"expected sequence of length {length} at dim {dim + 1} (got {got}); every row "
                "of a nested list must have the same length"
            )
    for row in data:
        _check_rectangular(row, dim + 1)


def tensor(data: Any, dtype: DtypeLike = None, device: DeviceLike = None,
           requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (a number, nested lists, or an array)."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    data = _plain(data)
    _check_rectangular(data)
    np_dtype = _dtype.to_numpy_dtype(dtype) or _infer_dtype(data)
    return _finish(np.array(data, dtype=np_dtype), np_dtype, device, requires_grad)


def as_tensor(data: Any, dtype: DtypeLike = None, device: DeviceLike = None) -> Tensor:
    """Like ``tensor`` but shares memory with a numpy array when no conversion is needed."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype)
    device = _backend.default_device_or(device)
    if isinstance(data, np.ndarray) and dtype is None and device in (None, "cpu"):
        _dtype.from_numpy_dtype(data.dtype)
        return Tensor._make(data)
    return tensor(data, dtype, device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array``: writes through either are seen by both."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtype.from_numpy_dtype(array.dtype)
    return Tensor._make(array)


def _float_dtype(dtype: DtypeLike) -> np.dtype:
    return _dtype.to_numpy_dtype(dtype) or _dtype.get_default_dtype().np_dtype


def _size_of(name: str, dims: tuple, size: Any) -> tuple:
    """The shape of ``name(2, 3)``, ``name((2, 3))`` or ``name(size=(2, 3))``, as torch takes it."""
    if size is None:
        if not dims:
            raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
        return shape_args(dims)
    if dims:
        raise TypeError(
            f"{name}() received an invalid combination of arguments: the shape is given both "
            "positionally and as size=; pass it once"
        )
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"{name}(): argument 'size' must be tuple of ints, not {type(size).__name__} "
            f"(write size=({size},) or {name}({size}))"
        )
    return tuple(size)


def zeros(*dims: Any, size: Any = None, dtype: DtypeLike = None, device: DeviceLike = None,
          requires_grad: bool = False) -> Tensor:
    shape = _size_of("zeros", dims, size)
    return _finish(np.zeros(shape, _float_dtype(dtype)), dtype or _float_dtype(dtype), device,
                   requires_grad)


def ones(*dims: Any, size: Any = None, dtype: DtypeLike = None, device: DeviceLike = None,
         requires_grad: bool = False) -> Tensor:
    shape = _size_of("ones", dims, size)
    return _finish(np.ones(shape, _float_dtype(dtype)), _float_dtype(dtype), device,
                   requires_grad)


def empty(*dims: Any, size: Any = None, dtype: DtypeLike = None, device: DeviceLike = None,
          requires_grad: bool = False) -> Tensor:
    """Zeros here: uninitialised memory would make outputs non-deterministic."""
    return zeros(_size_of("empty", dims, size), dtype=dtype, device=device,
                 requires_grad=requires_grad)


def full(size: Any, fill_value: Any, dtype: DtypeLike = None, device: DeviceLike = None,
         requires_grad: bool = False) -> Tensor:
    np_dtype = _dtype.to_numpy_dtype(dtype) or _infer_dtype(fill_value)
    return _finish(np.full(tuple(size), fill_value, np_dtype), np_dtype, device, requires_grad)


def _like(fill: Any):
    def like(other: Tensor, dtype: DtypeLike = None, device: DeviceLike = None,
             requires_grad: bool = False) -> Tensor:
        np_dtype = _dtype.to_numpy_dtype(dtype) or other._data.dtype
        return _finish(fill(other.shape, np_dtype), np_dtype, device or other.device, requires_grad)

    return like


zeros_like = _like(np.zeros)
ones_like = _like(np.ones)
empty_like = zeros_like


def full_like(other: Tensor, fill_value: Any, dtype: DtypeLike = None, device: DeviceLike = None,
              requires_grad: bool = False) -> Tensor:
    np_dtype = _dtype.to_numpy_dtype(dtype) or other._data.dtype
    return _finish(np.full(other.shape, fill_value, np_dtype), np_dtype, device or other.device,
                   requires_grad)


def arange(start: Any, end: Any = None, step: Any = 1, dtype: DtypeLike = None,
           device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """``[start, end)`` in steps of ``step``; floating values bit for bit as torch's CPU kernel."""
    if end is None:
        start, end = 0, start
    np_dtype = _dtype.to_numpy_dtype(dtype) or _infer_dtype([start, end, step])
    start, end, step = (s.item() if isinstance(s, Tensor) else s for s in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (np.isfinite(start) and np.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if np_dtype.kind != "f":
        return _finish(np.arange(start, end, step, dtype=np_dtype), np_dtype, device,
                       requires_grad)
    size = int(np.ceil((float(end) - float(start)) / float(step)))
    return _finish(_arange_values(float(start), float(step), size, np_dtype), np_dtype, device,
                   requires_grad)


def _arange_values(start: float, step: float, size: int, np_dtype: np.dtype) -> np.ndarray:
    """torch's loop (RangeFactoriesKernel.cpp), in float64 with one rounding per FMA as there:
    blocks of two 32-byte vectors (8 float32 or 4 float64 lanes), each lane ``base + lane *
    step`` from a vector base ``start + step * i`` rounded to the dtype; the leftover tail
    element by element, ``start + step * i``. (Above 32,768 elements torch splits the range
    between its threads, each restarting the blocks; this is its one-thread layout.)"""
    lanes = 32 // np_dtype.itemsize
    blocked = size - size % (2 * lanes)
    bases = _rounding.fma(step, np.arange(0, blocked, lanes), start).astype(np_dtype)
    vectors = _rounding.fma(np.arange(lanes), step, bases[:, None].astype(np.float64))
    tail = _rounding.fma(step, np.arange(blocked, size), start)
    return np.concatenate([vectors.ravel(), tail]).astype(np_dtype)


def linspace(start: float, end: float, steps: int, dtype: DtypeLike = None,
             device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """``steps`` values from ``start`` to ``end``, bit for bit as torch's CPU kernel: the first
    half ``start + step * i``, the second ``end - step * (steps - 1 - i)``, each one FMA in the
    dtype's precision (float64 for an integer dtype)."""
    np_dtype = _float_dtype(dtype)
    start, end = (s.item() if isinstance(s, Tensor) else s for s in (start, end))
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if steps == 1:  # torch fills the one value with start (the step would divide by zero)
        return _finish(np.full(1, start, np_dtype), np_dtype, device, requires_grad)
    if np_dtype.kind == "f":
        start, end = np_dtype.type(start), np_dtype.type(end)
    else:
        start, end = float(np_dtype.type(start)), float(np_dtype.type(end))
    precise = np.float32 if np_dtype == np.float32 else np.float64
    step = precise((precise(end) - precise(start)) / precise(steps - 1))
    multiply_add = _rounding.fma32 if precise is np.float32 else _rounding.fma
    i = np.arange(steps)
    halfway = steps // 2
    values = np.where(i < halfway, multiply_add(step, i, start),
                      multiply_add(-step, steps - 1 - i, end))
    return _finish(values.astype(np_dtype), np_dtype, device, requires_grad)


def eye(n: int, m: int | None = None, dtype: DtypeLike = None, device: DeviceLike = None,
        requires_grad: bool = False) -> Tensor:
    np_dtype = _float_dtype(dtype)
    return _finish(np.eye(n, m, dtype=np_dtype), np_dtype, device, requires_grad)


# ---- random: the same streams as torch's CPU generator (see _random.py) -------------------------


def manual_seed(seed: int) -> _random.Generator:
    """Seed the default generator; same seed, same numbers as ``torch.manual_seed``."""
    return _random.manual_seed(seed)


def seed() -> int:
    return _random.default_generator.seed()


def initial_seed() -> int:
    return _random.default_generator.initial_seed()


def rand(*dims: Any, size: Any = None, generator: Any = None, dtype: DtypeLike = None,
         device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    np_dtype = _float_dtype(dtype)
    shape = _size_of("rand", dims, size)
    return _finish(_random.rand(shape, np_dtype, generator), np_dtype, device, requires_grad)


def randn(*dims: Any, size: Any = None, generator: Any = None, dtype: DtypeLike = None,
          device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    np_dtype = _float_dtype(dtype)
    shape = _size_of("randn", dims, size)
    return _finish(_random.randn(shape, np_dtype, generator), np_dtype, device, requires_grad)


def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, *, generator: Any = None,
           dtype: DtypeLike = None, device: DeviceLike = None,
           requires_grad: bool = False) -> Tensor:
    """``torch.normal`` in its four forms, drawn as torch draws them (ATen's normal_out_impl):
    numbers and a ``size``: ``empty(size).normal_(mean, std)``; a tensor ``mean`` and a
    number ``std``: ``normal_(0, std)`` then ``+ mean``; a tensor ``std``: ``normal_(0, 1)``,
    then ``* std + mean``, in the tensors' broadcast shape and dtype."""
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    if not tensors:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: with a "
                            "number mean and std, give size=, e.g. normal(0.0, 1.0, size=(3,))")
        np_dtype = _float_dtype(dtype)
        values = _random.normal_(tuple(size), mean, std, np_dtype, generator)
        return _finish(values, np_dtype, device, requires_grad)
    if any(t._requires_grad for t in tensors):
        raise NotImplementedError(
            "miniautograd's normal() does not differentiate through mean or std (torch records "
            "NormalBackward); pass detached tensors, or write mean + std * randn_like(mean)"
        )
    arrays = [t._numpy_view() for t in tensors]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    np_dtype = np.result_type(*arrays)
    if isinstance(std, Tensor):
        values = _random.normal_(shape, 0.0, 1.0, np_dtype, generator) * std._numpy_view()
    else:
        values = _random.normal_(shape, 0.0, std, np_dtype, generator)
    values = (values + (mean._numpy_view() if isinstance(mean, Tensor) else mean)).astype(np_dtype)
    return _finish(values, np_dtype, device or tensors[0].device, requires_grad)


def randint(low: int, high: int | None = None, size: Any = None, *, generator: Any = None,
            dtype: DtypeLike = None, device: DeviceLike = None,
            requires_grad: bool = False) -> Tensor:
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high)."""
    if size is None:
        if not isinstance(high, (tuple, list)):
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=...)
        low, high = 0, low
    np_dtype = _dtype.to_numpy_dtype(dtype) or np.dtype(np.int64)
    values = _random.randint(low, high, tuple(size), generator=generator)
    return _finish(values.astype(np_dtype), np_dtype, device, requires_grad)


def rand_like(other: Tensor, dtype: DtypeLike = None, device: DeviceLike = None) -> Tensor:
    return rand(other.shape, dtype=dtype or other.dtype, device=device or other.device)


def randn_like(other: Tensor, dtype: DtypeLike = None, device: DeviceLike = None) -> Tensor:
    return randn(other.shape, dtype=dtype or other.dtype, device=device or other.device)


def randperm(n: int, generator: Any = None, dtype: DtypeLike = None,
             device: DeviceLike = None) -> Tensor:
    return _finish(_random.randperm(n, generator), dtype or np.int64, device, False)


def multinomial(probs: Tensor, num_samples: int, replacement: bool = False,
                generator: Any = None) -> Tensor:
    samples = _random.multinomial(probs._numpy_view(), num_samples, replacement, generator)
    return Tensor._make(samples)


def bernoulli(probs: Tensor, generator: Any = None) -> Tensor:
    return Tensor._make(_random.bernoulli(probs._numpy_view(), generator).astype(probs._data.dtype))
