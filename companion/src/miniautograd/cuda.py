"""``miniautograd.cuda``: whether tensors can live on a GPU (through CuPy)."""

from __future__ import annotations

from . import _backend


def is_available() -> bool:
    """True when CuPy is installed and sees at least one CUDA device."""
    return _backend.cuda_available()


def device_count() -> int:
    if not is_available():
        return 0
    return _backend._cupy.cuda.runtime.getDeviceCount()


def synchronize() -> None:
    if is_available():
        _backend._cupy.cuda.Device().synchronize()


def manual_seed(seed: int) -> None:
    """Kept for torch compatibility: GPU tensors are drawn on the CPU generator, then moved."""
