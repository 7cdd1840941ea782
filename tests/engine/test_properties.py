"""Property tests: random shapes, broadcasting pairs, dims and dtypes, each compared to torch
with ``check_op`` (forward, graph, gradients, double backward)."""

from __future__ import annotations

import numpy as np
import torch
from helpers import NoGrad, assert_same_value, check_op, raises_like_torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes
from torch_versions import CHANGES

import miniautograd as mini

FEW = settings(max_examples=30, deadline=None)
SHAPES = array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)
PAIRS = mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3)

BINARY = {
    "add": lambda t, a, b: a + b,
    "sub": lambda t, a, b: a - b,
    "mul": lambda t, a, b: a * b,
    "div": lambda t, a, b: a / (b.abs() + 0.5),
    "maximum": lambda t, a, b: t.maximum(a, b),
    "where": lambda t, a, b: t.where(a > b, a, b * 2),
    "pow": lambda t, a, b: (a.abs() + 0.5) ** b,
}


@FEW
@given(pair=PAIRS, op=st.sampled_from(sorted(BINARY)),
       dtype=st.sampled_from(["float64", "float32"]))
def test_binary_broadcasting(pair, op, dtype):
    check_op(list(pair.input_shapes), BINARY[op], dtype=dtype)


@st.composite
def reductions(draw):
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4))
    dims = draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape),
                         unique=True))
    dims = [d - len(shape) if draw(st.booleans()) else d for d in dims]  # negative dims too
    return shape, tuple(dims), draw(st.booleans())


REDUCE = {
    "sum": lambda dims, keep: lambda t, a: a.sum(dims, keepdim=keep),
    "mean": lambda dims, keep: lambda t, a: a.mean(dims, keepdim=keep),
    "var": lambda dims, keep: lambda t, a: a.var(dims, keepdim=keep),
    "std_biased": lambda dims, keep: lambda t, a: a.std(dims, unbiased=False, keepdim=keep),
    "max": lambda dims, keep: lambda t, a: a.max(dims[0], keepdim=keep),
    "min_values": lambda dims, keep: lambda t, a: a.min(dims[0], keep).values,
    "softmax": lambda dims, keep: lambda t, a: a.softmax(dims[0]),
    "log_softmax": lambda dims, keep: lambda t, a: a.log_softmax(dims[0]),
    "sum_one_dim": lambda dims, keep: lambda t, a: a.sum(dims[0], keepdim=keep),
    "logsumexp": lambda dims, keep: lambda t, a: a.logsumexp(dims, keepdim=keep),
    "norm": lambda dims, keep: lambda t, a: a.norm(dim=dims, keepdim=keep),
    "vector_norm_3": lambda dims, keep: lambda t, a: t.linalg.vector_norm(a, 3, dims, keep),
    "norm_inf": lambda dims, keep: lambda t, a: a.norm(float("inf"), dims, keep),
    "sort": lambda dims, keep: lambda t, a: a.sort(dims[0], descending=keep),
}


@FEW
@given(case=reductions(), op=st.sampled_from(sorted(REDUCE)))
@example(case=((2, 2, 2), (0, 1, 2), False), op="norm")  # 'fro' over three dims: torch raises
def test_reductions(case, op):
    """Values, graph and gradients as torch's; where torch rejects the drawn arguments,
    miniautograd raises the same class of error."""
    shape, dims, keepdim = case
    program = REDUCE[op](dims, keepdim)
    try:
        program(torch, torch.ones(shape))
    except Exception:  # noqa: BLE001 - any class: raises_like_torch compares it
        raises_like_torch(lambda t: program(t, t.ones(shape)))
        return
    check_op([shape], program)


@FEW
@given(case=reductions(), data=st.data())
def test_gather(case, data):
    """Random indices (repeats included) along a random dim, an index no larger than the input."""
    shape, dims, _ = case
    dim = dims[0]
    index_shape = tuple(data.draw(st.integers(1, n)) for n in shape)
    size = shape[dim]
    index_shape = tuple(data.draw(st.integers(1, 5)) if d in (dim, dim + len(shape)) else n
                        for d, n in enumerate(index_shape))
    seed = data.draw(st.integers(0, 2**16))
    index = np.random.default_rng(seed).integers(0, size, index_shape)
    check_op([shape, NoGrad(index)], lambda t, a, i: a.gather(dim, i))


@st.composite
def matmul_shapes(draw):
    """Two operands for ``@``: vectors, matrices, or matrices with broadcastable batch dims."""
    n, k, m = (draw(st.integers(1, 4)) for _ in range(3))
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    left_batch = [b if draw(st.booleans()) else 1 for b in batch][draw(st.integers(0, 2)):]
    right_batch = [b if draw(st.booleans()) else 1 for b in batch][draw(st.integers(0, 2)):]
    left = (k,) if draw(st.booleans()) else (*left_batch, n, k)
    right = (k,) if draw(st.booleans()) else (*right_batch, k, m)
    return left, right


@FEW
@given(shapes=matmul_shapes())
def test_matmul_shapes(shapes):
    left, right = shapes
    check_op([left, right], lambda t, a, b: a @ b)


@st.composite
def permutations(draw):
    shape = draw(array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=3))
    order = draw(st.permutations(range(len(shape))))
    return shape, tuple(order)


@FEW
@given(case=permutations())
def test_permute_reshape_roundtrip(case):
    shape, order = case
    check_op([shape], lambda t, a: (a.permute(*order) * 2).reshape(-1).exp())


