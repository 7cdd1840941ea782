"""``Function``: an operation with a forward and a backward written side by side.

Read this file first. User code subclasses ``Function`` exactly as in torch; every built-in
operation of miniautograd is an ``Op``, a ``Function`` whose forward computes on arrays.
Calling ``apply`` runs forward and, when some input requires grad, links the backward node
into the graph: the ``ctx`` object passed to forward *is* that node (``output.grad_fn``), as
in torch. The engine (``engine.py``) later calls the node's backward with the gradient of
each output, and sends the gradient of each input along ``next_functions``.
"""

from __future__ import annotations

import functools
import re
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from .._backend import xp_of
from .._dtype import from_numpy_dtype
from .._tensor import Tensor
from .anomaly_mode import HINT as ANOMALY_HINT
from .anomaly_mode import STATE as ANOMALY
from .anomaly_mode import forward_trace, run_checked
from .grad_mode import STATE, no_grad
from .graph import SAVED_TENSORS_HOOKS, AccumulateGrad, Node, _sequence_numbers

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

    def __init__(self, tensor: Tensor, hooked: bool = True) -> None:
        if hooked and SAVED_TENSORS_HOOKS:  # inside saved_tensors_hooks: keep what pack gives
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
        """Whether ``tensor`` is the one saved here (asked by ``_connect_outputs``). A packed
        tensor is known by a weak reference, not its id: a temporary saved and freed in
        ``forward`` may leave its id to an output."""
        if self.tensor is not None:
            return self.tensor is tensor
        return self.data is None and self.source() is tensor

    def _as_output(self, tensor: Tensor) -> None:
        """``tensor``, saved here, is an output of the node that saved it."""
        self.requires_grad, self.output_nr = tensor._requires_grad, tensor._output_nr
        if self.tensor is None:  # packed by a hook: unpacking links it to the node
            self.edge = None
            return
        self.data = tensor._data
        self.tensor = None

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


