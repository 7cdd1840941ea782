"""The backward pass: an iterative walk over the graph, in the order torch's engine uses.

Read this file second, after ``function.py``.

1. Count, for every node reachable from the roots, how many edges point into it.
2. Start from a root node holding the initial gradients. A node runs once every edge into it
   has delivered its gradient (its count reaches 0); among the nodes ready to run, the most
   recently created runs first. No recursion, so a graph a million nodes deep is fine.
3. Each gradient a node returns is fitted to the input it is for before it travels on
   (``fit_gradient``): summed back over broadcast dimensions, cast to the input's dtype. So a
   backward formula is the bare local derivative, as in micrograd, and broadcasting is undone
   in this one place, as torch's ``validate_outputs`` does it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._backend import xp_of
from .._tensor import Tensor
from .anomaly_mode import STATE as ANOMALY
from .anomaly_mode import run_checked
from .backward_function import edge_to
from .grad_mode import set_grad_enabled
from .graph import AccumulateGrad, GraphRoot, Node
from .ready_queue import ReadyQueue


def _as_tuple(value: Any) -> tuple:
    if value is None:
        return ()
    if isinstance(value, Tensor):
        return (value,)
    return tuple(value)


def _initial_grads(outputs: tuple, grads: tuple, create_graph: bool) -> tuple:
    """The gradient each output starts with: ``gradient`` as given (the engine casts it to the
    output's dtype), or 1 for a scalar output."""
    if len(grads) == 0:
        grads = (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(
            f"got {len(grads)} tensors in grad_outputs / gradient but {len(outputs)} outputs; "
            "pass one gradient per output"
        )
    result = []
    for index, (out, grad) in enumerate(zip(outputs, grads, strict=True)):
        if not out._requires_grad:
            raise RuntimeError(
                f"element {index} of tensors does not require grad and does not have a grad_fn. "
                "Set requires_grad=True on the inputs (leaves) before computing it, and do not "
                "compute it under no_grad() or from a detach()ed tensor."
            )
        if grad is None:
            if out._data.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs. For a tensor "
                    f"output of shape {list(out.shape)}, pass `gradient=` to backward() (or "
                    "`grad_outputs=` to autograd.grad): the vector v in the vector-Jacobian "
                    "product v^T J, e.g. torch.ones_like(out); or reduce it to a scalar first "
                    "(out.sum())."
                )
            result.append(Tensor._make(np.ones_like(out._data)))  # new: nothing to detach
            continue
        if not isinstance(grad, Tensor):
            grad = Tensor._make(xp_of(out._data).asarray(grad, dtype=out._data.dtype))
        if grad._data.shape != out._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{index}] has a shape of {grad.shape} and "
                f"output[{index}] has a shape of {out.shape}. The gradient must have the "
                "output's shape."
            )
        result.append(grad if create_graph else grad.detach())
    return tuple(result)


def _dependencies(root: Node) -> dict[Node, int]:
    """How many edges point into each node reachable from ``root``."""
    counts: dict[Node, int] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node._next_nodes:
            if child is None:
                continue
            if child in counts:
                counts[child] += 1
            else:
                counts[child] = 1
                stack.append(child)
    return counts


def _needed(root: Node, targets: set[Node]) -> set[Node]:
    """The nodes autograd.grad must run: those with a target below them. A target itself runs
    only if another target lies below it; otherwise its gradient is captured and it does not
    run (torch's ``exec_info``): the tensor's hooks fire, the node's do not."""
    needed: set[Node] = set()
    visited: set[Node] = {root}
    stack: list[tuple[Node, int]] = [(root, 0)]
    while stack:
        node, position = stack[-1]
        edges = node._next_nodes
        if position < len(edges):
            stack[-1] = (node, position + 1)
            child = edges[position]
            if child is not None and child not in visited:
                visited.add(child)
                stack.append((child, 0))
            continue
        stack.pop()
        if any(c in targets or c in needed for c in edges if c is not None):
            needed.add(node)
    return needed


def _run_tensor_hooks(node: Node, grads: list) -> None:
    hooks = node.variable._hooks if isinstance(node, AccumulateGrad) else node._tensor_pre_hooks
    if hooks:
        for entry in list(hooks):
            output_nr, hook = (0, entry) if isinstance(node, AccumulateGrad) else entry
            replaced = hook(grads[output_nr])  # also None, where no gradient arrived (torch)
            if replaced is not None:
                if grads[output_nr] is None:
                    raise RuntimeError("can't replace a None gradient with a non-None value")
                _check_hook_result(hook, grads[output_nr], replaced)
                grads[output_nr] = replaced
    if node._retained:
        for output_nr, ref in node._retained.items():
            tensor, grad = ref(), grads[output_nr]
            if tensor is None or grad is None:
                continue
            if tensor._grad is None:  # a copy; under create_graph a differentiable one
                tensor._grad = grad.clone() if grad._requires_grad else grad._detached_copy()
            else:
                tensor._grad = tensor._grad + grad


