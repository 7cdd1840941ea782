"""Where torch's own behaviour changes within the range of releases the book supports.

The book runs on every torch from the one Colab ships (tests/colab-requirements.txt) to the
newest release (tests/newest-torch.txt); its pages are executed on the pinned one
(requirements.txt), and miniautograd follows the pinned release. Each change below is a row of
companion/README.md's "torch across versions" table and a test of test_torch_versions.py that
runs on every torch: miniautograd keeps the pinned release's behaviour, torch shows that of its
own release. A cross-check that meets a change is skipped on the releases that behave unlike
the pinned one, naming that test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from packaging.version import Version

TORCH = Version(torch.__version__).release
REQUIREMENTS = Path(__file__).resolve().parents[1] / "requirements.txt"
PINNED = Version(re.search(r"^torch==(\S+)", REQUIREMENTS.read_text(), re.MULTILINE)
                 .group(1)).release


@dataclass(frozen=True)
class Change:
    since: tuple[int, ...]  # the first torch release with the new behaviour
    before: str
    after: str
    test: str  # its test in test_torch_versions.py

    def applies(self, release: tuple[int, ...] = TORCH) -> bool:
        """Whether `release` (the torch running the tests) has the new behaviour."""
        return release >= self.since

    def unlike_pinned(self) -> bool:
        """Whether the torch running the tests behaves otherwise than the pinned release."""
        return self.applies() != self.applies(PINNED)


CHANGES = {
    "uniform_upper_bound": Change(
        (2, 12), "`uniform_(a, b)` over an interval one float wide returns `b` about half the "
        "time", "always `a`: the interval stays half-open", "test_uniform_of_a_one_float_interval"),
    "mse_loss_mixed_dtypes": Change(
        (2, 12), "`mse_loss` of a float32 and a float64 tensor: backward raises `RuntimeError: "
        "Found dtype Double but expected Float`", "backward works",
        "test_mse_loss_of_two_dtypes"),
    "batch_norm_repr": Change(
        (2, 12), "`BatchNorm1d(3)` prints no `bias=`", "it prints `bias=True`",
        "test_batch_norm_repr"),
    "inplace_error_node": Change(
        (2, 13), "the error for a saved tensor changed in place names its node's class: "
        "\"output 0 of SigmoidBackward0\"", "names the operation: \"output 0 of Sigmoid\"",
        "test_inplace_error_names_the_operation"),
    "unused_input_index": Change(
        (2, 13), "`autograd.grad(out, [a, b])` where the graph does not use `b`: \"One of the "
        "differentiated Tensors appears to not have been used in the graph\"",
        "names it by its position: \"The differentiated Tensor at index 1 appears to not have "
        "been used in the graph\"",
        "test_unused_input_is_named_by_its_index"),
    "function_node_name": Change(
        (2, 13), "`name()` on the node of a custom `autograd.Function` raises `RuntimeError: "
        "Attribute 'name' is invalid ...` once the Function's output is freed "
        "(`Cube.apply(x).grad_fn.name()`)", "it returns `CubeBackward` as long as the node "
        "exists", "test_name_of_a_function_s_node"),
    "sum_axis_and_dim": Change(
        (2, 13), "`t.sum(dim=1, axis=1)` raises `TypeError: sum() received an invalid "
        "combination of arguments ...`", "`TypeError: sum() got an unexpected keyword argument "
        "'axis'`", "test_sum_of_axis_and_dim"),
    "plain_kernel_normal": Change(
        (2, 13), "with its plain kernels (`ATEN_CPU_CAPABILITY=default`), `normal_` of 16 or "
        "more float32 values gives some values that differ in the last bits from 2.13's",
        "2.13's bits", "test_normal_with_plain_kernels"),
    "clamp_scalar_bound": Change(
        (2, 14), "`x.clamp(min, max)` with number bounds passes the gradient at a bound "
        "(`x == min` or `x == max`)", "gives 0 there", "test_clamp_at_a_number_bound"),
    "clamp_tensor_bound": Change(
        (2, 14), "`x.clamp(min, max)` with tensor bounds gives the gradient at a tie "
        "(`x == min` or `x == max`) to `x`",
        "splits it, half to `x`, half to the bound (as `maximum` does)",
        "test_clamp_at_a_tensor_bound"),
    "bool_minus": Change(
        (2, 14), "`-t` and `t - u` on bool tensors raise `RuntimeError`",
        "`NotImplementedError`, a subclass of it (`except RuntimeError` catches both), with the "
        "same message", "test_minus_on_bools"),
}


def table_row(change: Change) -> str:
    """The change's row in companion/README.md's table."""
    since = ".".join(map(str, change.since))
    return f"| {since} | {change.before} | {change.after} | `{change.test}` |"


def skip_if_changed(name: str) -> pytest.MarkDecorator:
    """A mark that skips a cross-check where this torch behaves unlike the pinned release."""
    change = CHANGES[name]
    version = ".".join(map(str, change.since))
    return pytest.mark.skipif(
        change.unlike_pinned(), reason=f"torch {torch.__version__} behaves unlike the pinned "
        f"release here (a change in torch {version}), and miniautograd follows the pinned one; "
        f"test_torch_versions.py::{change.test} checks both")
