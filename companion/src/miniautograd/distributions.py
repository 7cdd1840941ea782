"""``distributions.Categorical``: the distribution a policy samples its actions from.

It follows ``torch.distributions.Categorical`` step by step, so that the two libraries agree on
more than the formulas:

- ``sample`` makes the call torch makes, ``multinomial(probs_2d, n, True)``, on the same random
  stream (``_random`` replays torch's CPU generator), so after the same seed both libraries draw
  the same actions from the same probabilities;
- ``log_prob`` and ``entropy`` are built from recorded operations, so a REINFORCE loss
  ``-(log_prob * return).sum()`` back-propagates into the policy's parameters;
- arguments are validated as torch validates them (``ValueError`` for NaN logits, probabilities
  that are not a distribution, or actions outside ``0..K-1``), with a hint at the usual cause.

The graphs are torch's too: ``logits - logsumexp`` for the normalisation, ``gather`` then
``squeeze`` for ``log_prob``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from . import _backend, _random
from ._creation import arange, full
from ._dtype import finfo
from ._tensor import Size, Tensor
from .autograd.grad_mode import STATE, enable_grad
from .ops.nn_ops import softmax_of
from .ops.reduction import logsumexp_of

__all__ = ["Categorical", "Distribution"]

_NAN_HINT = (
    "NaN here usually means the network's parameters became NaN: a NaN loss was "
    "back-propagated and applied by optimizer.step(). Check the loss (e.g. the std of a "
    "single number is NaN) before stepping."
)


class _lazy_property:  # noqa: N801 - a decorator, named like torch's
    """Computed on first access and then stored in the instance (``torch.distributions.utils``).

    Like torch's, it computes with autograd on, so ``probs`` derived from logits that require
    grad stay differentiable even when first read inside ``no_grad``.
    """

    def __init__(self, wrapped: Callable[[Any], Tensor]) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.name = wrapped.__name__

    def __get__(self, instance: Any, owner: type) -> Any:
        if instance is None:
            return self
        if STATE.enabled:  # Speed: already on, no context to open (a policy's sample: ~1 us)
            value = self.wrapped(instance)
        else:
            with enable_grad():
                value = self.wrapped(instance)
        instance.__dict__[self.name] = value
        return value


class _Constraint:
    """What a parameter or a value must satisfy, printed as torch prints its constraint."""

    def __init__(self, text: str, check: Callable[[np.ndarray], np.ndarray],
                 holds: Callable[[np.ndarray], bool] | None = None) -> None:
        self.text, self.check = text, check
        if holds is not None:
            self.holds = holds

    def holds(self, value: np.ndarray) -> bool:
        """Whether every element of ``value`` satisfies the constraint."""
        return bool(self.check(value).all())

    def __repr__(self) -> str:
        return self.text


def _real_vector() -> _Constraint:
    # Speed: ``holds`` asks one question of the whole array (is any element NaN?) instead of
    # check's two reductions; a policy's Categorical is validated at every step (~1 us of
    # the REINFORCE benchmark's ~75 us action). test_fast_paths.py compares the two.
    return _Constraint("IndependentConstraint(Real(), 1)", lambda v: (v == v).all(axis=-1),
                       lambda v: not np.isnan(v).any())


def _simplex() -> _Constraint:
    return _Constraint(
        "Simplex()",
        lambda v: (v >= 0).all(axis=-1) & (np.abs(v.sum(axis=-1) - 1) < 1e-6),
    )


def _integer_interval(low: int, high: int) -> _Constraint:
    return _Constraint(
        f"IntegerInterval(lower_bound={low}, upper_bound={high})",
        lambda v: (v % 1 == 0) & (low <= v) & (v <= high),
    )


class Distribution:
    """The parts of ``torch.distributions.Distribution`` that Categorical needs."""

    _validate_args = __debug__  # torch validates by default unless Python runs with -O
    arg_constraints: ClassVar[dict[str, _Constraint]] = {}

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Switch argument validation on or off for distributions created afterwards."""
        if value not in (True, False):
            raise ValueError("set_default_validate_args expects True or False")
        Distribution._validate_args = value

    def __init__(self, batch_shape: Sequence[int] = (), event_shape: Sequence[int] = (),
                 validate_args: bool | None = None) -> None:
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if not self._validate_args:
            return
        for param, constraint in self.arg_constraints.items():
            if param not in self.__dict__:  # a lazy property not computed yet: nothing to check
                continue
            value = self.__dict__[param]
            if not constraint.holds(value._numpy_view()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                    f"{constraint!r}, but found invalid values:\n{value}\n{_NAN_HINT}"
                )

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape: Sequence[int] = ()) -> Size:
        return Size((*sample_shape, *self._batch_shape, *self._event_shape))

    def _validate_sample(self, value: Any) -> None:
        if not isinstance(value, Tensor):
            raise ValueError(
                "The value argument to log_prob must be a Tensor (e.g. the sampled actions, "
                "or torch.tensor(actions))"
            )
        expected = (*self._batch_shape, *self._event_shape)
        try:  # e.g. actions of shape sample_shape + batch_shape
            np.broadcast_shapes(tuple(value.shape), expected)
        except ValueError:
            raise ValueError(
                f"Value is not broadcastable with batch_shape+event_shape: {value.shape} vs "
                f"{Size(expected)}."
            ) from None
        support = self.support
        if not support.holds(value._numpy_view()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) of the distribution {self!r}, but found "
                f"invalid values:\n{value}"
            )

    def __repr__(self) -> str:
        shown = []
        for name in self.arg_constraints:
            if name in self.__dict__:
                value = self.__dict__[name]
                shown.append(f"{name}: {value.item() if value.numel() == 1 else value.size()}")
        return f"{type(self).__name__}({', '.join(shown)})"


