"""Grad mode: whether operations record a graph. Per thread, as in torch: a thread starts with
recording on, whatever mode the thread that started it is in."""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class _GradState(threading.local):
    enabled = True  # each thread's starting value


STATE = _GradState()


def is_grad_enabled() -> bool:
    return STATE.enabled


class _ModeContext:
    """Base for context managers that are also decorators, like torch's (``@no_grad()``
    and ``@no_grad`` both work, on functions and on generator functions)."""

    mode: bool

    def __new__(cls, func: Callable | None = None, *args: Any, **kwargs: Any) -> Any:
        if callable(func) and cls is not set_grad_enabled:
            return cls()(func)
        return super().__new__(cls)

    def __enter__(self) -> None:
        self._previous = STATE.enabled
        STATE.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        STATE.enabled = self._previous

    def __call__(self, func: F) -> F:
        return _decorate(func, type(self))


def _decorate(func: F, make_context: Callable[[], Any]) -> F:
    """Run ``func`` in the mode; for a generator, in the mode each time it resumes."""
    if inspect.isgeneratorfunction(func):

        @functools.wraps(func)
        def generator(*args: Any, **kwargs: Any) -> Any:
            steps = func(*args, **kwargs)
            to_send = None
            while True:
                with make_context():
                    try:
                        value = steps.send(to_send)
                    except StopIteration as done:
                        return done.value
                to_send = yield value

        return generator  # type: ignore[return-value]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with make_context():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


class no_grad(_ModeContext):  # noqa: N801 - torch's name
    """Operations inside record no graph: for inference and for updating weights in place."""

    mode = False


class enable_grad(_ModeContext):  # noqa: N801 - torch's name
    """Turn recording back on inside a ``no_grad`` block."""

    mode = True


class inference_mode(no_grad):  # noqa: N801 - torch's name
    """Records nothing, like ``no_grad``. torch also makes its results *inference tensors*, which
    skip version counting and raise if a recorded operation saves them for backward (or if they
    are changed in place outside the mode); miniautograd has no inference tensors, so code that
    torch refuses runs here."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = not mode if isinstance(mode, bool) else False


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
        return _decorate(func, lambda: set_grad_enabled(mode))
