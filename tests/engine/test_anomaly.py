"""Anomaly detection against torch's: the warning that names the failing node with the stack of
the forward call that made it, the hint the in-place error then gives, check_nan's error, and
detect_anomaly's own warning."""

from __future__ import annotations

import warnings
from typing import Any

import torch

import miniautograd as mini


def _caught(caught: list) -> list:
    """Each warning's class, first line and the lines of this file's code in its stack."""
    found = []
    for warning in caught:
        first, _, stack = str(warning.message).partition("\n")
        mine = [line.strip() for line in stack.splitlines()
                if line.strip().startswith(("loss = ", "y = "))]
        found.append((warning.category.__name__, first, mine))
    return found


def _inplace_error_in_anomaly_mode(t: Any) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with t.autograd.set_detect_anomaly(True, check_nan=False):
            x = t.tensor([1.0, 2.0], requires_grad=True)
            r = x * 2
            loss = (r**3).sum()
            r.mul_(2)
            try:
                loss.backward()
            except RuntimeError as error:
                hint = str(error)[str(error).index("Hint: the backtrace"):]
    return [hint, t.is_anomaly_enabled(), *_caught(caught)]


def _nan_in_anomaly_mode(t: Any) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with t.autograd.detect_anomaly():
            x = t.tensor([0.0], requires_grad=True)
            y = (x.sqrt() * 0).sum()
            try:
                y.backward()
            except RuntimeError as error:
                message = str(error)
    return [message, *_caught(caught)]


def test_a_failing_backward_names_its_forward_call_as_torch_does():
    found = _inplace_error_in_anomaly_mode(mini)
    assert found == _inplace_error_in_anomaly_mode(torch)
    assert found[2][2] == ["loss = (r**3).sum()"]  # the forward line that made PowBackward0


def test_check_nan_raises_where_a_backward_returns_nan_as_torch_does():
    found = _nan_in_anomaly_mode(mini)
    assert found == _nan_in_anomaly_mode(torch)
    assert found[0] == "Function 'SqrtBackward0' returned nan values in its 0th output."


def test_anomaly_mode_is_off_again_after_its_block():
    for t in (torch, mini):
        with t.autograd.set_detect_anomaly(True):
            assert t.is_anomaly_enabled()
        assert not t.is_anomaly_enabled()