@FEW
@given(shape=SHAPES, data=st.data())
def test_transpose_unsqueeze_expand(shape, data):
    ndim = len(shape)
    if ndim >= 2:
        d0, d1 = data.draw(st.integers(-ndim, ndim - 1)), data.draw(st.integers(-ndim, ndim - 1))
        check_op([shape], lambda t, a: a.transpose(d0, d1).sin())
    d = data.draw(st.integers(-ndim - 1, ndim))
    reps = data.draw(st.integers(1, 3))
    check_op([shape], lambda t, a: a.unsqueeze(d).expand(reps, *[-1] * (ndim + 1)) * 1.5)


@FEW
@given(shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4), data=st.data())
def test_slicing(shape, data):
    key = tuple(
        slice(data.draw(st.integers(0, n - 1)), data.draw(st.integers(1, n)),
              data.draw(st.integers(1, 2)))
        for n in shape
    )
    check_op([shape], lambda t, a: a[key] * 3, graph=False)
    index = data.draw(st.integers(-shape[0], shape[0] - 1))
    check_op([shape], lambda t, a: a[index].exp())


@FEW
@given(shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3), data=st.data())
def test_cat_and_stack(shape, data):
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim, ndim - 1))
    extra = list(shape)
    extra[dim] = data.draw(st.integers(1, 3))
    check_op([shape, tuple(extra)], lambda t, a, b: t.cat([a, b, a], dim) * 2)
    sdim = data.draw(st.integers(-ndim - 1, ndim))
    check_op([shape, shape], lambda t, a, b: t.stack([a, b], sdim).tanh())


# ---- dtype promotion ----------------------------------------------------------------------------

OPERANDS = st.sampled_from([
    ("tensor", "float32"), ("tensor", "float64"), ("tensor", "int64"), ("tensor", "bool"),
    ("0d", "float32"), ("0d", "float64"), ("0d", "int64"), ("0d", "bool"),
    ("number", 2.5), ("number", 3), ("number", True),
])
PROMOTING = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "sub": lambda a, b: a - b,
    "lt": lambda a, b: a < b,
    "where": None,
}


def _operand(t, kind, value):
    if kind == "number":
        return value
    dtype = getattr(t, value)
    data = [1, 2, 3] if kind == "tensor" else 2
    return t.tensor(data).to(dtype)


@settings(max_examples=40, deadline=None)
@given(left=OPERANDS, right=OPERANDS, op=st.sampled_from(sorted(PROMOTING)))
def test_dtype_promotion(left, right, op):
    if left[0] == "number" and right[0] == "number":
        return  # plain Python arithmetic

    def program(t):
        a, b = _operand(t, *left), _operand(t, *right)
        if op == "where":
            if not isinstance(a, t.Tensor):
                a, b = b, a
            return t.where(t.tensor([True, False, True]), a, b)
        return PROMOTING[op](a, b)

    try:
        expected = program(torch)
    except (RuntimeError, TypeError) as error:
        # torch 2.14 made bool subtraction's error a NotImplementedError (torch_versions.py).
        changed = CHANGES["bool_minus"].applies() and isinstance(error, NotImplementedError)
        expected_error = RuntimeError if changed else type(error)
        try:
            program(mini)
        except expected_error:
            return
        raise AssertionError(f"torch raises {type(error).__name__}: {error}") from None
    assert_same_value(program(mini), expected)


# ---- random graphs: the engine's execution order ------------------------------------------------

UNARY_STEPS = {"sin": lambda a: a.sin(), "tanh": lambda a: a.tanh(),
               "exp": lambda a: (a * 0.1).exp(), "neg": lambda a: -a, "relu": lambda a: a.relu()}
BINARY_STEPS = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "sub": lambda a, b: a - b}


@st.composite
def random_programs(draw):
    """A straight-line program over 3 leaves: each step applies an op to earlier values."""
    steps = []
    for index in range(draw(st.integers(2, 12))):
        available = 3 + index
        if draw(st.booleans()):
            steps.append((draw(st.sampled_from(sorted(UNARY_STEPS))),
                          draw(st.integers(0, available - 1))))
        else:
            pick = st.integers(0, available - 1)
            steps.append((draw(st.sampled_from(sorted(BINARY_STEPS))), draw(pick), draw(pick)))
    outputs = draw(st.lists(st.integers(3, 2 + len(steps)), min_size=1, max_size=3, unique=True))
    return steps, outputs, draw(st.booleans())


@settings(max_examples=40, deadline=None)
@given(program=random_programs())
def test_backward_order_on_random_graphs(program):
    """Every node runs in the same order as in torch (prehooks record it), gradients agree."""
    steps, outputs, several_roots = program

    def run(t):
        values = [t.tensor(v, requires_grad=True) for v in ([0.5, -1.0], [2.0, 0.3], [-0.7, 1.1])]
        for op, *args in steps:
            fn = UNARY_STEPS.get(op) or BINARY_STEPS[op]
            values.append(fn(*(values[a] for a in args)))
        roots = [values[k].sum() for k in outputs]
        order, seen, stack = [], set(), [root.grad_fn for root in roots]
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            node.register_prehook(lambda grads, n=node: order.append(n.name()))
            stack.extend(child for child, _ in node.next_functions)
        if several_roots:  # one backward call from several roots: one shared ready queue
            t.autograd.backward(roots)
        else:
            sum(roots).backward()
        return order, [v.grad for v in values[:3]]

    assert_same_value(run(mini), run(torch))
