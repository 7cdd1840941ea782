"""Each speed trick of the engine beside its readable path: both give torch's results.

- ``w -= u`` under no_grad (the update of a training step) computes into ``w``'s storage when
  ``u`` is a tensor of ``w``'s shape and dtype (``ops/inplace._update``); anything else goes
  through the general in-place path (``in_place``: the op, then its result written back).
- A gradient that already fits its input is passed on as it is; one that does not is summed
  back over broadcast dimensions or cast (``engine.fit_gradient``).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import same_on_both

import miniautograd as mini
from miniautograd.ops import inplace

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
