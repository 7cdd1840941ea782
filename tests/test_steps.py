"""miniautograd.steps: the guided build's checks pass on each step's reference engine, and
fail, with the message a reader needs, on engines broken the ways a reader breaks them."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from miniautograd import steps
from miniautograd.steps.checks import Outcome

# Step 1's broken engines: (what is wrong, the reference's text, its replacement).
RECURSIVE = '''def backward(root):
    order, seen = [], set()

    def visit(node):  # depth first, one Python call per node of the path
        if node is None or node in seen:
            return
        seen.add(node)
        for next_node in node.next_functions:
            visit(next_node)
        order.append(node)

    visit(root.grad_fn)
    buffers = {root.grad_fn: np.ones_like(root.data)}
    for node in reversed(order):
        grads = node(buffers.pop(node))
        for next_node, grad in zip(node.next_functions, grads):
            if next_node is not None:
                buffers[next_node] = grad + buffers.get(next_node, 0)
'''
EAGER = '''def backward(root):
    pending = [(root.grad_fn, np.ones_like(root.data))]
    while pending:  # runs a node as soon as any gradient reaches it
        node, grad = pending.pop()
        for next_node, g in zip(node.next_functions, node(grad)):
            if next_node is not None:
                pending.append((next_node, g))
'''


def reference_backward() -> str:
    source = steps.reference(1)
    return source[source.index("def backward(root):"):]


STEP1_BROKEN = {
    "a recursive topological sort": (reference_backward, RECURSIVE, {
        "a chain 10,000 operations deep": "raised RecursionError: maximum recursion depth"}),
    "a node run on each gradient that reaches it": (reference_backward, EAGER, {
        "each node runs once, after all its gradients have arrived":
            "expected each node called once, got MulBackward0 called 3 times, AccumulateGrad"
            " called 3 times"}),
    "a leaf's .grad overwritten, not added to": (
        lambda: "leaf.grad = grad if leaf.grad is None else leaf.grad + grad",
        "leaf.grad = grad", {
            "gradients accumulate over backward() calls":
                "x.grad after two backward() calls of (x * y).sum(): expected"
                " [ 6. ,  0.5, -3. ], got [ 3.  ,  0.25, -1.5 ]",
            "two leaves that get the same gradient keep a .grad each":
                "x.grad after two backward() calls of (x + y).sum(): expected [2., 2., 2.], got"
                " [1., 1., 1.]"}),
    "a node's gradients replaced, not summed": (
        lambda: "buffers[next_node] = buffers[next_node] + grad",
        "buffers[next_node] = grad", {
            "backward() fills .grad of the leaves, as PyTorch does":
                "x.grad of (x * y + x.exp()).sum(), PyTorch's: expected",
            "a tensor used twice gets both contributions":
                "x.grad of (x * x).sum(), both uses added: expected [ 1., -2.,  4.], got",
            "each node runs once, after all its gradients have arrived":
                "x.grad of (z * z + z.exp()).sum(), z = x * y, PyTorch's: expected"}),
    "a counting walk that counts an edge twice": (
        lambda: "                if node not in seen:\n                    seen.add(node)\n"
                "                    stack.append(node)",
        "                stack.append(node)", {
            "each node runs once, after all its gradients have arrived":
                "got AccumulateGrad, AccumulateGrad never called: its count of gradients to"
                " come never reached zero"}),
    ".grad added to in place": (
        lambda: "leaf.grad = grad if leaf.grad is None else leaf.grad + grad",
        "if leaf.grad is None:\n            leaf.grad = grad\n        else:\n"
        "            leaf.grad += grad", {
            "two leaves that get the same gradient keep a .grad each":
                "x.grad after two backward() calls of (x + y).sum(): expected [2., 2., 2.], got"
                " [3., 3., 3.]"}),
    "a new AccumulateGrad at every use": (
        lambda: "    if t._accumulator is None:  # one per leaf, however often it is used\n"
                "        t._accumulator = AccumulateGrad(t)\n    return t._accumulator",
        "    return AccumulateGrad(t)", {
            "a leaf reaches one AccumulateGrad, however often it is used":
                "expected the same AccumulateGrad twice, got two different nodes"}),
    "a sum's gradient not spread over the elements": (
        lambda: "lambda g: (g * np.ones_like(self.data),)", "lambda g: (g,)", {
            "two leaves that get the same gradient keep a .grad each":
                "x.grad after two backward() calls of (x + y).sum(): the right values in the"
                " wrong shape, (), expected (3,)",
            "a chain 10,000 operations deep": "the right values in the wrong shape, (),"
                " expected (3,)"}),
    "a node recorded even when no input requires grad": (
        lambda: "    if out.requires_grad:\n        out.grad_fn",
        "    if True:\n        out.grad_fn", {
            "an operation records a node when an input requires grad, and only then":
                "(c * c).grad_fn, c not requiring grad: expected None, got"}),
}


# Step 2's broken engines.
NO_VERSION_CHECK = "got no error: backward() used the changed values"
STEP2_BROKEN = {
    "saved tensors returned without a version check": (
        lambda: "            if t._version != version:", "            if False:", {
            "backward() after a saved input changed in place raises": NO_VERSION_CHECK,
            "backward() after a saved result changed in place raises": NO_VERSION_CHECK}),
    "add_ that does not count a version": (
        lambda: "        self._version += 1\n", "", {
            "add_ changes a tensor in place and counts a version":
                "t._version after t.add_(1.0): expected 1, got 0",
            "backward() after a saved input changed in place raises": NO_VERSION_CHECK,
            "backward() after a saved result changed in place raises": NO_VERSION_CHECK}),
    "add_ that makes a new array instead of changing the old one": (
        lambda: "self.data[...] = total.data", "self.data = total.data", {
            "add_ changes a tensor in place and counts a version":
                "the array t held before add_ (changed in place, as PyTorch's storage is):"
                " expected [1.5, 0. , 3. ], got [ 0.5, -1. ,  2. ]"}),
    "a saved tensor's version taken as 0, not read when saved": (
        lambda: "[(t, t._version) for t in saved]", "[(t, 0) for t in saved]", {
            "add_ on a tensor with a history records a node":
                "raised RuntimeError: one of the variables needed for gradient computation has"
                " been modified by an inplace operation: a tensor saved by MulBackward0 is at"
                " version 1; expected version 0 instead",
            "changes to tensors no node saved, or made before saving, are fine":
                "raised RuntimeError: one of the variables needed for gradient computation has"
                " been modified by an inplace operation: a tensor saved by MulBackward0 is at"
                " version 1; expected version 0 instead"}),
    "exp that saves its input, not its result": (
        lambda: "lambda g, result: (g * result.data,), save_result=True",
        "lambda g, x: (g * np.exp(x.data),), saved=(self,)", {
            "nodes save what their backward needs, as PyTorch's do":
                "x.exp().grad_fn.saved_tensors[0]: expected [1.648721, 0.367879, 7.389056],"
                " got [ 0.5, -1. ,  2. ]",
            "backward() after a saved result changed in place raises": NO_VERSION_CHECK}),
    "add_ allowed on a leaf that requires grad": (
        lambda: "        if self.is_leaf and self.requires_grad:",
        "        if False:", {
            "add_ on a leaf that requires grad raises RuntimeError":
                "expected RuntimeError ('a leaf Variable that requires grad is being used in"
                " an in-place operation.'), got no error"}),
    "add_ that makes the tensor require grad before the sum is recorded": (
        lambda: "        total = self + other\n",
        "        self.requires_grad = self.requires_grad or as_tensor(other).requires_grad\n"
        "        total = self + other\n", {
            "add_ on a tensor with a history records a node":
                "c.add_(x), c not requiring grad: expected the first edge of c's new node to"
                " lead nowhere (None, as in PyTorch: c had no node), got a node"}),
    "add_ that keeps the node the tensor had": (
        lambda: "        self.requires_grad, self.grad_fn = total.requires_grad, total.grad_fn\n",
        "", {
            "add_ on a tensor with a history records a node":
                "expected a new grad_fn for y (PyTorch's is AddBackward0), got the one y had"
                " before"}),
}
# Step 3's broken engines.
NONE_SKIPPED = """            if grad is not None and next_node in buffers:
                buffers[next_node] = buffers[next_node] + grad
            elif grad is not None:  # a backward's None adds nothing
                buffers[next_node] = grad