class BackwardFunction(Node):
    """The backward node of a ``Function``; it is also the ``ctx`` that forward receives."""

    _forward_cls: type[Function]
    # What forward saved, in order: SavedTensor for tensors, numbers and None as they are; a
    # dict by torch's names (``_saved_self``) for built-in ops. None once backward freed them.
    _packed: tuple[Any, ...] | dict[str, Any] | None = ()
    _result: SavedTensor | None = None
    _dirty: tuple[Tensor, ...] = ()
    _non_differentiable: tuple[Tensor, ...] = ()
    needs_input_grad: tuple[bool, ...] = ()
    materialize_grads = True

    # ---- what forward may call -------------------------------------------------------------
    def save_for_backward(self, *tensors: Tensor | None) -> None:
        for index, tensor in enumerate(tensors):
            if tensor is not None and not isinstance(tensor, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{index} is of type {type(tensor).__name__}. Keep other values as "
                    "attributes of ctx (ctx.my_value = ...)."
                )
        hooked = True in self.needs_input_grad  # pack only what a backward will unpack
        self._packed = tuple([None if t is None else SavedTensor(t, hooked) for t in tensors])

    def save(self, /, **values: Any) -> None:
        """What built-in ops call: each value under torch's name for it (``self``, ``other``),
        readable as ``_saved_<name>`` and, in order, as ``saved_tensors``. A tensor is checked
        for in-place changes when unpacked; a Python number or None is kept as it is. Nothing
        is kept when no input needs a gradient: no backward will ask for it."""
        if True in self.needs_input_grad:
            for name, value in values.items():
                if isinstance(value, Tensor):
                    values[name] = SavedTensor(value)
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
        if type(saved) is dict:
            saved = saved.values()
        return tuple([s.unpack(self) if type(s) is SavedTensor else s for s in saved])

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
        names = [f"_saved_{n}" for n in self._names_of_saved()]
        if self._forward_cls.saves_result:
            names.append("_saved_result")
        return sorted(set(super().__dir__()) | set(names))

    def __getattr__(self, name: str) -> Any:
        # torch exposes saved values as `_saved_self`, `_saved_other`, `_saved_result`, ...
        key = name[7:] if name.startswith("_saved_") else None
        if key == "result" and self._forward_cls.saves_result:
            return self.result
        names = self._names_of_saved()
        if key in names:
            return _number_as_tensor(self.saved_tensors[names.index(key)])
        if key and key in self.__dict__:  # what forward kept on ctx: `_saved_dim`, ...
            return self.__dict__[key]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _names_of_saved(self) -> list[str]:
        """torch's names of what a built-in op saved (``self``, ``other``, ...), also once freed
        (reading them then raises, as in torch)."""
        packed = self._packed
        return list(packed) if type(packed) is dict else list(self._freed_names)

    _freed_names: tuple[str, ...] = ()

    def _release(self) -> None:
        packed = self._packed
        if packed:
            if type(packed) is dict:
                self._freed_names = tuple(packed)
            self._packed = None
        if self._result is not None:
            self._result = None

    def apply(self, *grad_outputs: Any) -> tuple:
        if ANOMALY.enabled:
            return run_checked(self, lambda: self._forward_cls._run_backward(self, grad_outputs))
        return self._forward_cls._run_backward(self, grad_outputs)


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``.

    Call it with ``MyFunction.apply(*args)``; ``backward`` returns one gradient (or None) per
    argument of ``forward``. Its node is named ``<ClassName>Backward``.
    """

    _backward_cls: type[BackwardFunction]
    _node_suffix = ""  # built-in ops: "0", as torch numbers its built-in nodes
    # The name of this class's node: set where torch's is not <Class>Backward0 (a built-in op),
    # and resolved for every class when it is defined, so that a subclass reads its own.
    node_name: str | None = None
    saves_result = False  # built-in ops whose backward reads ``ctx.result``

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward{cls._node_suffix}"
        cls.node_name = name
        namespace, _, short = name.rpartition("::")
        body: dict[str, Any] = {"_forward_cls": cls, "__module__": cls.__module__,
                                "__qualname__": short}
        if namespace:  # nodes torch implements in C++ report a namespaced name()
            body["name"] = lambda self: name
        cls._backward_cls = type(short, (BackwardFunction,), body)

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    def __call__(self, *args: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function). Call it "
            f"as {type(self).__name__}.apply(...), without creating an instance."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        needs = tuple([isinstance(a, Tensor) and a._requires_grad for a in args])
        track = STATE.enabled and True in needs
        ctx = cls._backward_cls()
        ctx.needs_input_grad = needs if track else (False,) * len(args)
        with no_grad():
            if cls.setup_context is not Function.setup_context:
                result = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, result)
            else:
                result = cls.forward(ctx, *args, **kwargs)
        if not track:
            return result
        return _connect_outputs(ctx, args, result)

    @classmethod
    def _run_backward(cls, ctx: BackwardFunction, grad_outputs: tuple) -> tuple:
        """One gradient per tensor input, from backward's one per argument of forward. (The
        engine then checks each against its input, and sums away broadcasting.)"""
        if ctx.materialize_grads:  # zeros on the device of the gradients that did arrive
            xp = next((xp_of(g._data) for g in grad_outputs if isinstance(g, Tensor)), np)
            grad_outputs = tuple(
                Tensor._make(xp.zeros(*meta)) if g is None and meta is not None else g
                for g, meta in zip(grad_outputs, ctx._output_meta, strict=True)
            )
        grads = cls.backward(ctx, *grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
        expected = len(ctx.needs_input_grad)
        if len(grads) > expected and all(g is None for g in grads[expected:]):
            grads = grads[:expected]
        if len(grads) != expected:
            raise RuntimeError(
                f"function {ctx.name()} returned an incorrect number of gradients (expected "
                f"{expected}, got {len(grads)}). backward must return one gradient (or None) "
                "for each argument that forward received, in the same order."
            )
        checked = []
        for position in ctx._input_positions:
            grad = grads[position] if ctx.needs_input_grad[position] else None
            if grad is not None and not isinstance(grad, Tensor):
                raise TypeError(
                    f"function {ctx.name()} returned a gradient of type "
                    f"{type(grad).__name__} at index {position}; return a Tensor or None."
                )
            checked.append(grad)
        return tuple(checked)


def _connect_outputs(ctx: BackwardFunction, args: tuple, result: Any) -> Any:
    """Make the forward's outputs children of ``ctx`` in the graph."""
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    ctx._input_positions = positions
    ctx.next_functions = tuple(edge_to(args[i]) for i in positions)
    outputs = result if isinstance(result, tuple) else (result,)
    dirty = {id(t) for t in ctx._dirty}
    non_diff = {id(t) for t in ctx._non_differentiable}
    input_ids = {id(args[i]) for i in positions}
    connected, meta = [], []
    for index, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            connected.append(out)
            meta.append(None)
            continue
        if id(out) in dirty:
            if out.grad_fn is None and out._requires_grad:
                raise RuntimeError(
                    "a leaf Variable that requires grad is being used in an in-place operation."
                )
            out._vc[0] += 1  # torch counts marking dirty as a modification of its own
        elif id(out) in input_ids:
            out = out._alias()  # an input returned as is becomes a new tensor, as in torch
        meta.append((out._data.shape, out._data.dtype))
        if id(out) in non_diff or out._data.dtype.kind != "f":
            out._requires_grad = False
        else:
            out._requires_grad, out.grad_fn, out._output_nr = True, ctx, index
        connected.append(out)
    ctx._num_outputs = len(outputs)
    ctx._output_meta = tuple(meta)
    if ctx._packed:
        tensors = [t for t in connected if isinstance(t, Tensor)]
        for saved in filter(None, ctx._packed):
            output = next((t for t in tensors if saved.saves(t)), None)
            if output is not None:
                saved._as_output(output)
    return tuple(connected) if isinstance(result, tuple) else connected[0]