def _check_hook_result(hook: Any, grad: Tensor, replaced: Tensor) -> None:
    """A hook may change a gradient's values, not its shape or dtype (torch's rule)."""
    name = getattr(hook, "__name__", "hook")
    if replaced._data.shape != grad._data.shape:
        raise RuntimeError(
            f"hook '{name}' has changed the size of value: a hook must return a gradient of "
            f"shape {list(grad.shape)}, got {list(replaced.shape)}"
        )
    if replaced._data.dtype != grad._data.dtype:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {grad.dtype} got "
            f"{replaced.dtype}); return a gradient of the same dtype"
        )


def execute(
    roots: tuple,
    grads: tuple,
    retain_graph: bool,
    create_graph: bool,
    capture: Sequence[tuple[Node, int]] | None = None,
) -> list | None:
    """Run backward from ``roots`` (torch's ``thread_main``): take the next ready node, let it
    compute the gradients of its inputs, and send each along its edge, fitted to its input;
    a node is ready once every edge into it has delivered. With ``capture``
    (autograd.grad), return the gradients arriving at those edges instead of accumulating
    into leaves' ``.grad``."""
    root = GraphRoot(tuple(edge_to(t) for t in roots), grads)
    dependencies = _dependencies(root)
    task = None if capture is None else _Capture(root, capture)
    buffers: dict[Node, list] = {}
    ready = ReadyQueue()
    ready.push(root)
    # Like torch, a backward formula's inf * 0 is a nan (or masked by a where), not a warning;
    # numpy's warnings inside a custom Function's backward or a hook are silenced too.
    with set_grad_enabled(create_graph), np.errstate(all="ignore"):
        while ready:
            node = ready.pop()
            grad_outputs = buffers.pop(node, None) or [None] * node._num_outputs
            grad_inputs = evaluate_function(node, grad_outputs, retain_graph, task)
            # Send each gradient along its edge, fitted to the input it is for.
            for child, output_nr, grad in zip(node._next_nodes, node._next_nrs, grad_inputs,
                                              strict=True):
                if child is None or (task is not None and child not in task.reached):
                    continue
                if grad is not None:
                    shape, dtype = child._output_meta[output_nr]
                    data = grad._data
                    if data.shape != shape or data.dtype != dtype:
                        grad = fit_gradient(node, grad_inputs, grad, shape, dtype)
                    buffer = buffers.get(child)
                    if buffer is None:
                        buffer = buffers[child] = [None] * child._num_outputs
                    previous = buffer[output_nr]
                    buffer[output_nr] = grad if previous is None else previous + grad
                remaining = dependencies[child] - 1
                dependencies[child] = remaining
                if remaining == 0:
                    ready.push(child)
    if task is None:
        return None
    return [task.captured.get(edge) for edge in capture]


def evaluate_function(node: Node, grad_outputs: list, retain_graph: bool,
                      task: _Capture | None) -> tuple:
    """One node's turn, as torch's ``evaluate_function``: the hooks of its tensors see the
    gradients that arrived (and ``retain_grad`` keeps them); the node runs, between its own
    pre- and post-hooks; then it frees what it saved, unless ``retain_graph``. autograd.grad
    captures the gradients it asked for, and a node reached only to be captured runs its
    tensors' hooks and no more. (torch's ``evaluate_function`` also sends the results on;
    here ``execute``'s loop does, where the counting is in sight.)"""
    runs = task is None or node in task.needed
    if task is not None and runs:
        task.capture(node, grad_outputs)  # torch's order: before the hooks that run with it
    if node._tensor_pre_hooks or node._retained or (
            type(node) is AccumulateGrad and node.variable._hooks):
        _run_tensor_hooks(node, grad_outputs)
    if not runs:  # a target with nothing asked for below: captured after its hooks, no call
        task.capture(node, grad_outputs)
        return (None,) * len(node._next_nodes)
    if node._pre_hooks:
        grad_outputs = _run_pre_hooks(node, grad_outputs)
    if (not node._runs_without_gradients and grad_outputs and grad_outputs[0] is None
            and all(g is None for g in grad_outputs)):
        grad_inputs = (None,) * len(node._next_nodes)  # no gradient arrived: nothing to send
    elif ANOMALY.enabled:  # a failing node names the forward call that made it
        grad_inputs = run_checked(node, lambda: node.apply(*grad_outputs))
    else:
        grad_inputs = node.apply(*grad_outputs)
    if node._post_hooks:
        grad_inputs = _run_post_hooks(node, grad_inputs, grad_outputs)
    if not retain_graph:
        node._release()
    return grad_inputs


