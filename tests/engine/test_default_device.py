"""``accelerator`` and ``set_default_device``/``get_default_device`` against torch, and the
current tutorials' first lines, which use them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import torch

import miniautograd as mini
from miniautograd import _backend

# torch's build has a GPU backend exactly when miniautograd's has one (CuPy installed): then
# the two must answer alike. (A CPU torch beside CuPy, or the reverse, is a mixed machine.)
SAME_BUILD = (torch.version.cuda is not None) == (_backend._cupy is not None)


@pytest.fixture(autouse=True)
def default_device_restored() -> Iterator[None]:
    """Every test leaves both libraries creating on the CPU, as it found them."""
    yield
    torch.set_default_device(None)
    mini.set_default_device(None)


def test_accelerator_answers_as_the_build_does():
    accelerator = mini.accelerator.current_accelerator()
    if _backend._cupy is None:
        assert accelerator is None  # a CPU-only build, like torch's CPU wheel
    else:
        assert accelerator == mini.device("cuda") and accelerator.index is None
    assert mini.accelerator.is_available() == mini.cuda.is_available()
    assert mini.accelerator.device_count() == mini.cuda.device_count()
    available = mini.accelerator.current_accelerator(check_available=True)
    assert (available is not None) == mini.accelerator.is_available()


@pytest.mark.skipif(not SAME_BUILD, reason="torch and miniautograd differ in GPU support here")
def test_accelerator_matches_torch():
    for check in (False, True):
        expected = torch.accelerator.current_accelerator(check_available=check)
        got = mini.accelerator.current_accelerator(check_available=check)
        assert repr(got) == repr(expected)
    assert mini.accelerator.is_available() == torch.accelerator.is_available()
    assert mini.accelerator.device_count() == torch.accelerator.device_count()


def _tutorial(t: Any) -> list:
    """The first lines of PyTorch's current tutorials, then a small model on that device."""
    device = t.accelerator.current_accelerator().type if t.accelerator.is_available() else "cpu"
    t.set_default_device(device)
    t.manual_seed(0)
    model = t.nn.Sequential(t.nn.Linear(3, 2), t.nn.Tanh())
    x = t.randn(4, 3)
    loss = model(x).sum()
    loss.backward()
    return [device, str(t.get_default_device()), str(x.device), str(model[0].weight.device),
            round(loss.item(), 4)]


@pytest.mark.skipif(not SAME_BUILD, reason="torch and miniautograd differ in GPU support here")
def test_the_tutorials_header_runs_and_picks_torchs_device():
    expected, got = _tutorial(torch), _tutorial(mini)
    assert got == expected


@pytest.mark.parametrize("device", ["cpu", "cpu:0", "CPU-object", None])
def test_set_and_get_default_device(device):
    values = []
    for t in (torch, mini):
        t.set_default_device(t.device("cpu") if device == "CPU-object" else device)
        created = [t.zeros(2), t.ones(2), t.tensor([1.0]), t.arange(3), t.randn(2), t.eye(2),
                   t.full((2,), 1.0), t.linspace(0, 1, 3), t.rand(2), t.randint(3, (2,)),
                   t.empty(2), t.as_tensor([1.0]), t.randperm(3)]
        values.append([repr(t.get_default_device()), *[str(c.device) for c in created]])
    assert values[1] == values[0]


@pytest.mark.skipif(mini.cuda.is_available(), reason="checks the machine without a GPU")
def test_cuda_by_default_without_a_gpu_fails_when_a_tensor_is_created():
    """torch fails too (its CPU wheel with an AssertionError, its CUDA wheel without a driver
    with a RuntimeError); miniautograd's RuntimeError says what to install or use instead."""
    mini.set_default_device("cuda")  # setting it is allowed, as in torch
    with pytest.raises(RuntimeError, match=r"CUDA is not available.*device='cpu'"):
        mini.zeros(2)
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        mini.nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        mini.get_default_device()
    torch.set_default_device("cuda")
    with pytest.raises((AssertionError, RuntimeError)):
        torch.zeros(2)


@pytest.mark.skipif(mini.cuda.is_available(), reason="checks the machine without a GPU")
def test_like_functions_and_from_numpy_follow_their_input_not_the_default():
    results = []
    for t in (torch, mini):
        cpu = t.ones(2)
        t.set_default_device("cuda")
        results.append([str(t.zeros_like(cpu).device), str(t.randn_like(cpu).device),
                        str(t.from_numpy(np.ones(2)).device), str((cpu * 2).device)])
    assert results[1] == results[0] == [["cpu"] * 4][0]


def test_an_unknown_device_is_refused():
    for t in (torch, mini):
        with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
            t.set_default_device("tpu")
