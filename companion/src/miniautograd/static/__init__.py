"""Define-and-run, the way TensorFlow 1 did it: build a graph first, then run it many times.

``import miniautograd.static as tf`` runs TF1-style programs (``tensorflow.compat.v1``) of
the covered subset unchanged::

    x = tf.placeholder(tf.float32, shape=(None, 3))
    w = tf.Variable(tf.random_normal((3, 1)))
    loss = tf.reduce_sum(tf.matmul(x, w) ** 2.0)
    (grad_w,) = tf.gradients(loss, [w])           # more graph, not numbers
    step = w.assign(w - 0.1 * grad_w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        loss_value, _ = sess.run([loss, step], feed_dict={x: data})

The parts, one file each: the dataflow graph and its ops (``_dataflow``), symbolic gradients
(``_gradients``), the session that runs a graph (``_session``), graph optimisation
(``_optimize``), tracing an eager function into a graph (``_trace``), drawing (``_draw``).
Computation is numpy on the CPU; random numbers come from miniautograd's (torch's) generator.
"""

from types import SimpleNamespace

import numpy as np

from ._dataflow import (
    KERNELS,
    Graph,
    Tensor,
    TracerWarning,
    Variable,
    add,
    add_n,
    assign,
    constant,
    convert_to_tensor,
    divide,
    exp,
    get_default_graph,
    greater_equal,
    group,
    identity,
    log,
    matmul,
    maximum,
    multiply,
    negative,
    ones,
    ones_like,
    placeholder,
    pow,  # noqa: A004 - tf.pow
    random_normal,
    reduce_sum,
    relu,
    reset_default_graph,
    subtract,
    tanh,
    topological_order,
    transpose,
    where,
    zeros,
    zeros_like,
)
from ._draw import draw, listing
from ._gradients import RULES, gradients
from ._optimize import optimize
from ._session import (
    FailedPreconditionError,
    InvalidArgumentError,
    OpError,
    Session,
    global_variables_initializer,
)
from ._trace import TracedFunction, trace

float32, float64, int32, int64, bool_ = (np.dtype(n) for n in
                                          ("float32", "float64", "int32", "int64", "bool"))
nn = SimpleNamespace(relu=relu)
errors = SimpleNamespace(OpError=OpError, InvalidArgumentError=InvalidArgumentError,
                         FailedPreconditionError=FailedPreconditionError)


def disable_v2_behavior() -> None:
    """A no-op: this module only has TF1's behaviour (graphs and sessions)."""


__all__ = [
    "KERNELS", "RULES", "FailedPreconditionError", "Graph", "InvalidArgumentError", "OpError",
    "Session", "Tensor", "TracedFunction", "TracerWarning", "Variable", "add", "add_n", "assign",
    "bool_", "constant", "convert_to_tensor", "disable_v2_behavior", "divide", "draw", "errors",
    "exp", "float32", "float64", "get_default_graph", "global_variables_initializer",
    "gradients", "greater_equal", "group", "identity", "int32", "int64", "listing", "log",
    "matmul", "maximum", "multiply", "negative", "nn", "ones", "ones_like", "optimize",
    "placeholder", "pow", "random_normal", "reduce_sum", "relu", "reset_default_graph",
    "subtract", "tanh", "topological_order", "trace", "transpose", "where", "zeros",
    "zeros_like",
]
