"""Fixtures shared by the engine tests: the device every cross-check runs on."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
import standin_device
import torch
from threadpoolctl import threadpool_limits

import miniautograd

# MINIAUTOGRAD_TEST_DEVICES=cuda runs the cross-checks on the GPU only (scripts/cuda-check.sh);
# unset, they run on the CPU, on the stand-in device (standin_device.py: CuPy's refusal of
# host arrays, on the CPU), and on a CUDA GPU where CuPy sees one.
REQUESTED = os.environ.get("MINIAUTOGRAD_TEST_DEVICES", "")
DEVICES = REQUESTED.split(",") if REQUESTED else ["cpu", "standin", "cuda"]


@pytest.fixture(params=DEVICES)
def device(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The device a cross-check runs on, for both engines. Asked for by name, a missing GPU is
    a failure (the CUDA leg must not pass by skipping); otherwise it is a skip. The stand-in
    takes CuPy's place for one test: miniautograd's "cuda" is then its arrays."""
    if request.param == "standin":
        monkeypatch.setattr(miniautograd._backend, "_cupy", standin_device.cupy)
        monkeypatch.setitem(sys.modules, "cupyx", standin_device.cupyx)
        return "cuda"
    if request.param == "cuda" and not miniautograd.cuda.is_available():
        if REQUESTED:
            pytest.fail("MINIAUTOGRAD_TEST_DEVICES asks for cuda, but CuPy sees no CUDA GPU")
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