def _as_size(sample_shape: Any) -> Size:
    if isinstance(sample_shape, (int, np.integer)):
        raise TypeError(
            f"sample_shape must be a tuple of sizes, e.g. ({sample_shape},), not an int "
            "(torch.Size(int) fails the same way)"
        )
    return Size(int(s) for s in sample_shape)


def _records(tensor: Tensor) -> bool:
    """Whether an operation on ``tensor`` may record a graph (or run on another device than
    NumPy's, or on integers): else ``Categorical`` normalises its logits and computes its
    probabilities on the arrays, with the functions its ops' forwards call.

    Speed: a policy makes a ``Categorical`` under ``no_grad`` at every step to sample its
    action; without the op calls (logsumexp, sub, softmax) the REINFORCE benchmark's action
    path is ~15% faster. tests/engine/test_fast_paths.py checks both paths bit for bit."""
    data = tensor._data
    return (STATE.enabled and tensor._requires_grad) or type(data) is not np.ndarray \
        or data.dtype.kind != "f"


class Categorical(Distribution):
    """A distribution over ``0..K-1`` from ``probs`` or ``logits`` (last dimension K).

    Both are normalised: ``probs`` to sum to 1, ``logits`` to be log-probabilities. Leading
    dimensions are a batch of independent distributions (one per state in a batch of states).
    """

    arg_constraints: ClassVar[dict[str, _Constraint]] = {
        "probs": _simplex(), "logits": _real_vector()}
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            if _records(logits):
                self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            else:  # Speed: the same arithmetic on the array (see _records)
                data = logits._data
                self.logits = Tensor._make(data - logsumexp_of(data, (data.ndim - 1,), True))
            param = self.logits
        self._param = param
        shape = param._data.shape  # the array's (param.shape would make a Size for each use)
        self._num_events = shape[-1]
        batch_shape = shape[:-1] if len(shape) > 1 else ()
        super().__init__(batch_shape, validate_args=validate_args)

    @_lazy_property
    def logits(self) -> Tensor:
        """Log-probabilities; from ``probs`` clamped away from 0 and 1 as torch does."""
        eps = finfo(self.probs.dtype).eps
        return self.probs.clamp(min=eps, max=1 - eps).log()

    @_lazy_property
    def probs(self) -> Tensor:
        """Probabilities; from ``logits`` by softmax."""
        logits = self.logits
        if _records(logits):
            return logits.softmax(-1)
        return Tensor._make(softmax_of(logits._data, logits._data.ndim - 1))  # see _records

    @property
    def param_shape(self) -> Size:
        return self._param.shape

    @property
    def support(self) -> _Constraint:
        return _integer_interval(0, self._num_events - 1)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(dim=-1)

    @property
    def mean(self) -> Tensor:
        return full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def variance(self) -> Tensor:
        return full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """Indices drawn with torch's call and random stream: ``multinomial(probs, n, True)``.

        The reshapes around the draw are done on the array (they record nothing in torch
        either): a policy samples once per time step, so this is the agent's hot path.
        """
        shape = _as_size(sample_shape)
        # No no_grad() needed: probs is computed under enable_grad (_lazy_property) in any
        # mode, and the array's reshape records nothing.
        probs_2d = self.probs._numpy_view().reshape(-1, self._num_events)
        samples_2d = _random.multinomial(probs_2d, shape.numel(), True).T
        samples = Tensor._make(samples_2d.reshape(self._extended_shape(shape)))
        if _backend.is_cuda_array(self._param._data):
            samples = samples.to(self._param.device)
        return samples

    def log_prob(self, value: Tensor) -> Tensor:
        """log p(value), differentiable with respect to the parameters: the score function's
        ``log pi(a|s)``. ``value`` broadcasts against the batch shape (e.g. samples of shape
        ``sample_shape + batch_shape``)."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        batch = tuple(np.broadcast_shapes(tuple(value.shape[:-1]), tuple(self._batch_shape)))
        log_pmf = self.logits
        if tuple(log_pmf.shape[:-1]) != batch:
            log_pmf = log_pmf.expand(*batch, self._num_events)
        if tuple(value.shape[:-1]) != batch:
            value = value.expand(*batch, 1)
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self) -> Tensor:
        """-sum p log p over the K outcomes (torch's formula, with logits clamped at finfo.min)."""
        logits = self.logits.clamp(min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """All outcomes ``0..K-1`` along a new first dimension, broadcast to the batch."""
        values = arange(self._num_events, device=self._param.device)
        values = values.reshape(-1, *(1,) * len(self._batch_shape))
        return values.expand(-1, *self._batch_shape) if expand else values
