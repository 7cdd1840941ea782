"""``miniautograd.utils.data`` against ``torch.utils.data``: the same batches, in the same order,
from the same seeds, and the default generator left where torch leaves it (d2l's ``load_array``
and the courses' training loops shuffle with ``DataLoader(..., shuffle=True)``)."""

from __future__ import annotations

from collections import namedtuple
from types import ModuleType

import numpy as np
import pytest
import torch
import torch.utils.data as torch_data

import miniautograd as mini
import miniautograd.utils.data as mini_data

ENGINES = [(torch, torch_data), (mini, mini_data)]
Point = namedtuple("Point", "x y")


def _batches(loader) -> list:
    return [[t.tolist() for t in batch] for batch in loader]


def _passes(engine: ModuleType, data: ModuleType, passes: int = 2, **options) -> list:
    """Two passes over a 10-sample loader, then what the default generator draws next."""
    engine.manual_seed(0)
    dataset = data.TensorDataset(engine.arange(20.).reshape(10, 2), engine.arange(10))
    loader = data.DataLoader(dataset, **options)
    return [_batches(loader) for _ in range(passes)] + [len(loader), engine.randn(3).tolist()]


@pytest.mark.parametrize("options", [
    {"batch_size": 3, "shuffle": True},
    {"batch_size": 4, "shuffle": True, "drop_last": True},
    {"batch_size": 3},
    {"batch_size": 10, "shuffle": True},
    {"batch_size": 3, "shuffle": True, "num_workers": 2},
], ids=["shuffle", "drop_last", "in-order", "one-batch", "workers"])
def test_batches_and_the_generator_after_them_are_torchs(options):
    assert _passes(mini, mini_data, **options) == _passes(torch, torch_data, **options)


def test_a_loader_with_its_own_generator_draws_only_from_it():
    def run(engine, data):
        engine.manual_seed(0)
        g = engine.Generator().manual_seed(42)
        loader = data.DataLoader(data.TensorDataset(engine.arange(10)), batch_size=4,
                                 shuffle=True, generator=g)
        return [_batches(loader), _batches(loader), engine.randn(2).tolist(),
                engine.randn(2, generator=g).tolist()]
    assert run(mini, mini_data) == run(torch, torch_data)


def test_without_batching_a_loader_yields_converted_samples():
    def run(engine, data):
        engine.manual_seed(1)
        loader = data.DataLoader(data.TensorDataset(engine.arange(5)), batch_size=None,
                                 shuffle=True)
        return [[t.tolist() for t in sample] for sample in loader]
    assert run(mini, mini_data) == run(torch, torch_data)


def test_sampling_with_replacement_draws_torchs_indices():
    def run(engine, data):
        engine.manual_seed(3)
        return list(data.RandomSampler(range(7), replacement=True, num_samples=70))
    assert run(mini, mini_data) == run(torch, torch_data)


def _described(value) -> object:
    if isinstance(value, (torch.Tensor, mini.Tensor)):
        return (str(value.dtype).split(".")[1], value.tolist())
    if isinstance(value, dict):
        return {key: _described(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_described(v) for v in value])
    return value


@pytest.mark.parametrize("batch", [
    [(1.0, 2, np.array([1.0, 2.0])), (3.0, 4, np.array([3.0, 4.0]))],
    [{"a": np.float32(1.5), "b": "x"}, {"a": np.float32(2.5), "b": "y"}],
    [Point(1, 2.0), Point(3, 4.0)],
    [[1, 2], [3, 4]],
    [True, False],
], ids=["tuples", "dicts", "namedtuples", "lists", "bools"])
def test_default_collate_builds_torchs_batch(batch):
    assert _described(mini_data.default_collate(batch)) == _described(
        torch_data.default_collate(batch))


def test_default_collate_stacks_tensors():
    batch = mini_data.default_collate([mini.ones(2), mini.zeros(2)])
    assert batch.shape == (2, 2) and batch.tolist() == [[1.0, 1.0], [0.0, 0.0]]


@pytest.mark.parametrize("make", [
    lambda d, e: d.TensorDataset(e.zeros(3), e.zeros(4)),
    lambda d, e: d.DataLoader(e.zeros(3), sampler=[0, 1], shuffle=True),
    lambda d, e: d.DataLoader(e.zeros(3), batch_sampler=[[0]], batch_size=2),
    lambda d, e: d.DataLoader(e.zeros(3), batch_size=0),
    lambda d, e: d.DataLoader(e.zeros(3), batch_size=None, drop_last=True),
    lambda d, e: d.RandomSampler(range(3), num_samples=0),
    lambda d, e: d.default_collate([[1, 2], [3]]),
    lambda d, e: d.default_collate([object()]),
], ids=["size-mismatch", "sampler-and-shuffle", "batch-sampler-and-size", "batch-size-0",
        "no-batching-drop-last", "no-samples", "ragged-lists", "unknown-type"])
def test_misuse_raises_torchs_exception_class(make):
    with pytest.raises(Exception) as expected:
        make(torch_data, torch)
    with pytest.raises(expected.type):
        make(mini_data, mini)


def test_a_dataset_subclass_needs_getitem():
    with pytest.raises(NotImplementedError):
        mini_data.Dataset()[0]
