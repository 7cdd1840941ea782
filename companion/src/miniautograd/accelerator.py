"""``miniautograd.accelerator``: torch's device-agnostic questions, answered for CuPy.

The accelerator a build supports is CUDA when CuPy is installed (as a CUDA build of torch
reports ``cuda`` even on a machine without a GPU) and none otherwise (a CPU build); whether
one is usable now is ``is_available()``. The current tutorials start with
``device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available()
else "cpu"``.
"""

from __future__ import annotations

from . import _backend, cuda


def current_accelerator(check_available: bool = False) -> _backend.device | None:
    """``device(type='cuda')`` when CuPy is installed (and, with ``check_available``, sees a
    GPU); None otherwise."""
    if _backend._cupy is None or (check_available and not is_available()):
        return None
    return _backend.device("cuda")


is_available = cuda.is_available
device_count = cuda.device_count
