"""myautograd, step 1: tensors that record their operations, and backward().

A tensor holds a NumPy array. An operation on tensors, one of which requires
grad, leaves a node in the graph: a backward function, which turns the
gradient of the operation's output into one gradient per input, and its
next_functions, the nodes those gradients go to. A leaf that requires grad is
reached through its AccumulateGrad node, which adds into .grad. backward()
counts how many gradients each node will receive, then runs each node once
all of them have arrived, from a list of ready nodes, without recursion.
"""

import numpy as np


class Node:
    """A backward function (PyTorch's grad_fn): node(grad) returns a tuple,
    one gradient per input of its operation, in the order of next_functions."""

    def __init__(self, name, backward, inputs):
        self._name = name
        self._backward = backward
        self.next_functions = tuple(edge_to(t) for t in inputs)

    def name(self):
        return self._name

    def __call__(self, grad):
        return self._backward(grad)


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

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def __repr__(self):
        return f"tensor({self.data}, requires_grad={self.requires_grad})"

    def __mul__(self, other):
        other = as_tensor(other)
        return record("MulBackward0", self.data * other.data, (self, other),
                      lambda g: (g * other.data, g * self.data))

    def __add__(self, other):
        other = as_tensor(other)
        return record("AddBackward0", self.data + other.data, (self, other),
                      lambda g: (g, g))

    __rmul__ = __mul__
    __radd__ = __add__

    def exp(self):
        result = np.exp(self.data)
        return record("ExpBackward0", result, (self,),
                      lambda g: (g * result,))

    def sum(self):
        return record("SumBackward0", self.data.sum(), (self,),
                      lambda g: (g * np.ones_like(self.data),))

    def backward(self):
        backward(self)


def as_tensor(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def record(name, data, inputs, backward_fn):
    """The result of an operation, with a node if an input requires grad."""
    out = Tensor(data, requires_grad=any(t.requires_grad for t in inputs))
    if out.requires_grad:
        out.grad_fn = Node(name, backward_fn, inputs)
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
