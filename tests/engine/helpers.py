"""``check_op``: run one program on torch and on miniautograd and demand the same everything.

A test is one line: ``check_op([(3, 4), (4,)], lambda t, a, b: a * b)``. ``t`` is the module
(``torch`` or ``miniautograd``), so the function body is the same program for both. Compared:
forward values, dtypes, shapes and flags; the backward graph (every node's ``name()`` and its
``next_functions``, down to the leaves); the gradient of every input for a random output weight
v (a plain ``.sum()`` would hide mistakes that are symmetric in the elements); and the double
backward: the gradient of ``sum(grad_i * w_i)`` with respect to the inputs and to v.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

import miniautograd as mini
from miniautograd.testing import tolerances


@dataclass(frozen=True)
class NoGrad:
    """An input array that enters both programs as a tensor that does not require grad."""

    array: np.ndarray


Input = tuple | np.ndarray | torch.Tensor | NoGrad | float | int | bool


def uniform(shape: tuple, low: float, high: float, seed: int = 1) -> np.ndarray:
    """Float64 data in [low, high): for ops defined only on part of the line (log, sqrt, /)."""
    return np.random.default_rng(seed).uniform(low, high, shape)


def make_arrays(inputs: Sequence[Input], dtype: np.dtype, rng: np.random.Generator) -> list:
    """Shapes become random data; float arrays take ``dtype``; other values pass unchanged."""
    result = []
    for item in inputs:
        if isinstance(item, tuple):
            result.append(rng.uniform(-2.0, 2.0, item).astype(dtype))
        elif isinstance(item, torch.Tensor):  # a torch tensor: its values and requires_grad
            array = item.detach().numpy()
            result.append(array.astype(dtype) if item.requires_grad else NoGrad(array))
        elif isinstance(item, NoGrad):
            array = np.asarray(item.array)
            result.append(NoGrad(array.astype(dtype) if array.dtype.kind == "f" else array))
        elif isinstance(item, np.ndarray) and item.dtype.kind == "f":
            result.append(item.astype(dtype))
        else:
            result.append(item)
    return result


def make_input(module: Any, value: Any, grad: bool, device: str) -> Any:
    """The same input for either engine: a tensor (float arrays require grad) or a number."""
    if isinstance(value, NoGrad):
        return module.tensor(value.array, device=device)
    if isinstance(value, np.ndarray):
        requires = grad and value.dtype.kind == "f"
        return module.tensor(value, device=device, requires_grad=requires)
    return value


def _outputs(result: Any) -> tuple:
    """A single tensor, or a tuple of them (``max(dim)`` returns values and indices)."""
    return tuple(result) if isinstance(result, tuple) else (result,)


def _dtype_name(dtype: Any) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _numpy(tensor: Any) -> np.ndarray:
    # force=True: torch may return a ZeroTensor (a lazily materialized zero) from double backward
    return tensor.detach().cpu().numpy(force=True)


def assert_same_tensor(mine: Any, theirs: Any, what: str, rtol: float | None = None,
                       atol: float | None = None, leaf: bool = True) -> None:
    """Same type of value, dtype, shape, requires_grad, is_leaf and values (within tolerance).

    ``leaf=False`` skips is_leaf: a gradient may be the incoming tensor itself or a view of it.
    """
    if theirs is None or mine is None:
        assert mine is None and theirs is None, (
            f"{what}: miniautograd gives {type(mine).__name__}, torch gives {type(theirs).__name__}"
        )
        return
    if not isinstance(theirs, torch.Tensor):
        assert not isinstance(mine, mini.Tensor) and mine == theirs, f"{what}: {mine} != {theirs}"
        return
    assert isinstance(mine, mini.Tensor), f"{what}: expected a Tensor, got {type(mine).__name__}"
    assert _dtype_name(mine.dtype) == _dtype_name(theirs.dtype), (
        f"{what}: dtype {mine.dtype} != torch's {theirs.dtype}"
    )
    assert tuple(mine.shape) == tuple(theirs.shape), (
        f"{what}: shape {tuple(mine.shape)} != torch's {tuple(theirs.shape)}"
    )
    assert mine.requires_grad == theirs.requires_grad, (
        f"{what}: requires_grad {mine.requires_grad} != torch's {theirs.requires_grad}"
    )
    assert not leaf or mine.is_leaf == theirs.is_leaf, (
        f"{what}: is_leaf {mine.is_leaf} != torch's {theirs.is_leaf}"
    )
    expected = _numpy(theirs)
    default_rtol, default_atol = tolerances(expected.dtype)  # integers and bools: exact
    np.testing.assert_allclose(  # |mine - theirs| <= atol + rtol |theirs|, as testing.close
        _numpy(mine), expected, equal_nan=True, err_msg=what,
        rtol=default_rtol if rtol is None else rtol, atol=default_atol if atol is None else atol,
    )


def assert_same_graph(mine: Any, theirs: Any, mine_leaves: Sequence,
                      torch_leaves: Sequence) -> None:
    """Walk both backward graphs together: same node names, same edges, same leaves.

    Nodes are paired as they are met, one to one: a node reached twice must be paired with the
    same partner both times, in either engine, so a sub-graph shared in one (``b = a.exp();
    b + b``) must be shared in the other, not computed twice (``a.exp() + a.exp()``).
    """
    pairs: dict[int, tuple] = {}  # id(torch node) -> (torch node, its partner); keeps both alive
    partners: dict[int, Any] = {}  # id(miniautograd node) -> the torch node it was paired with
    stack = [(mine, theirs, "grad_fn")]
    while stack:
        m, t, path = stack.pop()
        if t is None or m is None:
            assert m is None and t is None, f"{path}: miniautograd has {m}, torch has {t}"
            continue
        if id(t) in pairs:
            assert pairs[id(t)][1] is m, f"{path}: torch reuses a node here, miniautograd doesn't"
            continue
        assert id(m) not in partners, f"{path}: miniautograd reuses a node here, torch doesn't"
        pairs[id(t)] = (t, m)
        partners[id(m)] = t
        assert m.name() == t.name(), f"{path}: node {m.name()!r} != torch's {t.name()!r}"
        if hasattr(t, "variable"):
            index = next(i for i, leaf in enumerate(torch_leaves) if leaf is t.variable)
            assert m.variable is mine_leaves[index], f"{path}: accumulates into another leaf"
        m_next, t_next = m.next_functions, t.next_functions
        assert len(m_next) == len(t_next), (
            f"{path} ({t.name()}): {len(m_next)} next_functions != torch's {len(t_next)}: "
            f"{_names(m_next)} vs {_names(t_next)}"
        )
        for k, (m_edge, t_edge) in enumerate(zip(m_next, t_next, strict=True)):
            (m_child, m_nr), (t_child, t_nr) = m_edge, t_edge
            assert m_nr == t_nr, f"{path}.next_functions[{k}]: input_nr {m_nr} != {t_nr}"
            stack.append((m_child, t_child, f"{path}.next_functions[{k}][0]"))


def _names(edges: tuple) -> list:
    return [(None if node is None else node.name(), nr) for node, nr in edges]


def check_op(
    inputs: Sequence[Input],
    fn: Callable[..., Any],
    *,
    dtype: Any = np.float64,
    atol: float | None = None,
    rtol: float | None = None,
    grad: bool = True,
    double_backward: bool = True,
    graph: bool = True,
    device: str = "cpu",
    seed: int = 0,
) -> None:
    """Run ``fn(module, *inputs)`` on both engines and compare forward, graph and gradients.

    ``inputs``: a shape (random float data in [-2, 2) that requires grad), an array (float
    arrays require grad and take ``dtype``), ``NoGrad(array)``, a torch tensor (its values, and
    whether it requires grad), or a Python number.
    Tolerances default to each compared tensor's dtype (``miniautograd.testing.TOLERANCES``).
    Warnings are recorded, and none may be a RuntimeWarning (numpy's, which torch never
    emits).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _check_op(inputs, fn, np.dtype(dtype), atol, rtol, grad, double_backward, graph, device,
                  seed)
    # torch never raises RuntimeWarning here; numpy's ("divide by zero encountered") must not leak
    leaked = [f"{w.filename}:{w.lineno}: {w.message}" for w in caught
              if issubclass(w.category, RuntimeWarning)]
    assert not leaked, f"numpy warnings leak where torch is silent: {leaked}"


