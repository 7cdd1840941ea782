"""The array backend: numpy on the CPU, CuPy on a CUDA GPU.

Ops are written with numpy functions; numpy hands CuPy arrays over to CuPy through the
``__array_ufunc__``/``__array_function__`` protocols, so only creation and transfer live here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:  # CuPy is optional; a machine without a GPU never needs it.
    import cupy as _cupy
except Exception:  # noqa: BLE001 - any import failure (no driver, no library) means "no CUDA"
    _cupy = None


class device:  # noqa: N801 - torch's name
    """Where a tensor lives: ``device('cpu')`` or ``device('cuda', 0)``."""

    __slots__ = ("index", "type")

    def __init__(self, type: str | device, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        kind, _, number = str(type).partition(":")
        if kind not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {type}"
            )
        self.type = kind
        self.index = int(number) if number else index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and (self.index or 0) == (other.index or 0)

    def __hash__(self) -> int:
        return hash((self.type, self.index or 0))

    def __repr__(self) -> str:
        suffix = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{suffix})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"


CPU = device("cpu")

# Where creation functions put a tensor when no device is given (set_default_device).
_default_device: device | None = None


def set_default_device(dev: device | str | None) -> None:
    """``torch.set_default_device``: the device of ``tensor``, ``zeros``, ``randn``, ... when
    none is given (not of ``*_like``, which follow their input). None goes back to the CPU."""
    global _default_device
    _default_device = None if dev is None else device(dev)


def get_default_device() -> device:
    """The device creation functions use now; a GPU's index filled in, as torch does."""
    dev = _default_device or CPU
    if dev.type == "cuda" and dev.index is None:
        xp_for(dev)  # no GPU: the error creating a tensor there gives
        return device("cuda", 0)
    return dev


def default_device_or(dev: device | str | None) -> device | str | None:
    """``dev``, or the default device when the caller gave none."""
    return _default_device if dev is None else dev


def cuda_available() -> bool:
    if _cupy is None:
        return False
    try:
        return _cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - CuPy raises its own runtime errors when no driver is found
        return False


def device_of(array: Any) -> device:
    if isinstance(array, np.ndarray):
        return CPU
    return device("cuda", array.device.id)


def is_cuda_array(array: Any) -> bool:
    return _cupy is not None and isinstance(array, _cupy.ndarray)


def xp_of(array: Any):
    """The array module (numpy or cupy) that owns ``array``."""
    return np if isinstance(array, np.ndarray) else _cupy


def xp_for(dev: device | str | None):
    dev = CPU if dev is None else device(dev)
    if dev.type == "cpu":
        return np
    if not cuda_available():
        raise RuntimeError(
            "CUDA is not available: miniautograd runs on the GPU through CuPy. Install a CuPy "
            "build that matches your CUDA driver (e.g. `pip install cupy-cuda12x`), or use "
            "device='cpu'."
        )
    return _cupy


def asarray(data: Any, dtype: np.dtype | None, dev: device | str | None):
    """Create an array on a device (copying only when needed)."""
    xp = xp_for(dev)
    if xp is np:
        if is_cuda_array(data):
            data = data.get()
        return np.asarray(data, dtype=dtype)
    with _cupy.cuda.Device(device(dev).index or 0):
        return _cupy.asarray(data, dtype=dtype)


def to_device(array: Any, dev: device | str):
    """Move an array between devices; a no-op when it is already there."""
    dev = device(dev)
    if device_of(array) == dev:
        return array
    if dev.type == "cpu":
        return array.get()
    return asarray(array, None, dev)


def to_numpy(array: Any) -> np.ndarray:
    return array if isinstance(array, np.ndarray) else array.get()


def add_at(out: Any, key: Any, values: Any) -> None:
    """``out[key] += values``, adding every value even where ``key`` repeats a position (the
    backward of indexing and ``gather``); ``out[key] += values`` would keep only one of them."""
    if isinstance(out, np.ndarray):
        np.add.at(out, key, values)
    else:
        import cupyx  # only on a GPU, where CuPy is installed

        cupyx.scatter_add(out, key, values)
