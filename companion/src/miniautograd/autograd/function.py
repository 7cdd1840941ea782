"""``Function``: an operation with a forward and a backward written side by side.

Every built-in operation of miniautograd is an ``Op`` (a ``Function`` whose forward computes on
arrays); user code subclasses ``Function`` exactly as in torch. Calling ``apply`` runs
forward and, when some input requires grad, creates the backward node: the ``ctx`` object
passed to forward *is* that node (``output.grad_fn``), as in torch.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor
from .grad_mode import STATE, no_grad
from .graph import Node, _sequence_numbers

_new_node = object.__new__  # built-in nodes need no __init__ beyond their sequence number

_INPLACE_HINT = (
    "Hint: the tensor was changed in place (by an operation ending in '_', `+=`, `-=`, an "
    "index assignment, or a write through a `.detach()`ed view) after autograd saved it for "
    "backward. Change "
    "a copy instead (`t = t.clone()` before the in-place op), or use the out-of-place operation."
)
_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)


def edge_to(value: Any) -> tuple[Node | None, int]:
    """The graph edge that gradient for ``value`` must travel along."""
    if not isinstance(value, Tensor) or not value._requires_grad:
        return (None, 0)
    if value.grad_fn is not None:
        return (value.grad_fn, value._output_nr)
    return (value._get_accumulator(), 0)


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved.

    An output saved by its own node is kept without its ``grad_fn`` (and rebuilt on unpack),
    so that node and output do not keep each other alive in a reference cycle.
    """

    __slots__ = ("data", "requires_grad", "tensor", "vc", "version")

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor
        self.vc = tensor._vc
        self.version = tensor._vc[0]

    def _as_output(self) -> None:
        self.data, self.requires_grad = self.tensor._data, self.tensor._requires_grad
        self.tensor = None

    def unpack(self, node: Node) -> Tensor:
        if self.vc[0] != self.version:
            tensor = self.tensor
            kind = f", which is output 0 of {_op_name(node)}" if tensor is None \
                else _describe_origin(tensor)
            shape = list(self.data.shape if tensor is None else tensor.shape)
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{_type_name(self.data if tensor is None else tensor._data)} "
                f"{shape}]{kind}, is at version {self.vc[0]}; expected version {self.version} "
                f"instead. {_INPLACE_HINT}"
            )
        if self.tensor is not None:
            return self.tensor
        return Tensor._make(self.data, self.requires_grad, node, vc=self.vc)


def _op_name(node: Node) -> str:
    """``ExpBackward0`` -> ``Exp``: torch's error messages name the forward operation."""
    return re.sub(r"Backward\d*$", "", node.name())


def _describe_origin(tensor: Tensor) -> str:
    if tensor.grad_fn is None:
        return ""
    return f", which is output {tensor._output_nr} of {_op_name(tensor.grad_fn)}"


def _type_name(array: Any) -> str:
    names = {"float32": "FloatTensor", "float64": "DoubleTensor", "int64": "LongTensor"}
    return "torch." + names.get(str(array.dtype), f"{array.dtype}Tensor")


