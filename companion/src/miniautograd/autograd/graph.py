"""Backward-graph nodes: what ``tensor.grad_fn`` points to.

A node knows the edges to the nodes that produced its inputs (``next_functions``), runs its
backward formula in ``apply`` and can carry hooks. Leaves that require grad end in an
``AccumulateGrad`` node, whose ``variable`` is the leaf whose ``.grad`` it fills.
``saved_tensors_hooks`` decides how the tensors a node saves for backward are stored.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..utils.hooks import RemovableHandle
from . import anomaly_mode
from .grad_mode import STATE

__all__ = ["AccumulateGrad", "GraphRoot", "Node", "RemovableHandle", "saved_tensors_hooks"]

_sequence_numbers = itertools.count()
# The next node's sequence number: nodes are numbered in the order they are made.
next_sequence_nr = _sequence_numbers.__next__

# The (pack, unpack) pairs of the saved_tensors_hooks contexts now open, innermost last.
SAVED_TENSORS_HOOKS: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] = []


class saved_tensors_hooks:  # noqa: N801 - torch's name
    """Inside this context, a tensor saved for backward is stored as ``pack_hook(tensor)``,
    and backward gets it back as ``unpack_hook(packed)``: where saved activations can be
    moved, compressed or recomputed. The hooks in force when a tensor is saved are the ones
    used for it; a packed tensor is not checked for later in-place changes (as in torch)."""

    def __init__(self, pack_hook: Callable[[Any], Any],
                 unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        SAVED_TENSORS_HOOKS.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc: object) -> None:
        SAVED_TENSORS_HOOKS.pop()


LAST_SEQUENCE_NR = 2**64 - 1


class Node:
    """A function in the backward graph (``torch.autograd.graph.Node``)."""

    # The edges, stored as two flat tuples: the output numbers are plain ints, so that tuple
    # is invisible to Python's cyclic garbage collector (it matters for million-node graphs).
    _next_nodes: tuple[Node | None, ...] = ()
    _next_nrs: tuple[int, ...] = ()
    _num_outputs = 1
    # (shape, dtype) of each output of the forward operation: the engine checks every gradient
    # sent to this node against it, and sums away broadcasting (torch's validate_outputs).
    _output_meta: tuple[tuple[tuple[int, ...], Any] | None, ...] = ()
    # Hooks are rare: class-level None until one is registered keeps node creation cheap.
    _pre_hooks: list[Callable] | None = None
    _post_hooks: list[Callable] | None = None
    _tensor_pre_hooks: list[tuple[int, Callable]] | None = None
    _retained: dict[int, Any] | None = None
    # Whether the engine calls this node when no gradient at all reached it (torch calls every
    # node; a built-in formula here needs a gradient, so only custom Functions are called).
    _runs_without_gradients = False

    def __init__(self) -> None:
        # Later nodes run first when several are ready: torch's engine orders by this number.
        self._seq = next_sequence_nr()
        if anomaly_mode.STATE.enabled:
            self._forward_trace = anomaly_mode.forward_trace()

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """``(node, input_nr)`` for each input: where this node sends each input's gradient."""
        return tuple(zip(self._next_nodes, self._next_nrs, strict=True))

    @next_functions.setter
    def next_functions(self, edges: tuple[tuple[Node | None, int], ...]) -> None:
        self._next_nodes = tuple(node for node, _ in edges)
        self._next_nrs = tuple(nr for _, nr in edges)

    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        return self._seq

    def apply(self, *grad_outputs: Any) -> tuple:
        raise NotImplementedError

    def __call__(self, *grad_outputs: Any) -> Any:
        """The node called by hand, as torch's: the gradient for its one input bare, those for
        several inputs as a tuple."""
        grads = self.apply(*grad_outputs)
        return grads[0] if len(grads) == 1 else grads

    def register_prehook(self, hook: Callable) -> RemovableHandle:
        """``hook(grad_outputs) -> None | new grad_outputs`` runs before this node's backward."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._pre_hooks.append(hook)
        return RemovableHandle(self._pre_hooks, hook)

    def register_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(grad_inputs, grad_outputs) -> None | new grad_inputs`` runs after backward."""
        if self._post_hooks is None:
            self._post_hooks = []
        self._post_hooks.append(hook)
        return RemovableHandle(self._post_hooks, hook)

    def _release(self) -> None:
        """Free what backward saved (nodes that save nothing have nothing to free)."""

    def _register_tensor_hook(self, output_nr: int, hook: Callable) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = []
        entry = (output_nr, hook)
        self._tensor_pre_hooks.append(entry)
        return RemovableHandle(self._tensor_pre_hooks, entry)

    def __repr__(self) -> str:
        return f"<{self.name()} object>"


class AccumulateGrad(Node):
    """The end of the graph for a leaf: adds the incoming gradient to ``variable.grad``."""

    def __init__(self, variable: Any) -> None:
        # torch gives these the largest sequence number: a ready leaf is filled at once.
        self._seq = LAST_SEQUENCE_NR
        self.variable = variable

    @property
    def _output_meta(self) -> tuple:  # type: ignore[override]
        """The leaf's shape and dtype: a gradient for it is checked against them."""
        data = self.variable._data
        return ((data.shape, data.dtype),)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def apply(self, grad: Any) -> tuple:
        leaf = self.variable
        if leaf._grad is None:
            # Own the storage: the incoming buffer may be shared (a user's `gradient`, or an
            # expanded sum's). Under create_graph a differentiable copy, as torch's: a
            # CopyBackwards node over the gradient's graph.
            leaf._grad = _copy_of(grad) if STATE.enabled else grad._detached_copy()
        elif STATE.enabled:  # create_graph=True: keep the sum differentiable
            leaf._grad = leaf._grad + grad
        else:
            leaf._grad._data += grad._data
        if leaf._post_accumulate_hooks:
            _run_post_accumulate_hooks(leaf)
        return ()


def _copy_of(grad: Tensor) -> Tensor:
    """A new tensor that copies ``grad`` (torch's ``empty_strided(...).copy_(grad)``)."""
    copy = Tensor._make(grad._data.copy())
    return copy.copy_(grad)


def _run_post_accumulate_hooks(leaf: Any) -> None:
    """Each hook sees the leaf with its new ``.grad``; like torch, it may return nothing but
    the leaf itself (what ``p.add_(...)`` returns), which counts as returning None."""
    for hook in list(leaf._post_accumulate_hooks):
        returned = hook(leaf)
        if returned is None or returned is leaf:
            continue
        if isinstance(returned, Tensor):
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        raise TypeError(f"expected Variable, but hook returned '{type(returned).__name__}'")


class GraphRoot(Node):
    """Hands the initial gradients to the roots of a backward call."""

    _num_outputs = 0  # no gradient arrives here: apply gives the initial ones

    def __init__(self, edges: tuple, grads: tuple) -> None:
        super().__init__()
        self.next_functions = edges
        self._grads = grads

    def apply(self) -> tuple:
        return self._grads
