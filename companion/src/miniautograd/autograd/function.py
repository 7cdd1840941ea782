"""``Function``: an operation with a forward and a backward written side by side.

Read this file first; it is the counterpart of ``torch/autograd/function.py``. User code
subclasses ``Function`` exactly as in torch; every built-in operation of miniautograd is an
``Op`` (``ops/op.py``), a ``Function`` whose forward computes on arrays. Both record the graph
the same way, in two steps around forward: ``collect_next_edges`` (which inputs need a
gradient, and the edge each input's gradient travels along) and ``set_history`` (the outputs
become the node's). The ``ctx`` object passed to forward *is* that node (``output.grad_fn``),
as in torch. The engine (``engine.py``) later calls the node's backward with the gradient of
each output, and sends the gradient of each input along ``next_functions``. The node's class,
with what forward saves on it and what backward reads, is in ``backward_function.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from .backward_function import BackwardFunction, SavedTensor, edge_to
from .grad_mode import STATE, no_grad


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``.

    Call it with ``MyFunction.apply(*args)``; ``backward`` returns one gradient (or None) per
    argument of ``forward``. Its node is named ``<ClassName>Backward``.
    """

    _backward_cls: type[BackwardFunction]
    _node_base: type[BackwardFunction] = BackwardFunction  # what the node class derives from
    _node_suffix = ""  # built-in ops: "0", as torch numbers its built-in nodes
    # The name of this class's node: set where torch's is not <Class>Backward0 (a built-in op),
    # and resolved for every class when it is defined, so that a subclass reads its own.
    node_name: str | None = None
    saves_result = False  # built-in ops whose backward reads ``ctx.result``
    is_view = False  # every output shares the first input's storage and version counter

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward{cls._node_suffix}"
        cls.node_name = name
        namespace, _, short = name.rpartition("::")
        # The node class is made here, not written out: ``__wrapped__`` (which
        # inspect.getsource and Jupyter's ``??`` follow) leads to the source of the class
        # whose backward it runs (``cls``, or the base it inherits backward from), where
        # forward and backward stand side by side.
        source = next((c for c in cls.__mro__ if "backward" in c.__dict__), Function)
        shown = cls if source is Function else source
        body: dict[str, Any] = {"_forward_cls": cls, "__module__": shown.__module__,
                                "__qualname__": short, "__wrapped__": shown}
        if "__firstlineno__" in shown.__dict__:  # Python 3.13's inspect reads it, not __wrapped__
            body["__firstlineno__"] = shown.__firstlineno__
        if namespace:  # nodes torch implements in C++ report a namespaced name()
            body["name"] = lambda self: name
        cls._backward_cls = type(short, (cls._node_base,), body)

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
        ctx = cls._backward_cls()
        tracked = collect_next_edges(ctx, args)
        if not tracked:
            ctx._unrecorded(args)
        with no_grad():  # forward's own tensor operations are not recorded
            if cls.setup_context is not Function.setup_context:
                result = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, result)
            else:
                result = cls.forward(ctx, *args, **kwargs)
        result = set_history(ctx, args, result, tracked)
        if cls.is_view:
            mark_views(result if isinstance(result, tuple) else (result,), args[0])
        return result


# ---- recording: the same two steps for every operation, a Function or a built-in op ---------


def collect_next_edges(ctx: BackwardFunction, inputs: tuple, every_input: bool = False) -> bool:
    """Before forward: which inputs need a gradient (``ctx.needs_input_grad``, which forward
    may read) and the edge each input's gradient will travel along (``edge_to``). Returns
    whether the operation is recorded: grad mode is on and some input requires grad.

    A Function has an edge per tensor argument; a built-in op (``every_input``) one per
    input, since torch treats a Python number there as a (wrapped-number) tensor."""
    needs = tuple([isinstance(a, Tensor) and a._requires_grad for a in inputs])
    if not (STATE.enabled and True in needs):
        ctx.needs_input_grad = (False,) * len(inputs)
        return False
    ctx.needs_input_grad = needs
    positions = tuple(i for i, a in enumerate(inputs) if every_input or isinstance(a, Tensor))
    ctx._input_positions = positions
    ctx.next_functions = tuple(edge_to(inputs[i]) for i in positions)
    return True


def set_history(ctx: BackwardFunction, inputs: tuple, result: Any,
                recorded: bool = True) -> Any:
    """After forward: make its outputs the outputs of ``ctx`` in the graph (``grad_fn`` and
    ``output_nr``), note each one's shape and dtype (the engine checks the gradients that
    arrive against them), and unhook saved outputs from the node (``SavedTensor._as_output``).
    The output rules of a Function hold whether or not the operation is ``recorded``: an
    output marked dirty counts one more write on its version counter, and an input returned
    as it is comes back as a new tensor (a dirty one only when it requires grad and nothing
    records); when recorded, outputs marked non-differentiable and outputs that cannot
    require grad (integers, bools) get no ``grad_fn``."""
    outputs = result if isinstance(result, tuple) else (result,)
    dirty = {id(t) for t in ctx._dirty}
    non_diff = {id(t) for t in ctx._non_differentiable}
    input_ids = {id(a) for a in inputs if isinstance(a, Tensor)}
    connected, meta = [], []
    for index, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            connected.append(out)
            meta.append(None)
            continue
        differentiable = id(out) not in non_diff and out._data.dtype.kind == "f"
        if id(out) in dirty:
            if recorded and out.grad_fn is None and out._requires_grad:
                raise RuntimeError(
                    "a leaf Variable that requires grad is being used in an in-place operation."
                )
            out._vc[0] += 1  # torch counts marking dirty as a modification of its own
        if id(out) in input_ids and (id(out) not in dirty or (not recorded and out._requires_grad)):
            out = out._alias()  # an input returned as is: a new tensor, as in torch
            out._requires_grad, out.grad_fn = False, None
        connected.append(out)
        if not recorded:
            continue
        meta.append((out._data.shape, out._data.dtype))
        if differentiable:
            out._requires_grad, out.grad_fn, out._output_nr = True, ctx, index
        else:
            out._requires_grad = False
    if not recorded:
        return tuple(connected) if isinstance(result, tuple) else connected[0]
    ctx._num_outputs = len(outputs)
    ctx._output_meta = tuple(meta)
    tensors = [t for t in connected if isinstance(t, Tensor)]
    if type(ctx)._forward_cls.saves_result:
        ctx._result = SavedTensor(tensors[0])
    for saved in (*(ctx._packed or {}).values(), ctx._result):
        if type(saved) is SavedTensor:
            output = next((t for t in tensors if saved.saves(t)), None)
            if output is not None:
                saved._as_output(output)
    return tuple(connected) if isinstance(result, tuple) else connected[0]


def mark_views(outputs: tuple, base: Tensor) -> None:
    """Each output shares its base's storage and version counter, and remembers the base."""
    for out in outputs:
        out._vc = base._vc
        out._view_base = base._view_base if base._view_base is not None else base


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
