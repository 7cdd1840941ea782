"""Grad mode: whether operations record a graph. One global switch, as in single-threaded torch."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class _GradState:
    enabled = True


STATE = _GradState()


def is_grad_enabled() -> bool:
    return STATE.enabled


class _ModeContext:
    """Base for context managers that are also decorators, like torch's."""

    mode: bool

    def __enter__(self) -> None:
        self._previous = STATE.enabled
        STATE.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        STATE.enabled = self._previous

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with type(self)():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(_ModeContext):  # noqa: N801 - torch's name
    """Operations inside record no graph: for inference and for updating weights in place."""

    mode = False


class enable_grad(_ModeContext):  # noqa: N801 - torch's name
    """Turn recording back on inside a ``no_grad`` block."""

    mode = True


class inference_mode(no_grad):  # noqa: N801 - torch's name
    """Here the same as ``no_grad`` (torch adds extra speed-ups that do not change results)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = not mode


class set_grad_enabled(_ModeContext):  # noqa: N801 - torch's name
    """Set grad mode now (as a function call) or for a block (as a context manager)."""

    def __init__(self, mode: bool) -> None:
        self._previous = STATE.enabled
        self.mode = bool(mode)
        STATE.enabled = self.mode

    def __enter__(self) -> None:
        STATE.enabled = self.mode

    def __call__(self, func: F) -> F:
        STATE.enabled = self._previous  # used as a decorator: do not change the mode now
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]