"""
NONE_ADDED = """            if next_node in buffers:
                buffers[next_node] = buffers[next_node] + grad
            else:
                buffers[next_node] = grad
"""
SUM_ONLY_GRADCHECK = '''def gradcheck(fn, *inputs, eps=1e-6, atol=1e-5, rtol=1e-3):
    """Compares the gradient of fn's summed output with finite differences."""
    for x in inputs:
        if not x.requires_grad:
            continue
        x.grad = None
        fn(*inputs).sum().backward()
        numerical = np.zeros(x.data.size)
        for k in range(x.data.size):
            old = x.data.flat[k]
            x.data.flat[k] = old + eps
            plus = fn(*inputs).data.sum()
            x.data.flat[k] = old - eps
            minus = fn(*inputs).data.sum()
            x.data.flat[k] = old
            numerical[k] = (plus - minus) / (2 * eps)
        if not np.allclose(x.grad.ravel(), numerical, rtol=rtol, atol=atol):
            raise RuntimeError("gradient mismatch")
        x.grad = None
    return True
'''
RECORDS_ALWAYS = {
    "an operation records a node when an input requires grad, and only then":
        "(c * c).grad_fn, c not requiring grad: expected None, got",
    "a Function records nothing when no input requires grad":
        "Cube.apply(c).grad_fn, c not requiring grad: expected None, got"}
STEP3_BROKEN = {
    "apply that records a node whatever the inputs": (
        lambda: "        if any(ctx.needs_input_grad):\n", "        if True:\n", RECORDS_ALWAYS),
    "needs_input_grad True for every input": (
        lambda: "tuple(t.requires_grad for t in inputs)", "tuple(True for t in inputs)", {
            **RECORDS_ALWAYS,
            "ctx.needs_input_grad, and None for an input that needs no gradient":
                "ctx.needs_input_grad in forward and in backward, Scale.apply(x, w), w not"
                " requiring grad: expected [(True, False), (True, False)], got [(True, True),"
                " (True, True)]"}),
    "a gradcheck of the gradient of the sum only": (
        lambda: (lambda s: s[s.index("def gradcheck("):])(steps.reference(3)),
        SUM_ONLY_GRADCHECK, {
            "gradcheck returns True for right derivatives, and puts back .data and .grad":
                "y.grad after gradcheck (Y before it): expected [ 3.  ,  0.25, -1.5 ], got None",
            "gradcheck compares the whole Jacobian, not only the gradient of a sum":
                "gradcheck(Flip.apply, x), a reversal whose backward does not reverse: right"
                " for the gradient of a sum, wrong for the Jacobian"}),
    "a node named after its Function, without Backward": (
        lambda: 'return self._function.__name__ + "Backward"',
        "return self._function.__name__", {
            "an operation records a node when an input requires grad, and only then":
                "(x * y).grad_fn.name(): expected PyTorch's MulBackward0, got 'Mul'",
            "Function.apply runs forward and records a node named after the Function":
                "Cube.apply(x).grad_fn.name(): expected 'CubeBackward', got 'Cube'"}),
    "an engine that adds a backward's None into a buffer": (
        lambda: NONE_SKIPPED, NONE_ADDED, {
            "ctx.needs_input_grad, and None for an input that needs no gradient":
                "raised TypeError: unsupported operand type(s) for +: 'float' and 'NoneType'"
                " (in myautograd.py, line"}),
}
# Step 4's broken engines.
GENERATOR_NO_GRAD = '''@contextlib.contextmanager
def no_grad():
    global grad_enabled
    grad_enabled = False
    yield
    grad_enabled = True


