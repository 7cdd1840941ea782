"""``RemovableHandle``: what every ``register_hook`` returns (``torch.utils.hooks``)."""

from __future__ import annotations

from typing import Any


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    def __init__(self, hooks: list, hook: Any) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)
