"""nn and optim against torch: the classic two-layer network trained for 500 steps, and
Linear/Sequential/losses/SGD/Adam step by step from identical weights."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import assert_same_value, same_on_both
from test_function import functions

import miniautograd as mini

# ---- the two-layer network with a custom ReLU, trained by hand ----------------------------------

# Measured (float32, 500 steps, loss falling from 2.9e7 to 3e-5): the losses agree to 1e-6
# relative for 50 steps and drift to 6e-5 by step 200 (BLAS sums in another order, and every step
# compounds it); past that the loss nears float32's noise floor for 640 residuals and its relative
# error reaches 1e-2. What stays comparable is the residual norm sqrt(loss) = |y_pred - y|:
# within 8.5e-5 of torch's at every step (|y| is 25, so ~3e-6 relative); the tolerance below
# (3e-4 + 1e-5 relative) keeps a 3x margin. The final weights (|w| < 5) agree within 3.1e-6.
RESIDUAL_RTOL, RESIDUAL_ATOL, WEIGHT_ATOL = 1e-5, 3e-4, 1e-5


def train_two_layer(t, steps: int = 500) -> tuple[list[float], list]:
    MyReLU = functions(t)["MyReLU"]

    t.manual_seed(0)
    batch, d_in, hidden, d_out = 64, 1000, 100, 10
    x, y = t.randn(batch, d_in), t.randn(batch, d_out)
    w1 = t.randn(d_in, hidden, requires_grad=True)
    w2 = t.randn(hidden, d_out, requires_grad=True)
    learning_rate = 1e-6
    losses = []
    for _ in range(steps):
        y_pred = MyReLU.apply(x.mm(w1)).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        loss.backward()
        with t.no_grad():
            w1 -= learning_rate * w1.grad
            w2 -= learning_rate * w2.grad
            w1.grad.zero_()
            w2.grad.zero_()
    return losses, [w1.detach().numpy(), w2.detach().numpy()]


def test_two_layer_network_trains_like_torch():
    (theirs, torch_weights), (mine, weights) = train_two_layer(torch), train_two_layer(mini)
    assert theirs[-1] < theirs[0] * 1e-9  # the run really trains
    np.testing.assert_allclose(np.sqrt(mine), np.sqrt(theirs), rtol=RESIDUAL_RTOL,
                               atol=RESIDUAL_ATOL)
    for w, w_torch in zip(weights, torch_weights, strict=True):
        np.testing.assert_allclose(w, w_torch, rtol=0, atol=WEIGHT_ATOL)


# ---- modules ------------------------------------------------------------------------------------


def make_model(t, dtype=None):
    t.manual_seed(0)
    model = t.nn.Sequential(t.nn.Linear(4, 8), t.nn.Tanh(), t.nn.Linear(8, 8), t.nn.ReLU(),
                            t.nn.Linear(8, 3))
    return model.double() if dtype == "float64" else model


def data(t):
    t.manual_seed(1)
    return t.randn(16, 4, dtype=t.float64), t.randint(0, 3, (16,))


def test_module_structure():
    def program(t):
        model = make_model(t)
        named = [(name, tuple(p.shape), p.requires_grad, p.is_leaf)
                 for name, p in model.named_parameters()]
        return (named, repr(model), list(model.state_dict()), len(model), repr(model[0]),
                repr(t.nn.Linear(2, 3, bias=False)), [type(m).__name__ for m in model.modules()])

    same_on_both(program)


def test_parameter():
    def program(t):
        p = t.nn.Parameter(t.tensor([1.0, 2.0]))
        frozen = t.nn.Parameter(t.tensor([1.0]), requires_grad=False)
        return (repr(p), p.requires_grad, p.is_leaf, isinstance(p, t.Tensor), frozen.requires_grad,
                type(p * 2).__name__)

    same_on_both(program)


def test_train_eval_and_dropout_in_eval():
    def program(t):
        model = t.nn.Sequential(t.nn.Linear(3, 3), t.nn.Dropout(0.5))
        flags = [m.training for m in model.modules()]
        model.eval()
        x = t.ones(2, 3)
        return flags, [m.training for m in model.modules()], t.equal(model[1](x), x), \
            repr(model[1])

    same_on_both(program)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sequential_forward_and_backward(dtype):
    def program(t):
        model = make_model(t, dtype)
        x, y = data(t)
        x = x.to(getattr(t, dtype))
        out = model(x)
        loss = t.nn.functional.cross_entropy(out, y)
        loss.backward()
        return out, loss, [p.grad for p in model.parameters()], out.grad_fn.name()

    same_on_both(program)


def test_losses_as_modules():
    def program(t):
        t.manual_seed(2)
        logits, target = t.randn(5, 4, requires_grad=True), t.tensor([0, 3, 1, 1, 2])
        pred, goal = t.randn(5, 2, requires_grad=True), t.randn(5, 2)
        losses = [t.nn.CrossEntropyLoss()(logits, target), t.nn.MSELoss()(pred, goal),
                  t.nn.MSELoss(reduction="sum")(pred, goal)]
        sum(losses).backward()
        return losses, logits.grad, pred.grad

    same_on_both(program)


def test_zero_grad():
    def program(t):
        model = make_model(t)
        x, y = data(t)
        t.nn.functional.cross_entropy(model(x.float()), y).backward()
        model.zero_grad()
        after_none = [p.grad for p in model.parameters()]
        t.nn.functional.cross_entropy(model(x.float()), y).backward()
        optimizer = t.optim.SGD(model.parameters(), lr=0.1)
        optimizer.zero_grad(set_to_none=False)
        return after_none, [p.grad for p in model.parameters()]

    same_on_both(program)


# ---- optimizers, step by step from identical weights --------------------------------------------

OPTIMIZERS = {
    "sgd": lambda t, p: t.optim.SGD(p, lr=0.1),
    "sgd_momentum": lambda t, p: t.optim.SGD(p, lr=0.1, momentum=0.9),
    "sgd_dampening": lambda t, p: t.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.5),
    "sgd_nesterov": lambda t, p: t.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    "sgd_weight_decay": lambda t, p: t.optim.SGD(p, lr=0.1, momentum=0.5, weight_decay=0.01),
    "sgd_maximize": lambda t, p: t.optim.SGD(p, lr=0.01, maximize=True),
    "adam": lambda t, p: t.optim.Adam(p),
    "adam_lr": lambda t, p: t.optim.Adam(p, lr=0.05, betas=(0.8, 0.95), eps=1e-6),
    "adam_weight_decay": lambda t, p: t.optim.Adam(p, lr=0.01, weight_decay=0.1),
    "adam_amsgrad": lambda t, p: t.optim.Adam(p, lr=0.01, amsgrad=True),
    "adam_maximize": lambda t, p: t.optim.Adam(p, lr=0.01, maximize=True),
}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_steps(name):
    def program(t):
        model = make_model(t, "float64")
        x, y = data(t)
        optimizer = OPTIMIZERS[name](t, model.parameters())
        losses = []
        for _ in range(8):
            optimizer.zero_grad()
            loss = t.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses, [p.detach() for p in model.parameters()]

    same_on_both(program)


def test_optimizer_defaults_and_groups():
    def program(t):
        model = make_model(t, "float64")
        x, y = data(t)
        first, *rest = model.parameters()
        optimizer = t.optim.SGD([{"params": [first], "lr": 0.5}, {"params": rest}], lr=0.1,
                                momentum=0.9)
        for _ in range(3):
            optimizer.zero_grad()
            t.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        groups = [{k: v for k, v in g.items() if k in ("lr", "momentum", "dampening", "nesterov",
                                                        "weight_decay")}
                  for g in optimizer.param_groups]
        adam = t.optim.Adam(model.parameters()).param_groups[0]
        return groups, [adam[k] for k in ("lr", "betas", "eps", "weight_decay", "amsgrad")], \
            [p.detach() for p in model.parameters()]

    same_on_both(program)


def test_optimizer_skips_parameters_without_grad():
    def program(t):
        a, b = t.ones(2, requires_grad=True), t.ones(2, requires_grad=True)
        optimizer = t.optim.Adam([a, b], lr=0.1)
        (a * 3).sum().backward()
        optimizer.step()
        return a.detach(), b.detach(), b.grad

    same_on_both(program)


def test_linear_on_device(device):
    torch.manual_seed(0)
    theirs = torch.nn.Linear(5, 3)
    mini.manual_seed(0)
    mine = mini.nn.Linear(5, 3).to(device)
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    out_t = theirs(torch.tensor(x))
    out_m = mine(mini.tensor(x, device=device))
    out_t.sum().backward()
    out_m.sum().backward()
    assert mine.weight.grad.device.type == device
    assert_same_value(out_m.cpu(), out_t)
    assert_same_value(mine.weight.grad.cpu(), theirs.weight.grad)


@pytest.mark.parametrize(("shape", "bias"), [((4, 2), True), ((2,), True), ((4, 5, 2), True),
                                             ((4, 2), False)])
def test_linear_graph(shape, bias):
    def program(t):
        t.manual_seed(0)
        layer = t.nn.Linear(2, 3, bias=bias)
        x = t.ones(*shape, requires_grad=True)
        out = layer(x)
        out.sum().backward()
        return out, x.grad, layer.weight.grad, _graph_names(out.grad_fn)

    same_on_both(program)


def _graph_names(node):
    if node is None:
        return None
    return [node.name(), [_graph_names(child) for child, _ in node.next_functions]]


def test_reassigned_parameter_keeps_its_place():
    def program(t):
        t.manual_seed(0)
        layer = t.nn.Linear(2, 3)
        layer.weight = t.nn.Parameter(t.ones(3, 2))
        layer.note = t.ones(2)  # a plain tensor attribute is not a parameter
        return [name for name, _ in layer.named_parameters()], layer.weight, layer.note

    same_on_both(program)


def test_adam_state():
    def program(t):
        t.manual_seed(0)
        layer = t.nn.Linear(2, 3)
        optimizer = t.optim.Adam(layer.parameters())
        layer(t.ones(2)).sum().backward()
        optimizer.step()
        state = optimizer.state[layer.weight]
        return sorted(state), state["step"], state["exp_avg"], state["exp_avg_sq"]

    same_on_both(program)


def test_load_torch_state_dict():
    """A model trained in torch loads into miniautograd and computes the same outputs."""
    torch.manual_seed(3)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    mine = mini.nn.Sequential(mini.nn.Linear(3, 4), mini.nn.Tanh(), mini.nn.Linear(4, 2))
    mine.load_state_dict(theirs.state_dict())
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    assert_same_value(mine(mini.tensor(x)).detach(), theirs(torch.tensor(x)).detach())


def test_inplace_activations_and_dropout():
    """``nn.ReLU(True)`` and ``nn.Dropout(p, inplace=True)`` change their input and return it."""

    def program(t):
        t.manual_seed(0)
        x = t.tensor([-1.0, 2.0, -3.0, 4.0, 0.5, -0.5], requires_grad=True)
        relu, dropout = t.nn.ReLU(True), t.nn.Dropout(0.5, inplace=True)
        h, g = x * 2, x * 3
        r, d = relu(h), dropout(g)
        (r * t.arange(6.0) + d).sum().backward()
        default = t.nn.ReLU()(x * 1)
        return (r is h, d is g, r, d, x.grad, r.grad_fn.name(), d.grad_fn.name(), r._version,
                default,
                repr(relu), repr(t.nn.ReLU()), repr(dropout), repr(t.nn.Dropout()),
                t.nn.ReLU(inplace=True).inplace)

    same_on_both(program)


def test_modules_without_inplace_refuse_it():
    for module in (torch, mini):
        with pytest.raises(TypeError):
            module.nn.Tanh(True)


def test_dropout_draws_torchs_mask_on_every_device(device: str) -> None:
    """The mask is drawn on the host from torch's generator, then moved to the input's device."""
    torch.manual_seed(0)
    x_t = torch.ones(40, requires_grad=True)
    torch.nn.functional.dropout(x_t, 0.3).sum().backward()
    mini.manual_seed(0)
    x_m = mini.ones(40, device=device, requires_grad=True)
    y_m = mini.nn.functional.dropout(x_m, 0.3)
    y_m.sum().backward()
    assert y_m.device.type == device
    assert x_m.grad.cpu().numpy().tolist() == x_t.grad.numpy().tolist()