'''
STEP4_BROKEN = {
    "no_grad() that leaves apply recording": (
        lambda: "        if grad_enabled and any(ctx.needs_input_grad):",
        "        if any(ctx.needs_input_grad):", {
            "operations under no_grad() record nothing, and record again after":
                "x * 2.0 under no_grad(): grad_fn: expected None, got",
            "three SGD steps, updating a leaf in place under no_grad()":
                "w.is_leaf after update 1: expected True, got False",
            "an in-place change under no_grad() leaves the history as it was":
                "expected y to keep its grad_fn, as in PyTorch (nothing is recorded), got"
                " another"}),
    "no_grad() as a generator that turns grad mode on at its end, and not after an error": (
        lambda: (lambda s: s[s.index("class no_grad:"):s.index("class Node:")])(
            steps.reference(4)), GENERATOR_NO_GRAD, {
            "no_grad() restores the mode it found: nested, and when the block raises":
                "is_grad_enabled() after a nested no_grad() block ends, and after a block that"
                " raised: expected [False, True], got [True, False]"}),
    "detach() that copies the array": (
        lambda: "out.data, out._versions = self.data, self._versions  # not copies",
        "out.data, out._versions = self.data.copy(), self._versions", {
            "detach() shares the array, needs no grad, and is a leaf":
                "y.detach().data: expected the array of y itself (PyTorch's detach() shares"
                " the memory), got a copy"}),
    "detach() with a version counter of its own": (
        lambda: "out.data, out._versions = self.data, self._versions  # not copies",
        "out.data = self.data", {
            "detach() shares the version counter: a change through it is caught":
                "y = x.exp(); y.detach().add_(1.0): expected y._version 1 (the counter is"
                " shared, as PyTorch's is), got 0"}),
    "add_ that refuses a leaf under no_grad() too": (
        lambda: "if self.is_leaf and self.requires_grad and grad_enabled:",
        "if self.is_leaf and self.requires_grad:", {
            "three SGD steps, updating a leaf in place under no_grad()":
                "raised RuntimeError: a leaf Variable that requires grad is being used in an"
                " in-place operation."}),
    "add_ that takes the node of the sum even when none was recorded": (
        lambda: "        if total.grad_fn is not None:  # under no_grad(), self keeps its own\n"
                "            self.requires_grad, self.grad_fn = True, total.grad_fn\n",
        "        self.requires_grad, self.grad_fn = total.requires_grad, total.grad_fn\n", {
            "three SGD steps, updating a leaf in place under no_grad()":
                "w.requires_grad after update 1: expected True, got False",
            "an in-place change under no_grad() leaves the history as it was":
                "expected y to keep its grad_fn"}),
    "an update under no_grad() that rebinds the array instead of writing into it": (
        lambda: "        self.data[...] = total.data  # the same array: who saved self sees it\n",
        "        if grad_enabled:\n"
        "            self.data[...] = total.data\n"
        "        else:  # an update: the sum's array\n"
        "            self.data = total.data\n", {
            "detach() shares the array, needs no grad, and is a leaf":
                "y.detach(), taken before y.add_(1.0) under no_grad(): its data (in PyTorch,"
                " add_ writes into the array, which detach() shares): expected [2.648721,"
                " 1.367879, 8.389056], got [1.648721, 0.367879, 7.389056]"}),
    "a no_grad() whose __exit__ returns True, swallowing the block's exception": (
        lambda: "        grad_enabled = self.previous\n",
        "        grad_enabled = self.previous\n        return True\n", {
            "no_grad() restores the mode it found: nested, and when the block raises":
                "a KeyError raised inside `with no_grad():` did not come out of the block:"
                " no_grad() swallowed it (an __exit__ that returns True does; return"
                " nothing)"}),
}
# Step 5's broken engines.
RECURSIVE_RUN = '''def run(fetches, feed):
    values = {}

    def value(s):  # one Python call per operation of the path
        if not isinstance(s, Symbol):
            return s
        if s not in values:
            if s.function is None:
                if s not in feed:
                    raise ValueError(f"no value fed for placeholder {s.name!r}")
                values[s] = as_tensor(feed[s])
            else:
                values[s] = s.function.apply(*(value(t) for t in s.inputs))
        return values[s]

    if isinstance(fetches, list):
        return [value(f) for f in fetches]
    return value(fetches)


