"""The graph: operations recorded now and computed later, when a ``Session`` runs them.

Building ``matmul(x, w)`` computes nothing: it appends a node (op type, inputs, attributes) to
the default graph and works out what can be known before any data exists, the dtype and the
shape (``None`` for a size known only when data is fed). Each op's numpy kernel sits next to
the function that builds it.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from ..ops import broadcast_axes

Shape = tuple[int | None, ...]


def _sum_to_shape(grad: np.ndarray, like: np.ndarray) -> np.ndarray:
    """Sum ``grad`` over the dimensions that broadcasting added or stretched: ``like``'s shape."""
    axes = broadcast_axes(grad.shape, like.shape)
    return np.sum(grad, axis=axes, keepdims=True).reshape(like.shape) if axes else grad


def _broadcast_like(grad: np.ndarray, like: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    """Spread a reduction's gradient back over the reduced dimensions: ``like``'s shape."""
    if axis is not None and not keepdims:
        grad = np.expand_dims(grad, axis)
    return np.broadcast_to(grad, like.shape)


# What computes each op type on arrays (Session.run, tracing, constant folding).
KERNELS: dict[str, Callable[..., np.ndarray]] = {
    "Identity": lambda x: x, "Neg": np.negative, "Exp": np.exp, "Log": np.log, "Tanh": np.tanh,
    "Relu": lambda x: np.maximum(x, x.dtype.type(0)),
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "RealDiv": np.divide,
    "Pow": np.power, "Maximum": np.maximum, "Greater": np.greater, "Less": np.less,
    "GreaterEqual": np.greater_equal, "LessEqual": np.less_equal,
    "Select": np.where, "OnesLike": np.ones_like, "ZerosLike": np.zeros_like,
    "AddN": lambda *xs: functools.reduce(np.add, xs),
    "Transpose": np.transpose,
    "MatMul": lambda a, b, transpose_a, transpose_b: (a.T if transpose_a else a)
    @ (b.T if transpose_b else b),
    "Sum": lambda x, axis, keepdims: np.sum(x, axis=axis, keepdims=keepdims),
    "SumToShape": _sum_to_shape, "BroadcastTo": _broadcast_like,
}
# Ops with an effect or without a kernel: never folded, merged or computed while tracing.
STATEFUL = frozenset({"Placeholder", "VariableV2", "RandomStandardNormal", "Assign", "NoOp"})
ELEMENTWISE = frozenset({"Add", "Sub", "Mul", "RealDiv", "Pow", "Maximum", "Greater", "Less",
                         "GreaterEqual", "LessEqual"})
COMPARISONS = frozenset({"Greater", "Less", "GreaterEqual", "LessEqual"})
_BOOL_HELP = (
    "Using a static Tensor as a Python bool is not allowed: it has no value until a Session "
    "runs the graph. Choose inside the graph instead (tf.where / tf.cond), or test "
    "`t is not None` if you meant to check that it exists."
)
_TRACE_HELP = (
    "Converting a tensor to a Python {} might make the trace incorrect: its value on the "
    "example inputs is recorded as a constant, so the trace may not generalize to other inputs."
)


class TracerWarning(UserWarning):
    """A traced function used a value in Python: the trace holds it as a constant."""


class Graph:
    """Every op built while this graph is the default one, each with a unique name."""

    def __init__(self, *, tracing: bool = False) -> None:
        self.nodes: list[Tensor] = []
        self.variables: list[Variable] = []
        self.tracing = tracing  # compute each op's value as it is built (see trace)
        self._counts: Counter[str] = Counter()
        self._used: set[str] = set()
        self._scope = ""

    def unique_name(self, base: str) -> str:
        """``base`` in the current name scope, numbered (``MatMul_1``) if already taken."""
        name = self._scope + base
        while True:
            count, self._counts[name] = self._counts[name], self._counts[name] + 1
            unique = name if count == 0 else f"{name}_{count}"
            if unique not in self._used:
                self._used.add(unique)
                return unique

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        _DEFAULT.append(self)
        try:
            yield self
        finally:
            _DEFAULT.pop()

    @contextlib.contextmanager
    def name_scope(self, name: str) -> Iterator[None]:
        outer, self._scope = self._scope, f"{self._scope}{name}/"
        try:
            yield
        finally:
            self._scope = outer


_DEFAULT: list[Graph] = [Graph()]


def get_default_graph() -> Graph:
    return _DEFAULT[-1]


def reset_default_graph() -> None:
    """Start a fresh default graph (TF1 programs call this between experiments)."""
    _DEFAULT[0] = Graph()


class Tensor:
    """The output of one op: what it is made from, its dtype and its static shape."""

    def __init__(self, op: str, inputs: Iterable[Tensor], *, dtype: Any, shape: Shape,
                 attrs: dict[str, Any] | None = None, name: str | None = None,
                 value: np.ndarray | None = None) -> None:
        self.op, self.inputs, self.attrs = op, tuple(inputs), attrs or {}
        self.dtype, self.shape = np.dtype(dtype), tuple(shape)
        self.graph = get_default_graph()
        self.name = self.graph.unique_name(name or op)
        self.value = value  # a Const's value, or the example's value while tracing
        self.graph.nodes.append(self)

    def __repr__(self) -> str:
        return (f"<static.Tensor '{self.name}' op={self.op} shape={shape_text(self.shape)} "
                f"dtype={self.dtype}>")

    def __bool__(self) -> bool:
        return bool(self._concrete("bool"))

    def item(self) -> Any:
        return self._concrete("number").item()

    def __float__(self) -> float:
        return float(self._concrete("float"))

    def _concrete(self, kind: str) -> np.ndarray:
        if not self.graph.tracing or self.value is None:
            raise TypeError(_BOOL_HELP)
        warnings.warn(_TRACE_HELP.format(kind), TracerWarning, stacklevel=3)
        return self.value

    # TF's operators, and torch's method names so that traced functions run unchanged.
    def __add__(self, other: Any) -> Tensor: return add(self, other)
    def __radd__(self, other: Any) -> Tensor: return add(other, self)
    def __sub__(self, other: Any) -> Tensor: return subtract(self, other)
    def __rsub__(self, other: Any) -> Tensor: return subtract(other, self)
    def __mul__(self, other: Any) -> Tensor: return multiply(self, other)
    def __rmul__(self, other: Any) -> Tensor: return multiply(other, self)
    def __truediv__(self, other: Any) -> Tensor: return divide(self, other)
    def __rtruediv__(self, other: Any) -> Tensor: return divide(other, self)
    def __pow__(self, other: Any) -> Tensor: return pow(self, other)
    def __matmul__(self, other: Any) -> Tensor: return matmul(self, other)
    def __neg__(self) -> Tensor: return negative(self)
    def __gt__(self, other: Any) -> Tensor: return _binary("Greater", self, other)
    def __lt__(self, other: Any) -> Tensor: return _binary("Less", self, other)
    def __ge__(self, other: Any) -> Tensor: return _binary("GreaterEqual", self, other)
    def __le__(self, other: Any) -> Tensor: return _binary("LessEqual", self, other)

    def mm(self, other: Any) -> Tensor: return matmul(self, other)
    def matmul(self, other: Any) -> Tensor: return matmul(self, other)
    def maximum(self, other: Any) -> Tensor: return maximum(self, other)
    def pow(self, other: Any) -> Tensor: return pow(self, other)
    def relu(self) -> Tensor: return relu(self)
    def exp(self) -> Tensor: return exp(self)
    def log(self) -> Tensor: return log(self)
    def tanh(self) -> Tensor: return tanh(self)
    def t(self) -> Tensor: return transpose(self)

    def sum(self, dim: int | tuple[int, ...] | None = None, keepdim: bool = False) -> Tensor:
        return reduce_sum(self, dim, keepdim)


class Variable(Tensor):
    """State that outlives one ``Session.run``: read like a tensor, changed by ``assign``."""

    def __init__(self, initial_value: Any, dtype: Any = None, name: str = "Variable") -> None:
        init = convert_to_tensor(initial_value, dtype)
        super().__init__("VariableV2", (), dtype=init.dtype, shape=init.shape, name=name)
        self.initializer = assign(self, init, name=f"{self.name}/Assign")
        self.graph.variables.append(self)

    def assign(self, value: Any) -> Tensor:
        return assign(self, value)


def _make(op: str, *inputs: Tensor, dtype: Any, shape: Shape, **attrs: Any) -> Tensor:
    """Append an op; while tracing, also compute its value from its inputs' values."""
    node = Tensor(op, inputs, dtype=dtype, shape=shape, attrs=attrs)
    if node.graph.tracing and all(i.value is not None for i in inputs):
        node.value = np.asarray(KERNELS[op](*(i.value for i in inputs), **attrs))
    return node


def constant(value: Any, dtype: Any = None, name: str = "Const") -> Tensor:
    """A value fixed when the graph is built (Python floats become float32, as in TF)."""
    if hasattr(value, "detach"):  # a miniautograd or torch tensor captured by a traced function
        value = value.detach().numpy()
    array = np.asarray(value, dtype=dtype)
    if dtype is None and array.dtype == np.float64 and not isinstance(value, np.ndarray):
        array = array.astype(np.float32)
    return Tensor("Const", (), dtype=array.dtype, shape=array.shape, value=array, name=name)


def convert_to_tensor(value: Any, dtype: Any = None) -> Tensor:
    """Graph tensors pass through (their dtype checked); anything else becomes a Const."""
    if not isinstance(value, Tensor):
        return constant(value, dtype)
    if dtype is not None and np.dtype(dtype) != value.dtype:
        raise TypeError(f"expected a {np.dtype(dtype)} tensor, got {value.dtype} "
                        f"('{value.name}'); convert the data first, e.g. with .astype(np.float32)")
    return value


def placeholder(dtype: Any, shape: Iterable[int | None], name: str = "Placeholder") -> Tensor:
    """An input that each ``Session.run`` receives through ``feed_dict``."""
    return Tensor("Placeholder", (), dtype=dtype, shape=tuple(shape), name=name)


def zeros(shape: Any, dtype: Any = np.float32) -> Tensor:
    return constant(np.zeros(shape, dtype), name="zeros")


def ones(shape: Any, dtype: Any = np.float32) -> Tensor:
    return constant(np.ones(shape, dtype), name="ones")


def random_normal(shape: Iterable[int], mean: float = 0.0, stddev: float = 1.0,
                  dtype: Any = np.float32) -> Tensor:
    """Normal samples drawn anew at each run, from miniautograd's (torch's) generator."""
    return Tensor("RandomStandardNormal", (), dtype=dtype, shape=tuple(shape),
                  attrs={"mean": mean, "stddev": stddev}, name="random_normal")


def shape_text(shape: tuple) -> str:
    """A shape as Python prints the tuple, None for unknown sizes: ``(None, 1000)``."""
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def compatible(static: Shape, shape: Shape) -> bool:
    """Whether a concrete (or static) ``shape`` fits ``static``, where None matches any size."""
    return len(static) == len(shape) and all(
        s is None or n is None or s == n for s, n in zip(static, shape, strict=True))


def assign(ref: Variable, value: Any, name: str = "Assign") -> Tensor:
    """An op that, when run, stores ``value`` in the variable ``ref`` and outputs it."""
    value = convert_to_tensor(value, ref.dtype)
    if not compatible(ref.shape, value.shape):
        raise ValueError(f"Shapes {ref.shape} and {value.shape} are incompatible ({name})")
    return Tensor("Assign", (value,), dtype=ref.dtype, shape=ref.shape, attrs={"ref": ref},
                  name=name)


def group(*inputs: Tensor, name: str = "NoOp") -> Tensor:
    """An op that only makes ``inputs`` run (its own output is None)."""
    return Tensor("NoOp", inputs, dtype=np.float32, shape=(), name=name)


def _broadcast(a: Shape, b: Shape, op: str) -> Shape:
    """numpy's broadcasting on static shapes; ``None`` stays unknown unless the other is known."""
    out = []
    for x, y in itertools.zip_longest(reversed(a), reversed(b), fillvalue=1):
        if x != y and None not in (x, y) and 1 not in (x, y):
            raise ValueError(f"Dimensions must be equal, but are {x} and {y} for '{op}' with "
                             f"input shapes: {list(a)}, {list(b)}.")
        out.append(y if x == 1 or (x is None and y != 1) else x)
    return tuple(reversed(out))


def _binary(op: str, a: Any, b: Any) -> Tensor:
    """An elementwise op of two values; a Python number takes the other operand's dtype."""
    hint = next((v.dtype for v in (a, b) if isinstance(v, Tensor)), None)
    a, b = (v if isinstance(v, Tensor) else constant(v, hint) for v in (a, b))
    if a.dtype != b.dtype:
        raise TypeError(f"Input 'y' of '{op}' Op has type {b.dtype} that does not match type "
                        f"{a.dtype} of argument 'x'. Give both the same dtype (e.g. feed and "
                        "initialise with np.float32 data).")
    dtype = np.bool_ if op in COMPARISONS else a.dtype
    return _make(op, a, b, dtype=dtype, shape=_broadcast(a.shape, b.shape, op))


def _unary(op: str, x: Any) -> Tensor:
    x = convert_to_tensor(x)
    return _make(op, x, dtype=x.dtype, shape=x.shape)


def add(a: Any, b: Any) -> Tensor: return _binary("Add", a, b)
def subtract(a: Any, b: Any) -> Tensor: return _binary("Sub", a, b)
def multiply(a: Any, b: Any) -> Tensor: return _binary("Mul", a, b)
def divide(a: Any, b: Any) -> Tensor: return _binary("RealDiv", a, b)
def pow(a: Any, b: Any) -> Tensor: return _binary("Pow", a, b)  # noqa: A001 - tf.pow
def maximum(a: Any, b: Any) -> Tensor: return _binary("Maximum", a, b)
def greater_equal(a: Any, b: Any) -> Tensor: return _binary("GreaterEqual", a, b)
def negative(x: Any) -> Tensor: return _unary("Neg", x)
def exp(x: Any) -> Tensor: return _unary("Exp", x)
def log(x: Any) -> Tensor: return _unary("Log", x)
def tanh(x: Any) -> Tensor: return _unary("Tanh", x)
def relu(x: Any) -> Tensor: return _unary("Relu", x)
def identity(x: Any) -> Tensor: return _unary("Identity", x)
def ones_like(x: Tensor) -> Tensor: return _unary("OnesLike", x)
def zeros_like(x: Tensor) -> Tensor: return _unary("ZerosLike", x)


def where(condition: Tensor, a: Any, b: Any) -> Tensor:
    """Elements of ``a`` where ``condition`` holds, else of ``b`` (op type Select)."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    shape = _broadcast(condition.shape, _broadcast(a.shape, b.shape, "Select"), "Select")
    return _make("Select", condition, a, b, dtype=a.dtype, shape=shape)


def transpose(x: Any) -> Tensor:
    x = convert_to_tensor(x)
    return _make("Transpose", x, dtype=x.dtype, shape=x.shape[::-1])


def add_n(inputs: list[Tensor]) -> Tensor:
    return _make("AddN", *inputs, dtype=inputs[0].dtype, shape=inputs[0].shape)


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False) -> Tensor:
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.dtype != b.dtype:
        raise TypeError(f"MatMul of {a.dtype} and {b.dtype}: give both the same dtype")
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise ValueError(f"matmul takes two matrices, got shapes {list(a.shape)} and "
                         f"{list(b.shape)}")
    (m, k), (k2, n) = a.shape[:: -1 if transpose_a else 1], b.shape[:: -1 if transpose_b else 1]
    if None not in (k, k2) and k != k2:
        raise ValueError(f"Dimensions must be equal, but are {k} and {k2} for 'MatMul' with "
                         f"input shapes: {list(a.shape)}, {list(b.shape)}.")
    return _make("MatMul", a, b, dtype=a.dtype, shape=(m, n), transpose_a=transpose_a,
                 transpose_b=transpose_b)


def reduce_sum(x: Any, axis: int | tuple[int, ...] | None = None,
               keepdims: bool = False) -> Tensor:
    x = convert_to_tensor(x)
    axes = range(len(x.shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
    axes = {a % len(x.shape) for a in axes}
    shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape) if keepdims or i not in axes)
    return _make("Sum", x, dtype=x.dtype, shape=shape, axis=axis, keepdims=keepdims)


def sum_to_shape(grad: Tensor, like: Tensor) -> Tensor:
    """``grad`` summed down to ``like``'s shape at run time (undoes broadcasting)."""
    return _make("SumToShape", grad, like, dtype=grad.dtype, shape=like.shape)


def broadcast_like(grad: Tensor, like: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
    """A reduction's gradient spread back to ``like``'s shape at run time."""
    return _make("BroadcastTo", grad, like, dtype=grad.dtype, shape=like.shape, axis=axis,
                 keepdims=keepdims)


def flatten(fetches: Any) -> list[Tensor]:
    """The tensors in ``fetches``: a tensor, or nested lists and tuples of them."""
    if isinstance(fetches, (list, tuple)):
        return [t for f in fetches for t in flatten(f)]
    if not isinstance(fetches, Tensor):
        raise TypeError(f"Fetch argument {fetches!r} has invalid type {type(fetches).__name__}: "
                        "fetch graph tensors (or lists/tuples of them)")
    return [fetches]


def rebuild(fetches: Any, values: dict[Tensor, Any]) -> Any:
    """``fetches`` with each tensor replaced by its entry in ``values``."""
    if isinstance(fetches, (list, tuple)):
        return type(fetches)(rebuild(f, values) for f in fetches)
    return values[fetches]


def topological_order(fetches: Any) -> list[Tensor]:
    """The fetched tensors and all they depend on, each after its inputs (what a run computes)."""
    order: list[Tensor] = []
    done: set[Tensor] = set()
    for root in flatten(fetches):
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if node in done:
                continue
            if expanded:
                done.add(node)
                order.append(node)
            else:
                stack.append((node, True))
                stack.extend((i, False) for i in reversed(node.inputs) if i not in done)
    return order