class BackwardFunction(Node):
    """The backward node of a ``Function``; it is also the ``ctx`` that forward receives."""

    _forward_cls: type[Function]
    _names_saved: tuple[str, ...] = ()
    _packed: tuple[SavedTensor | None, ...] | None = ()
    _result: SavedTensor | None = None
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
        self._packed = tuple(None if t is None else SavedTensor(t) for t in tensors)

    def _save(self, *tensors: Tensor | None) -> None:
        """save_for_backward without argument checks, for built-in ops."""
        self._packed = tuple([None if t is None else SavedTensor(t) for t in tensors])

    def mark_dirty(self, *tensors: Tensor) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value

    # ---- what backward may read ------------------------------------------------------------
    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        if self._packed is None:
            raise RuntimeError(_FREED)
        return tuple(None if s is None else s.unpack(self) for s in self._packed)

    @property
    def saved_variables(self) -> tuple[Tensor | None, ...]:
        warnings.warn(
            "'saved_variables' is deprecated; use 'saved_tensors'. (It is the pre-0.4 name, "
            "from when tensors had to be wrapped in Variable.)",
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
        names = [f"_saved_{n}" for n in type(self)._names_saved]
        if type(self)._forward_cls._saves_result:
            names.append("_saved_result")
        return sorted(set(super().__dir__()) | set(names))

    def __getattr__(self, name: str) -> Any:
        # torch exposes saved values as `_saved_self`, `_saved_other`, `_saved_result`, ...
        key = name[7:] if name.startswith("_saved_") else None
        if key == "result" and type(self)._forward_cls._saves_result:
            return self.result
        if key in type(self)._names_saved:
            value = self.saved_tensors[type(self)._names_saved.index(key)]
            if value is None and key == "other" and "number" in self.__dict__:
                # A Python number operand: torch saves it as a 0-d tensor (float64 or int64).
                return Tensor._make(np.asarray(self.__dict__["number"]))
            return value
        if key and key in self.__dict__:
            return self.__dict__[key]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _release(self) -> None:
        if self._packed:
            self._packed = None
        self._result = None

    def apply(self, *grad_outputs: Any) -> tuple:
        return self._forward_cls._run_backward(self, grad_outputs)


class _NoContext:
    """The ctx handed to a built-in forward when no graph is recorded: it remembers nothing."""

    __slots__ = ()
    needs_input_grad = (False,) * 8

    def save_for_backward(self, *tensors: Any) -> None:
        pass

    _save = save_for_backward

    def __setattr__(self, name: str, value: Any) -> None:
        pass


NO_CTX = _NoContext()


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``.

    Call it with ``MyFunction.apply(*args)``; ``backward`` returns one gradient (or None) per
    argument of ``forward``.
    """

    _backward_cls: type[BackwardFunction]
    _node_name: str | None = None
    _saves_result = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("_node_name") or f"{cls.__name__}Backward"
        saved = getattr(cls, "_names_saved", ())
        body = {"_forward_cls": cls, "_names_saved": saved, "__module__": cls.__module__}
        qualified = cls.__dict__.get("_node_qualname")
        if qualified:  # nodes torch implements in C++ report a namespaced name()
            body["name"] = lambda self: qualified
        cls._backward_cls = type(name, (BackwardFunction,), body)

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
        needs = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
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
        if ctx.materialize_grads:
            grad_outputs = tuple(
                Tensor._make(np.zeros(shape, dtype)) if g is None else g
                for g, (shape, dtype) in zip(grad_outputs, ctx._output_meta, strict=True)
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
        for position, (shape, _) in zip(ctx._input_positions, ctx._input_meta, strict=True):
            grad = grads[position]
            if grad is not None and not ctx.needs_input_grad[position]:
                grad = None
            if grad is not None:
                if not isinstance(grad, Tensor):
                    raise TypeError(
                        f"function {ctx.name()} returned a gradient of type "
                        f"{type(grad).__name__} at index {position}; return a Tensor or None."
                    )
                grad = _reduce_to_shape(ctx, grad, shape, position)
            checked.append(grad)
        return tuple(checked)


def _reduce_to_shape(ctx: BackwardFunction, grad: Tensor, shape: tuple, position: int) -> Tensor:
    if grad.shape == shape:
        return grad
    try:
        np.broadcast_shapes(tuple(shape), tuple(grad.shape))
        if np.broadcast_shapes(tuple(shape), tuple(grad.shape)) != tuple(grad.shape):
            raise ValueError
    except ValueError:
        raise RuntimeError(
            f"Function {ctx.name()} returned an invalid gradient at index {position} - got "
            f"{list(grad.shape)} but expected shape compatible with {list(shape)}"
        ) from None
    return grad.sum_to_size(shape)


def _connect_outputs(ctx: BackwardFunction, args: tuple, result: Any) -> Any:
    """Make the forward's outputs children of ``ctx`` in the graph."""
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    ctx._input_positions = positions
    ctx._input_meta = [(args[i]._data.shape, args[i]._data.dtype) for i in positions]
    ctx.next_functions = tuple(edge_to(args[i]) for i in positions)
    outputs = result if isinstance(result, tuple) else (result,)
    dirty = {id(t) for t in getattr(ctx, "_dirty", ())}
    non_diff = {id(t) for t in getattr(ctx, "_non_differentiable", ())}
    input_ids = {id(args[i]) for i in positions}
    connected, meta = [], []
    for index, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            connected.append(out)
            continue
        if id(out) in dirty:
            if out.grad_fn is None and out._requires_grad:
                raise RuntimeError(
                    "a leaf Variable that requires grad is being used in an in-place operation."
                )
            out._vc[0] += 1  # torch counts marking dirty as a modification of its own
        elif id(out) in input_ids:
            out = out._alias()  # an input returned as is becomes a new tensor, as in torch
        meta.append((out.shape, out._data.dtype))
        if id(out) in non_diff or not out.dtype.is_floating_point:
            out._requires_grad = False
        else:
            out._requires_grad, out.grad_fn, out._output_nr = True, ctx, index
        connected.append(out)
    ctx._num_outputs = len(outputs)
    ctx._output_meta = meta
    if ctx._packed:
        output_ids = {id(t) for t in connected if isinstance(t, Tensor)}
        for saved in ctx._packed:
            if saved is not None and id(saved.tensor) in output_ids:
                saved._as_output()
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
    _node_name = "Error"
    _node_qualname = "torch::autograd::Error"

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


def _mark_view(out: Tensor, base: Tensor) -> Tensor:
    """A view shares its base's storage and version counter, and remembers its base."""
    out._vc = base._vc
    out._view_base = base._view_base if base._view_base is not None else base
    return out


class Op(Function):
    """A built-in operation: forward computes on arrays, backward on (differentiable) Tensors.

    Inputs are tensors or Python numbers (both get an edge in ``next_functions``, as torch
    gives a wrapped number one); parameters such as ``dim`` are keyword arguments.
    """

    _is_view = False  # views share their input's storage, so they share its version counter

    @classmethod
    def apply(cls, *inputs: Any, **params: Any) -> Tensor:
        # The hot path of the whole engine: one pass over the inputs finds which need grad
        # and their edges; the node is only created when some input needs grad.
        if STATE.enabled:
            needs, nodes, nrs, tracked = [], [], [], False
            for value in inputs:
                if isinstance(value, Tensor) and value._requires_grad:
                    tracked = True
                    needs.append(True)
                    node = value.grad_fn
                    if node is None:
                        nodes.append(value._get_accumulator())
                        nrs.append(0)
                    else:
                        nodes.append(node)
                        nrs.append(value._output_nr)
                else:
                    needs.append(False)
                    nodes.append(None)
                    nrs.append(0)
            if tracked:
                ctx = _new_node(cls._backward_cls)
                ctx._seq = next(_sequence_numbers)
                ctx.needs_input_grad = tuple(needs)
                ctx._next_nodes = tuple(nodes)
                ctx._next_nrs = tuple(nrs)
                out = Tensor._make(cls.forward(ctx, *inputs, **params), True, ctx)
                if cls._saves_result:
                    saved = ctx._result = SavedTensor(out)
                    saved._as_output()
                return _mark_view(out, inputs[0]) if cls._is_view else out
        out = Tensor._make(cls.forward(NO_CTX, *inputs, **params))
        return _mark_view(out, inputs[0]) if cls._is_view else out

    @classmethod
    def _run_backward(cls, ctx: BackwardFunction, grad_outputs: tuple) -> tuple:
        grads = cls.backward(ctx, *grad_outputs)
        return grads if isinstance(grads, tuple) else (grads,)