def once_differentiable(backward: Callable) -> Callable:
    """Mark a ``backward`` that is not itself differentiable (it computes on raw arrays)."""

    @functools.wraps(backward)
    def wrapper(ctx: Any, *grad_outputs: Any) -> Any:
        with no_grad():
            result = backward(ctx, *grad_outputs)
        if not STATE.enabled or not any(
            isinstance(g, Tensor) and g._requires_grad for g in grad_outputs
        ):
            return result
        results = result if isinstance(result, tuple) else (result,)
        # The gradients were computed without a graph; give them a node that raises if
        # anyone differentiates through it (on a detached copy that "requires grad", as torch).
        blocked = tuple(
            _DelayedError.apply(r.detach().requires_grad_()) if _floating(r) else r
            for r in results
        )
        return blocked if isinstance(result, tuple) else blocked[0]

    return wrapper


def _floating(value: Any) -> bool:
    return isinstance(value, Tensor) and value._data.dtype.kind == "f"


class _DelayedError(Function):
    node_name = "torch::autograd::Error"

    @staticmethod
    def forward(ctx: Any, grad: Tensor) -> Tensor:
        return grad.clone()

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with "
            "@once_differentiable. Write its backward with differentiable tensor operations "
            "(and drop the decorator) to support double backward."
        )


# ---- built-in operations -----------------------------------------------------------------------

_new_node = object.__new__  # an untracked node needs no sequence number: Node.__init__ is skipped
# Speed: one tuple object for each value a node keeps (``(True, False)``, ``(0, 0)``, a shape
# and dtype). Sharing them leaves Python's garbage collector far fewer objects to look through
# while a graph grows: measured, the 100,000-deep chain runs ~20% faster. Bounded, so that a
# program with ever new shapes does not grow it without end.
_SHARED: dict[tuple, tuple] = {}
_SHARED_LIMIT = 2**16


def _share(value: tuple) -> tuple:
    """``value`` from now on shared (see ``_SHARED``); called the first time it is seen."""
    if len(_SHARED) >= _SHARED_LIMIT:
        _SHARED.clear()
    _SHARED[value] = value
    return value


