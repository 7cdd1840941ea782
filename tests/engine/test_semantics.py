"""Autograd semantics, program by program: each program runs on torch and on miniautograd and
must return the same values (tensors, flags, names, orders of events)."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
import torch
from helpers import raises_like_torch, same_on_both

import miniautograd as mini

X = [1.0, -2.0, 3.0]


def leaf(t, values=X, **kwargs):
    return t.tensor(values, requires_grad=True, **kwargs)


# ---- .grad accumulation, leaves and non-leaves ---------------------------------------------------


def test_backward_accumulates_into_grad():
    def program(t):
        x = leaf(t)
        assert x.grad is None
        (x * x).sum().backward()
        first = x.grad.clone()
        grad_object = x.grad
        (x * 3).sum().backward()
        return first, x.grad, x.grad is grad_object

    same_on_both(program)


def test_gradient_argument_weights_the_outputs():
    def program(t):
        x = leaf(t)
        y = x * x
        y.backward(gradient=t.tensor([1.0, 0.1, 0.01]))
        return x.grad

    same_on_both(program)


def test_backward_of_one_element_tensor_needs_no_gradient():
    def program(t):
        x = leaf(t)
        (x[:1] * 2).backward()
        return x.grad

    same_on_both(program)


def test_autograd_backward_function():
    def program(t):
        x = leaf(t)
        a, b = x * 2, x.exp()
        t.autograd.backward([a, b], [t.ones(3), t.full((3,), 0.5)])
        return x.grad

    same_on_both(program)


def test_gradient_of_other_dtype_is_cast():
    """A float64 ``gradient`` for a float32 output: the leaf's .grad stays float32."""

    def program(t):
        x = leaf(t)
        x.exp().backward(t.ones(3, dtype=t.float64))
        y = leaf(t)
        y.reshape(3, 1).backward(t.ones(3, 1, dtype=t.float64))
        return x.grad, y.grad

    same_on_both(program, rtol=1e-6)


def test_leaf_flags():
    def program(t):
        x = leaf(t)
        plain = t.ones(3)
        derived_plain = plain * 2
        derived = x * 2
        detached = derived.detach()
        same_dtype = x.float()
        return [(v.is_leaf, v.requires_grad, v.grad_fn is None)
                for v in (x, plain, derived_plain, derived, detached, same_dtype)]

    same_on_both(program)


def test_requires_grad_propagates_through_mixed_inputs():
    def program(t):
        x, c = leaf(t), t.ones(3)
        return [(v.requires_grad, v.is_leaf) for v in (x + c, c + x, c * 2, c + c, x.sum())]

    same_on_both(program)


def test_grad_of_non_leaf_warns_and_is_none():
    def program(t):
        y = leaf(t) * 2
        y.sum().backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = y.grad
        return value, [w.category.__name__ for w in caught]

    same_on_both(program)
    y = leaf(mini) * 2
    with pytest.warns(UserWarning, match=r"retain_grad\(\)"):
        assert y.grad is None


def test_retain_grad():
    def program(t):
        x = leaf(t)
        y = x * 2
        y.retain_grad()
        z = (y * y).sum()
        z.backward()
        return y.grad, y.retains_grad, x.retains_grad, y.is_leaf

    same_on_both(program)


def test_retain_grad_sees_the_gradient_after_tensor_hooks():
    def program(t):
        x = leaf(t)
        y = x * 2
        y.retain_grad()
        y.register_hook(lambda g: g * 10)
        (y * y).sum().backward()
        return y.grad, x.grad

    same_on_both(program)


def test_grad_setter_and_zero():
    def program(t):
        x = leaf(t)
        (x * x).sum().backward()
        x.grad.zero_()
        zeroed = x.grad.clone()
        (x * 2).sum().backward()
        after = x.grad.clone()
        x.grad = None
        (x * 3).sum().backward()
        return zeroed, after, x.grad

    same_on_both(program)


def test_data_getter_and_setter():
    def program(t):
        x = leaf(t)
        d = x.data
        flags = (d.requires_grad, d.is_leaf)
        x.data = t.zeros(3)
        (x + 1).sum().backward()
        return flags, x, x.grad, x.is_leaf

    same_on_both(program)


def test_detach_shares_storage():
    def program(t):
        x = t.ones(3)
        d = x.detach()
        d[0] = 5.0
        return x, d.requires_grad

    same_on_both(program)


