"""``BackwardFunction``: the node of an operation, which is also the ``ctx`` its forward fills.

What forward may call on ctx (``save_for_backward``, ``mark_dirty``, ...), what backward may
read from it (``saved_tensors``, checked against in-place changes by ``SavedTensor``), and
what the engine calls (``apply``, ``_release``). ``function.py`` makes one such node class for
every ``Function`` (and every built-in ``Op``), and records it around forward.
"""

from __future__ import annotations

import re
import warnings
import weakref
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from .._backend import xp_of
from .._dtype import from_numpy_dtype
from .._tensor import Tensor
from .anomaly_mode import HINT as ANOMALY_HINT
from .anomaly_mode import STATE as ANOMALY
from .graph import SAVED_TENSORS_HOOKS, AccumulateGrad, Node

_INPLACE_HINT = (
    "Hint: the tensor was changed in place (by an operation ending in '_', `+=`, `-=`, an "
    "index assignment, or an in-place write through `t.detach()`, which shares t's memory) "
    "after autograd saved it for backward. Change a copy instead (`t = t.clone()` before the "
    "in-place op), or use the out-of-place operation."
)
_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)


def accumulator(leaf: Tensor) -> AccumulateGrad:
    """The ``AccumulateGrad`` node of a leaf: one per leaf, as long as some graph holds it."""
    node = leaf._acc_ref() if leaf._acc_ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._acc_ref = weakref.ref(node)
    return node


def edge_to(value: Any) -> tuple[Node | None, int]:
    """The graph edge that gradient for ``value`` must travel along."""
    if not isinstance(value, Tensor) or not value._requires_grad:
        return (None, 0)
    if value.grad_fn is not None:
        return (value.grad_fn, value._output_nr)
    return (accumulator(value), 0)


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved.

    An output saved by its own node is kept without its ``grad_fn`` (and rebuilt on unpack,
    with its output number: output k's gradient must reach the node as output k's under
    ``create_graph``), so that node and output do not keep each other alive in a reference
    cycle. Inside ``saved_tensors_hooks`` only what ``pack`` returned is kept, with the
    tensor's place in the graph, so that the unpacked tensor gets it back (as in torch: a
    ``pack`` that detaches or copies must not cut the graph of a double backward).
    """

    __slots__ = ("data", "edge", "output_nr", "packed", "requires_grad", "source", "tensor",
                 "unpack_hook", "vc", "version")

    def __init__(self, tensor: Tensor) -> None:
        if SAVED_TENSORS_HOOKS:  # inside saved_tensors_hooks: keep what pack gives
            pack, self.unpack_hook = SAVED_TENSORS_HOOKS[-1]
            self.packed = pack(tensor)
            self.source = weakref.ref(tensor)  # not kept alive: only ``saves`` asks for it
            self.tensor = self.data = None
            self.requires_grad, self.output_nr = tensor._requires_grad, tensor._output_nr
            self.edge = edge_to(tensor)
            self.vc, self.version = _UNCHECKED, 0
            return
        self.tensor = tensor
        self.vc = tensor._vc
        self.version = tensor._vc[0]

    def saves(self, tensor: Tensor) -> bool:
        """Whether ``tensor`` is the one saved here (asked by ``set_history``). A packed
        tensor is known by a weak reference, not its id: a temporary saved and freed in
        ``forward`` may leave its id to an output."""
        if self.tensor is not None:
            return self.tensor is tensor
        return self.data is None and self.source() is tensor

    def _as_output(self, tensor: Tensor) -> None:
        """``tensor``, saved here, is an output of the node that saved it: checked from its
        version now, after ``mark_dirty`` counted the write that made it."""
        self.requires_grad, self.output_nr = tensor._requires_grad, tensor._output_nr
        if self.tensor is None:  # packed by a hook: unpacking links it to the node
            self.edge = None
            return
        self.data = tensor._data
        self.tensor = None
        self.vc, self.version = tensor._vc, tensor._vc[0]

    def unpack(self, node: Node) -> Tensor:
        if self.vc[0] != self.version:
            tensor = self.tensor
            kind = f", which is output {self.output_nr} of {_op_name(node)}" if tensor is None \
                else _describe_origin(tensor)
            data = self.data if tensor is None else tensor._data
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{from_numpy_dtype(data.dtype).legacy_name} "
                f"{list(data.shape)}]{kind}, is at version {self.vc[0]}; expected version "
                f"{self.version} instead. {_INPLACE_HINT}"
                + (f" {ANOMALY_HINT}" if ANOMALY.enabled else "")
            )
        if self.tensor is not None:
            return self.tensor
        if self.data is None:
            return self._unpacked(node)
        grad_fn = node if self.requires_grad else None  # a non-differentiable output has none
        return Tensor._make(self.data, self.requires_grad, grad_fn, self.output_nr, self.vc)

    def _unpacked(self, node: Node) -> Tensor:
        """What the unpack hook makes of the packed value, each time backward asks, put back
        where the saved tensor was in the graph."""
        tensor = self.unpack_hook(self.packed)
        if not isinstance(tensor, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(tensor).__name__}"
            )
        if not self.requires_grad:
            return tensor
        if self.edge is None:  # an output of ``node`` itself
            return Tensor._make(tensor._data, True, node, self.output_nr)
        parent, output_nr = self.edge
        if isinstance(parent, AccumulateGrad):  # a leaf: gradients reach its own .grad
            leaf = Tensor._make(tensor._data, True)
            leaf._acc_ref = weakref.ref(parent)
            return leaf
        return Tensor._make(tensor._data, True, parent, output_nr)


_UNCHECKED = [0]  # the version counter of a packed tensor: never bumped, never a mismatch


def _op_name(node: Node) -> str:
    """``ExpBackward0`` -> ``Exp``: torch's error messages name the forward operation."""
    return re.sub(r"Backward\d*$", "", node.name())


