"""``torch.autograd.functional``: Jacobians, Hessians and their products with a vector, built
from ``autograd.grad`` calls.

Every function takes ``func`` and its ``inputs`` (a tensor, or a tuple of tensors) and answers
in the same shape as torch: a tuple of inputs gives a tuple of results, a single tensor a
tensor, and ``jacobian`` of several outputs and several inputs gives ``J[i][j]`` =
d output_i / d input_j. The inputs are first replaced by fresh tensors that require grad, so
that ``func`` is differentiated with respect to exactly these arguments; with
``create_graph=False`` the results are detached.

Reverse mode gives vector-Jacobian products directly. A Jacobian-vector product (``jvp``,
``hvp``) comes from the double-backward trick, as in torch: u^T J is linear in u, so the
gradient of ``grad(outputs, inputs, u)`` with respect to u, weighted by v, is J v.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._backend import xp_of
from .._tensor import Tensor
from ..ops.shape import stack
from .engine import grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

_STRATEGIES = ("forward-mode", "reverse-mode")


def _as_tuple(value: Any, what: str, caller: str) -> tuple[bool, tuple[Tensor, ...]]:
    """(whether ``value`` was a tuple, ``value`` as a tuple of tensors)."""
    was_tuple = isinstance(value, tuple)
    values = value if was_tuple else (value,)
    for index, item in enumerate(values):
        if not isinstance(item, Tensor):
            where = f"the value at index {index}" if was_tuple else f"the given {what}"
            raise TypeError(
                f"The {what} given to {caller} must be either a Tensor or a tuple of Tensors "
                f"but {where} has type {type(item)}."
            )
    return was_tuple, values


def _unpack(results: tuple, was_tuple: bool) -> Any:
    return results if was_tuple else results[0]


def _nest(blocks: Any, outputs_tuple: bool, inputs_tuple: bool) -> Any:
    """``blocks[i][j]`` with torch's levels dropped: the inner one for a single input, the
    outer one for a single output."""
    if not inputs_tuple:
        blocks = tuple(row[0] for row in blocks)
    return _unpack(blocks, outputs_tuple)


def _fresh(tensors: tuple, create_graph: bool, need_graph: bool) -> tuple[Tensor, ...]:
    """New tensor objects for ``func`` to receive: a differentiable alias when the caller's
    graph must reach through them (create_graph), else detached copies of the reference."""
    return tuple(
        t.view_as(t) if create_graph and t._requires_grad
        else t.detach().requires_grad_(need_graph)
        for t in tensors
    )


def _detached(results: Any, create_graph: bool) -> Any:
    """Results without history unless the caller asked for a graph (nested tuples too)."""
    if create_graph:
        return results
    if isinstance(results, tuple):
        return tuple(_detached(r, create_graph) for r in results)
    return results.detach()


def _zeros_like(tensor: Tensor, requires_grad: bool = False) -> Tensor:
    zeros = Tensor._make(xp_of(tensor._data).zeros_like(tensor._data))
    return zeros.requires_grad_() if requires_grad else zeros


def _grad(outputs: tuple, inputs: tuple, grad_outputs: tuple | None = None,
          create_graph: bool = False, retain_graph: bool | None = None) -> tuple:
    """``autograd.grad`` that skips outputs which do not require grad (None where no output
    reaches an input)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(out, g) for out, g in zip(outputs, grad_outputs, strict=True)
             if out is not None and out._requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    kept_outputs, kept_grads = zip(*pairs, strict=True)
    return grad(kept_outputs, inputs, kept_grads, retain_graph=retain_graph,
                create_graph=create_graph, allow_unused=True)


_NOT_REQUIRING = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs "
               "must be computed in a differentiable manner from the input when running in "
               "strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
               "independent of the input. This is not allowed in strict mode. You should ensure "
               "that your function is thrice differentiable and that the hessian depends on the "
               "inputs.",
}


def _check_requires_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """strict=True: every tensor must depend on the inputs (torch's messages, by stage)."""
    if not strict:
        return
    for i, tensor in enumerate(tensors):
        if tensor is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode."
            )
        if not tensor._requires_grad:
            raise RuntimeError(_NOT_REQUIRING[kind].format(i=i))


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
                   "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}


def _zeros_for_none(grads: tuple, like: tuple, strict: bool, create_graph: bool,
                    stage: str) -> tuple:
    """A missing gradient is zero (or, with strict=True, an error naming the input)."""
    filled = []
    for i, (g, ref) in enumerate(zip(grads, like, strict=True)):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = _zeros_like(ref)
        elif strict and create_graph and not g._requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode when create_graph=True."
            )
        filled.append(g)
    return tuple(filled)