def test_detach_in_place():
    def program(t):
        y = leaf(t) * 2
        z = y.detach_()
        return z is y, y.requires_grad, y.grad_fn is None, y.is_leaf

    same_on_both(program)


# ---- grad modes ---------------------------------------------------------------------------------


def test_no_grad_and_enable_grad():
    def program(t):
        x = leaf(t)
        with t.no_grad():
            a = x * 2
            inside = t.is_grad_enabled()
            with t.enable_grad():
                b = x * 2
            c = x * 2
        return [(v.requires_grad, v.grad_fn is None) for v in (a, b, c)], inside, \
            t.is_grad_enabled()

    same_on_both(program)


def test_grad_modes_as_decorators():
    def program(t):
        x = leaf(t)

        @t.no_grad()
        def frozen(v):
            return v * 2

        @t.enable_grad()
        def recorded(v):
            return v * 2

        @t.set_grad_enabled(False)
        def off(v):
            return v * 2

        with t.no_grad():
            inner = recorded(x)
        return frozen(x).requires_grad, inner.requires_grad, off(x).requires_grad, \
            t.is_grad_enabled(), frozen.__name__

    same_on_both(program)


def test_grad_mode_decorator_without_parentheses():
    def program(t):
        @t.no_grad
        def frozen(v):
            return v * 2

        @t.enable_grad
        def recorded(v):
            return v * 2

        x = leaf(t)
        with t.no_grad():
            inner = recorded(x)
        return frozen(x).requires_grad, inner.requires_grad

    same_on_both(program)


def test_no_grad_on_a_generator():
    def program(t):
        @t.no_grad()
        def doubled(values):
            for v in values:
                yield v * 2

        return [v.requires_grad for v in doubled([leaf(t), leaf(t)])], t.is_grad_enabled()

    same_on_both(program)


def test_set_grad_enabled_as_function_and_context():
    def program(t):
        x = leaf(t)
        t.set_grad_enabled(False)
        a = x * 2
        t.set_grad_enabled(True)
        with t.set_grad_enabled(False):
            b = x * 2
        with t.set_grad_enabled(True):
            c = x * 2
        return a.requires_grad, b.requires_grad, c.requires_grad, t.is_grad_enabled()

    same_on_both(program)


def test_no_grad_restores_mode_after_exception():
    def program(t):
        try:
            with t.no_grad():
                raise KeyError("boom")
        except KeyError:
            pass
        return t.is_grad_enabled()

    same_on_both(program)


def test_inference_mode():
    def program(t):
        x = leaf(t)
        with t.inference_mode():
            y = x * 2
        return y.requires_grad

    same_on_both(program)


def test_weight_update_under_no_grad_keeps_a_leaf():
    def program(t):
        w = leaf(t)
        (w * w).sum().backward()
        with t.no_grad():
            w -= 0.1 * w.grad
            w.grad.zero_()
        return w, w.is_leaf, w.requires_grad, w.grad_fn is None, w.grad

    same_on_both(program)


# ---- retain_graph, create_graph, autograd.grad --------------------------------------------------


def test_second_backward_raises():
    def program(t):
        x = leaf(t)
        y = (x * x).sum()
        y.backward()
        y.backward()

    raises_like_torch(program, "retain_graph=True", "second time")


def test_retain_graph_allows_a_second_backward():
    def program(t):
        x = leaf(t)
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        first = x.grad.clone()
        y.backward()
        return first, x.grad

    same_on_both(program)


def test_second_backward_without_saved_tensors_is_allowed():
    def program(t):
        x = leaf(t)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        return x.grad

    same_on_both(program)


def test_saved_tensors_are_freed_after_backward():
    def program(t):
        x = leaf(t)
        y = x * x
        y.sum().backward()
        return y.grad_fn._saved_self

    raises_like_torch(program, "freed")


def test_higher_derivatives():
    def program(t):
        x = leaf(t)
        y = (x**3).sum()
        (g,) = t.autograd.grad(y, x, create_graph=True)
        (gg,) = t.autograd.grad(g.sum(), x, create_graph=True)
        (ggg,) = t.autograd.grad(gg.sum(), x)
        return g, gg, ggg

    same_on_both(program)


