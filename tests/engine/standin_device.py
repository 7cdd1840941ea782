"""A stand-in for a GPU, on the CPU: CuPy's rules about host arrays, with NumPy doing the sums.

miniautograd runs on a CUDA GPU through CuPy, and CuPy refuses to mix its arrays with NumPy's:
``cupy_array * numpy.ones(3)`` is a TypeError. A backward formula that allocates with plain
NumPy (``np.ones``, ``np.arange``) therefore works on the CPU and breaks on a GPU, and no GPU
runs in CI. ``install`` puts this module's ``cupy`` and ``cupyx`` in the engine's place:
arrays that hold NumPy data but, like CuPy's, refuse a NumPy array in any ufunc or NumPy
function, and refuse to be converted to one implicitly. Indexing keys and assigned values may
be NumPy arrays, as CuPy allows. The engine then treats them as a CUDA device's.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

HOST_ARRAY = (
    "Unsupported type <class 'numpy.ndarray'>: a NumPy (host) array met a device array; "
    "allocate with the input's array module (xp_of)"
)


class HostConversionError(RuntimeError):
    """``numpy.asarray`` of a device array: CuPy refuses it (with a TypeError)."""


class _Device:
    id = 0


class StandInArray(np.lib.mixins.NDArrayOperatorsMixin):
    """An array on the stand-in device: NumPy's data behind CuPy's refusals."""

    __slots__ = ("_a",)
    device = _Device()

    def __init__(self, array: np.ndarray) -> None:
        self._a = array

    def get(self) -> np.ndarray:
        """To the host, explicitly (CuPy's ``ndarray.get``)."""
        return self._a.copy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        # CuPy raises TypeError; NumPy would take a TypeError here for "no copy= argument" and
        # read the array as a sequence instead. Another class stops the conversion.
        raise HostConversionError(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
            "construct a NumPy array explicitly."
        )

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return wrap(getattr(ufunc, method)(*strict(inputs), **strict(kwargs)))

    def __array_function__(self, func: Any, types_: Any, args: Any, kwargs: Any) -> Any:
        return wrap(func(*strict(args), **strict(kwargs)))

    def __getitem__(self, key: Any) -> Any:
        return wrap(self._a[lenient(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a[lenient(key)] = lenient(value)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # no __array_interface__ and the like: no way to the host
            raise AttributeError(name)
        attr = getattr(self._a, name)
        if not callable(attr):
            return wrap(attr)

        def method(*args: Any, **kwargs: Any) -> Any:
            return wrap(attr(*strict(args), **strict(kwargs)))

        return method

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "_a":
            object.__setattr__(self, name, value)
        else:  # ``a.shape = ...``: in place where no copy is needed, as in NumPy and CuPy
            setattr(self._a, name, value)

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Iterator[Any]:
        return (wrap(row) for row in self._a)

    def __bool__(self) -> bool:
        return bool(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __index__(self) -> int:
        return self._a.__index__()

    def __repr__(self) -> str:
        return f"standin.{self._a!r}"


def wrap(value: Any) -> Any:
    """NumPy results as device arrays; a scalar becomes a 0-d array, as CuPy returns."""
    if isinstance(value, np.ndarray):
        return StandInArray(value)
    if isinstance(value, np.generic) and not isinstance(value, np.dtype):
        return StandInArray(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(wrap(v) for v in value)
    if isinstance(value, list):
        return [wrap(v) for v in value]
    return value


def strict(value: Any) -> Any:
    """Arguments of a ufunc or NumPy function: device arrays unwrapped, host arrays refused."""
    if isinstance(value, StandInArray):
        return value._a
    if isinstance(value, np.ndarray):
        raise TypeError(HOST_ARRAY)
    if isinstance(value, tuple):
        return tuple(strict(v) for v in value)
    if isinstance(value, list):
        return [strict(v) for v in value]
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    return value


def lenient(value: Any) -> Any:
    """Indexing keys and assigned values: device arrays unwrapped, host arrays taken as CuPy
    takes them."""
    if isinstance(value, StandInArray):
        return value._a
    if isinstance(value, tuple):
        return tuple(lenient(v) for v in value)
    if isinstance(value, list):
        return [lenient(v) for v in value]
    return value


def _asarray(data: Any, dtype: Any = None, **kwargs: Any) -> StandInArray:
    """``cupy.asarray``: from the host (copied) or the device."""
    if isinstance(data, StandInArray):
        return StandInArray(data._a if dtype is None else data._a.astype(dtype, copy=False))
    return StandInArray(np.array(lenient(data), dtype=dtype))


def _module(name: str, functions: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__getattr__ = functions  # type: ignore[attr-defined]
    return module


def _numpy_function(name: str) -> Any:
    """``cupy.<name>``: NumPy's function on device arrays, refusing host arrays."""
    found = getattr(np, name)  # AttributeError for what NumPy lacks, as a module raises
    if not callable(found):
        return found
    if isinstance(found, type):  # dtypes (cupy.float32 is numpy.float32), ndarray
        return StandInArray if found is np.ndarray else found

    def function(*args: Any, **kwargs: Any) -> Any:
        return wrap(found(*strict(args), **strict(kwargs)))

    return function


@contextmanager
def _device(index: int = 0) -> Iterator[None]:
    yield


cupy = _module("cupy", _numpy_function)
cupy.ndarray = StandInArray  # type: ignore[attr-defined]
cupy.asarray = _asarray  # type: ignore[attr-defined]
cupy.array = _asarray  # type: ignore[attr-defined]
cupy.cuda = types.SimpleNamespace(  # type: ignore[attr-defined]
    Device=_device, runtime=types.SimpleNamespace(getDeviceCount=lambda: 1)
)


def _scatter_add(out: StandInArray, key: Any, values: Any) -> None:
    np.add.at(out._a, lenient(key), strict(values))


def _cupyx(name: str) -> Any:
    if name == "scatter_add":
        return _scatter_add
    raise AttributeError(f"module 'cupyx' has no attribute {name!r}")


cupyx = _module("cupyx", _cupyx)
