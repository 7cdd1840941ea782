"""``miniautograd.distributions.Categorical`` against ``torch.distributions.Categorical``.

Compared: the normalised parameters, the samples drawn after the same seed (the random stream
is torch's), ``log_prob`` and ``entropy`` with their gradients (``check_op``, double backward
included), the REINFORCE loss's gradient through a policy network, and the errors a learner
meets (NaN logits after a NaN update, actions out of range, wrong arguments).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import NoGrad, check_op
from hypothesis import given, settings
from hypothesis import strategies as st

import miniautograd as mini
from miniautograd import distributions

LOGITS = np.random.default_rng(7).normal(size=(5, 3)) * 2
PROBS = np.random.default_rng(8).uniform(0.1, 2.0, size=(4, 3))  # unnormalised weights
ACTIONS = NoGrad(np.array([[0, 2, 1, 1, 0], [2, 2, 0, 1, 1]], dtype=np.int64))  # (2,) + batch
ENGINES = {
    "torch": (torch, torch.distributions.Categorical),
    "mini": (mini, distributions.Categorical),
}


def draw(engine: str, seed: int, sample_shape: tuple, *, logits=None, probs=None, dtype=np.float32):
    """Samples of one engine after ``manual_seed(seed)``, as a numpy array."""
    module, categorical = ENGINES[engine]
    module.manual_seed(seed)
    kwargs = {"logits": logits} if logits is not None else {"probs": probs}
    dist = categorical(**{k: module.tensor(np.asarray(v, dtype)) for k, v in kwargs.items()})
    return dist.sample(sample_shape).numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sample_shape", [(), (1,), (7,), (2, 3)])
@pytest.mark.parametrize("param", ["logits", "probs"])
def test_samples_are_torchs_after_the_same_seed(param, sample_shape, dtype) -> None:
    values = {"logits": LOGITS, "probs": PROBS}[param]
    mine = draw("mini", 11, sample_shape, dtype=dtype, **{param: values})
    theirs = draw("torch", 11, sample_shape, dtype=dtype, **{param: values})
    assert mine.dtype == theirs.dtype == np.int64
    assert mine.shape == theirs.shape
    np.testing.assert_array_equal(mine, theirs)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    batch=st.integers(1, 64),
    classes=st.integers(2, 6),
    scale=st.floats(0.1, 5.0),
)
def test_policy_sampling_matches_torch_step_after_step(seed, batch, classes, scale) -> None:
    """A rollout's pattern: a new distribution per step, one action per state, 20 steps."""
    logits = np.random.default_rng(seed).normal(size=(20, batch, classes)) * scale
    actions = {}
    for engine, (module, categorical) in ENGINES.items():
        module.manual_seed(seed)
        actions[engine] = [
            categorical(logits=module.tensor(step.astype(np.float32))).sample().numpy()
            for step in logits
        ]
    np.testing.assert_array_equal(np.stack(actions["mini"]), np.stack(actions["torch"]))


def test_sampling_consumes_the_random_stream_like_torch() -> None:
    """What runs after a sample (here randn) sees the same generator state in both."""
    after = {}
    for engine, (module, categorical) in ENGINES.items():
        module.manual_seed(5)
        categorical(logits=module.tensor(LOGITS.astype(np.float32))).sample((3,))
        categorical(logits=module.tensor(LOGITS.astype(np.float32))).sample()
        after[engine] = module.randn(4, 4).numpy()
    np.testing.assert_array_equal(after["mini"], after["torch"])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("param", ["logits", "probs"])
