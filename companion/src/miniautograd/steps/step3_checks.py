"""What step 3 of the guided build must do (chapter 3), checked against PyTorch: operations as
Functions with a ctx (save_for_backward, saved_tensors, needs_input_grad), backward(gradient),
and a gradcheck of the reader's own."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from .checks import MismatchError, expect
from .step1_checks import X, Y, mine
from .step2_checks import stale


def cube(base: type, tensor: type, wrong: bool = False) -> type:
    """x ** 3 as a Function of `base` (the reader's Function, on arrays, or torch's, on
    tensors); `wrong` gives it the derivative 2 x ** 2."""
    factor = 2.0 if wrong else 3.0

    class Cube(base):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return tensor(x.data ** 3) if tensor is not None else x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * factor * x.data ** 2 if tensor is not None else grad * factor * x**2

    return Cube


def scale(base: type, tensor: type | None, seen: list, blind: bool = False) -> type:
    """x * w as a Function that saves w only, returns None for what needs no gradient (for w
    always, if `blind`), and writes what needs_input_grad was, in forward and in backward, into
    `seen`."""

    class Scale(base):
        @staticmethod
        def forward(ctx, x, w):
            seen.append(tuple(ctx.needs_input_grad))
            ctx.save_for_backward(w)
            return tensor(x.data * w.data) if tensor is not None else x * w

        @staticmethod
        def backward(ctx, grad):
            seen.append(tuple(ctx.needs_input_grad))
            (w,) = ctx.saved_tensors
            dx = grad * (w.data if tensor is not None else w)
            return (dx if ctx.needs_input_grad[0] else None,
                    None if blind or not ctx.needs_input_grad[1] else grad)

    return Scale


def flip(base: type, tensor: type) -> type:
    """The elements in reverse order, with a backward that forgets to reverse the gradient:
    right for the gradient of a sum, wrong for the Jacobian."""

    class Flip(base):
        @staticmethod
        def forward(ctx, x):
            return tensor(x.data[::-1].copy())

        @staticmethod
        def backward(ctx, grad):
            return grad

    return Flip


def torch_leaves(*values):
    import torch

    return [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]


def apply_records(m: ModuleType) -> None:
    import torch

    Cube = cube(m.Function, m.Tensor)
    (x,) = mine(m, X)
    y = Cube.apply(x)
    expect("Cube.apply(x)", y.data, np.array(X) ** 3)
    if y.grad_fn is None:
        raise MismatchError("Cube.apply(x), x requiring grad: expected a grad_fn, got None")
    (tx,) = torch_leaves(X)
    # The node's class name: before torch 2.13, name() on a Python Function's node raises
    # RuntimeError ("Attribute 'name' is invalid ...") once the output is freed, as here.
    want = type(cube(torch.autograd.Function, None).apply(tx).grad_fn).__name__
    expect("Cube.apply(x).grad_fn.name()", y.grad_fn.name(), want)
    expect("Cube.apply(x).requires_grad", y.requires_grad, True)
    expect("len(Cube.apply(x).grad_fn.next_functions)", len(y.grad_fn.next_functions), 1)
    if y.grad_fn.next_functions[0] is not (x * 1.0).grad_fn.next_functions[0]:
        raise MismatchError("Cube.apply(x).grad_fn.next_functions[0]: expected x's "
                            "AccumulateGrad, the node (x * 1.0) leads to, got another")


def returns_tuple(m: ModuleType) -> None:
    (x,) = mine(m, X)
    grads = cube(m.Function, m.Tensor).apply(x).grad_fn(np.ones(3))
    if not isinstance(grads, tuple):
        raise MismatchError(f"Cube.apply(x).grad_fn(np.ones(3)): expected a tuple of one "
                            f"gradient per input (Cube's backward returns a single array: wrap "
                            f"it), got {type(grads).__name__}")
    expect("len(Cube.apply(x).grad_fn(np.ones(3)))", len(grads), 1)
    expect("Cube.apply(x).grad_fn(np.ones(3))[0]", grads[0], 3 * np.array(X) ** 2)


def function_backward(m: ModuleType) -> None:
    import torch

    x, y = mine(m, X, Y)
    (cube(m.Function, m.Tensor).apply(x) * y).sum().backward()
    tx, ty = torch_leaves(X, Y)
    (cube(torch.autograd.Function, None).apply(tx) * ty).sum().backward()
    expect("x.grad of (Cube.apply(x) * y).sum(), PyTorch's", x.grad, tx.grad.numpy())
    expect("y.grad, PyTorch's", y.grad, ty.grad.numpy())


def apply_without_grad(m: ModuleType) -> None:
    y = cube(m.Function, m.Tensor).apply(m.Tensor(X))
    expect("Cube.apply(c).grad_fn, c not requiring grad", y.grad_fn, None)
    expect("Cube.apply(c).requires_grad", y.requires_grad, False)


def needs_input_grad(m: ModuleType) -> None:
    import torch

    seen: list = []
    (x,) = mine(m, X)
    scale(m.Function, m.Tensor, seen).apply(x, m.Tensor(Y)).sum().backward()
    torch_seen: list = []
    (tx,) = torch_leaves(X)
    scale(torch.autograd.Function, None, torch_seen).apply(
        tx, torch.tensor(Y, dtype=torch.float64)).sum().backward()
    expect("ctx.needs_input_grad in forward and in backward, Scale.apply(x, w), w not "
           "requiring grad", seen, torch_seen)
    expect("x.grad of Scale.apply(x, w).sum() (backward returns None for w)", x.grad,
           tx.grad.numpy())
    x, w = mine(m, X, Y)  # now w requires grad, and gets its gradient by another way too
    (scale(m.Function, m.Tensor, [], blind=True).apply(x, w * 2.0) + w).sum().backward()
    tx, tw = torch_leaves(X, Y)
    (scale(torch.autograd.Function, None, [], blind=True).apply(tx, tw * 2.0) + tw).sum(
        ).backward()
    expect("w.grad of (Blind.apply(x, w * 2.0) + w).sum(), Blind's backward returning None "
           "for w * 2.0 (no gradient that way, and the node of w * 2.0 gets nothing but that "
           "None, as in PyTorch)", w.grad, tw.grad.numpy())


def function_saved_changed(m: ModuleType) -> None:
    def program(m):
        x, w = m.Tensor(X, requires_grad=True), m.Tensor(Y)
        z = scale(m.Function, m.Tensor, []).apply(x, w)
        w.add_(1.0)
        z.sum().backward()

    stale(m, program, "z = Scale.apply(x, w) (saving w); w.add_(1.0); z.sum().backward()", 1)


def backward_gradient(m: ModuleType) -> None:
    (x,) = mine(m, X)
    (x * x).backward(np.array(Y))
    (tx,) = torch_leaves(X)
    import torch

    (tx * tx).backward(torch.tensor(Y, dtype=torch.float64))
    expect("x.grad of (x * x).backward(gradient), PyTorch's", x.grad, tx.grad.numpy())
    try:
        (x * x).backward()
    except RuntimeError:
        pass
    else:
        raise MismatchError("(x * x).backward() without a gradient, x a vector: expected "
                            "PyTorch's RuntimeError ('grad can be implicitly created only for "
                            "scalar outputs'), got no error")
    one = m.Tensor([2.0], requires_grad=True)
    (one * one).backward()  # one element: a scalar output for PyTorch, whatever its shape
    expect("x.grad of (x * x).backward(), x = Tensor([2.0]) (one element), PyTorch's",
           one.grad, np.array([4.0]))


def gradcheck_passes(m: ModuleType) -> None:
    x, y = mine(m, X, Y)
    c = m.Tensor(Y)
    y.grad = np.array(Y)  # a .grad from before: gradcheck leaves it, as PyTorch's does
    for what, fn, inputs in [
            ("gradcheck(Cube.apply, x)", cube(m.Function, m.Tensor).apply, (x,)),
            ("gradcheck(lambda a, b: a * b + a.exp(), x, y)", lambda a, b: a * b + a.exp(),
             (x, y)),
            ("gradcheck(lambda a, c: (a * c).sum(), x, c), c not requiring grad",
             lambda a, b: (a * b).sum(), (x, c))]:
        expect(what, m.gradcheck(fn, *inputs), True)
    expect("x.data after gradcheck (put back as it was)", x.data, np.array(X))
    expect("x.grad after gradcheck (None before it)", x.grad, None)
    expect("y.grad after gradcheck (Y before it)", y.grad, np.array(Y))


def gradcheck_raises(m: ModuleType, fn_name: str, make, why: str) -> None:
    (x,) = mine(m, X)
    try:
        result = m.gradcheck(make(m).apply, x)
    except RuntimeError:
        return
    raise MismatchError(f"gradcheck({fn_name}.apply, x), {why}: expected RuntimeError, as "
                        f"PyTorch's gradcheck raises, got {result!r}")


def wrong_second(base: type, tensor: type) -> type:
    """x * w, with a backward right for x and wrong for w (2 x where x is due)."""

    class WrongProduct(base):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return tensor(x.data * w.data)

        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            return grad * w.data, grad * 2 * x.data

    return WrongProduct


def gradcheck_wrong_derivative(m: ModuleType) -> None:
    gradcheck_raises(m, "WrongCube", lambda m: cube(m.Function, m.Tensor, wrong=True),
                     "a backward of 2 x ** 2 for x ** 3")
    x, w = mine(m, X, Y)
    try:
        result = m.gradcheck(wrong_second(m.Function, m.Tensor).apply, x, w)
    except RuntimeError:
        return
    raise MismatchError(f"gradcheck(WrongProduct.apply, x, w), x * w with a backward right for x "
                        f"and wrong for w (every input that requires grad is checked): expected "
                        f"RuntimeError, as PyTorch's gradcheck raises, got {result!r}")


def gradcheck_jacobian(m: ModuleType) -> None:
    gradcheck_raises(m, "Flip", lambda m: flip(m.Function, m.Tensor),
                     "a reversal whose backward does not reverse: right for the gradient of a "
                     "sum, wrong for the Jacobian (compare it row by row: backward with one "
                     "output's gradient set to 1 at a time)")


CHECKS = [
    ("Function.apply runs forward and records a node named after the Function",
     apply_records),
    ("a node returns a tuple, one gradient per input, even for one input", returns_tuple),
    ("backward() runs a Function's backward with its saved tensors", function_backward),
    ("a Function records nothing when no input requires grad", apply_without_grad),
    ("ctx.needs_input_grad, and None for an input that needs no gradient", needs_input_grad),
    ("a Function's saved tensor changed in place is caught", function_saved_changed),
    ("backward(gradient) starts from the given gradient, and needs one for a non-scalar",
     backward_gradient),
    ("gradcheck returns True for right derivatives, and puts back .data and .grad",
     gradcheck_passes),
    ("gradcheck raises RuntimeError for a wrong derivative", gradcheck_wrong_derivative),
    ("gradcheck compares the whole Jacobian, not only the gradient of a sum",
     gradcheck_jacobian),
]
