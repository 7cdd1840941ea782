"""``Optimizer``: holds parameter groups and per-parameter state, like torch's."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._tensor import Tensor, zero_grads


class Optimizer:
    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: dict[Tensor, dict[str, Any]] = {}
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.param_groups: list[dict[str, Any]] = []
        for group in groups:
            filled = {**defaults, **group, "params": list(group["params"])}
            for param in filled["params"]:
                if not param.is_leaf:
                    raise ValueError("can't optimize a non-leaf Tensor")
            self.param_groups.append(filled)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of the last step (backward adds to .grad, it never resets it)."""
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for index, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {index}")
            lines += [f"    {k}: {v}" for k, v in sorted(group.items()) if k != "params"]
        return "\n".join([*lines, ")"])
