"""What step 7 of the guided build must do (chapter 7), checked against PyTorch: log(),
negation, subtraction, x[i] and broadcasting undone, then REINFORCE on the three-armed bandit
of chapter 7, run on the reader's engine and on PyTorch with the same draws."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from .checks import MismatchError, expect
from .step1_checks import X, Y, mine
from .step3_checks import torch_leaves

REWARDS = np.array([1.0, 2.0, 4.0])  # chapter 7's bandit: the best arm starts least likely
THETA0 = np.array([1.0, 0.5, -0.5])
STEPS, LR, SEED = 300, 0.1, 0
SOLVED = 0.9  # the probability of the best arm that counts as solved


def compare(m: ModuleType, what: str, program, *values) -> None:
    """`program` on the reader's leaves and on PyTorch's: the value and every gradient."""
    ours, theirs = mine(m, *values), torch_leaves(*values)
    out, torch_out = program(*ours), program(*theirs)
    expect(f"{what}", out.data, torch_out.detach().numpy())
    out.backward()
    torch_out.backward()
    for i, (leaf, torch_leaf) in enumerate(zip(ours, theirs, strict=True)):
        if leaf.grad is None:
            raise MismatchError(f"the gradient of {what} for input {i}: PyTorch's is "
                                f"{torch_leaf.grad.numpy()}, got None: no gradient reached it "
                                "(is every operation on the way recorded?)")
        expect(f"the shape of the gradient of {what} for input {i}, PyTorch's (the input's)",
               np.shape(leaf.grad), tuple(torch_leaf.grad.shape))
        expect(f"the gradient of {what} for input {i}, PyTorch's", leaf.grad,
               torch_leaf.grad.numpy())


def log_neg_sub(m: ModuleType) -> None:
    compare(m, "((x * x + 1.0).log() - y).sum()", lambda x, y: ((x * x + 1.0).log() - y).sum(),
            X, Y)
    compare(m, "(-x * y).sum()", lambda x, y: (-x * y).sum(), X, Y)
    compare(m, "(2.0 - x).sum()", lambda x: (2.0 - x).sum(), X)
    compare(m, "((x * x + 1.0).log() * y).sum()", lambda x, y: ((x * x + 1.0).log() * y).sum(),
            X, Y)


COLUMN = [[1.0], [-2.0], [0.5]]  # (3, 1): stretched along its size-1 axis
MATRIX = [[1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 4.0, 5.0], [0.5, -1.0, 1.5, 2.0]]  # (3, 4)
ROWS = [[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]]  # (2, 3): a (3,) vector gains a leading axis


def broadcasting(m: ModuleType) -> None:
    compare(m, "((x - s) * s).sum(), s a scalar", lambda x, s: ((x - s) * s).sum(), X, 1.5)
    compare(m, "(x * s.exp()).sum(), s a scalar", lambda x, s: (x * s.exp()).sum(), X, 0.5)
    compare(m, "(c * a).sum(), c of shape (3, 1), a of shape (3, 4)",
            lambda c, a: (c * a).sum(), COLUMN, MATRIX)
    compare(m, "(v * r).sum(), v of shape (3,), r of shape (2, 3)",
            lambda v, r: (v * r).sum(), X, ROWS)
    compare(m, "(c * b).sum(), c of shape (3, 1), b of shape (2, 3, 4)",
            lambda c, b: (c * b).sum(), COLUMN, [MATRIX, MATRIX[::-1]])
    function_broadcasts(m)


def function_broadcasts(m: ModuleType) -> None:
    """A Function whose backward returns the output's shape for a number: the node sums it,
    as PyTorch's engine does for every node (a custom Function's too)."""
    import torch

    def times(base, tensor, values):
        class Times(base):
            @staticmethod
            def forward(ctx, s, v):
                ctx.save_for_backward(s, v)
                return tensor(values(s) * values(v))

            @staticmethod
            def backward(ctx, grad):
                s, v = ctx.saved_tensors
                return grad * values(v), grad * values(s)  # the first of the output's shape

        return Times

    s, v = mine(m, 2.0, X)
    times(m.Function, m.Tensor, lambda t: t.data).apply(s, v).sum().backward()
    ts, tv = torch_leaves(2.0, X)
    times(torch.autograd.Function, lambda t: t, lambda t: t).apply(ts, tv).sum().backward()
    expect("s.grad of Times.apply(s, v).sum(), s a number, v a vector, Times a Function whose "
           "backward returns a vector for s (PyTorch's engine sums it)", s.grad,
           ts.grad.numpy())


def index(m: ModuleType) -> None:
    compare(m, "x[2]", lambda x: x[2], X)
    compare(m, "x[0] * x[2] + y[1]", lambda x, y: x[0] * x[2] + y[1], X, Y)


def log_softmax(program_theta):
    return program_theta - program_theta.exp().sum().log()


def score(m: ModuleType) -> None:
    import torch

    for action in range(3):
        (theta,) = mine(m, THETA0)
        log_softmax(theta)[action].backward()
        (torch_theta,) = torch_leaves(THETA0)
        torch.distributions.Categorical(logits=torch_theta).log_prob(
            torch.tensor(action)).backward()
        expect(f"the gradient of log pi(a = {action}) = (theta - theta.exp().sum().log())"
               f"[{action}], Categorical(logits=theta).log_prob's", theta.grad,
               torch_theta.grad.numpy())


def reinforce(engine, theta, values) -> np.ndarray:
    """REINFORCE with one sample per update, on `engine` (the reader's module, or torch): the
    surrogate -f(a) log pi(a), its gradient, a step. `values(t)` is t's array. The draws come
    from one NumPy generator, seeded alike for both engines, so both pull the same arms."""
    rng = np.random.default_rng(SEED)
    for _ in range(STEPS):
        log_probs = log_softmax(theta)
        probs = np.exp(values(log_probs))
        action = int(rng.choice(3, p=probs / probs.sum()))
        surrogate = log_probs[action] * -REWARDS[action]
        theta.grad = None
        surrogate.backward()
        with engine.no_grad():
            theta.add_(theta.grad * -LR)
    return np.exp(values(log_softmax(theta)))


def bandit(m: ModuleType) -> None:
    import torch

    probs = reinforce(m, m.Tensor(THETA0, requires_grad=True), lambda t: t.data)
    torch_probs = reinforce(torch, torch.tensor(THETA0, requires_grad=True),
                            lambda t: t.detach().numpy())
    expect(f"the policy after {STEPS} REINFORCE updates, PyTorch's with the same draws", probs,
           torch_probs)
    if probs[2] <= SOLVED:
        raise MismatchError(f"the probability of the best arm after {STEPS} updates: expected "
                            f"more than {SOLVED}, got {probs[2]:.3f}")


CHECKS = [
    ("log(), negation and subtraction, with PyTorch's gradients", log_neg_sub),
    ("broadcasting undone: each input's gradient summed back to its own shape", broadcasting),
    ("x[i] of a vector, and its gradient", index),
    ("the score function: the gradient of a log-softmax entry, Categorical's", score),
    ("REINFORCE on chapter 7's three-armed bandit: PyTorch's policy, and the best arm",
     bandit),
]
