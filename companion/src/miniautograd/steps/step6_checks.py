"""What step 6 of the guided build must do (chapter 6), checked against torch.jit.trace:
trace() runs a function once and records its operations; the replay computes PyTorch's values
and gradients on new inputs, and keeps the branch taken while tracing."""

from __future__ import annotations

import gc
import warnings
import weakref
from types import ModuleType

import numpy as np

from .checks import MismatchError, expect
from .step1_checks import X, Y
from .step5_checks import FEEDS, counting, program


def torch_trace(fn, *examples):
    import torch

    with warnings.catch_warnings():  # tracing a branch warns (TracerWarning), as it should
        warnings.simplefilter("ignore")
        return torch.jit.trace(fn, tuple(torch.tensor(e, dtype=torch.float64)
                                         for e in examples))


def operations(graph) -> list[str]:
    """The Functions of a traced graph, inputs first (a walk that visits each Symbol once)."""
    order, stack, seen = [], [(graph, False)], set()
    while stack:
        symbol, expanded = stack.pop()
        if expanded:
            order.append(symbol.function.__name__)
        elif getattr(symbol, "function", None) is not None and id(symbol) not in seen:
            seen.add(id(symbol))
            stack.append((symbol, True))
            stack.extend((t, False) for t in reversed(symbol.inputs))
    return order


def records(m: ModuleType) -> None:
    calls: list = []
    Double = counting(m, calls)
    traced = m.trace(lambda x, w: program(Double.apply(x), w), m.Tensor(X), m.Tensor(Y))
    expect("forward calls of Double while tracing program(Double.apply(x), w)", len(calls), 1)
    if not hasattr(traced, "graph"):
        raise MismatchError("trace(...).graph: expected the traced graph (its output Symbol), "
                            "got no attribute graph")
    ours = operations(traced.graph)
    theirs = [n.kind() for n in torch_trace(program, X, Y).graph.nodes()
              if n.kind().startswith("aten::")]
    if len(ours) != len(theirs) + 1:  # Double, the check's x * 2, then the program's
        raise MismatchError(
            f"the operations in trace(...).graph of the program (x * w + x.exp()).sum(), run "
            f"on 2 * x: expected {len(theirs) + 1}, the one that doubles x and then what "
            f"torch.jit.trace records for the program ({', '.join(theirs)}), got "
            f"{len(ours)}: {', '.join(ours) or 'none'}")


def result_then_more(x, w):
    """A function whose result is not the last operation it runs."""
    loss = program(x, w)
    x.exp()  # run, and not returned
    return loss


def dropped_then_more(x, w):
    """A function that drops a result, then returns another (a tape that kept only the ids of
    results could take a new tensor for the dropped one)."""
    x * 5.0  # run, and dropped at once
    return x * 3.0 + w


def functions(m: ModuleType) -> list[tuple[str, str, object]]:
    """The functions the replay checks trace: (name, what it does, the function)."""
    def under_no_grad(x, w):  # recorded by torch.jit.trace all the same
        import torch

        with (torch.no_grad() if isinstance(x, torch.Tensor) else m.no_grad()):
            y = x * w
        return (y + 1.0).sum()

    return [("program", "", program),
            ("f", " (f returns (x * w + x.exp()).sum() and then runs x.exp(): the replay "
                  "computes what f returns)", result_then_more),
            ("g", " (g runs x * 5.0, drops it, and returns x * 3.0 + w)", dropped_then_more),
            ("h", " (h computes y = x * w under no_grad() and returns (y + 1.0).sum(): "
                  "torch.jit.trace records what runs under no_grad() too)", under_no_grad)]


def replays(m: ModuleType) -> None:
    import torch

    for name, about, fn in functions(m):
        traced = m.trace(fn, m.Tensor(X), m.Tensor(Y))
        torch_traced = torch_trace(fn, X, Y)
        for x_value, w_value in FEEDS:
            want = torch_traced(torch.tensor(x_value, dtype=torch.float64),
                                torch.tensor(w_value, dtype=torch.float64)).numpy()
            expect(f"trace({name}, ...)({x_value}, {w_value}), torch.jit.trace's{about}",
                   traced(np.array(x_value), np.array(w_value)).data, want)


def still_recording(m: ModuleType, after: str) -> None:
    """Raise unless a tensor computed eagerly now is freed once dropped: an engine that still
    writes operations down keeps every one of them alive."""
    y = m.Tensor(X) * 2.0
    freed = weakref.ref(y)
    del y
    gc.collect()
    if freed() is not None:
        raise MismatchError(f"Tensor(X) * 2.0, computed {after} and then dropped: expected it "
                            "freed, as in PyTorch, got it kept alive: trace() still writes "
                            "down operations")


def raising(x):
    x * 2.0
    raise KeyError("raised inside the traced function")


def stops(m: ModuleType) -> None:
    m.trace(program, m.Tensor(X), m.Tensor(Y))
    still_recording(m, "after trace() returned")
    try:
        m.trace(raising, m.Tensor(X))
    except KeyError:
        pass
    else:
        raise MismatchError("trace() of a function that raises KeyError: expected the "
                            "KeyError, as torch.jit.trace lets it through, got no error")
    still_recording(m, "after trace() of a function that raised")


def replay_backward(m: ModuleType) -> None:
    import torch

    traced = m.trace(program, m.Tensor(X), m.Tensor(Y))
    torch_traced = torch_trace(program, X, Y)
    for x_value, w_value in FEEDS:
        w = m.Tensor(w_value, requires_grad=True)
        out = traced(np.array(x_value), w)
        if not out.requires_grad:
            raise MismatchError(f"the replay on ({x_value}, w), w a tensor that requires "
                                "grad: expected a result that requires grad (its graph "
                                "reaches w, as in PyTorch), got one that does not")
        out.backward()
        tw = torch.tensor(w_value, dtype=torch.float64, requires_grad=True)
        torch_traced(torch.tensor(x_value, dtype=torch.float64), tw).backward()
        expect(f"w.grad of the replay on ({x_value}, w), torch.jit.trace's", w.grad,
               tw.grad.numpy())


def frozen_branch(m: ModuleType) -> None:
    def branch(x):  # x.data: an array in the reader's engine, a tensor in PyTorch
        return x * 2.0 if float(x.data.sum()) > 0 else x * 3.0

    traced = m.trace(branch, m.Tensor(X))  # sum(X) > 0: the branch x * 2.0
    import torch

    minus_x = [-v for v in X]
    want = torch_trace(branch, X)(torch.tensor(minus_x, dtype=torch.float64)).numpy()
    expect("the replay of a trace of `x * 2.0 if sum > 0 else x * 3.0` (traced where the sum "
           "is positive) on -X: torch.jit.trace's, the traced branch",
           traced(np.array(minus_x)).data, want)


CHECKS = [
    ("trace() runs the function once and records its operations, as torch.jit.trace does",
     records),
    ("the replay computes torch.jit.trace's values on new inputs", replays),
    ("the replay is differentiable, with PyTorch's gradients", replay_backward),
    ("a Python branch is taken once, while tracing, as torch.jit.trace takes it",
     frozen_branch),
    ("trace() stops recording when it returns, and when the function raises", stops),
]
