"""The TensorFlow leg of the static-graphs chapter: TF1-style programs give the same numbers on
real TensorFlow (``tensorflow.compat.v1``) and on ``miniautograd.static``.

TensorFlow is pinned in requirements.txt; a test that needs it is skipped (saying so) only
where it cannot be imported.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

import miniautograd as mini
import miniautograd.static as st

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # no C++ log lines on stderr

SEED_PROGRAM = """
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
import numpy as np

n, d_in, h, d_out = 64, 1000, 100, 10
x = tf.placeholder(tf.float32, shape=(None, d_in))
y = tf.placeholder(tf.float32, shape=(None, d_out))
w1 = tf.Variable(tf.random_normal((d_in, h)))
w2 = tf.Variable(tf.random_normal((h, d_out)))
h = tf.matmul(x, w1)
h_relu = tf.maximum(h, tf.zeros(1))
y_pred = tf.matmul(h_relu, w2)
loss = tf.reduce_sum((y - y_pred) ** 2.0)
grad_w1, grad_w2 = tf.gradients(loss, [w1, w2])
learning_rate = 1e-6
new_w1 = w1.assign(w1 - learning_rate * grad_w1)
new_w2 = w2.assign(w2 - learning_rate * grad_w2)
losses = []
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    x_value = np.random.randn(n, d_in)
    y_value = np.random.randn(n, d_out)
    for _ in range(500):
        loss_value, _, _ = sess.run([loss, new_w1, new_w2],
                                    feed_dict={x: x_value, y: y_value})
        losses.append(loss_value)
"""


@pytest.fixture(scope="module")
def tf() -> ModuleType:
    reason = "tensorflow-cpu (pinned in requirements.txt) is not installed"
    return pytest.importorskip("tensorflow.compat.v1", reason=reason)


def _data() -> list[np.ndarray]:
    """The seed's sizes (64x1000 -> 100 -> 10), drawn from torch's generator (miniautograd's)."""
    mini.manual_seed(0)
    return [mini.randn(*s).numpy() for s in [(64, 1000), (64, 10), (1000, 100), (100, 10)]]


def _two_layer(tf: ModuleType, steps: int, *, use_resource: bool | None = None,
               ordered: bool = False) -> np.ndarray:
    """The seed's TF1 program with given initial weights. ``ordered`` makes the updates wait for
    both gradients (tf.control_dependencies), as ref variables need for a well-defined result."""
    x_value, y_value, w1_value, w2_value = _data()
    options = {} if use_resource is None else {"use_resource": use_resource}
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape=(None, 1000))
        y = tf.placeholder(tf.float32, shape=(None, 10))
        w1, w2 = tf.Variable(w1_value, **options), tf.Variable(w2_value, **options)
        y_pred = tf.matmul(tf.maximum(tf.matmul(x, w1), tf.zeros(1)), w2)
        loss = tf.reduce_sum((y - y_pred) ** 2.0)
        grad_w1, grad_w2 = tf.gradients(loss, [w1, w2])
        if ordered:
            with tf.control_dependencies([grad_w1, grad_w2]):
                updates = [w1.assign(w1 - 1e-6 * grad_w1), w2.assign(w2 - 1e-6 * grad_w2)]
        else:
            updates = [w1.assign(w1 - 1e-6 * grad_w1), w2.assign(w2 - 1e-6 * grad_w2)]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: x_value, y: y_value}
            return np.array([sess.run([loss, *updates], feed)[0] for _ in range(steps)], np.float64)


def test_two_layer_network_matches_tensorflow_with_resource_variables(tf: ModuleType) -> None:
    ours = _two_layer(st, 100)
    theirs = _two_layer(tf, 100, use_resource=True)
    assert theirs[-1] < 1e-4 * theirs[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)


def test_two_layer_network_matches_tensorflow_ref_variables_with_ordered_updates(
    tf: ModuleType,
) -> None:
    np.testing.assert_allclose(_two_layer(st, 30),
                               _two_layer(tf, 30, use_resource=False, ordered=True), rtol=1e-4)


# The same function body on both modules (``m`` is tensorflow.compat.v1 or miniautograd.static).
GRADIENT_CASES: dict[str, tuple[list[tuple[int, ...]], Callable]] = {
    "add_sub_broadcast": ([(3, 4), (4,)], lambda m, a, b: (a + b) * (a - b)),
    "mul_div": ([(3, 4), (3, 1)], lambda m, a, b: a * b / (a + b)),
    "pow": ([(3, 4), (3, 4)], lambda m, a, b: a**b + a**2.0),
    "maximum": ([(3, 4), (4,)], lambda m, a, b: m.maximum(a, b)),
    # tanh kept off saturation, where float32 libraries' tanh differ most in relative terms
    "exp_log_tanh": ([(3, 4)], lambda m, a: m.tanh(0.3 * (m.exp(a) - m.log(a)))),
    "relu": ([(3, 4)], lambda m, a: m.nn.relu(a - 1.25)),
    "matmul": ([(3, 4), (5, 4)], lambda m, a, b: m.matmul(a, b, transpose_b=True)),
    "matmul_transpose_a": ([(4, 3), (4, 5)], lambda m, a, b: m.matmul(a, b, transpose_a=True)),
    "reduce_sum_axis": ([(2, 3, 4)], lambda m, a: m.reduce_sum(a * a, axis=1)),
    "reduce_sum_keepdims": ([(3, 4)], lambda m, a: a / m.reduce_sum(a, axis=-1, keepdims=True)),
}


def _gradients(m: ModuleType, shapes: list[tuple[int, ...]], fn: Callable) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(0.5, 2.0, s).astype(np.float32) for s in shapes]
    with m.Graph().as_default():
        inputs = [m.placeholder(m.float32, shape=s) for s in shapes]
        out = fn(m, *inputs)
        weight = rng.standard_normal(tuple(int(n) for n in out.shape)).astype(np.float32)
        grads = m.gradients(m.reduce_sum(out * weight), inputs)
        with m.Session() as sess:
            return sess.run([out, *grads], dict(zip(inputs, arrays, strict=True)))


@pytest.mark.parametrize("name", GRADIENT_CASES)
def test_gradients_match_tf_gradients(tf: ModuleType, name: str) -> None:
    shapes, fn = GRADIENT_CASES[name]
    for ours, theirs in zip(_gradients(st, shapes, fn), _gradients(tf, shapes, fn), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("module", ["miniautograd.static", "tensorflow.compat.v1"])
def test_the_seed_program_runs_with_only_the_import_line_changed(module: str) -> None:
    """The TF1 program statement for statement; only `import ... as tf` differs. (Last in this
    file: on TensorFlow it calls disable_v2_behavior, which holds for the whole process.)"""
    if module.startswith("tensorflow"):
        pytest.importorskip(module, reason="tensorflow-cpu is not installed")
    st.reset_default_graph()
    mini.manual_seed(0)
    np.random.seed(0)
    namespace: dict = {}
    program = SEED_PROGRAM.replace("tensorflow.compat.v1", module)
    exec(compile(program, "seed_program", "exec"), namespace)
    losses = namespace["losses"]
    assert len(losses) == 500
    assert np.isfinite(losses[0])
    if module == "miniautograd.static":
        # Its reads see each variable as it was when the run started: plain gradient descent.
        assert np.all(np.isfinite(losses))
        assert losses[-1] < 1e-2 * losses[0]
    # TensorFlow runs the program with reference variables, and no edge orders the gradient's
    # read of w2 against the assign that writes it (chapter 5, "A data race"): some runs
    # diverge, so the trend of its loss is not the program's to promise.