def _check_v(v: tuple, like: tuple, like_is_tuple: bool) -> None:
    if len(v) != len(like):
        if like_is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(like)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for index, (item, ref) in enumerate(zip(v, like, strict=True)):
        if item.shape != ref.shape:
            where = f"Entry {index} in " if like_is_tuple else ""
            raise RuntimeError(
                f"{where}v has invalid size: should be {ref.shape} but got {item.shape}."
            )


def _prepare_v(v: Any, like: tuple, like_is_tuple: bool, caller: str, create_graph: bool,
               none_message: str) -> tuple | None:
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _as_tuple(v, "v", caller)
    v = _fresh(v, create_graph, need_graph=False)
    _check_v(v, like, like_is_tuple)
    return v


_V_NONE_OUTPUT = ("The vector v can only be None if the user-provided function returns a "
                  "single Tensor with a single element.")
_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is "
                 "a single Tensor with a single element.")


def _last_pass(outputs: tuple, inputs: tuple, v: tuple, like: tuple, stage: str, strict: bool,
               create_graph: bool) -> tuple:
    """The product's final backward pass, recorded only under ``create_graph`` (or an outer
    recording); a missing gradient is zeros shaped like ``like`` (or an error if strict)."""
    with set_grad_enabled(create_graph or is_grad_enabled()):
        result = _grad(outputs, inputs, v, create_graph=create_graph)
        return _zeros_for_none(result, like, strict, create_graph, stage)


def _value_and_product(outputs: tuple, outputs_tuple: bool, result: tuple, result_tuple: bool,
                       create_graph: bool) -> tuple[Any, Any]:
    """What vjp, jvp, vhp and hvp return: ``(func(inputs), product)``, nested as given."""
    return (_unpack(_detached(outputs, create_graph), outputs_tuple),
            _unpack(_detached(result, create_graph), result_tuple))


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), v^T J)``: the vector-Jacobian product, one backward pass."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, outputs_tuple, "vjp", create_graph, _V_NONE_OUTPUT)
    result = _last_pass(outputs, inputs, v, inputs, "back", strict, create_graph)
    return _value_and_product(outputs, outputs_tuple, result, inputs_tuple, create_graph)


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), J v)``, by the double-backward trick (two backward passes): the
    gradient u^T J is linear in u, so differentiating it with respect to u, weighted by v,
    gives J v. u is zeros: its value never enters the result."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, "jvp", create_graph, _V_NONE_INPUT)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        u = tuple(_zeros_like(out, requires_grad=True) for out in outputs)
        u_jacobian = _grad(outputs, inputs, u, create_graph=True)
        _check_requires_grad(u_jacobian, "grad_inputs", strict)
    result = _last_pass(u_jacobian, u, v, outputs, "back_trick", strict, create_graph)
    return _value_and_product(outputs, outputs_tuple, result, outputs_tuple, create_graph)