def test_backward_create_graph_makes_grad_differentiable():
    def program(t):
        x = leaf(t)
        (x.sin() * x).sum().backward(create_graph=True)
        g = x.grad
        flags = g.requires_grad, g.grad_fn is None
        x.grad = None
        g.sum().backward()
        return flags, x.grad

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns about create_graph=True with .grad
        same_on_both(program)


def test_autograd_grad_leaves_grad_untouched():
    def program(t):
        x, w = leaf(t), leaf(t, [0.5, 0.25, 2.0])
        y = (x * w).sum()
        gx, gw = t.autograd.grad(y, [x, w])
        return gx, gw, x.grad, w.grad

    same_on_both(program)


def test_autograd_grad_several_outputs_with_grad_outputs():
    def program(t):
        x = leaf(t)
        a, b = x * 2, x.exp()
        return t.autograd.grad([a, b], x, [t.ones(3), t.tensor([1.0, 2.0, 3.0])])

    same_on_both(program)


def test_autograd_grad_allow_unused():
    def program(t):
        x, unused = leaf(t), leaf(t)
        return t.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)

    same_on_both(program)

    def without(t):
        x, unused = leaf(t), leaf(t)
        return t.autograd.grad((x * 2).sum(), [x, unused])

    raises_like_torch(without, "allow_unused=True")


def test_autograd_grad_frees_the_graph_by_default():
    def program(t):
        x = leaf(t)
        y = (x * x).sum()
        t.autograd.grad(y, x)
        t.autograd.grad(y, x)

    raises_like_torch(program, "retain_graph=True")


def test_autograd_grad_of_intermediate():
    def program(t):
        x = leaf(t)
        h = x.exp()
        y = (h * h).sum()
        return t.autograd.grad(y, [h, x])

    same_on_both(program)


def test_backward_inputs_argument():
    def program(t):
        x, w = leaf(t), leaf(t, [0.5, 0.25, 2.0])
        (x * w).sum().backward(inputs=[w])
        return x.grad, w.grad

    same_on_both(program)


# ---- versions and in-place ----------------------------------------------------------------------


def test_version_counter_counts_in_place_ops():
    def program(t):
        a = t.zeros(4)
        versions = [a._version]
        a.add_(1)
        versions.append(a._version)
        a += 1
        versions.append(a._version)
        a[0] = 5.0
        versions.append(a._version)
        a.mul_(2).zero_()
        versions.append(a._version)
        a[a > 3] = 0
        versions.append(a._version)
        return versions

    same_on_both(program)


def test_views_share_the_version_counter():
    def program(t):
        a = t.zeros(2, 3)
        views = [a[0], a.view(6), a.reshape(3, 2), a.t(), a.transpose(0, 1), a.detach(),
                 a.unsqueeze(0), a[:, 1:], a.expand(4, 2, 3), a.permute(1, 0)]
        a.add_(1)
        return [v._version for v in views]

    same_on_both(program)


@pytest.mark.parametrize(
    "modify",
    [
        pytest.param(lambda y: y.add_(1), id="add_"),
        pytest.param(lambda y: y.mul_(2), id="mul_"),
        pytest.param(lambda y: y.zero_(), id="zero_"),
        pytest.param(lambda y: y.clamp_(0, 1), id="clamp_"),
        pytest.param(lambda y: y.sub_(1), id="sub_"),
        pytest.param(lambda y: y.div_(2), id="div_"),
    ],
)
def test_modifying_a_saved_output_raises(modify):
    def program(t):
        x = leaf(t)
        y = x.exp()  # exp saves its result
        modify(y)
        y.sum().backward()

    raises_like_torch(program, "modified by an inplace operation", "clone()")


@pytest.mark.parametrize(
    "use",
    [
        pytest.param(lambda h: h.sin(), id="sin"),
        pytest.param(lambda h: h * h, id="mul"),
        pytest.param(lambda h: h.log(), id="log"),
        pytest.param(lambda h: h**2, id="pow"),
        pytest.param(lambda h: h @ h, id="dot"),
        pytest.param(lambda h: (h * 0 + 1) / h, id="div"),
    ],
)
def test_modifying_a_saved_input_raises(use):
    def program(t):
        x = leaf(t, [1.0, 2.0, 3.0])
        h = x * 1
        y = use(h)
        h.add_(1)
        y.sum().backward()

    raises_like_torch(program, "modified by an inplace operation", "is at version 1")


