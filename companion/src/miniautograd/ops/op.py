"""``Op``: a built-in operation, a ``Function`` whose forward computes on arrays.

Every op class (``ops/arithmetic.py`` and the other op files) derives from ``Op``. It records
the graph as a ``Function`` does (``autograd/function.py``: ``collect_next_edges``, forward,
``set_history``); ``Op.record`` is that path, written out. What each op class installs as its
``apply`` (and the op table as its Tensor method) is ``fast_apply``: the same steps inlined,
the engine's hottest code. ``tests/engine/test_fast_paths.py`` runs the whole op table both
ways and checks that they build the same graph and give the same results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..autograd.anomaly_mode import STATE as ANOMALY
from ..autograd.anomaly_mode import forward_trace
from ..autograd.backward_function import (
    BackwardFunction,
    SavedTensor,
    accumulator,
    type_name,
)
from ..autograd.function import Function, collect_next_edges, mark_views, set_history
from ..autograd.grad_mode import STATE
from ..autograd.graph import next_sequence_nr


class OpNode(BackwardFunction):
    """The node of a built-in op: backward returns one gradient per input (checked, so that an
    op written wrong is named where it fails)."""

    _runs_without_gradients = False  # a formula needs a gradient: no gradient, no call

    def apply(self, *grad_outputs: Any) -> tuple:
        grads = self._forward_cls.backward(self, *grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
        if len(grads) != len(self.needs_input_grad):
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{len(self.needs_input_grad)}, got {len(grads)}): "
                f"{_where_defined(self._forward_cls)}.backward must return one gradient (a "
                "Tensor, or None) for each input of forward, numbers included, in order."
            )
        for index, grad in enumerate(grads):
            if grad is not None and not isinstance(grad, Tensor):
                raise RuntimeError(
                    f"expected Variable or None (got {type_name(grad)}): function "
                    f"{self.name()} returned it at index {index}. "
                    f"{_where_defined(self._forward_cls)}.backward must return Tensors (or "
                    "None): compute with the tensors it is given, or wrap an array with "
                    "Tensor._make(array)."
                )
        return grads


def _where_defined(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class Op(Function):
    """A built-in operation: forward computes on arrays, backward on (differentiable) Tensors.

    Inputs are tensors or Python numbers (both get an edge in ``next_functions``, as torch
    gives a wrapped number one); parameters such as ``dim`` are keyword arguments. Backward
    returns the bare local derivative for each input: the engine sums away broadcasting and
    casts to the input's dtype (``engine.fit_gradient``, like torch's validate_outputs).

    The one difference from a ``Function``: forward takes arrays out of its inputs and returns
    one array, which ``apply`` wraps into the output tensor. Arrays record nothing, so forward
    needs no ``no_grad()``. The rest is the same: the ``ctx`` is the node, ``needs_input_grad``
    says which inputs need a gradient, ``next_functions`` are the inputs' edges, and saved
    tensors are checked for in-place changes.

    Class attributes, each only where needed: ``node_name`` (torch's node name, when it is
    not ``<Class>Backward0``), ``saves_result`` (backward reads ``ctx.result``) and
    ``is_view`` (the output shares its input's storage and version counter).
    """

    _node_base = OpNode
    _node_suffix = "0"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        for name in ("forward", "backward"):  # an op written wrong fails where it is written
            method = cls.__dict__.get(name)
            if method is not None and not isinstance(method, (staticmethod, classmethod)):
                raise TypeError(
                    f"{cls.__module__}.{cls.__qualname__}.{name} must be a @staticmethod: "
                    f"it is called as {name}(ctx, ...), with the node as ctx, never on an "
                    "instance of the op."
                )
        super().__init_subclass__(**kwargs)
        # Speed: apply is a plain function per op class (see fast_apply), installed as the
        # Tensor method itself. Measured: ~6% fewer instructions on both the two-layer net and
        # the scalar chain than a classmethod called through a method wrapper.
        cls.apply = staticmethod(fast_apply(cls))  # type: ignore[method-assign]

    @classmethod
    def record(cls, *inputs: Any, **params: Any) -> Tensor:
        """The op run and recorded as every operation is: what ``fast_apply`` does faster."""
        ctx = cls._backward_cls()
        tracked = collect_next_edges(ctx, inputs, every_input=True)
        out = set_history(ctx, inputs, Tensor._make(cls.forward(ctx, *inputs, **params)), tracked)
        if cls.is_view:
            mark_views((out,), inputs[0])
        return out


# Speed: one tuple object for each value a node keeps (``(True, False)``, ``(0, 0)``, a shape
# and dtype). Sharing them leaves Python's garbage collector far fewer objects to look through
# while a graph grows: measured, the 100,000-deep chain runs ~20% faster. Bounded, so that a
# program with ever new shapes does not grow it without end. The flags (``needs_input_grad``)
# have a dict of their own: ``(False, True) == (0, 1)`` with the same hash, so one dict would
# hand a node's edges another node's flags, printed ``(node, False)`` where torch prints 0.
_SHARED: dict[tuple, tuple] = {}
_SHARED_FLAGS: dict[tuple, tuple] = {}
_SHARED_LIMIT = 2**16


def _share(cache: dict[tuple, tuple], value: tuple) -> tuple:
    """``value`` from now on shared in ``cache`` (see ``_SHARED``); called the first time it
    is seen there."""
    if len(cache) >= _SHARED_LIMIT:
        cache.clear()
    cache[value] = value
    return value


def fast_apply(cls: type[Op]) -> Callable[..., Tensor]:
    """``Op.record`` for one op class, inlined: a plain function of the inputs, so that the op
    table can install it as the Tensor method itself (``Tensor.exp is Exp.apply``), with no
    call in between on the hottest path of the engine. Measured against ``record``, it halves
    the time of the 100,000-deep scalar chain (README, "Speed tricks"). It builds the node
    without ``Node.__init__`` and gives it a sequence number only when it is recorded, finds
    the edges in the same pass that finds ``needs_input_grad``, and skips ``set_history``'s
    rules for several outputs and inputs returned as they are, which one new array never
    needs, and its rule that an integer or bool output cannot require grad (a built-in op
    that records returns a floating array)."""
    backward_cls, forward = cls._backward_cls, cls.forward
    saves_result, is_view = cls.saves_result, cls.is_view
    new_node = object.__new__  # the node, without Node.__init__'s sequence number

    def apply(*inputs: Any, **params: Any) -> Tensor:
        # One pass over the inputs finds which need grad and their edges, as edge_to() would;
        # the node joins the graph only if some input needs a gradient.
        ctx = new_node(backward_cls)
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
            if is_view:
                mark_views((out,), inputs[0])
            return out
        needs, numbers = tuple(needs), tuple(numbers)
        # One object for each value (see _SHARED): the module's dicts, read when the op runs
        # (not a method of one kept here), so that a dict put in its place is the one used.
        ctx.needs_input_grad = _SHARED_FLAGS.get(needs) or _share(_SHARED_FLAGS, needs)
        ctx._seq = next_sequence_nr()
        if ANOMALY.enabled:
            ctx._forward_trace = forward_trace()
        ctx._next_nodes = tuple(nodes)
        ctx._next_nrs = _SHARED.get(numbers) or _share(_SHARED, numbers)
        out = Tensor._make(forward(ctx, *inputs, **params), True, ctx)
        data = out._data  # numpy hands back a scalar for a 0-d result; _make made it an array
        meta = ((data.shape, data.dtype),)
        ctx._output_meta = _SHARED.get(meta) or _share(_SHARED, meta)
        if saves_result:
            saved = ctx._result = SavedTensor(out)
            saved._as_output(out)
        if is_view:
            mark_views((out,), inputs[0])
        return out

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