def jacobian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` has shape
    ``outputs[i].shape + inputs[j].shape`` (tuple levels dropped where torch drops them).

    Reverse mode computes one row per output element (a vector-Jacobian product with a
    one-hot vector); forward mode one column per input element (a Jacobian-vector product,
    by the double-backward trick). ``vectorize=True`` is accepted for torch's sake but
    computes the same rows one by one: miniautograd has no vmap.
    """
    if strategy not in _STRATEGIES:
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        _check_forward_mode(create_graph, strict, vectorize)
        return _jacobian_by_columns(func, inputs)
    if vectorize and strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
            "supported together. Please either set `strict=False` or `vectorize=False`."
        )
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                           "function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        blocks = tuple(_rows(i, out, inputs, create_graph, strict)
                       for i, out in enumerate(outputs))
    return _nest(_detached(blocks, create_graph), outputs_tuple, inputs_tuple)


def _rows(i: int, out: Tensor, inputs: tuple, create_graph: bool, strict: bool) -> tuple:
    """d out / d input_j for every j, one output element (one backward pass) at a time."""
    rows: list[list[Tensor]] = [[] for _ in inputs]
    flat = xp_of(out._data).zeros(out._data.size, dtype=out._data.dtype)
    for k in range(out.numel()):
        one_hot = flat.copy()
        one_hot[k] = 1
        weight = Tensor._make(one_hot.reshape(out._data.shape))
        grads = _grad((out,), inputs, (weight,), create_graph=create_graph, retain_graph=True)
        for j, (g, inp) in enumerate(zip(grads, inputs, strict=True)):
            if g is None:
                if strict:
                    raise RuntimeError(
                        f"Output {i} of the user-provided function is independent of input {j}. "
                        "This is not allowed in strict mode."
                    )
                g = _zeros_like(inp)
            elif strict and create_graph and not g._requires_grad:
                raise RuntimeError(
                    f"The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode when create_graph=True."
                )
            rows[j].append(g)
    return tuple(stack(r).view(*out.shape, *inp.shape) if r else _empty_block(out, inp)
                 for r, inp in zip(rows, inputs, strict=True))


def _empty_block(out: Tensor, inp: Tensor) -> Tensor:
    """The block of an output or input with no elements: nothing to differentiate."""
    return Tensor._make(xp_of(inp._data).zeros((*out.shape, *inp.shape), inp._data.dtype))


def _check_forward_mode(create_graph: bool, strict: bool, vectorize: bool) -> None:
    """torch's limits on strategy="forward-mode", kept so that programs fail alike."""
    if create_graph:
        raise NotImplementedError(
            "torch.autograd.functional.jacobian: `create_graph=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`create_graph=False` or `strategy="reverse-mode"`.'
        )
    if strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` "
            "are not supported together (yet). Please either set `strict=False` or "
            '`strategy="reverse-mode"`.'
        )
    if not vectorize:
        raise NotImplementedError(  # "isonly": torch's message, word for word
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
            "implemented for `vectorize=True`."
        )


def _jacobian_by_columns(func: Callable, inputs: Any) -> Any:
    """Forward mode: column k of d out_i / d input_j is J e_k, one ``jvp`` per input element."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    columns: list[list[list[Tensor]]] = []  # [input j][element k] -> J e_k per output
    outputs_tuple, outputs = False, ()
    # torch's forward mode keeps the tangents' history: a block that depends on an input
    # that requires grad is differentiable.
    keep_graph = any(inp._requires_grad for inp in inputs)
    for j, inp in enumerate(inputs):
        columns.append([])
        for k in range(inp.numel()):
            tangent = tuple(_zeros_like(x) for x in inputs)
            tangent[j]._data.reshape(-1)[k] = 1
            outputs, products = jvp(func, inputs, tangent, create_graph=keep_graph)
            outputs_tuple = isinstance(outputs, tuple)
            columns[j].append(products if outputs_tuple else (products,))
    outputs = outputs if outputs_tuple else (outputs,)
    # Lists, not tuples: what torch's forward mode returns.
    blocks = [[_column_block([c[i] for c in columns[j]], out, inp)
               for j, inp in enumerate(inputs)]
              for i, out in enumerate(outputs)]
    return _nest(blocks, outputs_tuple, inputs_tuple)


def _column_block(columns: list[Tensor], out: Tensor, inp: Tensor) -> Tensor:
    """Columns J e_k (each of the output's shape) as one block of shape out + inp."""
    if not columns:
        return _empty_block(out, inp)
    return stack(columns, dim=-1).reshape(*out.shape, *inp.shape)


def hessian(func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar ``func``: the Jacobian of its gradient. ``H[i][j]`` has shape
    ``inputs[i].shape + inputs[j].shape``; a single input gives one tensor."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*args: Tensor) -> Tensor:
        return _scalar_output(func, args, "hessian", strict)[1][0].squeeze()

    def gradient(*args: Tensor) -> tuple:
        first = jacobian(scalar_func, args, create_graph=True)
        _check_requires_grad(first, "jacobian", strict)
        return first

    result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _nest(result, inputs_tuple, inputs_tuple)


def _scalar_output(func: Callable, inputs: tuple, caller: str, strict: bool
                   ) -> tuple[bool, tuple[Tensor, ...]]:
    outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                       caller)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_tuple:
        raise RuntimeError(f"The function given to {caller} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {caller} should contain a single "
            "element"
        )
    return outputs_tuple, outputs


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), v^T H)`` for a scalar ``func``: the gradient of (gradient . v)."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, "vhp", create_graph, _V_NONE_INPUT)
        outputs_tuple, outputs = _scalar_output(func, inputs, "vhp", strict)
        first = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(first, "jacobian", strict)
    result = _last_pass(first, inputs, v, inputs, "double_back", strict, create_graph)
    return _value_and_product(outputs, outputs_tuple, result, inputs_tuple, create_graph)


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), H v)`` for a scalar ``func``, by the double-backward trick on top of
    the gradient (three backward passes: slower than ``vhp``, equal to it when H is
    symmetric)."""
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, "hvp", create_graph, _V_NONE_INPUT)
        outputs_tuple, outputs = _scalar_output(func, inputs, "hvp", strict)
        first = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(first, "jacobian", strict)
        u = tuple(_zeros_like(inp, requires_grad=True) for inp in inputs)
        u_hessian = _grad(first, inputs, u, create_graph=True)
        _check_requires_grad(first, "hessian", strict)
    result = _last_pass(u_hessian, u, v, inputs, "double_back_trick", strict, create_graph)
    return _value_and_product(outputs, outputs_tuple, result, inputs_tuple, create_graph)
