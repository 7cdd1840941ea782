"""myautograd, step 2: what a node saves, and version counters.

A tensor holds a NumPy array. An operation on tensors, one of which requires
grad, leaves a node in the graph: a backward function, which turns the
gradient of the operation's output into one gradient per input, and its
next_functions, the nodes those gradients go to. A leaf that requires grad is
reached through its AccumulateGrad node, which adds into .grad. backward()
counts how many gradients each node will receive, then runs each node once
all of them have arrived, from a list of ready nodes, without recursion.

Step 2: a node keeps the tensors its backward needs (saved_tensors), with
each one's version at the time; add_() changes a tensor in place and counts a
version; reading a saved tensor whose version has moved on raises.
"""

import numpy as np


class Node:
    """A backward function (PyTorch's grad_fn): node(grad) returns a tuple,
    one gradient per input of its operation, in the order of next_functions."""

    def __init__(self, name, backward, inputs, saved=()):
        self._name = name
        self._backward = backward
        self.next_functions = tuple(edge_to(t) for t in inputs)
        self._saved = [(t, t._version) for t in saved]

    def name(self):
        return self._name

    @property
    def saved_tensors(self):
        """The saved tensors, each as it was when saved, or an error."""
        for t, version in self._saved:
            if t._version != version:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has "
                    "been modified by an inplace operation: a tensor saved by "
                    f"{self._name} is at version {t._version}; expected "
                    f"version {version} instead")
        return tuple(t for t, _ in self._saved)

    def __call__(self, grad):
        return self._backward(grad, *self.saved_tensors)


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: adds what reaches it to .grad."""

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()

    def name(self):
        return "AccumulateGrad"

    def __call__(self, grad):
        leaf = self.variable
        leaf.grad = grad if leaf.grad is None else leaf.grad + grad
        return ()


def edge_to(t):
    """Where the gradient for the input t goes: its grad_fn, its leaf's
    AccumulateGrad, or nowhere (None) if t does not require grad. (PyTorch
    keeps (node, input_nr) pairs; here each operation has one output.)"""
    if not t.requires_grad:
        return None
    if t.grad_fn is not None:
        return t.grad_fn
    if t._accumulator is None:  # one per leaf, however often it is used
        t._accumulator = AccumulateGrad(t)
    return t._accumulator


class Tensor:
    def __init__(self, data, requires_grad=False):
        self.data = np.array(data, dtype=np.float64)  # a copy, as torch.tensor
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = None
        self._accumulator = None  # a leaf's AccumulateGrad, once it has one
        self._version = 0  # how many in-place changes it has had

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def __repr__(self):
        return f"tensor({self.data}, requires_grad={self.requires_grad})"

    def __mul__(self, other):
        other = as_tensor(other)
        return record("MulBackward0", self.data * other.data, (self, other),
                      lambda g, x, y: (g * y.data, g * x.data),
                      saved=(self, other))

    def __add__(self, other):
        other = as_tensor(other)
        return record("AddBackward0", self.data + other.data, (self, other),
                      lambda g: (g, g))

    def add_(self, other):
        """self += other, in the same array; the node of the sum becomes
        self's grad_fn, its first edge the node self had."""
        if self.is_leaf and self.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being "
                               "used in an in-place operation.")
        total = self + other
        self.data[...] = total.data  # the same array: who saved self sees it
        self.requires_grad, self.grad_fn = total.requires_grad, total.grad_fn
        self._version += 1
        return self

    __rmul__ = __mul__
    __radd__ = __add__

    def exp(self):
        return record("ExpBackward0", np.exp(self.data), (self,),
                      lambda g, result: (g * result.data,), save_result=True)

    def sum(self):
        shape = self.data.shape  # a shape, not a tensor: nothing to save
        return record("SumBackward0", self.data.sum(), (self,),
                      lambda g: (g * np.ones(shape),))

    def backward(self):
        backward(self)


def as_tensor(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def record(name, data, inputs, backward_fn, saved=(), save_result=False):
    """The result of an operation, with a node if an input requires grad; the
    node saves the tensors in saved (and the result, if save_result)."""
    out = Tensor(data, requires_grad=any(t.requires_grad for t in inputs))
    if out.requires_grad:
        out.grad_fn = Node(name, backward_fn, inputs,
                           saved + ((out,) if save_result else ()))
    return out


def backward(root):
    """Run the graph below root from d root / d root = 1, each node once,
    after every node that sends it a gradient."""
    if root.grad_fn is None:
        raise RuntimeError("element 0 of tensors does not require grad and "
                           "does not have a grad_fn")
    dependencies = {}  # node -> how many gradients it will receive
    stack, seen = [root.grad_fn], {root.grad_fn}
    while stack:
        for node in stack.pop().next_functions:
            if node is not None:
                dependencies[node] = dependencies.get(node, 0) + 1
                if node not in seen:
                    seen.add(node)
                    stack.append(node)
    buffers = {root.grad_fn: np.ones_like(root.data)}
    ready = [root.grad_fn]
    while ready:
        node = ready.pop()
        grads = node(buffers.pop(node))
        for next_node, grad in zip(node.next_functions, grads, strict=True):
            if next_node is None:
                continue
            if next_node in buffers:
                buffers[next_node] = buffers[next_node] + grad
            else:
                buffers[next_node] = grad
            dependencies[next_node] -= 1
            if dependencies[next_node] == 0:
                ready.append(next_node)