def _describe_origin(tensor: Tensor) -> str:
    if tensor.grad_fn is None:
        return ""
    return f", which is output {tensor._output_nr} of {_op_name(tensor.grad_fn)}"


def _number_as_tensor(value: Any) -> Any:
    """torch shows a saved Python number as a 0-d tensor (float64, int64 or bool)."""
    return Tensor._make(np.asarray(value)) if isinstance(value, (bool, int, float)) else value


# Speed: one tuple of names for each op's saved values, shared by all its nodes (as ops/op.py's
# _SHARED shares their other small tuples), so that a node adds no object for the garbage
# collector to scan (see _keep). Bounded by the ops' names.
_NAMES: dict[tuple[str, ...], tuple[str, ...]] = {}


def type_name(value: Any) -> str:
    """torch's name for a value's type in its messages: ``numpy.ndarray``, ``float``."""
    kind = type(value)
    return kind.__qualname__ if kind.__module__ == "builtins" else \
        f"{kind.__module__}.{kind.__qualname__}"


class BackwardFunction(Node):
    """The backward node of a ``Function``; it is also the ``ctx`` that forward receives."""

    _forward_cls: type[Any]  # the Function (or Op) class whose backward this node runs
    # What forward saved, in order, by name (built-in ops: ``self`` is read as ``_saved_self``)
    # or by position (save_for_backward): SavedTensor for tensors, numbers and None as they
    # are. None once backward freed them; the names stay, as torch lists them then.
    _packed: Mapping[Any, Any] | None = MappingProxyType({})  # nothing saved
    _packed_names: tuple[str, ...] = ()
    _result: SavedTensor | None = None
    _dirty: tuple[Tensor, ...] = ()
    _non_differentiable: tuple[Tensor, ...] = ()
    needs_input_grad: tuple[bool, ...] = ()
    _recorded = True  # False for a Function called with grad mode off or no input needing it
    materialize_grads = True
    _runs_without_gradients = True  # backward gets zeros (or None, without materialize_grads)

    def _unrecorded(self, inputs: tuple) -> None:
        """A Function called with grad mode off or with no input that requires grad: as in
        torch, ``needs_input_grad`` still says which inputs require grad, and
        ``save_for_backward`` neither checks nor keeps anything."""
        self.needs_input_grad = tuple([isinstance(a, Tensor) and a._requires_grad
                                       for a in inputs])
        self._recorded = False

    # ---- what forward may call -------------------------------------------------------------
    def save_for_backward(self, *tensors: Tensor | None) -> None:
        if not self._recorded:  # torch checks and keeps them only for a recorded call
            return
        for index, tensor in enumerate(tensors):
            if tensor is not None and not isinstance(tensor, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{index} is of type {type(tensor).__name__}. Keep other values as "
                    "attributes of ctx (ctx.my_value = ...)."
                )
        self._keep(dict(enumerate(tensors)))

    def save(self, /, **values: Any) -> None:
        """What built-in ops call: each value under torch's name for it (``self``, ``other``),
        readable as ``_saved_<name>`` and, in order, as ``saved_tensors``. A Python number or
        None is kept as it is."""
        names = tuple(values)
        self._packed_names = _NAMES.setdefault(names, names)
        self._keep(values)

    def _keep(self, values: dict[Any, Any]) -> None:
        """Keep tensors as SavedTensor (checked for in-place changes when unpacked), anything
        else as it is. Nothing is kept when no input needs a gradient: no backward will ask,
        and a ``saved_tensors_hooks`` pack must not run for it (as in torch).

        Speed: in a dict, which the garbage collector does not scan while it holds only
        numbers and None (a tuple it scans until its first collection): measured, a tuple here
        made the 100,000-deep chain's forward pass ~10% slower."""
        if True in self.needs_input_grad:
            for key, value in values.items():
                if isinstance(value, Tensor):
                    values[key] = SavedTensor(value)
            self._packed = values

    def mark_dirty(self, *tensors: Tensor) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value

    # ---- what backward may read ------------------------------------------------------------
    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        saved = self._packed
        if saved is None:
            raise RuntimeError(_FREED)
        return tuple([s.unpack(self) if type(s) is SavedTensor else s for s in saved.values()])

    @property
    def saved_variables(self) -> tuple[Tensor | None, ...]:
        warnings.warn(
            "'saved_variables' is deprecated; use 'saved_tensors'. (Before 0.4 it returned the "
            "saved tensors as Variables; it is now an alias of saved_tensors.)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.saved_tensors

    @property
    def result(self) -> Tensor:
        """The op's own output, for ops whose backward uses it (exp, tanh, sigmoid, ...)."""
        if self._result is None:
            raise RuntimeError(_FREED)
        return self._result.unpack(self)

    def __dir__(self) -> list[str]:
        """List the saved values as torch's nodes do (``_saved_self``, ``_saved_result``, ...)."""
        names = [f"_saved_{n}" for n in self._packed_names]
        if self._forward_cls.saves_result:
            names.append("_saved_result")
        return sorted(set(super().__dir__()) | set(names))

    def __getattr__(self, name: str) -> Any:
        # torch exposes saved values as `_saved_self`, `_saved_other`, `_saved_result`, ...
        key = name[7:] if name.startswith("_saved_") else None
        if key == "result" and self._forward_cls.saves_result:
            return self.result
        names = self._packed_names
        if key in names:  # once freed, reading one raises, as in torch
            return _number_as_tensor(self.saved_tensors[names.index(key)])
        if key and key in self.__dict__:  # what forward kept on ctx: `_saved_dim`, ...
            return self.__dict__[key]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _release(self) -> None:
        if self._packed is not None:
            self._packed = None
        if self._result is not None:
            self._result = None

    # ---- what the engine calls ---------------------------------------------------------------
    def apply(self, *grad_outputs: Any) -> tuple:
        """The Function's ``backward``, called with this node as its ctx (torch's
        ``BackwardCFunction.apply``), and what it returned checked: one gradient (or None) per
        argument of forward, of which the tensor inputs' go on. (The engine then fits each to
        its input: broadcasting summed away, dtype cast.)"""
        if self.materialize_grads and any(g is None for g in grad_outputs):
            # zeros (on the device of the gradients that did arrive) where none arrived
            xp = next((xp_of(g._data) for g in grad_outputs if isinstance(g, Tensor)), np)
            grad_outputs = tuple(
                Tensor._make(xp.zeros(*meta)) if g is None and meta is not None else g
                for g, meta in zip(grad_outputs, self._output_meta, strict=True)
            )
        grads = self._forward_cls.backward(self, *grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
        expected = len(self.needs_input_grad)
        if len(grads) > expected and all(g is None for g in grads[expected:]):
            grads = grads[:expected]
        if len(grads) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{expected}, got {len(grads)}). backward must return one gradient (or None) "
                "for each argument that forward received, in the same order."
            )
        for position, grad in enumerate(grads):
            if grad is not None and position not in self._input_positions:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at "
                    f"position {position + 1}, but the corresponding forward input was not a "
                    "Variable. Return None for each argument that is not a tensor."
                )
        checked = []
        for position in self._input_positions:
            grad = grads[position] if self.needs_input_grad[position] else None
            if grad is not None and not isinstance(grad, Tensor):
                raise RuntimeError(
                    f"expected Variable or None (got {type_name(grad)}): function {self.name()} "
                    f"returned it at index {position}; return a Tensor or None."
                )
            checked.append(grad)
        return tuple(checked)