def _check_op(inputs: Sequence[Input], fn: Callable[..., Any], dtype: np.dtype,
              atol: float | None, rtol: float | None, grad: bool, double_backward: bool,
              graph: bool, device: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    arrays = make_arrays(inputs, dtype, rng)
    t_in = [make_input(torch, a, grad, "cpu") for a in arrays]
    m_in = [make_input(mini, a, grad, device) for a in arrays]

    t_out, m_out = _outputs(fn(torch, *t_in)), _outputs(fn(mini, *m_in))
    assert len(m_out) == len(t_out), f"{len(m_out)} outputs, torch gives {len(t_out)}"
    for k, (m, t) in enumerate(zip(m_out, t_out, strict=True)):
        assert_same_tensor(m, t, f"forward output {k}", rtol, atol)
        if isinstance(m, mini.Tensor):
            assert m.device.type == device, f"output {k} is on {m.device}, not {device}"
    tolerances = {"rtol": rtol, "atol": atol}
    _check_gradients(t_in, m_in, t_out, m_out, rng, grad, double_backward, device, tolerances)
    if graph:  # last: a different graph should not hide wrong values
        for m, t in zip(m_out, t_out, strict=True):
            if isinstance(t, torch.Tensor):
                assert_same_graph(m.grad_fn, t.grad_fn, m_in, t_in)


def _check_gradients(t_in: list, m_in: list, t_out: tuple, m_out: tuple,
                     rng: np.random.Generator, grad: bool, double_backward: bool,
                     device: str, tolerances: dict) -> None:
    """First and second derivatives, for random output weights v and gradient weights w."""
    t_wrt = [t for t in t_in if isinstance(t, torch.Tensor) and t.requires_grad]
    m_wrt = [m for m in m_in if isinstance(m, mini.Tensor) and m.requires_grad]
    diff = [k for k, t in enumerate(t_out) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not (grad and t_wrt and diff):
        return
    weights = [rng.standard_normal(tuple(t_out[k].shape)).astype(_numpy(t_out[k]).dtype)
               for k in diff]
    t_v = [torch.tensor(w, requires_grad=double_backward) for w in weights]
    m_v = [mini.tensor(w, device=device, requires_grad=double_backward) for w in weights]
    t_g = torch.autograd.grad([t_out[k] for k in diff], t_wrt, t_v,
                              create_graph=double_backward, allow_unused=True)
    m_g = mini.autograd.grad([m_out[k] for k in diff], m_wrt, m_v,
                             create_graph=double_backward, allow_unused=True)
    for k, (m, t) in enumerate(zip(m_g, t_g, strict=True)):
        assert_same_tensor(m, t, f"gradient of input {k}", leaf=False, **tolerances)
    if not double_backward:
        return

    used = [k for k, t in enumerate(t_g) if t is not None and t.requires_grad]
    if not used:
        return
    w2 = [rng.standard_normal(tuple(t_g[k].shape)).astype(_numpy(t_g[k]).dtype) for k in used]
    t_s = sum((t_g[k] * torch.tensor(w)).sum() for k, w in zip(used, w2, strict=True))
    m_s = sum((m_g[k] * mini.tensor(w, device=device)).sum()
              for k, w in zip(used, w2, strict=True))
    t_gg = torch.autograd.grad(t_s, t_wrt + t_v, allow_unused=True)
    m_gg = mini.autograd.grad(m_s, m_wrt + m_v, allow_unused=True)
    for k, (m, t) in enumerate(zip(m_gg, t_gg, strict=True)):
        what = f"double backward, input {k}" if k < len(t_wrt) else "double backward, weight v"
        assert_same_tensor(m, t, what, leaf=False, **tolerances)


# ---- whole programs: run the same code on both engines ------------------------------------------


def _normalized(text: str) -> str:
    return text.replace("miniautograd.", "torch.")


def assert_same_value(mine: Any, theirs: Any, what: str = "result", rtol: float | None = None,
                      atol: float | None = None) -> None:
    """Nested tuples/lists/dicts of tensors, numbers, strings and None must agree.

    Tolerances default to the compared tensor's dtype (``miniautograd.testing.TOLERANCES``).
    """
    if isinstance(theirs, torch.Tensor):
        assert_same_tensor(mine, theirs, what, rtol, atol)
    elif isinstance(theirs, (tuple, list)):
        assert isinstance(mine, (tuple, list)), f"{what}: {type(mine).__name__} is not a sequence"
        assert len(mine) == len(theirs), f"{what}: length {len(mine)} != torch's {len(theirs)}"
        for k, (m, t) in enumerate(zip(mine, theirs, strict=True)):
            assert_same_value(m, t, f"{what}[{k}]", rtol, atol)
    elif isinstance(theirs, dict):
        assert list(mine) == list(theirs), f"{what}: keys {list(mine)} != {list(theirs)}"
        for key in theirs:
            assert_same_value(mine[key], theirs[key], f"{what}[{key!r}]", rtol, atol)
    elif isinstance(theirs, (str, torch.dtype)):
        mine, theirs = str(mine), str(theirs)
        assert _normalized(mine) == _normalized(theirs), f"{what}: {mine!r} != torch's {theirs!r}"
    elif isinstance(theirs, float):
        assert isinstance(mine, float), f"{what}: {mine!r} is not a float like {theirs!r}"
        np.testing.assert_allclose(mine, theirs, rtol=rtol or 1e-7, atol=atol or 0, err_msg=what)
    else:
        assert type(mine) is type(theirs) and mine == theirs, (
            f"{what}: {mine!r} != torch's {theirs!r}"
        )


def same_on_both(program: Callable[[Any], Any], **tolerances: float) -> Any:
    """``program(t)`` returns the same nested values with ``t = torch`` and ``t = miniautograd``.

    Returns miniautograd's result, for further checks of what torch cannot say.
    """
    theirs, mine = program(torch), program(mini)
    assert_same_value(mine, theirs, **tolerances)
    return mine


def raises_like_torch(program: Callable[[Any], Any], *hints: str) -> BaseException:
    """``program`` raises in torch; it must raise the same class in miniautograd (or a subclass,
    so that the learner's ``except`` clause still works), and the message must contain every
    hint: what went wrong and what to do. Returns miniautograd's exception."""
    try:
        program(torch)
    except Exception as error:  # noqa: BLE001 - any exception: its class is what we compare
        expected = type(error)
    else:
        raise AssertionError("torch does not raise: the test itself is wrong")
    try:
        program(mini)
    except Exception as error:  # noqa: BLE001
        assert isinstance(error, expected), (
            f"miniautograd raises {type(error).__name__}: {error}; torch raises {expected.__name__}"
        )
        for hint in hints:
            assert hint in str(error), f"message lacks {hint!r}: {error}"
        return error
    raise AssertionError(f"miniautograd does not raise; torch raises {expected.__name__}")