'''
RUN_WITHOUT_MEMO = '''def run(fetches, feed):
    def value(s):  # computes an operation each time it is asked for
        if not isinstance(s, Symbol):
            return s
        if s.function is None:
            if s not in feed:
                raise ValueError(f"no value fed for placeholder {s.name!r}")
            return as_tensor(feed[s])
        return s.function.apply(*(value(t) for t in s.inputs))

    if isinstance(fetches, list):
        return [value(f) for f in fetches]
    return value(fetches)


'''


def reference_run() -> str:
    source = steps.reference(5)
    return source[source.index("def run(fetches, feed):"):source.index("def backward(root")]


STEP5_BROKEN = {
    "a recursive run": (reference_run, RECURSIVE_RUN, {
        "a graph 10,000 operations deep": "raised RecursionError: maximum recursion depth"}),
    "a run that computes an operation each time it is used": (
        reference_run, RUN_WITHOUT_MEMO, {
            "run() computes what the fetches need, each operation once":
                "forward calls of Double in one run of y = d * d + d.exp(), d ="
                " Double.apply(x): expected 1, got 3",
            "a graph 10,000 operations deep": "raised RecursionError"}),
    "apply that computes on placeholders": (
        lambda: "        if any(isinstance(t, Symbol) for t in inputs):  # building: no data yet\n"
                "            return Symbol(cls, inputs)\n", "", {
            "operations on placeholders build a graph and compute nothing":
                "forward calls while building Double.apply(x) * x, x a placeholder: expected 0,"
                " got 1",
            "a graph built once runs with other values each time, as PyTorch computes them":
                "PyTorch's eager value: expected 7.6556568108022205, got nan",
            "what run() returns is differentiable: backward() gives PyTorch's gradients":
                "run(loss, {x: [0.5, -1.0, 2.0], w: w}), w a tensor that requires grad:"
                " expected a result that requires grad (its graph reaches w, as in PyTorch),"
                " got one that does not",
            "run() computes what the fetches need, each operation once":
                "forward calls of an operation that y does not need: expected 0, got 1",
            "run() names a placeholder that was not fed":
                "expected ValueError naming 'w', got no error",
            "a graph 10,000 operations deep": "got nan"}),
    "a run without the test for an operation that already has a value": (
        lambda: "        if not isinstance(s, Symbol) or s in values:\n",
        "        if not isinstance(s, Symbol):\n", {
            "run() computes what the fetches need, each operation once":
                "forward calls of Double in run(d * d, {x: X}), d used twice by one operation:"
                " expected 1, got 2"}),
    "apply that looks only at its first input": (
        lambda: "        if any(isinstance(t, Symbol) for t in inputs):  # building: no data yet\n",
        "        if isinstance(inputs[0], Symbol):\n", {
            "operations on placeholders build a graph and compute nothing":
                "isinstance(Tensor(Y) * x, Symbol), x a placeholder (a tensor on either"
                " side): expected True, got False",
            "a graph built once runs with other values each time, as PyTorch computes them":
                "run(Tensor(Y) * x, {x: X}).data: expected [ 1.5 , -0.25, -3.  ], got [nan,"
                " nan, nan]"}),
    "a run that keeps its values in the caller's feed dict": (
        lambda: "    values, stack = {}, list(wanted)\n",
        "    values, stack = feed, list(wanted)\n", {
            "a graph built once runs with other values each time, as PyTorch computes them":
                "the feed dict after run(loss, feed): the keys it had (run() keeps its values"
                " apart): expected 2, got 6"}),
}
# Step 6's broken engines.
TRACE_TRY = """    try:
        result = fn(*examples)
    finally:
        recorded, tape = tape, None
"""
STEP6_BROKEN = {
    "a replay that calls the function again": (
        lambda: "        return run(graph, dict(zip(placeholders, values, strict=True)))",
        "        return fn(*(as_tensor(v) for v in values))", {
            "a Python branch is taken once, while tracing, as torch.jit.trace takes it":
                "on -X: torch.jit.trace's, the traced branch: expected [-1.,  2., -4.], got"
                " [-1.5,  3. , -6. ]"}),
    "a trace that keeps the examples, not placeholders, as the graph's inputs": (
        lambda: "tuple(symbols.get(id(t), t)\n", "tuple(t\n", {
            "trace() runs the function once and records its operations, as torch.jit.trace"
            " does": "the operations in trace(...).graph of the program (x * w + x.exp())"
                     ".sum(), run on 2 * x: expected 5, the one that doubles x and then what"
                     " torch.jit.trace records for the program (aten::mul, aten::exp,"
                     " aten::add, aten::sum), got 1: Sum",
            "the replay computes torch.jit.trace's values on new inputs":
                "expected 33.192875, got 7.655657",
            "the replay is differentiable, with PyTorch's gradients":
                "the replay on ([0.5, -1.0, 2.0], w), w a tensor that requires grad: expected"
                " a result that requires grad (its graph reaches w, as in PyTorch), got one"
                " that does not",
            "a Python branch is taken once, while tracing, as torch.jit.trace takes it":
                "expected [-1.,  2., -4.], got [ 1., -2.,  4.]"}),
    "a trace that never stops recording": (
        lambda: TRACE_TRY, "    result = fn(*examples)\n    recorded = tape\n", {
            "trace() stops recording when it returns, and when the function raises":
                "Tensor(X) * 2.0, computed after trace() returned and then dropped: expected"
                " it freed, as in PyTorch, got it kept alive: trace() still writes down"
                " operations"}),
    "a trace that stops recording only when the function returns": (
        lambda: TRACE_TRY, "    result = fn(*examples)\n    recorded, tape = tape, None\n", {
            "trace() stops recording when it returns, and when the function raises":
                "Tensor(X) * 2.0, computed after trace() of a function that raised and then"
                " dropped: expected it freed"}),
    "a graph built from the last operation recorded, not from the result": (
        lambda: "    graph = symbols[id(result)]\n", "    graph = symbols[id(recorded[-1][2])]\n", {
            "the replay computes torch.jit.trace's values on new inputs":
                "trace(f, ...)([0.5, -1.0, 2.0], [3.0, 0.25, -1.5]), torch.jit.trace's (f"
                " returns (x * w + x.exp()).sum() and then runs x.exp(): the replay computes"
                " what f returns): expected 7.655657, got [1.648721, 0.367879, 7.389056]"}),
}
# Step 7's broken engines.
SUM_TO_STRETCHED = """    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
"""
SUM_TO_BODY = """    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
""" + SUM_TO_STRETCHED + """    return grad
"""
SUM_TO_SPREAD = """    if grad.shape == tuple(shape):
        return grad
    return np.full(shape, grad.sum())
"""
STEP7_BROKEN = {
    "nodes that do not undo broadcasting": (
        lambda: "        return tuple(g if g is None else sum_to(g, shape)\n"
                "                     for g, shape in zip(grads, self.shapes, strict=True))\n",
        "        return grads\n", {
            "broadcasting undone: each input's gradient summed back to its own shape":
                "the shape of the gradient of ((x - s) * s).sum(), s a scalar for input 1,"
                " PyTorch's (the input's): expected (), got (3,)",
            "the score function: the gradient of a log-softmax entry, Categorical's":
                "Categorical(logits=theta).log_prob's: expected [ 0.453451, -0.331499,"
                " -0.121952], got [0.453451, 0.      , 0.      ]",
            "REINFORCE on chapter 7's three-armed bandit: PyTorch's policy, and the best arm":
                "the policy after 300 REINFORCE updates, PyTorch's with the same draws:"
                " expected [0.003758, 0.006877, 0.989365]"}),
    "log() with the derivative x instead of 1 / x": (
        lambda: "        return grad / x.data\n", "        return grad * x.data\n", {
            "log(), negation and subtraction, with PyTorch's gradients":
                "the gradient of ((x * x + 1.0).log() - y).sum() for input 0, PyTorch's:"
                " expected [ 0.8, -1. ,  0.8], got [ 1.25, -4.  , 20.  ]",
            "the score function: the gradient of a log-softmax entry, Categorical's":
                "got [-12.519466,  -8.199971,  -3.016601]",
            "REINFORCE on chapter 7's three-armed bandit: PyTorch's policy, and the best arm":
                "got [0.010735, 0.012059, 0.977207]"}),
    "2.0 - x computed as x - 2.0": (
        lambda: "        return as_tensor(other) + -self\n", "        return self - other\n", {
            "log(), negation and subtraction, with PyTorch's gradients":
                "(2.0 - x).sum(): expected 4.5, got -4.5"}),
    "sum_to that sums only the axes broadcasting added in front": (
        lambda: SUM_TO_STRETCHED, "", {
            "broadcasting undone: each input's gradient summed back to its own shape":
                "the shape of the gradient of (c * a).sum(), c of shape (3, 1), a of shape"
                " (3, 4) for input 0, PyTorch's (the input's): expected (3, 1), got (3, 4)"}),
    "sum_to that drops the summed axes": (
        lambda: "            grad = grad.sum(axis=axis, keepdims=True)\n",
        "            grad = grad.sum(axis=axis)\n", {
            "broadcasting undone: each input's gradient summed back to its own shape":
                "the shape of the gradient of (c * a).sum(), c of shape (3, 1), a of shape"
                " (3, 4) for input 0, PyTorch's (the input's): expected (3, 1), got (3,)"}),
    "log() whose backward forgets the incoming gradient": (
        lambda: "        return grad / x.data\n", "        return 1 / x.data\n", {
            "log(), negation and subtraction, with PyTorch's gradients":
                "the gradient of ((x * x + 1.0).log() * y).sum() for input 0, PyTorch's:"
                " expected [ 2.4 , -0.25, -1.2 ], got [ 0.8, -1. ,  0.8]",
            "the score function: the gradient of a log-softmax entry, Categorical's":
                "got [1.546549, 0.331499, 0.121952]",
            "REINFORCE on chapter 7's three-armed bandit: PyTorch's policy, and the best arm":
                "the policy after 300 REINFORCE updates"}),
    "sum_to that matches size-1 axes before dropping the leading ones": (
        lambda: SUM_TO_BODY, SUM_TO_STRETCHED + """    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    return grad
""", {
            "broadcasting undone: each input's gradient summed back to its own shape":
                "the shape of the gradient of (c * b).sum(), c of shape (3, 1), b of shape"
                " (2, 3, 4) for input 0, PyTorch's (the input's): expected (3, 1), got (1, 4)"}),
    "sum_to that sums everything and spreads it": (
        lambda: SUM_TO_BODY, SUM_TO_SPREAD, {
            "broadcasting undone: each input's gradient summed back to its own shape":
                "the gradient of (c * a).sum(), c of shape (3, 1), a of shape (3, 4) for"
                " input 0, PyTorch's: expected [[10.],\n [14.],\n [ 3.]], got [[27.],\n"
                " [27.],\n [27.]]"}),
}
BROKEN = {1: STEP1_BROKEN, 2: STEP2_BROKEN, 3: STEP3_BROKEN, 4: STEP4_BROKEN, 5: STEP5_BROKEN,
          6: STEP6_BROKEN, 7: STEP7_BROKEN}
CHECK_COUNTS = {1: 10, 2: 7, 3: 10, 4: 7, 5: 6, 6: 5, 7: 5}
LINE_BUDGET = 300  # lines of code in the last step's engine: no docstrings, comments, blanks


def failures(outcomes: list[Outcome]) -> dict[str, str]:
    return {o.check: o.detail for o in outcomes if not o.passed}


def broken_failures(step: int, original: str, replacement: str, folder: Path) -> dict[str, str]:
    """The failing checks of `step` on its reference with `original` (found once) replaced."""
    source = steps.reference(step)
    assert source.count(original) == 1, original
    path = folder / steps.FILE
    path.write_text(source.replace(original, replacement))
    return failures(steps.outcomes(step, path))


@pytest.mark.parametrize("step", sorted(steps.STEPS))
def test_each_reference_passes_every_check(step: int, tmp_path: Path,
                                           capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / steps.FILE
    steps.write_reference(step, path)
    outcomes = steps.outcomes(step, path)
    assert len(outcomes) == sum(CHECK_COUNTS[n] for n in range(1, step + 1))
    assert failures(outcomes) == {}
    steps.check(step, path)
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == (f"{CHECK_COUNTS[step]} of {CHECK_COUNTS[step]} checks of step "
                           f"{step} pass: this step is done.")
    assert printed[:step - 1] == [f"✔ step {n}'s {CHECK_COUNTS[n]} checks still pass"
                                  for n in range(1, step)]


def test_every_step_has_broken_engines() -> None:
    assert sorted(BROKEN) == sorted(steps.STEPS)
    assert all(len(broken) >= 2 for broken in BROKEN.values())


@pytest.mark.parametrize(("step", "broken"),
                         [(step, broken) for step in BROKEN for broken in BROKEN[step]])
def test_the_checks_catch_a_broken_engine(step: int, broken: str, tmp_path: Path) -> None:
    """Each broken variant of a step's reference fails exactly the expected checks of that
    step (and of the steps before), each with its message."""
    where, replacement, expected = BROKEN[step][broken]
    source = steps.reference(step)
    original = where()
    assert source.count(original) == 1, original
    path = tmp_path / steps.FILE
    broken_source = source.replace(original, replacement)
    if "contextlib." in replacement:
        broken_source = broken_source.replace("import numpy",
                                              "import contextlib\n\nimport numpy", 1)
    path.write_text(broken_source)
    found = failures(steps.outcomes(step, path))
    assert set(found) == set(expected), found
    for check, message in expected.items():
        assert message in found[check], found[check]


def test_a_node_that_returns_a_bare_array_is_told_to_wrap_it(tmp_path: Path) -> None:
    """Without the tuple, a one-input node's array is zipped element by element: many checks
    fail, and one says why."""
    found = broken_failures(3, "return grads if isinstance(grads, tuple) else (grads,)",
                            "return grads", tmp_path)
    assert found["a node returns a tuple, one gradient per input, even for one input"] == (
        "Cube.apply(x).grad_fn(np.ones(3)): expected a tuple of one gradient per input (Cube's"
        " backward returns a single array: wrap it), got ndarray")


def test_the_last_engine_is_within_the_line_budget() -> None:
    last = steps.reference(max(steps.STEPS))
    assert steps.code_lines(last) <= LINE_BUDGET
    assert steps.code_lines("def f():\n    \"\"\"Doc.\"\"\"\n    # note\n\n    return 1\n") == 2


def test_step_1_alone_on_a_later_engine_passes(tmp_path: Path) -> None:
    path = tmp_path / steps.FILE
    steps.write_reference(max(steps.STEPS), path)
    assert failures(steps.outcomes(1, path)) == {}


def test_a_later_step_reports_a_broken_earlier_behaviour(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / steps.FILE
    path.write_text(steps.reference(2).replace("        return ()\n", "", 1))
    steps.check(2, path)
    printed = capsys.readouterr().out
    assert printed.startswith("✘ backward() fills .grad of the leaves, as PyTorch does: raised "
                              "TypeError")
    assert "(step 1)\n" in printed and "✔ step 1" not in printed


def test_start_keeps_an_engine_that_passes_the_step_before(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / steps.FILE
    mine = steps.reference(1).replace("# one per leaf", "# mine: one per leaf")
    path.write_text(mine)
    steps.start(2, path)
    assert path.read_text() == mine
    assert capsys.readouterr().out == f"{steps.FILE} passes the checks of step 1: go on with it.\n"


def test_start_sets_aside_an_engine_that_does_not(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / steps.FILE
    path.write_text("class Tensor:\n    pass\n")
    steps.start(2, path)
    assert path.read_text() == steps.reference(1)
    assert (tmp_path / "myautograd_before_step2.py").read_text() == "class Tensor:\n    pass\n"
    assert capsys.readouterr().out.splitlines() == [  # which check failed, and how to see all
        f"{steps.FILE} does not pass step 1 yet (✘ a leaf: requires_grad as asked, no grad_fn,"
        " no", "  .grad, and 9 more): it is now myautograd_before_step2.py; steps.check(1,",
        "  'myautograd_before_step2.py') says what differs.",
        f"{steps.FILE} is the reference engine of step 1: go on from it."]
    (tmp_path / steps.FILE).unlink()
    steps.start(2, path)  # no file at all: the reference, and nothing set aside
    assert path.read_text() == steps.reference(1)
    path.write_text("this is not Python(")
    steps.start(2, path)
    assert path.read_text() == steps.reference(1)


def test_an_unwritten_engine_gets_a_line_per_check(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / steps.FILE
    path.write_text("import numpy as np\n\n\nclass Tensor:\n    pass\n")
    steps.check(1, path)
    printed = capsys.readouterr().out.splitlines()
    assert max(map(len, printed)) <= 88  # a notebook's column
    lines = " ".join(printed).replace("\n", " ").replace("   ", " ").split("✘ ")[1:]
    assert len(lines) == 10 and printed[-1] == "0 of 10 checks of step 1 pass."
    assert lines[0].strip() == ("a leaf: requires_grad as asked, no grad_fn, no .grad: raised "
                                "TypeError: Tensor() takes no arguments")


def test_a_check_before_its_file_exists_says_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"There is no myautograd.py here yet\. Run "
                       r"steps\.start\(3\) first: it keeps an engine that passes step 2"):
        steps.check(3, tmp_path / steps.FILE)
    with pytest.raises(FileNotFoundError, match=r"starts with %%writefile myautograd\.py"):
        steps.check(1, tmp_path / steps.FILE)


def test_a_message_names_a_node_not_its_address(tmp_path: Path) -> None:
    """A node where None was expected shows as its name(), as a reader's engine prints it."""
    found = broken_failures(4, "        if grad_enabled and any(ctx.needs_input_grad):\n",
                            "        if any(ctx.needs_input_grad):\n", tmp_path)
    assert found["operations under no_grad() record nothing, and record again after"] == (
        "x * 2.0 under no_grad(): grad_fn: expected None, got a node, MulBackward")


def test_an_edited_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / steps.FILE
    path.write_text("class Tensor:\n    pass\n")
    assert not steps.outcomes(1, path)[0].passed
    steps.write_reference(1, path)
    assert steps.outcomes(1, path)[0].passed


def test_there_is_no_step_zero() -> None:
    with pytest.raises(ValueError, match="no step 0: the steps are"):
        steps.check(0)
    with pytest.raises(ValueError, match="no changes to show for step 1"):
        steps.changes(1)


def test_changes_are_the_difference_between_two_references() -> None:
    diff = steps.changes(4).splitlines()
    assert diff[:2] == ["--- step3.py", "+++ step4.py"]
    assert "+class no_grad:" in diff and max(map(len, diff)) <= 80
    assert "" in diff and not any(line.endswith(" ") for line in diff)  # blank, not " "


@pytest.mark.parametrize("step", sorted(steps.STEPS))
def test_each_chapter_shows_the_reference_it_ships(step: int) -> None:
    """The reference engine a reader unfolds in chapter N is the one write_reference(N) writes,
    and the chapter's check runs step N."""
    (chapter,) = (Path(__file__).parents[1] / "book" / "chapters").glob(f"{step:02d}_*.ipynb")
    cells = {c.id: c for c in nbformat.read(chapter, as_version=4).cells}
    if step == 1:  # the whole engine
        assert cells["ch1-build-reference"].source == (
            "%%writefile reference_step1.py\n" + steps.reference(1).rstrip("\n"))
    else:  # what it changes in the step before, the whole file written beside
        assert cells[f"ch{step}-build-reference"].source == (
            f'steps.write_reference({step}, "reference_step{step}.py")\n'
            f"print(steps.changes({step}))")
        (output,) = cells[f"ch{step}-build-reference"].outputs
        assert output.text == steps.changes(step) + "\n"
    assert cells[f"ch{step}-build-check"].source.endswith(f"steps.check({step})")
    assert cells[f"ch{step}-build-reference-check"].source.endswith(
        f'steps.check({step}, "reference_step{step}.py")')
    if step == 1:
        assert cells["ch1-build-skeleton"].source.startswith("%%writefile myautograd.py\n")
    else:
        assert cells[f"ch{step}-build-start"].source.endswith(f"steps.start({step})")


def test_a_failure_inside_the_engine_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / steps.FILE
    source = steps.reference(1).replace(
        "        return ()\n", "        raise ValueError('not yet')\n", 1)
    path.write_text(source)
    line = source.splitlines().index("        raise ValueError('not yet')") + 1
    found = failures(steps.outcomes(1, path))
    assert found["gradients accumulate over backward() calls"] == (
        f"raised ValueError: not yet (in {steps.FILE}, line {line})")