def fit_gradient(node: Node, grads: tuple, grad: Tensor, shape: tuple, dtype: Any) -> Tensor:
    """A gradient ``node`` computed, fitted to its input as torch's ``validate_outputs`` does.

    A backward formula returns the bare local derivative: ``a + b`` with ``a`` of shape
    (3, 4) and ``b`` of shape (4,) gives ``grad`` for both. Here, once for every node, a
    gradient with broadcast dimensions is summed back to its input's shape, and one of
    another dtype is cast to the input's dtype; any other shape is an error in the formula.
    """
    if grad._data.shape != shape:
        if not _expandable(shape, grad._data.shape):
            index = next(i for i, g in enumerate(grads) if g is grad)
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{list(grad.shape)} but expected shape compatible with {list(shape)}"
            )
        grad = grad.sum_to_size(shape)
    if grad._data.dtype != dtype:
        grad = grad.to(dtype=dtype)
    return grad


def _expandable(shape: tuple, to: tuple) -> bool:
    """Whether broadcasting can stretch ``shape`` to ``to`` (so a gradient of shape ``to``
    sums back to ``shape``)."""
    if len(shape) > len(to):
        return False
    return all(n in (1, m) for n, m in zip(shape[::-1], to[::-1], strict=False))


class _Capture:
    """What autograd.grad asked for: the edges whose gradients it returns, the nodes that
    must run to compute them (``_needed``), and so the nodes that gradients go to at all
    (``reached``: torch's exec_info); the rest of the graph is not visited."""

    def __init__(self, root: Node, edges: Sequence[tuple[Node, int]]) -> None:
        self.targets = {node for node, _ in edges}
        self.needed = _needed(root, self.targets)
        self.reached = self.needed | self.targets
        self.captured: dict[tuple[Node, int], Any] = {}

    def capture(self, node: Node, grad_outputs: list) -> None:
        """Record the gradients reaching a target."""
        if node in self.targets:
            for output_nr, grad in enumerate(grad_outputs):
                self.captured[(node, output_nr)] = grad


def _run_pre_hooks(node: Node, grad_outputs: list) -> list:
    """Pre-hooks see (and may replace) the gradients of the node's outputs."""
    for hook in node._pre_hooks:
        replaced = hook(tuple(grad_outputs))
        if replaced is not None:
            grad_outputs = list(replaced)
    return grad_outputs


def _run_post_hooks(node: Node, grad_inputs: tuple, grad_outputs: list) -> tuple:
    """Post-hooks see (and may replace) the gradients the node computed, already fitted to
    its inputs."""
    grad_inputs = tuple(
        None if grad is None or child is None
        else fit_gradient(node, grad_inputs, grad, *child._output_meta[output_nr])
        for child, output_nr, grad in zip(node._next_nodes, node._next_nrs, grad_inputs,
                                          strict=True)
    )
    for hook in node._post_hooks:
        replaced = hook(grad_inputs, tuple(grad_outputs))
        if replaced is not None:
            grad_inputs = tuple(replaced)
    return grad_inputs


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Sequence[Tensor] | None = None,
) -> None:
    """Accumulate d(tensors)/d(leaf) into every leaf's ``.grad`` (``torch.autograd.backward``)."""
    outputs = _as_tuple(tensors)
    grads = _initial_grads(outputs, _as_tuple(grad_tensors), create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_tuple(inputs)
        results = execute(outputs, grads, retain_graph, create_graph, _capture_edges(inputs))
        with set_grad_enabled(create_graph):
            for tensor, result in zip(inputs, results, strict=True):
                if result is not None:
                    AccumulateGrad(tensor).apply(result)
        return
    execute(outputs, grads, retain_graph, create_graph)


def _capture_edges(inputs: tuple) -> list[tuple[Node, int]]:
    edges = []
    for index, tensor in enumerate(inputs):
        if not isinstance(tensor, Tensor) or not tensor._requires_grad:
            raise RuntimeError(
                f"One of the differentiated Tensors (input {index}) does not require grad. Set "
                "requires_grad=True on it before building the graph."
            )
        edges.append(edge_to(tensor))
    return edges


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """Return d(outputs)/d(inputs) without touching any ``.grad`` (``torch.autograd.grad``).

    ``only_inputs`` is torch's deprecated argument, ignored as there (False warns)."""
    if not only_inputs:
        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            FutureWarning,
            stacklevel=2,
        )
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False."
        )
    outputs_t = _as_tuple(outputs)
    inputs_t = _as_tuple(inputs)
    grads = _initial_grads(outputs_t, _as_tuple(grad_outputs), create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    results = execute(outputs_t, grads, retain_graph, create_graph, _capture_edges(inputs_t))
    for index, result in enumerate(results):
        if result is None and not (allow_unused or materialize_grads):
            raise RuntimeError(
                f"The differentiated Tensor at index {index} appears to not have been used in "
                "the graph. Set allow_unused=True if this is the desired behavior."
            )
        if result is None and materialize_grads:
            results[index] = Tensor._make(np.zeros_like(inputs_t[index]._data))
    return tuple(results)
