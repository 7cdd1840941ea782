"""Data types: thin named wrappers over numpy dtypes, printed the way torch prints them."""

from __future__ import annotations

import numpy as np


class dtype:  # noqa: N801 - torch's name
    """A tensor element type; ``is_floating_point`` decides whether it may require grad."""

    __slots__ = ("is_floating_point", "itemsize", "name", "np_dtype", "scalar_name")

    def __init__(self, name: str, np_dtype: type, scalar_name: str) -> None:
        self.name = name
        self.np_dtype = np.dtype(np_dtype)
        self.is_floating_point = self.np_dtype.kind == "f"
        self.itemsize = self.np_dtype.itemsize
        self.scalar_name = scalar_name  # torch's name in messages: "result type Float ..."

    @property
    def legacy_name(self) -> str:
        """The pre-0.4 tensor type (``t.type()``, error messages): ``miniautograd.FloatTensor``."""
        return f"miniautograd.{self.scalar_name}Tensor"

    def __repr__(self) -> str:
        return f"miniautograd.{self.name}"

    def __reduce__(self) -> str:
        return self.name


float32 = dtype("float32", np.float32, "Float")
float64 = dtype("float64", np.float64, "Double")
int32 = dtype("int32", np.int32, "Int")
int64 = dtype("int64", np.int64, "Long")
bool_ = dtype("bool", np.bool_, "Bool")
uint8 = dtype("uint8", np.uint8, "Byte")

_BY_NUMPY = {d.np_dtype: d for d in (float32, float64, int32, int64, bool_, uint8)}
_DEFAULT_FLOAT = [float32]


def from_numpy_dtype(np_dtype: np.dtype) -> dtype:
    """The miniautograd dtype of a numpy dtype (float16 and others are not supported)."""
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type {np.dtype(np_dtype)}; the only supported types are: "
            "float64, float32, int64, int32, uint8 and bool."
        ) from None


def to_numpy_dtype(d: dtype | type | str | None) -> np.dtype | None:
    """Accept a miniautograd dtype, a numpy dtype, a Python type, a torch dtype or None."""
    if d is None:
        return None
    if isinstance(d, dtype):
        return d.np_dtype
    if d is float:
        return _DEFAULT_FLOAT[0].np_dtype
    if d is int:
        return np.dtype(np.int64)
    if d is bool:
        return np.dtype(np.bool_)
    text = str(d)
    if text.startswith("torch."):  # a torch dtype passed by a program ported from torch
        return np.dtype(text[len("torch."):])
    return np.dtype(d)


def from_type(value: object) -> dtype:
    """``Tensor.type``'s argument as a dtype: a dtype, a legacy tensor type (``FloatTensor``,
    which carries its dtype) or its name, spelled as torch does (``'torch.FloatTensor'``: a
    program written for torch passes that) or as this package prints it."""
    if isinstance(value, dtype):
        return value
    carried = getattr(value, "dtype", None) if isinstance(value, type) else None
    if isinstance(carried, dtype):
        return carried
    if isinstance(value, str):
        module, _, name = value.rpartition(".")
        for candidate in _BY_NUMPY.values():
            if module in ("torch", "miniautograd") and name == f"{candidate.scalar_name}Tensor":
                return candidate
    raise ValueError(f"invalid type: '{value}'")


def get_default_dtype() -> dtype:
    return _DEFAULT_FLOAT[0]


def set_default_dtype(d: dtype) -> None:
    """Like ``torch.set_default_dtype``: the dtype of Python floats turned into tensors."""
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _DEFAULT_FLOAT[0] = d


class finfo:  # noqa: N801 - torch's name
    """Machine limits of a floating dtype (``torch.finfo``)."""

    def __init__(self, d: dtype | None = None) -> None:
        info = np.finfo(to_numpy_dtype(d) if d is not None else get_default_dtype().np_dtype)
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = float(info.tiny)
        self.smallest_normal = self.tiny
        self.resolution = float(info.resolution)
        self.dtype = str(info.dtype)

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )
