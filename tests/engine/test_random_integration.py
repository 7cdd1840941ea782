"""Same seed, same numbers: miniautograd's public random functions and layer initialisation
reproduce torch's CPU generator bit for bit (exact equality, never a tolerance)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import miniautograd as mini

SEEDS = [0, 1, 42, 2**31 + 7]


def exactly(mine, theirs) -> None:
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(mine.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(mine.detach().cpu().numpy(), theirs.detach().numpy())


def both(program) -> None:
    """Run ``program(t)`` after the same seed on both engines; every returned tensor must match."""
    for seed in SEEDS:
        torch.manual_seed(seed)
        theirs = program(torch)
        mini.manual_seed(seed)
        mine = program(mini)
        for m, t in zip(mine, theirs, strict=True):
            exactly(m, t)


def test_randn_rand_randint_sequence():
    both(lambda t: [t.randn(3, 4), t.rand(5), t.randint(0, 10, (7,)), t.randn(2, 3),
                    t.randint(5, (2, 2)), t.rand(2, 3, dtype=t.float64),
                    t.randn(17, dtype=t.float64), t.randint(-3, 3, (4,))])


def test_odd_sizes_and_tuples():
    both(lambda t: [t.randn(1), t.randn((15,)), t.randn(16), t.randn(17), t.rand(33),
                    t.randn(()), t.rand(0), t.randn(3, 5, 7)])


def test_like_functions():
    def program(t):
        base = t.zeros(3, 4, dtype=t.float64)
        return [t.randn_like(base), t.rand_like(base), t.randn_like(t.zeros(5))]

    both(program)


def test_in_place_initialisers():
    both(lambda t: [t.empty(4, 3).uniform_(-0.5, 0.5), t.zeros(2, 5).normal_(1.0, 2.0),
                    t.ones(10).uniform_()])


def test_randperm():
    both(lambda t: [t.randperm(10), t.randperm(1), t.randperm(100)])


@pytest.mark.parametrize(("fan_in", "fan_out"), [(1000, 100), (100, 10), (3, 2), (1, 1)])
def test_linear_initialisation(fan_in, fan_out):
    both(lambda t: [t.nn.Linear(fan_in, fan_out).weight, t.nn.Linear(fan_in, fan_out).bias,
                    t.randn(2)])


def test_linear_without_bias_and_sequential():
    def program(t):
        model = t.nn.Sequential(t.nn.Linear(4, 8), t.nn.ReLU(), t.nn.Linear(8, 2, bias=False))
        return [*model.parameters(), t.rand(3)]

    both(program)


def test_dropout_masks():
    def program(t):
        x = t.ones(1000)
        layer = t.nn.Dropout(0.3)
        return [t.nn.functional.dropout(x, 0.5), layer(x), t.nn.functional.dropout(x, 0.1),
                t.randn(3)]

    both(program)


def test_manual_seed_restarts_the_stream():
    mini.manual_seed(3)
    first = mini.randn(5)
    mini.randn(100)
    mini.manual_seed(3)
    exactly(mini.randn(5), torch.tensor(first.numpy()))
    assert mini.initial_seed() == torch.manual_seed(3).initial_seed()


def test_random_tensors_on_device(device):
    torch.manual_seed(0)
    theirs = torch.randn(4, 3)
    mini.manual_seed(0)
    mine = mini.randn(4, 3, device=device)
    assert mine.device.type == device
    exactly(mine, theirs)