class Op(Function):
    """A built-in operation: forward computes on arrays, backward on (differentiable) Tensors.

    Inputs are tensors or Python numbers (both get an edge in ``next_functions``, as torch
    gives a wrapped number one); parameters such as ``dim`` are keyword arguments. Backward
    returns the bare local derivative for each input: the engine sums away broadcasting and
    casts to the input's dtype (``engine.fit_gradient``, like torch's validate_outputs).

    The one difference from a ``Function``: forward takes arrays out of its inputs and returns
    one array, which ``apply`` wraps into the output tensor. Arrays record nothing, so forward
    needs no ``no_grad()``; and with one output that ``apply`` makes itself, there is nothing
    for ``_connect_outputs`` to sort out (several outputs, ``mark_dirty``,
    ``mark_non_differentiable``, an input returned as is). The rest is the same: the ``ctx``
    is the node, ``needs_input_grad`` says which inputs need a gradient, ``next_functions``
    are the inputs' edges, and saved tensors are checked for in-place changes.

    Class attributes, each only where needed: ``node_name`` (torch's node name, when it is
    not ``<Class>Backward0``), ``saves_result`` (backward reads ``ctx.result``) and
    ``is_view`` (the output shares its input's storage and version counter).
    """

    _node_suffix = "0"
    is_view = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Speed: apply is a plain function per op class (see _apply_of), installed as the
        # Tensor method itself. Measured: ~6% fewer instructions on both the two-layer net and
        # the scalar chain than a classmethod called through a method wrapper.
        cls.apply = staticmethod(_apply_of(cls))  # type: ignore[method-assign]

    @classmethod
    def _run_backward(cls, ctx: BackwardFunction, grad_outputs: tuple) -> tuple:
        grads = cls.backward(ctx, *grad_outputs)
        return grads if isinstance(grads, tuple) else (grads,)


def _apply_of(cls: type[Op]) -> Callable[..., Tensor]:
    """``Op.apply`` for one op class: a plain function of the inputs, so that the op table can
    install it as the Tensor method itself (``Tensor.exp is Exp.apply``), with no call in
    between on the hottest path of the engine."""
    backward_cls, forward = cls._backward_cls, cls.forward
    saves_result, is_view = cls.saves_result, cls.is_view
    shared = _SHARED.get  # one object for each value: see _SHARED

    def apply(*inputs: Any, **params: Any) -> Tensor:
        # One pass over the inputs finds which need grad and their edges, as edge_to() would;
        # the node joins the graph only if some input needs a gradient.
        ctx = _new_node(backward_cls)
        recording = False
        if STATE.enabled:
            needs, nodes, numbers = [], [], []
            for value in inputs:
                if isinstance(value, Tensor) and value._requires_grad:
                    recording = True
                    needs.append(True)
                    node = value.grad_fn
                    if node is None:
                        nodes.append(accumulator(value))
                        numbers.append(0)
                    else:
                        nodes.append(node)
                        numbers.append(value._output_nr)
                else:
                    needs.append(False)
                    nodes.append(None)
                    numbers.append(0)
        if not recording:
            ctx.needs_input_grad = (False,) * len(inputs)
            out = Tensor._make(forward(ctx, *inputs, **params))
            return _mark_view(out, inputs[0]) if is_view else out
        needs, numbers = tuple(needs), tuple(numbers)
        ctx.needs_input_grad = shared(needs) or _share(needs)
        ctx._seq = next(_sequence_numbers)
        if ANOMALY.enabled:
            ctx._forward_trace = forward_trace()
        ctx._next_nodes, ctx._next_nrs = tuple(nodes), shared(numbers) or _share(numbers)
        out = Tensor._make(forward(ctx, *inputs, **params), True, ctx)
        data = out._data  # numpy hands back a scalar for a 0-d result; _make made it an array
        meta = ((data.shape, data.dtype),)
        ctx._output_meta = shared(meta) or _share(meta)
        if saves_result:
            saved = ctx._result = SavedTensor(out)
            saved._as_output(out)
        return _mark_view(out, inputs[0]) if is_view else out

    # What Jupyter's ``x.exp?`` and ``x.exp??`` (inspect.getsource) show: the op class, where
    # its forward and backward are, not this closure.
    apply.__name__ = apply.__qualname__ = cls.__name__
    apply.__module__ = cls.__module__
    apply.__doc__ = cls.__doc__ or (
        f"The built-in operation ``{cls.__name__}``: its forward and backward are the class "
        f"{cls.__module__}.{cls.__qualname__}."
    )
    apply.__wrapped__ = cls
    return apply


def _mark_view(out: Tensor, base: Tensor) -> Tensor:
    """A view shares its base's storage and version counter, and remembers its base."""
    out._vc = base._vc
    out._view_base = base._view_base if base._view_base is not None else base
    return out
