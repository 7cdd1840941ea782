"""Check a backward against finite differences, as ``torch.autograd.gradcheck`` does.

For f: R^n -> R^m the analytical Jacobian (from backward, one vector-Jacobian product per
output element) must match the numerical one, (f(x + eps) - f(x - eps)) / (2 eps) per input
element, within ``atol + rtol * |numerical|``. Use float64: float32 rounding swamps eps.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _random
from .._backend import xp_of
from .._tensor import Tensor
from .engine import grad as autograd_grad
from .grad_mode import enable_grad, no_grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical gradients disagree."""


def _outputs(func: Callable, inputs: tuple) -> tuple[Tensor, ...]:
    result = func(*inputs)
    return result if isinstance(result, tuple) else (result,)


def _requires(value: Any) -> bool:
    return isinstance(value, Tensor) and value._requires_grad


def _differentiable(outputs: tuple) -> tuple:
    """The outputs a gradient can flow into (floating ones; e.g. not max's indices)."""
    return tuple(o for o in outputs if isinstance(o, Tensor) and o._data.dtype.kind == "f")


def _numerical_jacobians(func, inputs, eps) -> list[list[np.ndarray]]:
    """jacobians[i][o]: d output o / d input i, shape (input numel, output numel)."""
    with no_grad():
        outputs = _outputs(func, inputs)
        jacobians = []
        for tensor in inputs:
            if not (isinstance(tensor, Tensor) and tensor._requires_grad):
                jacobians.append(None)
                continue
            data = tensor._data
            columns = [np.zeros((data.size, o._data.size)) for o in outputs]
            for k, position in enumerate(np.ndindex(data.shape)):
                original = data[position].copy()
                data[position] = original + eps
                plus = [o._data.astype(np.float64).ravel() for o in _outputs(func, inputs)]
                data[position] = original - eps
                minus = [o._data.astype(np.float64).ravel() for o in _outputs(func, inputs)]
                data[position] = original
                for column, p, m in zip(columns, plus, minus, strict=True):
                    column[k] = (p - m) / (2 * eps)
            jacobians.append(columns)
    return jacobians


def _analytical_jacobians(func, inputs) -> list[list[np.ndarray]]:
    outputs = _outputs(func, inputs)
    differentiable = [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]
    per_input = [
        [np.zeros((t._data.size, o._data.size)) for o in outputs] for t in differentiable
    ]
    for o_index, out in enumerate(outputs):
        if not out._requires_grad:
            continue
        for j in range(out._data.size):
            seed = np.zeros(out._data.size, dtype=out._data.dtype)
            seed[j] = 1
            grads = autograd_grad(
                out, differentiable, Tensor._make(seed.reshape(out._data.shape)),
                retain_graph=True, allow_unused=True,
            )
            for i, g in enumerate(grads):
                if g is not None:
                    per_input[i][o_index][:, j] = g._data.astype(np.float64).ravel()
    result, position = [], 0
    for tensor in inputs:
        if isinstance(tensor, Tensor) and tensor._requires_grad:
            result.append(per_input[position])
            position += 1
        else:
            result.append(None)
    return result


def gradcheck(
    func: Callable[..., Any],
    inputs: Tensor | Sequence[Any],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **ignored: Any,
) -> bool:
    """True when backward agrees with central finite differences for every input/output pair."""
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    for index, tensor in enumerate(inputs):
        if _requires(tensor) and tensor._data.dtype != np.float64:
            warnings.warn(
                f"Input #{index} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    if not any(isinstance(t, Tensor) and t._requires_grad for t in inputs):
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )
    numerical = _numerical_jacobians(func, inputs, eps)
    analytical = _analytical_jacobians(func, inputs)
    for i, (num_i, ana_i) in enumerate(zip(numerical, analytical, strict=True)):
        if num_i is None:
            continue
        for o, (num, ana) in enumerate(zip(num_i, ana_i, strict=True)):
            if not np.allclose(ana, num, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {o} with respect to input {i},\n"
                    f"numerical:{_show(num)}\nanalytical:{_show(ana)}\n"
                )
    return True


def _show(matrix: np.ndarray) -> str:
    return Tensor._make(matrix).__repr__()


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Tensor | Sequence[Any],
    grad_outputs: Sequence[Tensor] | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **ignored: Any,
) -> bool:
    """gradcheck of the gradient itself: checks that backward is correctly differentiable."""
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    outputs = _differentiable(_outputs(func, inputs))
    if grad_outputs is None:
        # torch.testing.make_tensor(low=-1, high=1), as torch's gradgradcheck draws them: from
        # the default generator, so that a program's later random numbers stay torch's.
        grad_outputs = tuple(
            Tensor._make(xp_of(o._data).asarray(
                _random.uniform_(o._data.shape, -1.0, 1.0, o._data.dtype)), True)
            for o in outputs
        )
    grad_outputs = tuple(grad_outputs)
    count = len(inputs)
    differentiable = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]

    def first_derivative(*args: Any) -> tuple:
        primal, vectors = args[:count], args[count:]
        with enable_grad():  # also when gradcheck evaluates it for finite differences
            outs = _differentiable(_outputs(func, primal))
            wanted = [primal[i] for i in differentiable]
            grads = autograd_grad(outs, wanted, vectors, create_graph=True, allow_unused=True)
        pairs = zip(grads, differentiable, strict=True)
        return tuple(g if g is not None else primal[i] * 0 for g, i in pairs)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