def test_normalised_parameters(param, dtype) -> None:
    values = {"logits": LOGITS, "probs": PROBS}[param]
    for name in ("probs", "logits"):
        check_op(
            [values],
            lambda t, x, name=name: getattr(
                t.distributions.Categorical(**{param: x}), name),
            dtype=dtype, graph=False,
        )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    ("param", "values", "actions"),
    [
        ("logits", LOGITS, NoGrad(np.array([0, 2, 1, 1, 0], dtype=np.int64))),
        ("logits", LOGITS, ACTIONS),  # a (2,) sample of the (5,) batch
        ("logits", LOGITS[0], NoGrad(np.array(2, dtype=np.int64))),  # one state, one action
        ("logits", LOGITS[0], NoGrad(np.array([2, 0, 0], dtype=np.int64))),  # 3 samples, 1 state
        ("probs", PROBS, NoGrad(np.array([1, 1, 0, 2], dtype=np.int64))),
        ("logits", LOGITS[:, None], NoGrad(np.array([0, 1], dtype=np.int64))),  # broadcasting
    ],
    ids=["batch", "sample_and_batch", "scalar", "samples_of_one", "probs", "broadcast"],
)
def test_log_prob_and_its_gradient(param, values, actions, dtype) -> None:
    check_op(
        [values, actions],
        lambda t, x, a: t.distributions.Categorical(**{param: x}).log_prob(a),
        dtype=dtype, graph=False,
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("param", ["logits", "probs"])
def test_entropy_and_its_gradient(param, dtype) -> None:
    values = {"logits": LOGITS, "probs": PROBS}[param]
    check_op([values], lambda t, x: t.distributions.Categorical(**{param: x}).entropy(),
             dtype=dtype, graph=False)


def test_entropy_with_an_impossible_outcome_is_finite() -> None:
    """p = 0 gives logits -inf; torch clamps them to finfo.min so that 0 * log 0 counts as 0."""
    probs = np.array([0.0, 0.25, 0.75])
    check_op([NoGrad(probs)], lambda t, p: t.distributions.Categorical(probs=p).entropy(),
             graph=False)
    logits = np.array([-np.inf, 0.0, 1.0])
    check_op([NoGrad(logits)], lambda t, x: t.distributions.Categorical(logits=x).entropy(),
             graph=False)


def test_reinforce_loss_gradient_through_a_policy_matches_torch() -> None:
    """``-(log_prob(actions) * returns).sum()`` through Linear-ReLU-Linear: same gradients."""
    rng = np.random.default_rng(3)
    states = rng.normal(size=(32, 4)).astype(np.float32)
    returns = rng.normal(size=32).astype(np.float32)
    grads = {}
    for engine, (module, categorical) in ENGINES.items():
        module.manual_seed(0)
        policy = module.nn.Sequential(module.nn.Linear(4, 16), module.nn.ReLU(),
                                      module.nn.Linear(16, 2))
        dist = categorical(logits=policy(module.tensor(states)))
        actions = dist.sample()
        loss = -(dist.log_prob(actions) * module.tensor(returns)).sum()
        loss.backward()
        grads[engine] = [p.grad.numpy() for p in policy.parameters()]
    for mine, theirs in zip(grads["mini"], grads["torch"], strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=2e-5, atol=2e-6)


def test_shapes_mode_and_support() -> None:
    for module, categorical in ENGINES.values():
        dist = categorical(logits=module.tensor(LOGITS))
        assert tuple(dist.batch_shape) == (5,)
        assert tuple(dist.event_shape) == ()
        assert tuple(dist.param_shape) == (5, 3)
        assert tuple(dist.sample((2, 3)).shape) == (2, 3, 5)
        assert dist.mode.tolist() == LOGITS.argmax(-1).tolist()
        assert dist.enumerate_support().tolist() == [[k] * 5 for k in range(3)]
        assert tuple(dist.enumerate_support(expand=False).shape) == (3, 1)
        assert np.isnan(dist.mean.numpy()).all()
        assert tuple(dist.variance.shape) == (5,)
        assert repr(dist.support) == "IntegerInterval(lower_bound=0, upper_bound=2)"


def test_repr_names_the_given_parameter() -> None:
    dist = distributions.Categorical(logits=mini.tensor([0.5, 0.5]))
    assert repr(dist) == "Categorical(logits: miniautograd.Size([2]))"
    assert repr(torch.distributions.Categorical(logits=torch.tensor([0.5, 0.5]))) == (
        "Categorical(logits: torch.Size([2]))")


def raised(fn) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


@pytest.mark.parametrize(
    ("program", "message"),
    [
        (lambda t, cat: cat(logits=t.tensor([float("nan"), 0.0])), "to satisfy the constraint"),
        (lambda t, cat: cat(probs=t.tensor([-0.5, 1.5])), "to satisfy the constraint Simplex()"),
        (lambda t, cat: cat(logits=t.tensor([0.0, 1.0])).log_prob(t.tensor([2])),
         "to be within the support (IntegerInterval(lower_bound=0, upper_bound=1))"),
        (lambda t, cat: cat(logits=t.tensor([0.0, 1.0])).log_prob(1), "must be a Tensor"),
        (lambda t, cat: cat(logits=t.zeros(3, 2)).log_prob(t.tensor([0, 1])), "not broadcastable"),
        (lambda t, cat: cat(logits=t.tensor(1.0)), "at least one-dimensional"),
        (lambda t, cat: cat(probs=t.tensor([0.5, 0.5]), logits=t.tensor([0.0, 0.0])),
         "but not both"),
        (lambda t, cat: cat(), "but not both"),
    ],
    ids=["nan_logits", "negative_probs", "action_out_of_range", "not_a_tensor",
         "not_broadcastable", "zero_dim", "both", "neither"],
)
def test_errors_are_torchs(program, message) -> None:
    theirs = raised(lambda: program(torch, torch.distributions.Categorical))
    mine = raised(lambda: program(mini, distributions.Categorical))
    assert mine[0] is theirs[0] is ValueError
    assert message in theirs[1]
    assert message in mine[1]


def test_nan_logits_error_says_what_to_do() -> None:
    _, message = raised(lambda: distributions.Categorical(logits=mini.tensor([float("nan")] * 2)))
    assert "IndependentConstraint(Real(), 1)" in message
    assert "optimizer.step()" in message


def test_sample_shape_must_be_a_tuple() -> None:
    for module, categorical in ENGINES.values():
        with pytest.raises(TypeError):
            categorical(logits=module.zeros(2)).sample(5)


def test_validation_can_be_switched_off() -> None:
    for module, categorical in ENGINES.values():
        dist = categorical(logits=module.tensor([float("nan"), 0.0]), validate_args=False)
        assert np.isnan(dist.logits.detach().numpy()).all()
    distributions.Distribution.set_default_validate_args(False)
    try:
        distributions.Categorical(logits=mini.tensor([float("nan"), 0.0]))
    finally:
        distributions.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError, match="constraint"):
        distributions.Categorical(logits=mini.tensor([float("nan"), 0.0]))