def test_modifying_through_detach_is_seen():
    def program(t):
        x = leaf(t)
        y = x.exp()
        y.detach().zero_()
        y.sum().backward()

    raises_like_torch(program, "modified by an inplace operation")


def test_modifying_through_data_is_not_seen():
    """``.data`` bypasses the version counter: backward runs on the modified values."""

    def program(t):
        x = leaf(t)
        w = leaf(t, [2.0, 2.0, 2.0])
        y = (x * w).sum()
        w.data.mul_(10)
        y.backward()
        return x.grad, w.grad

    same_on_both(program)


def test_modifying_a_view_of_a_saved_tensor_raises():
    """torch raises at backward (version counter); miniautograd may refuse the in-place op on
    the view already (it does not rebase views' history): a RuntimeError either way."""

    def program(t):
        x = leaf(t)
        h = x * 1
        y = h.sin()
        h[0:2].mul_(2)
        y.sum().backward()

    message = str(raises_like_torch(program))
    assert "modified by an inplace" in message or "in-place operation on a view" in message


def test_in_place_on_a_view_of_a_non_leaf_changes_the_base_gradient():
    def program(t):
        x = leaf(t)
        y = x * 1
        y[0:2].mul_(3)
        (y * t.tensor([1.0, 10.0, 100.0])).sum().backward()
        return y, x.grad

    same_on_both(program)


def test_in_place_on_leaf_requiring_grad_raises():
    raises_like_torch(lambda t: leaf(t).add_(1), "in-place operation", "no_grad")
    raises_like_torch(lambda t: leaf(t).zero_(), "in-place operation")

    def iadd(t):
        x = leaf(t)
        x += 1

    raises_like_torch(iadd, "in-place operation")

    def setitem(t):
        x = leaf(t)
        x[0] = 1.0

    raises_like_torch(setitem, "in-place operation")


def test_in_place_chain_on_non_leaf():
    def program(t):
        x = leaf(t)
        y = x * 2
        y.add_(1).mul_(x).clamp_(max=20.0)
        y.sum().backward()
        return y, y.grad_fn.name(), x.grad

    same_on_both(program)


def test_setitem_on_tensors_without_grad():
    def program(t):
        g = t.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
        g[g < 0] = 0
        g[0, 1] = 7.0
        g[:, 2] = t.tensor([8.0, 9.0])
        g[1] = 1
        i = t.arange(6).reshape(2, 3)
        i[i > 2] = -1
        return g, i

    same_on_both(program)


def test_setitem_under_no_grad_on_a_leaf():
    def program(t):
        w = leaf(t)
        with t.no_grad():
            w[w < 0] = 0.0
        return w, w.is_leaf, w.requires_grad

    same_on_both(program)


def test_requires_grad_only_on_floating_dtypes():
    raises_like_torch(lambda t: t.tensor([1, 2], requires_grad=True), "floating point")
    raises_like_torch(lambda t: t.tensor([1, 2]).requires_grad_(), "floating point")
    raises_like_torch(lambda t: t.zeros(2, dtype=t.int64, requires_grad=True), "floating point")


def test_requires_grad_false_on_a_non_leaf_raises():
    raises_like_torch(lambda t: (leaf(t) * 2).requires_grad_(False), "detach()")


def test_integer_conversion_drops_the_graph():
    def program(t):
        x = leaf(t)
        return [(v.requires_grad, v.grad_fn is None) for v in (x.long(), x.to(t.int64), x > 0,
                                                               x.argmax(), x.max(0).indices)]

    same_on_both(program)


# ---- hooks --------------------------------------------------------------------------------------


def test_tensor_hooks_change_gradients():
    def program(t):
        x = leaf(t)
        seen = []
        x.register_hook(lambda g: seen.append(g.clone()))
        x.register_hook(lambda g: g * 2)
        y = x * 3
        y.register_hook(lambda g: g + 1)
        y.register_hook(lambda g: seen.append(g.clone()))
        (y * y).sum().backward()
        return seen, x.grad

    same_on_both(program)


def test_removed_hook_does_not_run():
    def program(t):
        x = leaf(t)
        handle = x.register_hook(lambda g: g * 100)
        handle.remove()
        (x * 2).sum().backward()
        return x.grad

    same_on_both(program)


def test_hook_on_tensor_without_grad_raises():
    raises_like_torch(lambda t: t.ones(2).register_hook(lambda g: g), "require")


