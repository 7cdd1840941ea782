"""Writing an op: its node's source is the op's class, and an op written wrong fails where it
was written, with torch's exception class and a message that says what to return."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch
from helpers import raises_like_torch

import miniautograd as mini
from miniautograd import _creation, _tensor
from miniautograd.autograd import Function
from miniautograd.ops import TABLE, arithmetic, shape
from miniautograd.ops.op import Op


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _backward_of(cls):
    """The class whose ``backward`` ``cls`` runs: its own, or a base's."""
    return next(c for c in cls.__mro__ if "backward" in c.__dict__)


# Every built-in operation (bases with no backward of their own, ``Op`` itself, left out).
BUILT_IN = sorted({c for c in _subclasses(Function)
                   if c.__module__.startswith("miniautograd.") and _backward_of(c) is not Function},
                  key=lambda c: (c.__module__, c.__qualname__))


@pytest.mark.parametrize("cls", BUILT_IN, ids=[c.__qualname__ for c in BUILT_IN])
def test_the_source_of_every_built_in_node_is_its_operations_class(cls):
    """``inspect.getsource(type(y.grad_fn))``, or ``y.grad_fn??`` in Jupyter: the class with
    forward and backward, not an OSError for a class made at run time."""
    defining = _backward_of(cls)
    source = inspect.getsource(cls._backward_cls)
    assert source == inspect.getsource(defining)
    assert source.lstrip().startswith(f"class {defining.__name__}(")
    assert "def backward" in source


def test_the_nodes_of_the_op_table_show_their_source():
    classes = [e.impl for e in TABLE if isinstance(e.impl, type)]
    assert classes
    for cls in classes:
        assert "def backward" in inspect.getsource(cls._backward_cls), cls
    x = mini.tensor([1.0, 2.0], requires_grad=True)
    for y in (x.exp(), x * x, x.sum(), x[0], (x * 1).copy_(x), x.round()):
        source = inspect.getsource(type(y.grad_fn))
        assert "def backward" in source and "def forward" in source, source


# ---- an op written wrong -----------------------------------------------------------------------


class _TwoInputsOneGradient(Op):
    @staticmethod
    def forward(ctx, a, b):
        return a._data * b._data

    @staticmethod
    def backward(ctx, grad):
        return grad  # one gradient for two inputs


class _ReturnsAnArray(Op):
    @staticmethod
    def forward(ctx, a):
        return a._data * 2

    @staticmethod
    def backward(ctx, grad):
        return grad._data * 2  # an array, not a Tensor


class _TorchTwoInputsOneGradient(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, grad):
        return grad


class _TorchReturnsAnArray(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, grad):
        return grad.numpy() * 2


def test_an_op_returning_too_few_gradients_is_named():
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        op = _TorchTwoInputsOneGradient if t is torch else _TwoInputsOneGradient
        op.apply(x, x).sum().backward()

    error = raises_like_torch(program, "returned an incorrect number of gradients (expected 2, "
                              "got 1)")
    assert "_TwoInputsOneGradient.backward must return one gradient" in str(error)


def test_an_op_returning_an_array_is_named():
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        op = _TorchReturnsAnArray if t is torch else _ReturnsAnArray
        op.apply(x).sum().backward()

    error = raises_like_torch(program, "expected Variable or None (got numpy.ndarray)")
    assert "_ReturnsAnArray.backward must return Tensors" in str(error)


def test_a_function_returning_an_array_raises_torchs_error():
    class Twice(mini.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return np.asarray(grad.tolist()) * 2

    x = mini.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"expected Variable or None \(got numpy.ndarray\)"):
        Twice.apply(x).sum().backward()


def test_step_functions_share_an_honest_base_not_sign():
    """round, floor and ceil are not kinds of sign: all four are piecewise-constant ops."""
    for op in (arithmetic.Round, arithmetic.RoundDecimals, arithmetic.Floor, arithmetic.Ceil):
        assert not issubclass(op, arithmetic.Sign), op
        assert issubclass(op, arithmetic._PiecewiseConstant)


def test_shape_arguments_are_read_by_one_function():
    assert shape.shape_args is _tensor.shape_args is _creation.shape_args
    x = mini.zeros(2, 3)
    assert x.reshape(mini.Size([3, 2])).shape == x.reshape((3, 2)).shape == x.reshape([3, 2]).shape


def test_an_op_without_staticmethod_fails_where_it_is_defined():
    with pytest.raises(TypeError, match=r"_Plain.backward must be a @staticmethod"):

        class _Plain(Op):
            @staticmethod
            def forward(ctx, a):
                return a._data

            def backward(ctx, grad):  # noqa: N805 - the mistake under test
                return grad
