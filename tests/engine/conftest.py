"""Fixtures shared by the engine tests: the device every cross-check runs on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
from threadpoolctl import threadpool_limits

import miniautograd

DEVICES = ["cpu", "cuda"]


@pytest.fixture(params=DEVICES)
def device(request: pytest.FixtureRequest) -> str:
    """Each test that takes ``device`` runs on the CPU, and on a CUDA GPU where CuPy sees one."""
    if request.param == "cuda" and not miniautograd.cuda.is_available():
        pytest.skip("no CUDA GPU / CuPy")
    return request.param


@pytest.fixture(autouse=True, scope="module")
def single_threaded_blas() -> Iterator[None]:
    """One BLAS thread for torch and numpy: the same summation order on every machine, and no
    threads spinning against each other on a small shared CI box (10x faster there)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with threadpool_limits(limits=1):
        yield
    torch.set_num_threads(threads)
