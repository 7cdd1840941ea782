"""APIs that learners' programs reach for, against torch: ``nn.Sequential`` as a container
(replace, delete, slice, append), the legacy tensor types (``torch.FloatTensor``,
``t.type('torch.DoubleTensor')``), the errors of binary cross-entropy with logits, f-string
formatting of a tensor, and ``torch.Generator`` and the RNG state.
(Its values, graph, gradients and double backward are rows of the op table, ``test_ops.py``.)"""

from __future__ import annotations

from typing import Any

import pytest
import torch
from helpers import raises_like_torch, same_on_both

import miniautograd as mini


def _net(t):
    t.manual_seed(0)
    return t.nn.Sequential(t.nn.Linear(6, 8), t.nn.Tanh(), t.nn.Linear(8, 4), t.nn.ReLU())


def _edited(t, edit):
    """repr, parameter shapes and the output of ``_net`` after ``edit(net)``."""
    net = _net(t)
    result = edit(net)
    t.manual_seed(1)
    out = net(t.randn(3, 6)) if len(net) else None
    return (repr(net), [tuple(p.shape) for p in net.parameters()], out,
            repr(result) if result is not None else None)


def _replace_last_linear(net):
    net[2] = type(net[0])(8, 2)
    net[-1] = type(net[1])()  # a Tanh for the ReLU, by a negative index


def _delete(net):
    del net[1]


def _delete_slice(net):
    del net[1:3]


def _append_insert(net):
    net.append(type(net[1])())
    net.insert(-1, type(net[3])())
    return net.insert(0, type(net[1])())  # returns the Sequential


def _pop(net):
    return net.pop(1)


def _extend(net):
    return net.extend(net[1:2])


@pytest.mark.parametrize("edit", [_replace_last_linear, _delete, _delete_slice, _append_insert,
                                  _pop, _extend, lambda net: net[1:3], lambda net: net[::-2],
                                  lambda net: list(net)])
def test_sequential_container(edit):
    same_on_both(lambda t: _edited(t, edit))


def test_sequential_slice_is_a_sequential_of_the_same_modules():
    net = _net(mini)
    part = net[1:]
    assert type(part) is mini.nn.Sequential and part[0] is net[1]
    assert list(part._modules) == ["1", "2", "3"]  # torch keeps the names


def test_sequential_setitem_updates_parameters_and_training():
    net = _net(mini)
    for param in net.parameters():
        param.requires_grad = False
    net[2] = mini.nn.Linear(8, 2)
    assert [p.requires_grad for p in net.parameters()] == [False, False, True, True]
    assert net[2].weight is list(net.parameters())[2]


@pytest.mark.parametrize("program, hints", [
    (lambda t: _net(t)[4], ("index 4 is out of range",)),
    (lambda t: _net(t)[-5], ("index -5 is out of range",)),
    (lambda t: _net(t).__setitem__(4, t.nn.Tanh()), ("out of range",)),
    (lambda t: _net(t).__delitem__(9), ("out of range",)),
    (lambda t: _net(t).__setitem__(0, 3), ("cannot assign 'int' as child module '0'",)),
    (lambda t: _net(t).insert(7, t.nn.Tanh()), ("Index out of range: 7",)),
])
def test_sequential_errors(program, hints):
    raises_like_torch(program, *hints)


# ---- legacy tensor types --------------------------------------------------------------------


@pytest.mark.parametrize("program", [
    lambda t: t.FloatTensor([1, 2.5]),
    lambda t: t.DoubleTensor([[1, 2], [3, 4]]),
    lambda t: t.LongTensor([1, 2]),
    lambda t: t.IntTensor((3,)),
    lambda t: t.BoolTensor([True, False]),
    lambda t: t.ByteTensor([1, 255]),
    lambda t: t.FloatTensor().shape,
    lambda t: t.FloatTensor(2, 3).shape,  # uninitialised in torch: compare the shape only
    lambda t: t.DoubleTensor(t.Size([2, 1])).dtype,
    lambda t: t.LongTensor(4).dtype,
])
def test_legacy_constructors(program):
    same_on_both(program)


