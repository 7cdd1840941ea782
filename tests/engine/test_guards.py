"""What the engine guards and frees, beside torch: grad modes, saved outputs freed after
backward, the gradients a node's post-hook sees, and the bounded cache of shared tuples."""

from __future__ import annotations

import pytest
from helpers import raises_like_torch, same_on_both

import miniautograd as mini
from miniautograd.ops import op as op_module
from miniautograd.ops.op import Op

# ---- grad modes ----------------------------------------------------------------------------


def test_inference_mode_false_turns_grad_mode_on():
    """``inference_mode(False)`` is not ``no_grad``: torch turns grad mode on inside it."""

    def program(t):
        with t.no_grad(), t.inference_mode(False):
            off_then_false = t.is_grad_enabled()
        with t.enable_grad(), t.inference_mode(True):
            on_then_true = t.is_grad_enabled()
        with t.no_grad(), t.inference_mode(mode=False):
            x = t.tensor([1.0, 2.0], requires_grad=True)
            recorded = (x * 2).requires_grad
        return off_then_false, on_then_true, recorded, t.is_grad_enabled()

    same_on_both(program)


# ---- saved outputs are freed by backward ---------------------------------------------------

X = [[0.5, -1.5, 2.0], [1.25, 0.75, -0.25]]
POSITIVE = [[0.5, 1.5, 2.0], [1.25, 0.75, 0.25]]

# One program for every op whose backward reads its own output (``saves_result``).
SAVES_RESULT = {
    "pow_tensor": lambda t, x: x.abs() ** x,
    "rpow": lambda t, x: 2.0 ** x,
    "reciprocal": lambda t, x: x.reciprocal(),
    "exp": lambda t, x: x.exp(),
    "expm1": lambda t, x: x.expm1(),
    "sqrt": lambda t, x: x.abs().sqrt(),
    "tanh": lambda t, x: x.tanh(),
    "sigmoid": lambda t, x: x.sigmoid(),
    "relu": lambda t, x: x.relu(),
    "std": lambda t, x: x.std(),
    "max": lambda t, x: x.max(),
    "min": lambda t, x: x.min(),
    "logsumexp": lambda t, x: x.logsumexp(1),
    "vector_norm": lambda t, x: t.linalg.vector_norm(x),
    "softmax": lambda t, x: x.softmax(1),
    "log_softmax": lambda t, x: x.log_softmax(1),
}


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_op_that_saves_its_result_has_a_program():
    """The programs above reach every built-in op with ``saves_result``: a new one must be
    added there."""
    reached = set()
    for fn in SAVES_RESULT.values():
        x = mini.tensor(X, requires_grad=True)
        reached.add(type(fn(mini, x).grad_fn)._forward_cls)
    expected = {c for c in _subclasses(Op) if c.saves_result and not c.__name__.startswith("_")}
    assert expected <= reached, sorted(c.__name__ for c in expected - reached)


@pytest.mark.parametrize("fn", SAVES_RESULT.values(), ids=SAVES_RESULT.keys())
def test_backward_frees_the_saved_result(fn):
    """After backward (without retain_graph) the node keeps no output: a second backward
    raises torch's error, and the node holds nothing more."""

    def program(t):
        x = t.tensor(X, requires_grad=True)
        y = fn(t, x).sum()
        y.backward()
        y.backward()

    raises_like_torch(program, "Trying to backward through the graph a second time")
    x = mini.tensor(X, requires_grad=True)
    out = fn(mini, x)
    node = out.grad_fn
    out.sum().backward()
    assert node._result is None and node._packed is None
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        node._saved_result  # noqa: B018 - reading it is the test


@pytest.mark.parametrize("fn", SAVES_RESULT.values(), ids=SAVES_RESULT.keys())
def test_retain_graph_keeps_the_saved_result(fn):
    def program(t):
        x = t.tensor(X, requires_grad=True)
        y = fn(t, x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad

    same_on_both(program)


# ---- a node's post-hook sees gradients fitted to its inputs -------------------------------


def test_post_hook_sees_gradients_of_each_inputs_shape_and_dtype():
    """torch's validate_outputs runs before a node's post-hooks: a (3,) float32 input
    broadcast against a (2, 3) float64 one gets a (3,) float32 gradient in the hook."""

    def program(t):
        seen = []
        a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = t.ones(2, 3, dtype=t.float64, requires_grad=True)
        c = a * b
        c.grad_fn.register_hook(
            lambda grad_inputs, grad_outputs: seen.extend(
                (tuple(g.shape), str(g.dtype).split(".")[-1], g.tolist()) for g in grad_inputs
            )
        )
        (c * t.tensor([1.0, 2.0, 3.0], dtype=t.float64)).sum().backward()
        return seen, a.grad, b.grad

    seen = same_on_both(program)[0]
    assert [s[:2] for s in seen] == [((3,), "float32"), ((2, 3), "float64")]


# ---- the shared tuples of nodes: a bounded cache -------------------------------------------


def test_shared_tuples_are_bounded_and_shared(monkeypatch):
    """Each distinct (shape, dtype) of an output is kept once in ``_SHARED``; past the limit
    the cache starts again rather than grow without end."""
    monkeypatch.setattr(op_module, "_SHARED", {})
    monkeypatch.setattr(op_module, "_SHARED_LIMIT", 4)
    nodes = []
    for n in range(1, 12):
        x = mini.ones(n, requires_grad=True)
        nodes.append(x.exp().grad_fn)
        assert len(op_module._SHARED) <= 4
    y, z = mini.ones(3, requires_grad=True).exp(), mini.ones(3, requires_grad=True).exp()
    assert y.grad_fn._output_meta is z.grad_fn._output_meta
    assert y.grad_fn.needs_input_grad is z.grad_fn.needs_input_grad


def test_shared_tuples_follow_a_replaced_cache(monkeypatch):
    """The ops read the module's ``_SHARED`` when they run, not a method of the dict they saw
    when defined: a cache put in its place is the one filled and shared from."""
    fresh: dict = {}
    monkeypatch.setattr(op_module, "_SHARED", fresh)
    y, z = mini.ones(5, requires_grad=True).exp(), mini.ones(5, requires_grad=True).exp()
    assert y.grad_fn._output_meta in fresh
    assert fresh[y.grad_fn._output_meta] is y.grad_fn._output_meta
    assert y.grad_fn._output_meta is z.grad_fn._output_meta


def test_shared_flags_and_numbers_stay_apart():
    """``(False, True) == (0, 1)`` in Python, with the same hash: a cache shared by both kinds
    of tuple handed a node's edges the flags of another node (``(UnbindBackward0, False)``
    where torch prints ``0``). The types printed are torch's, whichever came first."""

    def program(t):
        t.ones(2) * t.ones(2, requires_grad=True)  # flags (False, True) on miniautograd
        first, second = (t.ones(2, requires_grad=True) * 1.0).unbind()
        pairs = (first * second).grad_fn.next_functions
        alone = (second * 2.0).grad_fn  # flags (True, False), numbers (1, 0)
        return ([type(number).__name__ for _, number in pairs],
                [type(number).__name__ for _, number in alone.next_functions])

    same_on_both(program)
    first, second = (mini.ones(2, requires_grad=True) * 1.0).unbind()
    node = (first * second).grad_fn  # numbers (0, 1) first, then flags (True, True)
    assert [type(flag) for flag in (second * 2.0).grad_fn.needs_input_grad] == [bool, bool]
    assert [type(flag) for flag in node.needs_input_grad] == [bool, bool]
