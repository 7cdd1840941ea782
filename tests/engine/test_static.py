"""miniautograd.static (define-and-run) against eager miniautograd: same programs, same numbers.

Covered: symbolic gradients against eager ones over a table of ops (and second derivatives),
a two-layer network trained both ways, the optimisation pass, sessions and their errors,
tracing (and its baked-in branch), drawing.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pytest

import miniautograd as mini
import miniautograd.static as st

# name -> (input shapes, function written with methods/operators, so it runs on both engines)
OPS: dict[str, tuple[list[tuple[int, ...]], Callable]] = {
    "add_broadcast": ([(3, 4), (4,)], lambda a, b: a + b),
    "sub_broadcast": ([(3, 1), (1, 4)], lambda a, b: a - b),
    "mul": ([(3, 4), (3, 4)], lambda a, b: a * b),
    "mul_scalar": ([(3, 4)], lambda a: 2.5 * a),
    "div_broadcast": ([(3, 4), (4,)], lambda a, b: a / b),
    "rdiv": ([(3, 4)], lambda a: 1.0 / a),
    "pow_number": ([(3, 4)], lambda a: a**3.0),
    "pow_tensor": ([(3, 4), (3, 4)], lambda a, b: a**b),
    "neg": ([(3, 4)], lambda a: -a),
    "exp": ([(3, 4)], lambda a: a.exp()),
    "log": ([(3, 4)], lambda a: a.log()),
    "tanh": ([(3, 4)], lambda a: a.tanh()),
    "relu": ([(3, 4)], lambda a: (a - 1.2).relu()),
    "maximum_broadcast": ([(3, 4), (4,)], lambda a, b: a.maximum(b)),
    "mm": ([(3, 4), (4, 5)], lambda a, b: a.mm(b)),
    "matmul_operator": ([(3, 4), (4, 2)], lambda a, b: a @ b),
    "t": ([(3, 4)], lambda a: a.t()),
    "sum_all": ([(3, 4)], lambda a: a.sum()),
    "sum_dim": ([(3, 4)], lambda a: a.sum(1)),
    "sum_negative_dim_keepdim": ([(2, 3, 4)], lambda a: a.sum(-1, keepdim=True)),
    "sum_dims": ([(2, 3, 4)], lambda a: a.sum((0, 2))),
    "reused_input": ([(3, 4)], lambda a: a * a + a.exp() * a),
    "chain": ([(3, 4), (4, 2)], lambda a, b: ((a.mm(b)).tanh() * 2.0 - 1.0).exp().sum(0)),
}


def _arrays(shapes: list[tuple[int, ...]], seed: int = 0) -> list[np.ndarray]:
    """Positive float32 data away from ties and kinks (log, pow and relu are smooth there)."""
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 2.0, shape).astype(np.float32) for shape in shapes]


def _eager_grads(fn: Callable, arrays: list[np.ndarray], v: np.ndarray) -> list[np.ndarray]:
    inputs = [mini.tensor(a, requires_grad=True) for a in arrays]
    (fn(*inputs) * mini.tensor(v)).sum().backward()
    return [t.grad.numpy() for t in inputs]


def _static_grads(fn: Callable, arrays: list[np.ndarray], v: np.ndarray) -> list[np.ndarray]:
    with st.Graph().as_default():
        inputs = [st.placeholder(st.float32, a.shape) for a in arrays]
        grads = st.gradients(st.reduce_sum(fn(*inputs) * v), inputs)
        with st.Session() as sess:
            return sess.run(grads, dict(zip(inputs, arrays, strict=True)))


def _weight(fn: Callable, arrays: list[np.ndarray]) -> np.ndarray:
    """A random output weighting: a plain sum would hide mistakes symmetric in the elements."""
    shape = fn(*(mini.tensor(a) for a in arrays)).shape
    return np.random.default_rng(1).standard_normal(tuple(shape)).astype(np.float32)


@pytest.mark.parametrize("name", OPS)
def test_symbolic_gradients_equal_eager_gradients(name: str) -> None:
    shapes, fn = OPS[name]
    arrays = _arrays(shapes)
    v = _weight(fn, arrays)
    for got, want in zip(_static_grads(fn, arrays, v), _eager_grads(fn, arrays, v), strict=True):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


SECOND_ORDER = ["mul", "exp", "tanh", "mm", "div_broadcast", "pow_tensor", "chain"]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivatives_equal_eager_double_backward(name: str) -> None:
    """gradients() of a gradient graph: the rules of the ops gradients() itself emits."""
    shapes, fn = OPS[name]
    arrays = _arrays(shapes, seed=2)
    v = _weight(fn, arrays)
    inputs = [mini.tensor(a, requires_grad=True) for a in arrays]
    first = mini.autograd.grad((fn(*inputs) * mini.tensor(v)).sum(), inputs, create_graph=True)
    second = mini.autograd.grad(sum((g * g).sum() for g in first), inputs, allow_unused=True)
    with st.Graph().as_default():
        holders = [st.placeholder(st.float32, a.shape) for a in arrays]
        grads = st.gradients(st.reduce_sum(fn(*holders) * v), holders)
        squares = st.add_n([st.reduce_sum(g * g) for g in grads])
        seconds = st.gradients(squares, holders)
        with st.Session() as sess:
            feed = dict(zip(holders, arrays, strict=True))
            got = sess.run([s for s in seconds if s is not None], feed)
    want = [w.numpy() for w in second if w is not None]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("ta", "tb"), [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_transposes_and_their_gradients(ta: bool, tb: bool) -> None:
    a, b, v = _arrays([(4, 3) if ta else (3, 4), (5, 4) if tb else (4, 5), (3, 5)])
    ma, mb = mini.tensor(a, requires_grad=True), mini.tensor(b, requires_grad=True)
    out = (ma.t() if ta else ma).mm(mb.t() if tb else mb)
    (out * mini.tensor(v)).sum().backward()
    with st.Graph().as_default():
        pa, pb = st.placeholder(st.float32, a.shape), st.placeholder(st.float32, b.shape)
        product = st.matmul(pa, pb, transpose_a=ta, transpose_b=tb)
        grads = st.gradients(st.reduce_sum(product * v), [pa, pb])
        with st.Session() as sess:
            value, ga, gb = sess.run([product, *grads], {pa: a, pb: b})
    np.testing.assert_allclose(value, out.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(ga, ma.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(gb, mb.grad.numpy(), rtol=1e-5)


def _two_layer_static(x: np.ndarray, y: np.ndarray, w1: np.ndarray, w2: np.ndarray, steps: int,
                      lr: float) -> list[float]:
    with st.Graph().as_default():
        px = st.placeholder(st.float32, (None, x.shape[1]))
        py = st.placeholder(st.float32, (None, y.shape[1]))
        v1, v2 = st.Variable(w1), st.Variable(w2)
        y_pred = st.matmul(st.maximum(st.matmul(px, v1), st.zeros(1)), v2)
        loss = st.reduce_sum((py - y_pred) ** 2.0)
        g1, g2 = st.gradients(loss, [v1, v2])
        updates = [v1.assign(v1 - lr * g1), v2.assign(v2 - lr * g2)]
        with st.Session() as sess:
            sess.run(st.global_variables_initializer())
            return [float(sess.run([loss, *updates], {px: x, py: y})[0]) for _ in range(steps)]


def _two_layer_eager(x: np.ndarray, y: np.ndarray, w1: np.ndarray, w2: np.ndarray, steps: int,
                     lr: float) -> list[float]:
    x, y = mini.tensor(x), mini.tensor(y)
    w1, w2 = mini.tensor(w1, requires_grad=True), mini.tensor(w2, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with mini.no_grad():
            w1 -= lr * w1.grad
            w2 -= lr * w2.grad
            w1.grad.zero_()
            w2.grad.zero_()
    return losses


def test_two_layer_network_trains_identically_in_both_modes() -> None:
    mini.manual_seed(0)
    x, y, w1, w2 = (mini.randn(*s).numpy() for s in [(16, 50), (16, 5), (50, 20), (20, 5)])
    static = _two_layer_static(x, y, w1, w2, steps=60, lr=1e-4)
    eager = _two_layer_eager(x, y, w1, w2, steps=60, lr=1e-4)
    assert static[-1] < static[0] / 10
    np.testing.assert_allclose(static, eager, rtol=1e-4)


def _seed_graph() -> tuple[dict, list]:
    x = st.placeholder(st.float32, (None, 6))
    y = st.placeholder(st.float32, (None, 2))
    w1, w2 = st.Variable(st.random_normal((6, 4))), st.Variable(st.random_normal((4, 2)))
    loss = st.reduce_sum((y - st.matmul(st.maximum(st.matmul(x, w1), st.zeros(1)), w2)) ** 2.0)
    g1, g2 = st.gradients(loss, [w1, w2])
    feed = {x: np.arange(18, dtype=np.float32).reshape(3, 6) / 9 - 1,
            y: np.ones((3, 2), np.float32)}
    return feed, [loss, g1, g2, w1.assign(w1 - 1e-3 * g1), w2.assign(w2 - 1e-3 * g2)]


def test_optimize_folds_constants_and_merges_repeats_without_changing_results() -> None:
    with st.Graph().as_default():
        feed, fetches = _seed_graph()
        optimized = st.optimize(fetches)
        before, after = (len(st.topological_order(f)) for f in (fetches, optimized))
        assert after < before
        ops_after = [n.op for n in st.topological_order(optimized)]
        # Pow's gradient builds 2.0 - 1 from constants; the two learning rates are one constant.
        assert not any(n.op == "Sub" and all(i.op == "Const" for i in n.inputs)
                       for n in st.topological_order(optimized))
        ops_before = [n.op for n in st.topological_order(fetches)]
        assert ops_after.count("Const") < ops_before.count("Const")
        mini.manual_seed(3)
        with st.Session() as sess:
            sess.run(st.global_variables_initializer())
            plain = sess.run(fetches, feed)
        mini.manual_seed(3)
        with st.Session() as sess:
            sess.run(st.global_variables_initializer())
            folded = sess.run(optimized, feed)
    for a, b in zip(plain, folded, strict=True):
        np.testing.assert_array_equal(a, b)


def test_common_subexpressions_are_merged() -> None:
    with st.Graph().as_default():
        x = st.placeholder(st.float32, (2, 2))
        w = st.constant(np.eye(2, dtype=np.float32))
        twice = st.matmul(x, w) + st.matmul(x, w)
        optimized = st.optimize(twice)
        assert [n.op for n in st.topological_order(twice)].count("MatMul") == 2
        assert [n.op for n in st.topological_order(optimized)].count("MatMul") == 1
        with st.Session() as sess:
            data = np.array([[1, 2], [3, 4]], np.float32)
            np.testing.assert_array_equal(sess.run(optimized, {x: data}), 2 * data)


def test_random_normal_draws_from_torchs_generator() -> None:
    with st.Graph().as_default():
        w = st.Variable(st.random_normal((3, 4)))
        mini.manual_seed(7)
        with st.Session() as sess:
            sess.run(st.global_variables_initializer())
            value = sess.run(w)
    mini.manual_seed(7)
    np.testing.assert_array_equal(value, mini.randn(3, 4).numpy())


def test_a_run_computes_only_what_the_fetches_need() -> None:
    with st.Graph().as_default():
        _feed, (loss, g1, *_rest) = _seed_graph()
        assert not any(n.name.startswith("gradients/") for n in st.topological_order(loss))
        assert any(n.name.startswith("gradients/") for n in st.topological_order(g1))
        assert "Assign" not in {n.op for n in st.topological_order([loss, g1])}


def test_reads_in_one_run_see_the_value_from_the_start_of_the_run() -> None:
    with st.Graph().as_default():
        v = st.Variable(np.float32(1.0))
        read, bump = v * 1.0, v.assign(v + 1.0)
        with st.Session() as sess:
            sess.run(st.global_variables_initializer())
            assert sess.run([bump, read]) == [2.0, 1.0]
            assert sess.run(v) == 2.0


def test_session_errors_say_what_to_do() -> None:
    with st.Graph().as_default():
        x = st.placeholder(st.float32, (None, 3), name="x")
        w = st.Variable(np.ones((3, 1), np.float32), name="w")
        out = st.matmul(x, w)
        with st.Session() as sess:
            with pytest.raises(st.errors.FailedPreconditionError, match="uninitialized value w"):
                sess.run(out, {x: np.ones((2, 3))})
            sess.run(st.global_variables_initializer())
            with pytest.raises(st.errors.InvalidArgumentError, match="must feed a value for"):
                sess.run(out)
            with pytest.raises(ValueError, match=r"Cannot feed value of shape \(2, 4\)"):
                sess.run(out, {x: np.ones((2, 4))})
            assert sess.run(out, {x: np.ones((5, 3))}).shape == (5, 1)  # float64 data is cast
        with pytest.raises(RuntimeError, match="closed Session"):
            sess.run(out, {x: np.ones((2, 3))})


def test_graph_building_errors() -> None:
    with st.Graph().as_default():
        x = st.placeholder(st.float32, (None, 3))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            st.matmul(x, st.Variable(np.ones((4, 2), np.float32)))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 5"):
            _ = x + np.ones(5, np.float32)
        with pytest.raises(TypeError, match="float64 that does not match type float32"):
            _ = x * st.Variable(np.ones(3))
        with pytest.raises(TypeError, match="not allowed"):
            bool(st.reduce_sum(x) > 0)
        with pytest.raises(LookupError, match=r"No gradient defined .*op type: Assign"):
            v = st.Variable(np.ones(3, np.float32))
            st.gradients(st.reduce_sum(v.assign(v * 2.0)), [v])


def test_gradients_of_unconnected_tensors_are_none() -> None:
    with st.Graph().as_default():
        a, b = st.placeholder(st.float32, (2,)), st.placeholder(st.float32, (2,))
        assert st.gradients(st.reduce_sum(a * 2.0), [a, b])[1] is None


def _branchy(x):
    if x.sum() > 0:
        return x * 2.0
    return -x


def test_trace_bakes_in_the_branch_of_the_example_and_warns() -> None:
    with pytest.warns(st.TracerWarning, match="Python bool"):
        traced = st.trace(_branchy, mini.tensor([1.0, 2.0]))
    assert [n.op for n in st.topological_order(traced.output)] == ["Placeholder", "Const", "Mul"]
    positive, negative = mini.tensor([3.0, 1.0]), mini.tensor([-3.0, -1.0])
    assert traced(positive).tolist() == _branchy(positive).tolist() == [6.0, 2.0]
    assert traced(negative).tolist() == [-6.0, -2.0]  # the eager function gives [3, 1]
    assert _branchy(negative).tolist() == [3.0, 1.0]


def test_trace_without_data_dependent_python_is_faithful() -> None:
    def mlp(x, w):
        return (x.mm(w).relu() - 1.0).tanh().sum(1)

    x, w = mini.randn(4, 3), mini.randn(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        traced = st.trace(mlp, (x, w))
    assert [p.name for p in traced.inputs] == ["x", "w"]
    other = mini.randn(4, 3)
    np.testing.assert_allclose(traced(other, w).numpy(), mlp(other, w).numpy(), rtol=1e-6)


def test_draw_is_deterministic_and_boxes_the_gradient_ops() -> None:
    svgs = []
    for _ in range(2):
        with st.Graph().as_default():
            _feed, fetches = _seed_graph()
            svgs.append(st.draw(fetches).svg())
    assert svgs[0] == svgs[1]
    assert "gradients/ (built by gradients())" in svgs[0]
    assert "0x" not in svgs[0]
    listing = st.listing(fetches[0])
    assert listing.splitlines()[-1] == "Sum = Sum(Pow)  ()"