def test_legacy_constructor_of_a_tensor_is_that_tensor():
    same_on_both(lambda t: t.FloatTensor(t.zeros(2)).shape)
    x = mini.zeros(2)
    assert mini.FloatTensor(x) is x
    raises_like_torch(lambda t: t.FloatTensor(t.zeros(2, dtype=t.float64)), "Float", "Double")
    raises_like_torch(lambda t: t.FloatTensor(2.5))


@pytest.mark.parametrize("program", [
    lambda t: [isinstance(t.zeros(2), t.FloatTensor), isinstance(t.zeros(2), t.DoubleTensor),
               isinstance(t.zeros(2, dtype=t.int64), t.LongTensor), isinstance(3, t.FloatTensor)],
    lambda t: [t.FloatTensor.__name__, t.LongTensor.__name__],
    lambda t: repr(t.DoubleTensor),
    lambda t: t.zeros(2).type(),
    lambda t: t.zeros(2, dtype=t.int64).type(),
    lambda t: t.zeros(2).type("torch.DoubleTensor"),
    lambda t: t.zeros(2).type(t.DoubleTensor),
    lambda t: t.zeros(2).type(t.float64),
    lambda t: t.ones(2).type(t.LongTensor),
    lambda t: t.ones(2, dtype=t.float64).type(t.FloatTensor),
])
def test_legacy_types(program):
    same_on_both(program)


def test_type_keeps_the_graph():
    def program(t):
        x = t.ones(2, requires_grad=True)
        y = x.type(t.DoubleTensor) * 3
        y.sum().backward()
        return type(y.grad_fn).__name__, x.grad, x.type(t.FloatTensor) is x

    same_on_both(program)


def test_type_accepts_this_packages_spelling():
    assert mini.zeros(2).type("miniautograd.DoubleTensor").dtype is mini.float64


def test_type_rejects_an_unknown_name():
    raises_like_torch(lambda t: t.zeros(2).type("torch.NotATensor"), "invalid type")


# ---- binary cross-entropy with logits: errors and the module --------------------------------


def test_bce_with_logits_shape_mismatch():
    raises_like_torch(
        lambda t: t.nn.functional.binary_cross_entropy_with_logits(t.zeros(3), t.zeros(2)),
        "Target size", "must be the same as input size")


def test_bce_with_logits_integer_target():
    raises_like_torch(
        lambda t: t.nn.functional.binary_cross_entropy_with_logits(t.zeros(2), t.tensor([1, 0])),
        "can't be cast to the desired output type Long", "target.float()")


def test_bce_with_logits_bad_reduction():
    raises_like_torch(
        lambda t: t.nn.functional.binary_cross_entropy_with_logits(t.zeros(3), t.zeros(3),
                                                                   reduction="avg"),
        "avg", "not a valid value for reduction")


def test_bce_with_logits_module():
    def program(t):
        loss = t.nn.BCEWithLogitsLoss(pos_weight=t.tensor([2.0, 0.5]))
        logits = t.tensor([[0.3, -1.2], [2.0, 0.1]], requires_grad=True)
        value = loss(logits, t.tensor([[1.0, 0.0], [0.0, 1.0]]))
        value.backward()
        return (repr(loss), type(value.grad_fn).__name__, value, logits.grad,
                sorted(loss.state_dict()))

    same_on_both(program)


@pytest.mark.parametrize("name", ["weight", "pos_weight"])
def test_bce_with_logits_weights_are_not_differentiable(name):
    raises_like_torch(
        lambda t: t.nn.functional.binary_cross_entropy_with_logits(
            t.zeros(3, requires_grad=True), t.zeros(3), **{name: t.ones(3, requires_grad=True)}),
        f"not differentiable with respect to argument '{name}'")


@pytest.mark.parametrize("spec", ["", ".4f", "8.3e", ">12"])
def test_a_0d_tensor_formats_its_number_as_torch_does(spec: str) -> None:
    value = 2.4106645584106445
    assert format(mini.tensor(value), spec) == format(torch.tensor(value), spec)


@pytest.mark.parametrize("engine", [torch, mini], ids=["torch", "miniautograd"])
def test_a_tensor_with_elements_refuses_a_format_spec(engine: Any) -> None:
    assert format(engine.ones(2), "") == str(engine.ones(2))
    with pytest.raises(TypeError, match=r"unsupported format string passed to Tensor\.__format__"):
        format(engine.ones(2), ".2f")


