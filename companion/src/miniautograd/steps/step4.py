"""myautograd, step 4: no_grad() and detach().

A tensor holds a NumPy array. Function.apply runs an operation's forward and,
if an input requires grad, records its node: a backward function, which turns
the gradient of the output into one gradient per input, and its
next_functions, the nodes those gradients go to. The node is also the ctx that
forward and backward share: save_for_backward keeps tensors with their
version, needs_input_grad says which inputs need a gradient. A leaf that
requires grad is reached through its AccumulateGrad node, which adds into
.grad. backward() counts how many gradients each node will receive, then runs
each node once all of them have arrived, without recursion. gradcheck compares
backward with finite differences.

Step 4: under no_grad(), apply records nothing (and an in-place update of a
leaf is allowed); detach() returns a tensor that shares the array and the
version counter but not the history.
"""

import numpy as np

grad_enabled = True  # False inside a no_grad() block


def is_grad_enabled():
    return grad_enabled


class no_grad:
    """A block in which operations record nothing: with no_grad(): ..."""

    def __enter__(self):
        global grad_enabled
        self.previous, grad_enabled = grad_enabled, False

    def __exit__(self, *exception):  # also when the block raised
        global grad_enabled
        grad_enabled = self.previous


class Node:
    """A backward node (PyTorch's grad_fn), and the ctx of its Function:
    node(grad) returns one gradient per input, in the order of
    next_functions."""

    def __init__(self, function, inputs):
        self._function = function
        self.next_functions = tuple(edge_to(t) for t in inputs)
        self.needs_input_grad = tuple(t.requires_grad for t in inputs)
        self._saved = []

    def name(self):
        return self._function.__name__ + "Backward"

    def save_for_backward(self, *tensors):
        self._saved = [(t, t._version) for t in tensors]

    @property
    def saved_tensors(self):
        """The saved tensors, each as it was when saved, or an error."""
        for t, version in self._saved:
            if t._version != version:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has "
                    "been modified by an inplace operation: a tensor saved by "
                    f"{self.name()} is at version {t._version}; expected "
                    f"version {version} instead")
        return tuple(t for t, _ in self._saved)

    def __call__(self, grad):
        grads = self._function.backward(self, grad)
        return grads if isinstance(grads, tuple) else (grads,)


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


class Function:
    """An operation: forward(ctx, *tensors) returns a new Tensor made from
    arrays; backward(ctx, grad) returns one gradient array (or None) per
    input. Subclasses define both as static methods."""

    @classmethod
    def apply(cls, *args):
        inputs = tuple(as_tensor(a) for a in args)
        ctx = Node(cls, inputs)
        out = cls.forward(ctx, *inputs)
        if grad_enabled and any(ctx.needs_input_grad):
            out.requires_grad, out.grad_fn = True, ctx
        return out


class Mul(Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return Tensor(x.data * y.data)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * y.data, grad * x.data


class Add(Function):
    @staticmethod
    def forward(ctx, x, y):
        return Tensor(x.data + y.data)

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        result = Tensor(np.exp(x.data))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * result.data


class Sum(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.data.shape  # not a tensor: an attribute of ctx
        return Tensor(x.data.sum())

    @staticmethod
    def backward(ctx, grad):
        return grad * np.ones(ctx.shape)


class Tensor:
    def __init__(self, data, requires_grad=False):
        self.data = np.array(data, dtype=np.float64)  # a copy, as torch.tensor
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = None
        self._accumulator = None  # a leaf's AccumulateGrad, once it has one
        self._versions = [0]  # in-place changes; shared with detach()es

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def _version(self):
        return self._versions[0]

    @_version.setter
    def _version(self, value):
        self._versions[0] = value

    def detach(self):
        """The same array and version counter, without the history."""
        out = Tensor(0.0)
        out.data, out._versions = self.data, self._versions  # not copies
        return out

    def __repr__(self):
        return f"tensor({self.data}, requires_grad={self.requires_grad})"

    def __mul__(self, other):
        return Mul.apply(self, other)

    def __add__(self, other):
        return Add.apply(self, other)

    __rmul__ = __mul__
    __radd__ = __add__

    def exp(self):
        return Exp.apply(self)

    def sum(self):
        return Sum.apply(self)

    def add_(self, other):
        """self += other, in the same array; the node of the sum becomes
        self's grad_fn, its first edge the node self had."""
        if self.is_leaf and self.requires_grad and grad_enabled:
            raise RuntimeError("a leaf Variable that requires grad is being "
                               "used in an in-place operation.")
        total = self + other
        self.data[...] = total.data  # the same array: who saved self sees it
        if total.grad_fn is not None:  # under no_grad(), self keeps its own
            self.requires_grad, self.grad_fn = True, total.grad_fn
        self._version += 1
        return self

    def backward(self, gradient=None):
        backward(self, gradient)


def as_tensor(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def backward(root, gradient=None):
    """Run the graph below root from d root / d root (ones, or gradient),
    each node once, after every node that sends it a gradient."""
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
    if gradient is None and root.data.size != 1:
        raise RuntimeError("grad can be implicitly created only for scalar "
                           "outputs")
    seed = np.ones_like(root.data) if gradient is None else gradient
    buffers = {root.grad_fn: np.asarray(seed, dtype=np.float64)}
    ready = [root.grad_fn]
    while ready:
        node = ready.pop()
        incoming = buffers.pop(node, None)  # None: only Nones reached it
        grads = (node(incoming) if incoming is not None
                 else (None,) * len(node.next_functions))
        for next_node, grad in zip(node.next_functions, grads, strict=True):
            if next_node is None:
                continue
            if grad is not None and next_node in buffers:
                buffers[next_node] = buffers[next_node] + grad
            elif grad is not None:  # a backward's None adds nothing
                buffers[next_node] = grad
            dependencies[next_node] -= 1
            if dependencies[next_node] == 0:
                ready.append(next_node)


def gradcheck(fn, *inputs, eps=1e-6, atol=1e-5, rtol=1e-3):
    """True if backward agrees with central differences, element by element
    of the Jacobian of fn's output with respect to each input that requires
    grad; otherwise RuntimeError, as PyTorch's gradcheck raises."""
    out = fn(*inputs)
    kept = [x.grad for x in inputs]  # put back at the end, like the data
    for i, x in enumerate(inputs):
        if not x.requires_grad:
            continue
        numerical = np.zeros((out.data.size, x.data.size))
        for k in range(x.data.size):
            old = x.data.flat[k]
            x.data.flat[k] = old + eps
            plus = fn(*inputs).data.ravel()
            x.data.flat[k] = old - eps
            minus = fn(*inputs).data.ravel()
            x.data.flat[k] = old
            numerical[:, k] = (plus - minus) / (2 * eps)
        analytical = np.zeros_like(numerical)
        for j in range(out.data.size):
            x.grad = None
            onehot = np.zeros(out.data.size)
            onehot[j] = 1.0
            fn(*inputs).backward(onehot.reshape(out.data.shape))
            if x.grad is not None:
                analytical[j] = x.grad.ravel()
        if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
            raise RuntimeError(
                f"Jacobian mismatch for output 0 with respect to input {i},\n"
                f"numerical:{numerical}\nanalytical:{analytical}")
    for x, grad in zip(inputs, kept, strict=True):
        x.grad = grad
    return True
