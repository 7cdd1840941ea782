"""APIs that learners' programs reach for, against torch: ``nn.Sequential`` as a container
(replace, delete, slice, append), the legacy tensor types (``torch.FloatTensor``,
``t.type('torch.DoubleTensor')``) and the errors of binary cross-entropy with logits.
(Its values, graph, gradients and double backward are rows of the op table, ``test_ops.py``.)"""

from __future__ import annotations

import pytest
from helpers import raises_like_torch, same_on_both

# ---- binary cross-entropy with logits: errors and the module --------------------------------


def test_bce_with_logits_shape_mismatch():
    raises_like_torch(
        lambda t: t.nn.functional.binary_cross_entropy_with_logits(t.zeros(3), t.zeros(2)),
        "Target size", "must be the same as input size")


def test_bce_with_logits_bad_reduction():
    raises_like_torch(
        lambda t: t.nn.functional.binary_cross_entropy_with_logits(t.zeros(3), t.zeros(3),
                                                                   reduction="avg"),
        "avg", "not a valid value for reduction")


def test_bce_with_logits_module():
    def program(t):
        loss = t.nn.BCEWithLogitsLoss(pos_weight=t.tensor([2.0, 0.5]))
        logits = t.tensor([[0.3, -1.2], [2.0, 0.1]], requires_grad=True)
        value = loss(logits, t.tensor([[1.0, 0.0], [0.0, 1.0]]))
        value.backward()
        return (repr(loss), type(value.grad_fn).__name__, value, logits.grad,
                sorted(loss.state_dict()))

    same_on_both(program)


@pytest.mark.parametrize("name", ["weight", "pos_weight"])
def test_bce_with_logits_weights_are_not_differentiable(name):
    raises_like_torch(
        lambda t: t.nn.functional.binary_cross_entropy_with_logits(
            t.zeros(3, requires_grad=True), t.zeros(3), **{name: t.ones(3, requires_grad=True)}),
        f"not differentiable with respect to argument '{name}'")