def test_torch_generator_and_rng_state_are_exported() -> None:
    g = mini.Generator().manual_seed(2147483647)
    h = torch.Generator().manual_seed(2147483647)
    assert mini.randn(3, generator=g).tolist() == torch.randn(3, generator=h).tolist()
    assert mini.default_generator is mini.manual_seed(0)
    state = mini.get_rng_state()
    first = mini.rand(2).tolist()
    mini.set_rng_state(state)
    assert mini.rand(2).tolist() == first


NORMAL = {
    "numbers, 5 values": lambda t: t.normal(2.0, 3.0, size=(5,)),
    "numbers, 40 values": lambda t: t.normal(2.0, 3.0, size=(40,)),
    "numbers, float64": lambda t: t.normal(-1.0, 0.5, size=(2, 9), dtype=t.float64),
    "tensor mean": lambda t: t.normal(t.arange(20.0), 0.5),
    "tensor mean, few": lambda t: t.normal(t.arange(5.0), 2.0),
    "tensor std": lambda t: t.normal(1.5, t.arange(1.0, 21.0)),
    "both tensors, broadcast": lambda t: t.normal(t.ones(4, 5), t.full((5,), 3.0)),
    "both float64": lambda t: t.normal(t.zeros(3, dtype=t.float64), t.ones(3, dtype=t.float64)),
    "a generator": lambda t: t.normal(0.0, 1.0, size=(20,),
                                      generator=t.Generator().manual_seed(7)),
}


@pytest.mark.parametrize("name", sorted(NORMAL))
def test_normal_draws_torchs_numbers_in_each_form(name: str) -> None:
    torch.manual_seed(3)
    mini.manual_seed(3)
    expected, found = NORMAL[name](torch).numpy(), NORMAL[name](mini).numpy()
    assert (found.dtype, found.shape) == (expected.dtype, expected.shape)
    assert found.tolist() == expected.tolist()  # bit for bit


@pytest.mark.parametrize(
    "program",
    [
        lambda t: t.nn.functional.one_hot(t.tensor([0, 2, 1])),
        lambda t: t.nn.functional.one_hot(t.tensor([[0, 2], [1, 1]]), num_classes=4),
        lambda t: t.nn.functional.one_hot(t.tensor(1), 3),
        lambda t: t.nn.functional.one_hot(t.tensor([], dtype=t.long), 3),
        lambda t: t.nn.functional.one_hot(t.tensor([3, 0]), 5).float() @ t.ones(5, 2),
    ],
)
def test_one_hot_is_torchs(program) -> None:
    same_on_both(program)


@pytest.mark.parametrize(
    ("program", "hint"),
    [
        (lambda t: t.nn.functional.one_hot(t.tensor([0.0, 2.0])), "LongTensor"),
        (lambda t: t.nn.functional.one_hot(t.tensor([-1])), "non-negative"),
        (lambda t: t.nn.functional.one_hot(t.tensor([3]), 2), "smaller than num_classes"),
        (lambda t: t.nn.functional.one_hot(t.tensor([], dtype=t.long)), "empty tensor"),
    ],
)
def test_one_hot_refuses_what_torch_refuses(program, hint: str) -> None:
    raises_like_torch(program, hint)


MASK = [[True, False, True], [True, True, True]]


@pytest.mark.parametrize(
    "program",
    [
        lambda t: t.tensor(MASK).all(),
        lambda t: t.all(t.tensor(MASK) == t.tensor(MASK)),  # makemore's cmp(): torch.all(a == b)
        lambda t: t.tensor(MASK).any(1),
        lambda t: t.tensor(MASK).all(axis=0),
        lambda t: t.any(t.tensor(MASK), dim=(0, 1), keepdim=True),
        lambda t: t.tensor(MASK).all(-1, keepdims=True),
        lambda t: t.tensor([1.0, 0.0]).any(),
        lambda t: t.tensor([1, 2], dtype=t.uint8).all(),
        lambda t: t.tensor(3.0).all(dim=0),
    ],
)
def test_any_and_all_reduce_as_torch_does(program) -> None:
    """Methods and functions, over every dimension, one, or several, with torch's result dtype."""
    same_on_both(program)
