"""Each speed trick of the engine beside its readable path: both give torch's results.

- ``w -= u`` under no_grad (the update of a training step) computes into ``w``'s storage when
  ``u`` is a tensor of ``w``'s shape and dtype (``ops/inplace._update``); anything else goes
  through the general in-place path (``in_place``: the op, then its result written back).
- A gradient that already fits its input is passed on as it is; one that does not is summed
  back over broadcast dimensions or cast (``engine.fit_gradient``).
- A built-in op is recorded by ``fast_apply``, an inlined ``Op.record``: over every row of the
  op table, both build the same graph (node names, ``needs_input_grad``, saved names, edges,
  output shapes, the order of sequence numbers) and give the same values and gradients.
- Without a graph to record, some backward formulas (``ops/_util.on_arrays``), ``sum_to_size``,
  ``Categorical``'s logits and probs and ``nn.Linear`` on a matrix compute on the arrays: each
  gives, bit for bit, what its tensor operations give (with ``create_graph=True``, or with
  grad mode on).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager

import numpy as np
import pytest
from helpers import make_arrays, make_input, same_on_both
from test_ops import OPS

import miniautograd as mini
from miniautograd import ops
from miniautograd.ops import inplace
from miniautograd.ops.op import Op, OpNode
from miniautograd.optim import adam

UPDATES = {
    "same shape and dtype (fast)": lambda t, w: t.full((2, 3), 0.25, dtype=w.dtype),
    "broadcast (general)": lambda t, w: t.full((3,), 0.25, dtype=w.dtype),
    "python number (general)": lambda t, w: 0.25,
    "other dtype (general)": lambda t, w: t.full((2, 3), 0.25, dtype=t.float64),
}


@pytest.mark.parametrize("operator", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("update", UPDATES.values(), ids=UPDATES.keys())
def test_update_under_no_grad_fast_and_general_agree(operator, update):
    def program(t):
        w = t.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
        view = w.detach()[0]
        with t.no_grad():
            getattr(w, operator + "_")(update(t, w))
        return w, view, w._version, w.grad_fn, w.requires_grad

    same_on_both(program)


def test_update_fast_path_is_the_one_taken_for_a_training_step():
    w = mini.ones(2, 3, requires_grad=True)
    u = mini.full((2, 3), 0.5)
    with mini.no_grad():
        assert inplace._update(w, np.subtract, (u,))
        assert not inplace._update(w, np.subtract, (mini.full((3,), 0.5),))
        assert not inplace._update(w, np.subtract, (0.5,))
    assert not inplace._update(w, np.subtract, (u,))  # recorded: the general path runs
    assert w.tolist() == [[0.5] * 3] * 2


def test_in_place_update_of_a_non_leaf_is_recorded_not_fast():
    def program(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y -= t.tensor([1.0, 1.0, 1.0])
        y.sum().backward()
        return y, y.grad_fn.name(), x.grad

    same_on_both(program)


@pytest.mark.parametrize("shapes", [((3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3))],
                         ids=["row", "outer", "scalar"])
def test_broadcast_gradients_are_summed_back_by_the_engine(shapes):
    def program(t):
        a = t.ones(shapes[0], dtype=t.float64, requires_grad=True)
        b = t.full(shapes[1], 2.0, dtype=t.float32, requires_grad=True)
        (a * b + b).sum().backward()
        return a.grad, b.grad

    same_on_both(program)


# ---- an op recorded by its fast path (fast_apply) and by the readable one (Op.record) -------


def _op_classes() -> list[type]:
    classes, stack = [], [Op]
    while stack:
        for sub in stack.pop().__subclasses__():
            classes.append(sub)
            stack.append(sub)
    return classes


@contextmanager
def readable_path():
    """Every op class's ``apply``, and the op table's bindings built on it, swapped for
    ``Op.record``; restored on exit."""
    originals = {cls: cls.__dict__["apply"] for cls in _op_classes()}
    for cls in originals:
        cls.apply = staticmethod(_recorded_by(cls))
    ops.install(mini.Tensor, vars(mini))
    try:
        yield
    finally:
        for cls, apply in originals.items():
            cls.apply = apply
        ops.install(mini.Tensor, vars(mini))


def _recorded_by(cls: type) -> Callable:
    """A plain function, as the Tensor method must be (a partial would not bind ``self``)."""

    def apply(*inputs, **params):
        return cls.record(*inputs, **params)

    return apply


def _recording(fn, inputs) -> dict:
    """What ``fn`` records and computes, in terms that do not depend on the path: each node of
    the graph in walk order with its name, needs_input_grad, saved names, edges (as walk
    indices) and output shapes; the order of sequence numbers; values and gradients."""
    arrays = make_arrays(inputs, np.dtype(np.float64), np.random.default_rng(0))
    leaves = [make_input(mini, a, True, "cpu") for a in arrays]
    outputs = [o for o in _as_tuple(fn(mini, *leaves)) if isinstance(o, mini.Tensor)]
    order, index, stack = [], {}, [o.grad_fn for o in reversed(outputs) if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node in index:
            continue
        index[node] = len(order)
        order.append(node)
        stack.extend(n for n, _ in reversed(node.next_functions) if n is not None)
    nodes = []
    for node in order:
        nodes.append((
            node.name(),
            getattr(node, "needs_input_grad", None),
            sorted(a for a in dir(node) if a.startswith("_saved_")),
            [(None if n is None else index[n], nr) for n, nr in node.next_functions],
            [None if m is None else (m[0], str(m[1])) for m in node._output_meta],
            "_input_positions" in vars(node) if isinstance(node, OpNode) else None,  # its path
        ))
    ops_by_age = sorted((n for n in order if isinstance(n, OpNode)), key=lambda n: n._seq)
    differentiable = [o for o in outputs if o.requires_grad]
    grads = []
    if differentiable:
        total = sum((o * (k + 1)).sum() for k, o in enumerate(differentiable))
        wanted = [leaf for leaf in leaves if isinstance(leaf, mini.Tensor) and leaf.requires_grad]
        grads = mini.autograd.grad(total, wanted, allow_unused=True)
    return {
        "nodes": nodes,
        "sequence order": [index[n] for n in ops_by_age],
        "values": [repr(o.detach().numpy().tolist()) for o in outputs],  # nan == nan here
        "flags": [(o.requires_grad, o.is_leaf, o._version) for o in outputs],
        "gradients": [None if g is None else repr(g.numpy().tolist()) for g in grads],
    }


def _as_tuple(result):
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


@pytest.mark.parametrize(("inputs", "fn"), [pytest.param(*p.values[:2], id=p.id) for p in OPS])
def test_every_op_records_the_same_by_its_fast_and_its_readable_path(inputs, fn):
    fast = _recording(fn, inputs)
    with readable_path():
        readable = _recording(fn, inputs)
    made_by = {"fast": {n[-1] for n in fast["nodes"] if n[-1] is not None},
               "readable": {n[-1] for n in readable["nodes"] if n[-1] is not None}}
    for recording in (fast, readable):  # the path's mark aside, everything must be the same
        recording["nodes"] = [n[:-1] for n in recording["nodes"]]
    assert readable == fast
    assert made_by["fast"] <= {False}, "a node of the fast run came from Op.record"
    assert made_by["readable"] <= {True}, "a node of the readable run came from fast_apply"


def test_the_readable_path_is_the_one_taken_inside_readable_path():
    x = mini.tensor([1.0, 2.0], requires_grad=True)
    with readable_path():
        assert "_input_positions" in vars((x.exp() + 1).grad_fn)
        assert "_input_positions" in vars(mini.exp(x).grad_fn)
    assert "_input_positions" not in vars(x.exp().grad_fn)


# ---- Adam's step on arrays (optim/adam._step_on_arrays) and on tensors ---------------------


def _adam_run(dtype, **options) -> list:
    """Five Adam steps of a small model; every parameter, state tensor and version after."""
    rng = np.random.default_rng(0)
    w = mini.tensor(rng.standard_normal((3, 4)), dtype=dtype, requires_grad=True)
    b = mini.tensor(rng.standard_normal(3), dtype=dtype, requires_grad=True)
    optimizer = mini.optim.Adam([w, b], lr=0.05, **options)
    for _ in range(5):
        x = mini.tensor(rng.standard_normal((2, 4)), dtype=dtype)
        optimizer.zero_grad()
        ((x @ w.T + b) ** 2).mean().backward()
        optimizer.step()
    states = [optimizer.state[p] for p in (w, b)]
    return [(t.detach().numpy().tobytes(), str(t.dtype), t._version)
            for t in (w, b, *(s[k] for s in states for k in sorted(s)))]


@pytest.mark.parametrize("options", [{}, {"weight_decay": 0.1}, {"amsgrad": True},
                                     {"maximize": True}], ids=["plain", "decay", "amsgrad",
                                                               "maximize"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adam_on_arrays_and_on_tensors_agree_bit_for_bit(dtype, options, monkeypatch):
    fast = _adam_run(getattr(mini, dtype), **options)
    monkeypatch.setattr(adam, "_step_on_arrays", lambda *args: False)
    readable = _adam_run(getattr(mini, dtype), **options)
    assert fast == readable


def test_adam_on_arrays_is_the_path_taken_for_a_plain_step():
    w = mini.ones(2, 3, requires_grad=True)
    w.grad = mini.full((2, 3), 0.5)
    optimizer = mini.optim.Adam([w])
    state = optimizer.state.setdefault(w, {"step": mini.tensor(0.0),
                                           "exp_avg": mini.zeros_like(w),
                                           "exp_avg_sq": mini.zeros_like(w)})
    assert adam._step_on_arrays(w, w.grad, state, optimizer.param_groups[0])
    amsgrad = dict(optimizer.param_groups[0], amsgrad=True)
    assert not adam._step_on_arrays(w, w.grad, state, amsgrad)


# ---- backward on arrays when no graph is recorded (Addmm: nn.Linear; Relu) ---------------


def _linear_relu_gradients(dtype, create_graph: bool) -> list:
    """An nn.Linear -> ReLU -> nn.Linear net with units off, at zero and nan; its gradients."""
    rng = np.random.default_rng(0)
    x = mini.tensor(rng.standard_normal((5, 4)), dtype=dtype, requires_grad=True)
    w1 = mini.tensor(rng.standard_normal((6, 4)), dtype=dtype, requires_grad=True)
    b1 = mini.tensor(rng.standard_normal(6), dtype=dtype, requires_grad=True)
    w2 = mini.tensor(rng.standard_normal((3, 6)), dtype=dtype, requires_grad=True)
    hidden = mini.nn.functional.linear(x, w1, b1).relu()
    zeroed = hidden * mini.tensor([1.0, 1.0, 0.0, 1.0, 1.0, 1.0], dtype=dtype)
    out = mini.nn.functional.linear(zeroed, w2).relu() + (x.sum() * 0).relu()
    weight = mini.tensor(rng.standard_normal((5, 3)), dtype=dtype)
    weight[0, 0] = float("nan")
    grads = mini.autograd.grad(out, (x, w1, b1, w2), weight, create_graph=create_graph)
    return [(g.detach().numpy().tobytes(), str(g.dtype), tuple(g.shape)) for g in grads]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_and_relu_backward_on_arrays_and_on_tensors_agree_bit_for_bit(dtype):
    fast = _linear_relu_gradients(getattr(mini, dtype), create_graph=False)
    readable = _linear_relu_gradients(getattr(mini, dtype), create_graph=True)
    assert fast == readable


def test_linear_and_relu_backward_on_arrays_only_without_a_graph():
    x = mini.tensor([[1.0, -2.0]], requires_grad=True)
    w = mini.tensor([[0.5, 0.25], [-1.0, 2.0]], requires_grad=True)
    out = mini.nn.functional.linear(x, w, mini.zeros(2)).relu().sum()
    (gx,) = mini.autograd.grad(out, x, create_graph=True)
    assert gx.grad_fn is not None  # recorded: the tensor path ran
    (gx,) = mini.autograd.grad(mini.nn.functional.linear(x, w).relu().sum(), x)
    assert gx.grad_fn is None and gx.tolist() == [[0.0, 0.0]]


# ---- sum_to_size on the array when nothing is recorded (the engine's fit of a gradient) ----


def _summed_to(shape, target, dtype) -> tuple:
    data = np.random.default_rng(0).standard_normal(shape)
    out = mini.tensor(data, dtype=dtype).sum_to_size(target)
    base = out._view_base
    return (out.numpy().tobytes(), str(out.dtype), tuple(out.shape), out.requires_grad,
            out.grad_fn, None if base is None else (tuple(base.shape), base._version),
            out._version)


@pytest.mark.parametrize(("shape", "target"), [((5, 3), (3,)), ((5, 3), (1, 3)),
                                               ((2, 5, 3), (5, 1)), ((4,), ()),
                                               ((3, 4), (3, 4))],
                         ids=["bias", "keepdim", "middle", "scalar", "same"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sum_to_size_on_the_array_and_by_its_ops_agree_bit_for_bit(shape, target, dtype):
    with mini.no_grad():
        fast = _summed_to(shape, target, getattr(mini, dtype))
    readable = _summed_to(shape, target, getattr(mini, dtype))  # grad mode on: the op path
    assert fast == readable


def test_sum_to_size_records_when_the_input_requires_grad():
    x = mini.ones(4, 3, requires_grad=True)
    assert x.sum_to_size(3).grad_fn.name() == "ViewBackward0"
    with mini.no_grad():
        assert x.sum_to_size(3).grad_fn is None


# ---- more backward formulas on arrays (ops/_util.on_arrays): mm, pow 2, mse_loss -----------


def _mm_pow_mse_gradients(dtype, reduction: str, create_graph: bool) -> list:
    """mm with either side constant, a square and an MSE loss (its target requiring grad too,
    with nan and inf in the weights); the gradients, under or without create_graph."""
    rng = np.random.default_rng(1)
    x = mini.tensor(rng.standard_normal((5, 4)), dtype=dtype, requires_grad=True)
    w = mini.tensor(rng.standard_normal((4, 3)), dtype=dtype, requires_grad=True)
    c = mini.tensor(rng.standard_normal((3, 2)), dtype=dtype)
    target = mini.tensor(rng.standard_normal((5, 2)), dtype=dtype, requires_grad=True)
    h = x.mm(w)
    out = h.mm(c).pow(2) + mini.nn.functional.mse_loss(c.t().mm(h.t()).t(), target,
                                                       reduction=reduction)
    weight = mini.tensor(rng.standard_normal((5, 2)), dtype=dtype)
    weight[0, 0], weight[1, 1] = float("nan"), float("inf")
    grads = mini.autograd.grad(out, (x, w, target), weight, create_graph=create_graph)
    return [(g.detach().numpy().tobytes(), str(g.dtype), tuple(g.shape)) for g in grads]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mm_pow_and_mse_backward_on_arrays_and_on_tensors_agree_bit_for_bit(dtype, reduction):
    fast = _mm_pow_mse_gradients(getattr(mini, dtype), reduction, create_graph=False)
    readable = _mm_pow_mse_gradients(getattr(mini, dtype), reduction, create_graph=True)
    assert fast == readable


def test_backward_on_arrays_needs_one_dtype_and_no_graph():
    a = mini.ones(2, requires_grad=True)
    assert not ops._util.on_arrays(a, mini.ones(2, dtype=mini.float64))
    with mini.no_grad():
        assert ops._util.on_arrays(a, mini.ones(2))
        assert not ops._util.on_arrays(a, mini.ones(2, dtype=mini.float64))
    assert not ops._util.on_arrays(a, mini.ones(2))  # grad mode on: a graph may be recorded


# ---- Categorical's logits and probs on the arrays when nothing is recorded -----------------


def _categorical(logits: np.ndarray, dtype, requires_grad: bool) -> tuple:
    tensor = mini.tensor(logits, dtype=dtype, requires_grad=requires_grad)
    dist = mini.distributions.Categorical(logits=tensor, validate_args=False)
    mini.manual_seed(0)
    samples = dist.sample((3,))
    return (dist.logits.detach().numpy().tobytes(), dist.probs.detach().numpy().tobytes(),
            str(dist.probs.dtype), samples.numpy().tobytes(),
            dist.logits.requires_grad, dist.probs.requires_grad)


@pytest.mark.parametrize("shape", [(4,), (5, 3), (2, 3, 4)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_categorical_on_the_arrays_and_by_its_ops_agree_bit_for_bit(shape, dtype):
    logits = np.random.default_rng(2).standard_normal(shape) * 30
    logits.reshape(-1)[0] = -np.inf  # an action masked out
    with mini.no_grad():
        fast = _categorical(logits, getattr(mini, dtype), requires_grad=False)
    readable = _categorical(logits, getattr(mini, dtype), requires_grad=True)
    assert fast[:4] == readable[:4]
    assert fast[4:] == (False, False) and readable[4:] == (True, True)


def test_categorical_records_when_its_logits_require_grad():
    logits = mini.zeros(2, 3, requires_grad=True)
    with mini.no_grad():  # torch's lazy probs are computed with grad on
        dist = mini.distributions.Categorical(logits=logits)
        assert dist.logits.grad_fn is None
    dist = mini.distributions.Categorical(logits=logits)
    assert dist.logits.grad_fn.name() == "SubBackward0"
    assert dist.probs.grad_fn.name() == "SoftmaxBackward0"


def test_real_vector_holds_exactly_where_its_check_holds_everywhere():
    from miniautograd.distributions import _real_vector

    constraint = _real_vector()
    cases = [np.zeros((0, 3)), np.array([1.0, -np.inf, np.inf]), np.array([[1.0, np.nan]]),
             np.array([[np.inf, -np.inf], [2.0, 3.0]], dtype=np.float32), np.arange(6),
             np.array([True, False]), np.full((2, 2, 2), np.nan)]
    for value in cases:
        assert constraint.holds(value) is bool(constraint.check(value).all())
    with pytest.raises(ValueError, match="IndependentConstraint"):
        mini.distributions.Categorical(logits=mini.tensor([[0.0, float("nan")]]))


@pytest.mark.parametrize("mode", ["no_grad", "enable_grad"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_categorical_probs_and_sample_agree_in_either_grad_mode(mode, requires_grad):
    """The lazy probs opens enable_grad only where grad mode is off, and sample reads them
    without a no_grad block: the same values, graph and draws either way."""
    logits = mini.tensor([[0.5, -1.0, 2.0], [0.0, 0.0, -np.inf]], requires_grad=requires_grad)
    seen = []
    for context in (mini.no_grad, mini.enable_grad):
        with context():
            dist = mini.distributions.Categorical(logits=logits)
        with getattr(mini, mode)():
            mini.manual_seed(1)
            samples = dist.sample((4,))
            probs = dist.probs
        seen.append((probs.detach().numpy().tobytes(), samples.numpy().tobytes(),
                     probs.requires_grad, probs.grad_fn and probs.grad_fn.name()))
        # logits normalised under no_grad record nothing, so neither do their probs
        assert probs.requires_grad is (requires_grad and context is mini.enable_grad)
    assert seen[0][:2] == seen[1][:2]


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_one_axis_in_range_is_normalised_as_by_the_general_path(ndim):
    from miniautograd.ops.reduction import normalize_dims

    for dim in range(-ndim, ndim):
        assert normalize_dims(dim, ndim) == normalize_dims((dim,), ndim) == (dim % ndim,)
    with pytest.raises(IndexError):
        normalize_dims(ndim, ndim)


def test_logsumexp_peak_by_the_max_method_is_np_max_with_initial():
    data = np.random.default_rng(3).standard_normal((4, 3))
    data[0], data[1, 1], data[2, 0] = -np.inf, np.nan, np.inf
    for axis in [(0,), (1,), (0, 1)]:
        fast = data.max(axis=axis, keepdims=True)
        general = np.max(data, axis=axis, keepdims=True, initial=-np.inf)
        assert fast.tobytes() == general.tobytes()
    empty = mini.zeros(0, 3).logsumexp(dim=0)  # an empty axis: the initial -inf is needed
    assert empty.tolist() == [float("-inf")] * 3


def _logsumexp_by_where(data: np.ndarray, dims: tuple, keepdim: bool) -> np.ndarray:
    """logsumexp_of's plain path: the peak's infinities replaced by np.where, always."""
    peak = np.max(data, axis=dims, keepdims=True, initial=-np.inf)
    peak = np.where(np.isinf(peak), 0, peak)
    with np.errstate(all="ignore"):
        out = np.log(np.exp(data - peak).sum(axis=dims, keepdims=True)) + peak
    return out if keepdim else np.squeeze(out, dims)


@pytest.mark.parametrize("shape", [(), (5,), (3, 4)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logsumexp_peak_written_in_place_is_the_peak_np_where_gives(shape, dtype):
    from miniautograd.ops.reduction import logsumexp_of

    data = (np.random.default_rng(6).standard_normal(shape) * 30).astype(dtype)
    if shape:
        data.reshape(-1)[0] = np.inf
        data[..., -1] = -np.inf
    cases = [data, np.full(shape, -np.inf, dtype=dtype)]
    for value in cases:
        for dims in {tuple(range(len(shape))), tuple(range(len(shape)))[-1:]}:
            for keepdim in (False, True):
                fast = np.asarray(logsumexp_of(value, dims, keepdim))
                plain = np.asarray(_logsumexp_by_where(value, dims, keepdim))
                assert fast.tobytes() == plain.tobytes() and fast.dtype == plain.dtype


def _t_and_sum_gradients(dtype, create_graph: bool) -> list:
    """Gradients through t() and a full sum, and the sum's gradient as a hook sees it (an
    expanded, read-only view)."""
    rng = np.random.default_rng(4)
    x = mini.tensor(rng.standard_normal((3, 4)), dtype=dtype, requires_grad=True)
    w = mini.tensor(rng.standard_normal((5, 4)), dtype=dtype, requires_grad=True)
    squares = x.mm(w.t()) ** 2
    seen = []
    squares.register_hook(seen.append)
    grads = mini.autograd.grad(squares.sum() * 3, (x, w), create_graph=create_graph)
    (arrived,) = seen
    return [(g.detach().numpy().tobytes(), str(g.dtype), tuple(g.shape)) for g in grads] + [
        arrived.detach().numpy().tobytes(), arrived._data.flags.writeable,
        arrived._view_base is not None, arrived._vc is arrived._view_base._vc]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_t_and_sum_backward_on_arrays_and_on_tensors_agree(dtype):
    fast = _t_and_sum_gradients(getattr(mini, dtype), create_graph=False)
    readable = _t_and_sum_gradients(getattr(mini, dtype), create_graph=True)
    assert fast == readable


def _linear(dtype, bias_shape=(3,), weight_dtype=None) -> tuple:
    rng = np.random.default_rng(5)
    x = mini.tensor(rng.standard_normal((4, 2)), dtype=dtype)
    w = mini.tensor(rng.standard_normal((3, 2)), dtype=weight_dtype or dtype)
    b = mini.tensor(rng.standard_normal(bias_shape), dtype=dtype)
    try:
        out = mini.nn.functional.linear(x, w, b)
    except RuntimeError as error:
        return ("RuntimeError", str(error))
    return out.numpy().tobytes(), str(out.dtype), tuple(out.shape), out.grad_fn


@pytest.mark.parametrize("case", [{}, {"bias_shape": (1,)}, {"weight_dtype": mini.float64}],
                         ids=["plain", "broadcast bias", "mixed dtypes"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_on_arrays_and_by_its_ops_agree_bit_for_bit(dtype, case):
    with mini.no_grad():
        fast = _linear(getattr(mini, dtype), **case)
    readable = _linear(getattr(mini, dtype), **case)  # grad mode on: the op path
    assert fast == readable


# ---- the ready queue's shortcuts for a heap of one node ------------------------------------


def test_ready_queue_with_and_without_its_one_node_shortcuts_pops_the_same_order():
    from miniautograd.autograd.ready_queue import ReadyQueue

    class Sifting(ReadyQueue):
        """libstdc++'s push_heap and pop_heap with no shortcut: every push sifts, every pop
        adjusts what is left."""

        __slots__ = ()

        def push(self, node):
            self._heap.append(node)
            self._sift_up(len(self._heap) - 1, 0, node)

        def pop(self):
            heap = self._heap
            top, last = heap[0], heap.pop()
            if heap:
                self._adjust(0, len(heap), last)
            return top

    class Node:
        def __init__(self, seq):
            self._seq = seq

    rng = np.random.default_rng(6)
    nodes = [Node(int(s)) for s in rng.integers(0, 6, 200)]  # many ties, as AccumulateGrads
    pops_after_each = rng.integers(0, 3, 200).tolist()
    orders = []
    for queue in (ReadyQueue(), Sifting()):
        popped = []
        for node, pops in zip(nodes, pops_after_each, strict=True):
            queue.push(node)
            for _ in range(min(pops, len(queue._heap))):
                popped.append(queue.pop())
        while queue:
            popped.append(queue.pop())
        orders.append([id(n) for n in popped])
    assert orders[0] == orders[1]