def test_probs_from_logits_stay_differentiable_inside_no_grad() -> None:
    """torch's lazy properties compute with grad enabled; so do these."""
    for module, categorical in ENGINES.values():
        logits = module.tensor(LOGITS, requires_grad=True)
        dist = categorical(logits=logits)
        with module.no_grad():
            probs = dist.probs
        assert probs.requires_grad


def graph_names(tensor) -> list[str]:
    names, stack = [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None:
            names.append(node.name().removeprefix("torch::autograd::"))
            stack.extend(child for child, _ in node.next_functions)
    return names


@pytest.mark.parametrize("sample_shape", [(), (3,)])
def test_log_prob_graph_is_torchs(sample_shape) -> None:
    names = {}
    for engine, (module, categorical) in ENGINES.items():
        logits = module.tensor(LOGITS, requires_grad=True)
        dist = categorical(logits=logits)
        names[engine] = graph_names(dist.log_prob(dist.sample(sample_shape)))
    assert names["mini"] == names["torch"]
    assert "GatherBackward0" in names["mini"] and "LogsumexpBackward0" in names["mini"]


def test_on_each_device_samples_and_log_probs_match_the_cpu(device: str) -> None:
    """On a GPU the draw still replays the CPU stream (torch's CUDA generator is another one),
    and the results live on the parameters' device."""
    results = {}
    for where in ("cpu", device):
        mini.manual_seed(3)
        logits = mini.tensor(LOGITS, device=where, requires_grad=True)
        dist = distributions.Categorical(logits=logits)
        actions = dist.sample((4,))
        log_probs = dist.log_prob(actions)
        log_probs.sum().backward()
        assert actions.device.type == log_probs.device.type == logits.grad.device.type == where
        results[where] = (actions.cpu().numpy(), log_probs.detach().cpu().numpy(),
                          logits.grad.cpu().numpy())
    for mine, reference in zip(results[device], results["cpu"], strict=True):
        np.testing.assert_allclose(mine, reference, rtol=1e-12, atol=1e-12)
