"""The checks of the book's guided build: each runs one behaviour on the reader's engine and
on PyTorch, and says what differs.

A check is a function of the reader's module that raises ``MismatchError`` with what was expected
and what the engine did; any other exception the engine raises is reported as such. The
checks never stop at the first failure: a reader sees every behaviour at once.
"""

from __future__ import annotations

import importlib.util
import itertools
import textwrap
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

_loads = itertools.count()


class MismatchError(AssertionError):
    """A behaviour of the reader's engine that differs from PyTorch's (or from the step)."""


@dataclass(frozen=True)
class Outcome:
    check: str
    passed: bool
    detail: str = ""
    step: int = 0  # the step that asks for the behaviour

    def __str__(self) -> str:
        return f"✔ {self.check}" if self.passed else f"✘ {self.check}: {self.detail}"


def load(path: str | Path) -> ModuleType:
    """The module in the file `path`, loaded afresh (an edited file is read again), under a
    name of its own, so that nothing else named like it is replaced."""
    path = Path(path)
    name = f"_myautograd_{next(_loads)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"no Python file at {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expect(what: str, got: Any, expected: Any) -> None:
    """Raise MismatchError unless `got` equals `expected`, as values (arrays within float64
    rounding) or as objects."""
    if isinstance(expected, np.ndarray | float | int) and not isinstance(expected, bool):
        try:
            close = np.allclose(np.asarray(got, dtype=np.float64), expected, rtol=1e-10,
                                atol=1e-12)
        except (TypeError, ValueError):
            close = False
        if close and np.shape(got) != np.shape(expected):
            raise MismatchError(f"{what}: the right values in the wrong shape, "
                                f"{np.shape(got)}, expected {np.shape(expected)}")
        same = close
    else:
        same = got is expected if expected is None or isinstance(expected, bool) else (
            got == expected)
    if not same:
        raise MismatchError(f"{what}: expected {_show(expected)}, got {_show(got)}")


def _show(value: Any) -> str:
    """`value` as a reader knows it: a node by its name, an object of the reader's engine by
    its class (not `<_myautograd_0.Node object at 0x...>`)."""
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=6, separator=", ")
    if isinstance(value, np.generic):  # a NumPy number: as a number, not np.float64(...)
        return repr(value.item())
    if hasattr(value, "next_functions") and callable(getattr(value, "name", None)):
        try:
            return f"a node, {value.name()}"
        except Exception:  # a name() that fails: say what the node is anyway
            return f"a node ({type(value).__name__})"
    if type(value).__module__.startswith("_myautograd_") and (
            type(value).__repr__ is object.__repr__):
        return f"a {type(value).__name__}"
    return repr(value)


def where_raised(error: BaseException, module: ModuleType) -> str:
    """' (in FILE, line N: CODE)' for the last line of `module`'s file that the error passed
    through, so that a reader knows where to look; '' if it never passed through it."""
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if f.filename == getattr(module, "__file__", None)]
    if not frames:
        return ""
    last = frames[-1]
    code = "" if last.line.startswith("raise ") else f": {last.line}"
    return f" (in {Path(last.filename).name}, line {last.lineno}{code})"


def run(checks: list[tuple[str, Callable[[ModuleType], None]]],
        module: ModuleType, step: int = 0) -> list[Outcome]:
    """Every check on `module`: its outcome, with what differed or what was raised."""
    outcomes = []
    for name, check in checks:
        try:
            check(module)
        except MismatchError as mismatch:
            outcomes.append(Outcome(name, False, str(mismatch), step))
        except Exception as error:  # the reader's engine raised: say what, and where
            message = str(error).replace(  # the file the reader knows, not our module name
                f"module '{module.__name__}' has", f"{Path(module.__file__).name} has")
            outcomes.append(Outcome(name, False, f"raised {type(error).__name__}: {message}"
                                    f"{where_raised(error, module)}", step))
        else:
            outcomes.append(Outcome(name, True, step=step))
    return outcomes


@contextmanager
def counted_calls(nodes: list[Any]) -> Iterator[dict[int, int]]:
    """How often each of `nodes` is called while the block runs (by id): each node class's
    ``__call__`` is wrapped for the block, and restored after."""
    calls: dict[int, int] = {}
    classes = {type(node) for node in nodes}
    originals = {cls: cls.__call__ for cls in classes}

    def counting(original: Callable) -> Callable:
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            calls[id(self)] = calls.get(id(self), 0) + 1
            return original(self, *args, **kwargs)
        return call

    try:
        for cls, original in originals.items():
            cls.__call__ = counting(original)
        yield calls
    finally:
        for cls, original in originals.items():
            cls.__call__ = original


def graph_nodes(root_node: Any) -> list[Any]:
    """Every node reachable from `root_node` along next_functions, each once, no recursion."""
    found, stack, seen = [], [root_node], {id(root_node)}
    while stack:
        node = stack.pop()
        found.append(node)
        for entry in node.next_functions:
            nxt = entry[0] if isinstance(entry, tuple) else entry  # torch's pairs or nodes
            if nxt is not None and id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append(nxt)
    return found


WIDTH = 88  # a notebook's output column: long lines wrap, continued under the first


def report(outcomes: list[Outcome]) -> None:
    """One line per check of the last step; the earlier steps' checks (which a later engine
    must still pass) in one line when they all pass, and each failing one otherwise."""
    last = max(o.step for o in outcomes)
    for step in sorted({o.step for o in outcomes} - {last}):
        earlier = [o for o in outcomes if o.step == step]
        if all(o.passed for o in earlier):
            print(f"✔ step {step}'s {len(earlier)} checks still pass")
        for outcome in earlier:
            if not outcome.passed:
                show_line(f"{outcome} (step {step})")
    for outcome in outcomes:
        if outcome.step == last:
            show_line(str(outcome))
    passed = sum(o.passed for o in outcomes if o.step == last)
    total = sum(o.step == last for o in outcomes)
    done = passed == total and all(o.passed for o in outcomes)
    print(f"{passed} of {total} checks of step {last} pass"
          + (": this step is done." if done else "."))


def show_line(line: str) -> None:
    """Print `line` wrapped to a notebook's column, continued lines indented."""
    print(textwrap.fill(line, width=WIDTH, subsequent_indent="  "))