def test_node_hooks_see_and_replace_gradients():
    def program(t):
        x = leaf(t)
        y = x * t.tensor([1.0, 2.0, 3.0])
        z = y.exp()
        calls = []

        def post(grad_inputs, grad_outputs):
            calls.append(("post", [g.clone() if g is not None else None for g in grad_inputs],
                          [g.clone() for g in grad_outputs]))

        def pre(grad_outputs):
            calls.append(("pre", [g.clone() for g in grad_outputs]))
            return (grad_outputs[0] * 2,)

        z.grad_fn.register_prehook(pre)
        y.grad_fn.register_hook(post)
        z.sum().backward()
        return calls, x.grad

    same_on_both(program)


def test_node_post_hook_can_replace_grad_inputs():
    def program(t):
        x = leaf(t)
        y = x * 3
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 1, gi[1]))
        y.sum().backward()
        return x.grad

    same_on_both(program)


def _all_nodes(root):
    nodes, stack, seen = [], [root], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        nodes.append(node)
        stack.extend(child for child, _ in node.next_functions)
    return nodes


GRAPHS = {
    "diamond": lambda t, x, w: (x.exp() * w + x.sin() * w).sum(),
    "two_paths": lambda t, x, w: (x * 2).sum() + (x * w).exp().sum(),
    "reuse": lambda t, x, w: ((x * w) * (x * w) + x).sum(),
    "mlp": lambda t, x, w: ((x.reshape(1, 3) @ (w.reshape(3, 1) * x)).tanh() @ w.reshape(3, 1))
    .sum(),
    "late_leaf": lambda t, x, w: (x.sum() + (x * 3).sum()) * w.sum(),
}


@pytest.mark.parametrize("name", GRAPHS)
def test_backward_runs_nodes_in_torchs_order(name):
    def program(t):
        x, w = leaf(t), leaf(t, [0.5, 0.25, 2.0])
        out = GRAPHS[name](t, x, w)
        order = []
        for node in _all_nodes(out.grad_fn):
            node.register_prehook(lambda g, n=node: order.append(n.name()))
        out.backward()
        return order, x.grad, w.grad

    same_on_both(program)


def test_sequence_numbers_increase():
    def program(t):
        x = leaf(t)
        a = x * 2
        b = a.exp()
        c = b.sum()
        nrs = [v.grad_fn._sequence_nr() for v in (a, b, c)]
        return nrs[0] < nrs[1] < nrs[2]

    assert same_on_both(program)


# ---- graph objects ------------------------------------------------------------------------------


def test_graph_objects():
    def program(t):
        x, w = leaf(t), leaf(t, [0.5, 0.25, 2.0])
        c = t.ones(3)
        y = x * w + c * 2
        add = y.grad_fn
        mul, nothing = (edge[0] for edge in add.next_functions)
        acc_x, acc_w = (edge[0] for edge in mul.next_functions)
        return (add.name(), mul.name(), nothing, acc_x.name(), acc_x.variable is x,
                acc_w.variable is w, acc_x.next_functions, [nr for _, nr in add.next_functions],
                repr(y).split("grad_fn")[1])

    same_on_both(program)


def test_accumulate_grad_node_is_shared_by_uses():
    def program(t):
        x = leaf(t)
        a, b = x * 2, x * 3
        return a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]

    assert same_on_both(program)


def test_saved_tensors_are_exposed():
    def program(t):
        x, w = leaf(t), leaf(t, [0.5, 0.25, 2.0])
        y = x * w
        e = x.exp()
        p = x.pow(2)
        result = e.grad_fn._saved_result
        return (y.grad_fn._saved_self is x, y.grad_fn._saved_other is w, result,
                result.grad_fn is e.grad_fn, p.grad_fn._saved_self is x)

    same_on_both(program)


def test_multiple_outputs_of_one_node():
    def program(t):
        x = leaf(t, [[1.0, 5.0], [3.0, 2.0]])
        values, indices = x.max(dim=1)
        (values * 2).sum().backward()
        return values, indices, x.grad, values.grad_fn.name()

    same_on_both(program)


# ---- Variable, the pre-0.4 shim -----------------------------------------------------------------


