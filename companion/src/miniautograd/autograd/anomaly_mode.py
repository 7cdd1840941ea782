"""Anomaly detection (``torch.autograd.detect_anomaly``): while it is on, every node keeps the
Python stack of the forward call that made it, and when the node's backward fails, a warning
gives that stack; with ``check_nan``, a backward that returns nan raises at once.

The switch is read where nodes are made (``Node.__init__`` and the ops' ``apply``) and where
they run (the engine's ``evaluate_function``); off, it costs one attribute read there.
"""

from __future__ import annotations

import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._backend import xp_of
from .grad_mode import _decorate

_PACKAGE = str(Path(__file__).resolve().parents[1])  # miniautograd's own frames are left out

HINT = ("Hint: the backtrace further above shows the operation that failed to compute its "
        "gradient. The variable in question was changed in there or anywhere later. Good luck!")


class _AnomalyState:
    """One switch for the process, as torch's AnomalyMode (not per thread)."""

    enabled = False
    check_nan = True


STATE = _AnomalyState()


def is_anomaly_enabled() -> bool:
    return STATE.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return STATE.check_nan


def forward_trace() -> list[str]:
    """The stack of the forward call now running, without the package's own frames."""
    return [frame for frame in traceback.format_stack()
            if not frame.partition("\n")[0].strip().startswith(f'File "{_PACKAGE}')]


def run_checked(node: Any, run: Callable[[], tuple]) -> tuple:
    """Run one node's backward in anomaly mode: on an error, warn with the stack of the forward
    call that made the node; with check_nan, raise on a gradient that holds nan."""
    try:
        grads = run()
        if STATE.check_nan:
            for index, grad in enumerate(grads):
                if grad is not None and bool(xp_of(grad._data).isnan(grad._data).any()):
                    raise RuntimeError(
                        f"Function '{node.name()}' returned nan values in its {index}th output.")
    except Exception:
        trace = "".join(getattr(node, "_forward_trace", ()))
        warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused "
                      f"the error:\n{trace}", UserWarning, stacklevel=2)
        raise
    return grads


class set_detect_anomaly:  # noqa: N801 - torch's name
    """Turn anomaly detection on or off now (a call) or for a block (a context manager)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._previous = (STATE.enabled, STATE.check_nan)
        STATE.enabled, STATE.check_nan = bool(mode), bool(check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        STATE.enabled, STATE.check_nan = self._previous


class detect_anomaly:  # noqa: N801 - torch's name
    """Anomaly detection for a block (or a decorated function); warns that it slows things."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        self._previous = (STATE.enabled, STATE.check_nan)
        STATE.enabled, STATE.check_nan = True, self.check_nan

    def __exit__(self, *exc: object) -> None:
        STATE.enabled, STATE.check_nan = self._previous

    def __call__(self, func: Callable) -> Callable:
        return _decorate(func, lambda: self)  # the grad modes' decorator, generators included
