"""The pre-0.4 tensor types, ``FloatTensor`` and its kin, which programs of the Variable era
still use: ``FloatTensor(2, 3)``, ``FloatTensor([1, 2])``, ``x.type(dtype)`` with
``dtype = torch.FloatTensor``, and ``isinstance(x, torch.FloatTensor)``.

As in torch, each is a class whose instances are the CPU tensors of its dtype (its metaclass
answers ``isinstance``), and calling it makes a plain ``Tensor``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _creation, _dtype
from ._tensor import Tensor, _legacy_shape


class _LegacyTensorType(type):
    """The metaclass: ``isinstance(t, FloatTensor)`` is ``t.dtype is float32`` on the CPU."""

    dtype: _dtype.dtype

    def __instancecheck__(cls, instance: Any) -> bool:
        return (isinstance(instance, Tensor) and instance.dtype is cls.dtype
                and not instance.is_cuda)

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:
        """``T()`` (empty), ``T(2, 3)`` or ``T(Size)`` (a shape, zero-filled here where torch
        leaves memory uninitialised), ``T(sequence)`` (the data, converted), ``T(tensor)``
        (the same tensor, which must already have this type)."""
        name = f"{cls.__name__}()"
        shape = _legacy_shape(args)
        if shape is not None:
            return _creation.zeros(shape, dtype=cls.dtype, device=device)
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0].dtype is not cls.dtype:
                raise TypeError(
                    f"expected {cls.dtype.scalar_name} (got {args[0].dtype.scalar_name}); "
                    f"convert with tensor.type({cls.__name__})"
                )
            return args[0]
        if len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)):
            return _creation.tensor(args[0], dtype=cls.dtype, device=device)
        given = ", ".join(type(a).__name__ for a in args)
        raise TypeError(
            f"{name} received an invalid combination of arguments - got ({given}): pass sizes "
            "(2, 3), a torch.Size, a sequence of numbers or a tensor"
        )

    def __repr__(cls) -> str:
        return f"<class '{cls.dtype.legacy_name}'>"


def _legacy_type(d: _dtype.dtype) -> type:
    return _LegacyTensorType(f"{d.scalar_name}Tensor", (), {"dtype": d, "__module__": __name__})


FloatTensor = _legacy_type(_dtype.float32)
DoubleTensor = _legacy_type(_dtype.float64)
LongTensor = _legacy_type(_dtype.int64)
IntTensor = _legacy_type(_dtype.int32)
ByteTensor = _legacy_type(_dtype.uint8)
BoolTensor = _legacy_type(_dtype.bool_)