def test_variable_returns_a_tensor():
    def program(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = t.autograd.Variable(t.ones(2), requires_grad=True)
        (v * 3).sum().backward()
        return type(v).__name__, v.requires_grad, v.is_leaf, v.grad, isinstance(
            t.ones(2), t.autograd.Variable
        )

    same_on_both(program)
    with pytest.warns(DeprecationWarning, match="requires_grad"):
        mini.autograd.Variable(mini.ones(2))


# ---- devices ------------------------------------------------------------------------------------


def test_backward_on_device(device):
    x = mini.tensor(X, device=device, requires_grad=True)
    w = mini.tensor([0.5, 0.25, 2.0], device=device, requires_grad=True)
    y = (x.exp() * w).sum() + (x @ w)
    y.backward()
    xt, wt = torch.tensor(X, requires_grad=True), torch.tensor([0.5, 0.25, 2.0], requires_grad=True)
    ((xt.exp() * wt).sum() + (xt @ wt)).backward()
    assert x.grad.device.type == device and w.grad.device.type == device
    np.testing.assert_allclose(x.grad.cpu().numpy(), xt.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(w.grad.cpu().numpy(), wt.grad.numpy(), rtol=1e-6)


def test_mixing_devices_raises(device):
    if device == "cpu":
        pytest.skip("needs a second device")
    a, b = mini.ones(3, device="cuda"), mini.ones(3)
    for combine in (lambda: a + b, lambda: b * a, lambda: a @ b, lambda: mini.cat([a, b])):
        with pytest.raises(RuntimeError, match="same device"):
            combine()


def test_to_device_and_back_is_differentiable(device):
    x = mini.tensor(X, requires_grad=True)
    y = x.to(device) * 2
    y.cpu().sum().backward()
    assert y.device.type == device and x.grad.device.type == "cpu"
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


# ---- more corners of backward ------------------------------------------------------------------


def test_backward_on_a_leaf():
    def program(t):
        x, s = leaf(t), t.tensor(2.0, requires_grad=True)
        x.backward(t.tensor([1.0, 3.0, 5.0]))
        s.backward()
        return x.grad, s.grad

    same_on_both(program)


def test_create_graph_accumulation_builds_a_new_grad():
    def program(t):
        x = leaf(t)
        (x * x).sum().backward(create_graph=True)
        first = x.grad
        (x * x).sum().backward(create_graph=True)
        return x.grad, x.grad is first, x.grad.grad_fn.name()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns about create_graph=True with .grad
        same_on_both(program)


def test_hook_sees_the_summed_gradient_once():
    def program(t):
        x = leaf(t)
        h = x * 2
        seen = []
        h.register_hook(lambda g: seen.append(g.clone()))
        (h * h + h).sum().backward()
        return seen, x.grad

    same_on_both(program)


def test_accumulate_grad_node_hooks():
    def program(t):
        x = leaf(t)
        accumulate = (x * 2).grad_fn.next_functions[0][0]
        seen = []
        accumulate.register_prehook(lambda go: seen.append([g.clone() for g in go]))
        accumulate.register_hook(lambda gi, go: seen.append((len(gi), [g.clone() for g in go])))
        (x * 2).sum().backward()
        return seen, x.grad

    same_on_both(program)


def test_retain_grad_after_in_place():
    def program(t):
        x = leaf(t)
        y = x * 2
        y.retain_grad()
        y.add_(1)
        (y * y).sum().backward()
        return y.grad, x.grad

    same_on_both(program)


def test_retain_grad_accumulates_over_backwards():
    def program(t):
        x = leaf(t)
        y = x * 2
        y.retain_grad()
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return y.grad, x.grad

    same_on_both(program)


def test_modifying_a_saved_constant_raises():
    """A tensor that needs no grad is saved too (x * w saves w for x's gradient)."""

    def program(t):
        x, w = leaf(t), t.ones(3)
        y = x * w
        w.add_(1)
        y.sum().backward()

    raises_like_torch(program, "modified by an inplace operation", "is at version 1")


def test_saved_number_and_saved_attributes_listed():
    def program(t):
        x = leaf(t)
        y = x * 2.0
        return (y.grad_fn._saved_other,
                sorted(a for a in dir(x.sin().grad_fn) if a.startswith("_saved")),
                sorted(a for a in dir((x * x).grad_fn) if a.startswith("_saved")))

    same_on_both(program)


def test_updates_through_data():
    """The pre-0.4 idioms the book explains: ``w.data -= lr * w.grad``, ``w.grad.data.zero_()``."""

    def program(t):
        w = leaf(t)
        (w * w).sum().backward()
        w.data -= 0.1 * w.grad
        w.grad.data.zero_()
        return w, w.is_leaf, w.requires_grad, w._version, w.grad, w.data._version

    same_on_both(program)


def test_old_loss_data_index():
    def program(t):
        loss = (leaf(t) * 2).sum()
        return loss.data[0]

    raises_like_torch(program, "item()")


def test_order_of_tensor_node_and_retain_grad_hooks():
    def program(t):
        x = leaf(t)
        y = x * 2
        log = []
        y.grad_fn.register_prehook(lambda g: log.append("node_pre"))
        y.register_hook(lambda g: log.append("tensor"))
        y.retain_grad()
        y.grad_fn.register_hook(lambda gi, go: log.append("node_post"))
        y.register_hook(lambda g: log.append("tensor2"))
        accumulate = y.grad_fn.next_functions[0][0]
        accumulate.register_prehook(lambda g: log.append(("accumulate_pre", g[0].clone())))
        x.register_hook(lambda g: log.append(("leaf", g.clone())))
        x.register_hook(lambda g: g * 10)
        y.exp().sum().backward()
        return log, x.grad, y.grad

    same_on_both(program)


def test_hooks_run_again_on_a_retained_graph():
    def program(t):
        x = leaf(t)
        y = x * 2
        log = []
        y.register_hook(lambda g: log.append(g.clone()))
        z = (y * y).sum()
        z.backward(retain_graph=True)
        z.backward()
        return log, x.grad

    same_on_both(program)


@pytest.mark.parametrize("only_inputs", [True, False])
def test_grad_accepts_the_deprecated_only_inputs(only_inputs):
    """torch ignores ``only_inputs``; False warns (FutureWarning) that it is ignored."""

    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grads = t.autograd.grad((x * x).sum(), x, None, False, False, only_inputs)
        return grads, x.grad, [(w.category.__name__, "deprecated" in str(w.message))
                               for w in caught]

    same_on_both(program)


def _grad_mode_across_threads(t) -> list[bool]:
    """What a new thread sees inside the main thread's no_grad(), and whether the main thread's
    mode survives a thread that switches its own off."""
    seen: list[bool] = []

    def worker() -> None:
        seen.append(t.is_grad_enabled())
        t.set_grad_enabled(False)
        seen.append(t.is_grad_enabled())

    with t.no_grad():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        seen.append(t.is_grad_enabled())
    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    seen.append(t.is_grad_enabled())
    return seen


def test_grad_mode_is_per_thread_as_in_torch():
    assert _grad_mode_across_threads(mini) == _grad_mode_across_threads(torch) == [
        True, False, False, True, False, True]


def test_relu_passes_no_nan_back_through_a_unit_that_was_off():
    """torch's threshold_backward gives 0 where the input was not positive, even for a nan
    gradient (a 0/1 mask times nan would be nan): after a nan loss, the weights of the hidden
    units that were off keep a zero gradient (the REINFORCE snippet of chapter 7)."""
    def program(t):
        x = t.tensor([-1.0, 0.0, 2.0, float("nan")], requires_grad=True)
        (grad,) = t.autograd.grad(t.relu(x), x, t.tensor([float("nan")] * 3 + [5.0]))
        return grad
    same_on_both(program)


def test_a_node_called_by_hand_returns_what_torchs_returns():
    """One input: the gradient bare (SumBackward0); several: a tuple (MulBackward0); a leaf's
    AccumulateGrad: an empty tuple."""
    def program(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = x * x
        loss = y.sum()
        lone = loss.grad_fn(t.tensor(1.0))
        pair = y.grad_fn(t.ones(2))
        accumulate = y.grad_fn.next_functions[0][0]
        return (type(lone).__name__, lone, type(pair).__name__, pair,
                accumulate(t.ones(2)))
    same_on_both(program)


def test_an_in_place_write_into_an_expanded_tensor_raises_torchs_error():
    """expand() shares one element among many: torch refuses add_ on it, and miniautograd
    refuses every write, an index assignment too (where torch writes with a warning)."""
    raises_like_torch(lambda t: t.ones(1).expand(3).add_(1), "more than one element",
                      "clone()")
    with pytest.raises(RuntimeError, match="clone"):
        mini.ones(1).expand(3)[0] = 5.0
