"""Matrix products. For C = A @ B, dL/dA = dL/dC @ B^T and dL/dB = A^T @ dL/dC."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._util import check_broadcast, on_arrays, raise_device_mismatch
from .op import Op
from .shape import SqueezeDims, UnsafeView
from .table import op


def _check_pair(a: Tensor, b: Tensor, name: str) -> None:
    if type(a._data) is not type(b._data):
        raise_device_mismatch(a, b)
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {a.dtype} != {b.dtype} "
            f"(in {name}); convert one with .to(other.dtype)"
        )


def _check_inner(shape1: tuple, shape2: tuple) -> None:
    if len(shape1) != 2 or len(shape2) != 2 or shape1[1] != shape2[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({'x'.join(map(str, shape1))} and "
            f"{'x'.join(map(str, shape2))}): the columns of the first must equal the rows of "
            "the second. Check the order of the operands, or transpose one (b.T)."
        )


class Mm(Op):
    @staticmethod
    def forward(ctx, a, b):
        x, y = a._data, b._data
        if x.ndim != 2 or y.ndim != 2:
            raise RuntimeError(f"{'self' if x.ndim != 2 else 'mat2'} must be a matrix")
        if x.dtype != y.dtype or type(x) is not type(y) or x.shape[1] != y.shape[0]:
            _check_pair(a, b, "mm")
            _check_inner(x.shape, y.shape)
        need_a, need_b = ctx.needs_input_grad
        ctx.save(self=a if need_b else None, mat2=b if need_a else None)
        return x @ y

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return matrix_product_grads(grad, a, b, need_a, need_b)


def matrix_product_grads(grad: Tensor, mat1: Tensor | None, mat2: Tensor | None,
                         need_1: bool, need_2: bool) -> tuple[Tensor | None, Tensor | None]:
    """The gradients of ``mat1 @ mat2`` that are needed: ``grad @ mat2^T`` and
    ``mat1^T @ grad`` (``mm`` and ``addmm``'s backward; a matrix not needed may be None)."""
    if on_arrays(grad, *(m for m in (mat1, mat2) if m is not None)):
        # Speed (see on_arrays): the same products on the arrays, without a Tensor and an op
        # call for each transpose and product; nn.Linear's node and the two-layer net's.
        g = grad._data
        return (Tensor._make(g @ mat2._data.T) if need_1 else None,
                Tensor._make(mat1._data.T @ g) if need_2 else None)
    return grad.mm(mat2.t()) if need_1 else None, mat1.t().mm(grad) if need_2 else None


class Addmm(Op):
    """``bias + mat1 @ mat2`` in one node: what ``nn.Linear`` records, as in torch."""

    @staticmethod
    def forward(ctx, bias, mat1, mat2):
        _check_pair(mat1, mat2, "addmm")
        _check_inner(mat1._data.shape, mat2._data.shape)
        ctx.save(mat1=mat1, mat2=mat2)
        return bias._data + mat1._data @ mat2._data

    @staticmethod
    def backward(ctx, grad):
        mat1, mat2 = ctx.saved_tensors
        need_bias, need_1, need_2 = ctx.needs_input_grad
        return (grad if need_bias else None,
                *matrix_product_grads(grad, mat1, mat2, need_1, need_2))


def linear_2d(input: Tensor, weight: Tensor, bias: Tensor) -> Tensor:  # noqa: A002
    """``nn.Linear`` on a matrix (2-D ``input``), recorded as torch records it:
    ``Addmm(bias, input, weight.t())``."""
    x, w, b = input._data, weight._data, bias._data
    if on_arrays(input, weight, bias) and w.ndim == 2 and x.shape[1] == w.shape[1] \
            and b.shape == w.shape[:1]:
        # Speed: when nothing is recorded (a policy acting under no_grad), Addmm's forward on
        # the arrays, without the t() and addmm op calls: ~10 us less per step of the REINFORCE
        # benchmark's policy. tests/engine/test_fast_paths.py checks both paths bit for bit.
        return Tensor._make(b + x @ w.T)
    return Addmm.apply(bias, input, weight.t())


class Dot(Op):
    @staticmethod
    def forward(ctx, a, b):
        _check_pair(a, b, "dot")
        ctx.save(self=a, tensor=b)
        return np.dot(a._data, b._data)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a


class Mv(Op):
    @staticmethod
    def forward(ctx, a, v):
        _check_pair(a, v, "mv")
        if a._data.ndim != 2 or v._data.ndim != 1 or a._data.shape[1] != v._data.shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({a._data.shape[0]}), mat "
                f"({'x'.join(map(str, a._data.shape))}), vec ({v._data.shape[0]})"
            )
        ctx.save(self=a, vec=v)
        return a._data @ v._data

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        return grad.unsqueeze(1) * v.unsqueeze(0), a.t().mv(grad)


class Bmm(Op):
    """A batch of matrix products: (b, n, m) @ (b, m, p)."""

    @staticmethod
    def forward(ctx, a, b):
        _check_pair(a, b, "bmm")
        x, y = a._data, b._data
        if x.ndim != 3 or y.ndim != 3:
            raise RuntimeError(f"batch{1 if x.ndim != 3 else 2} must be a 3D tensor")
        if y.shape[:2] != (x.shape[0], x.shape[2]):
            raise RuntimeError(
                "Expected size for first two dimensions of batch2 tensor to be: "
                f"[{x.shape[0]}, {x.shape[2]}] but got: [{y.shape[0]}, {y.shape[1]}]. The "
                "last dimension of the first must equal the second-to-last of the second."
            )
        ctx.save(self=a, mat2=b)
        return np.matmul(x, y)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (Bmm.apply(grad, b.transpose(1, 2)) if need_a else None,
                Bmm.apply(a.transpose(1, 2), grad) if need_b else None)


def _folded(a: Tensor, b: Tensor) -> Tensor:
    """A batch against a matrix or vector: torch folds the batch into the rows of one mm (or
    mv), transposing when the batch is on the right, and views the result back."""
    transpose = b._data.ndim > a._data.ndim
    rows = b.mT if transpose else a
    other = (a.t() if a._data.ndim == 2 else a) if transpose else b
    shape = tuple(rows.shape[:-1])
    # The row count is given, not -1: with an inner size of 0 (``[3, 5, 0] @ [0, 2]``), -1
    # would be ambiguous.
    folded = rows.reshape(int(np.prod(shape, dtype=np.int64)), rows.shape[-1])
    if other._data.ndim == 1:
        return UnsafeView.apply(folded.mv(other), shape=shape)
    product = UnsafeView.apply(folded.mm(other), shape=(*shape, other.shape[1]))
    return product.mT.contiguous() if transpose else product


def _batched(a: Tensor, b: Tensor) -> Tensor:
    """Two batches of matrices: torch expands both to the broadcast batch, flattens it, and
    runs one bmm."""
    (n, m1), (m2, p) = a.shape[-2:], b.shape[-2:]
    check_broadcast(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    count = int(np.prod(batch, dtype=np.int64))
    left = a.expand(*batch, n, m1).reshape(count, n, m1)
    right = b.expand(*batch, m2, p).reshape(count, m2, p)
    return UnsafeView.apply(Bmm.apply(left, right), shape=(*batch, n, p))


def rmatmul(self: Tensor, other: Tensor) -> Tensor:
    return matmul(other, self)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Dispatch on dimensions the way ``torch.matmul`` does."""
    if not isinstance(b, Tensor):
        raise TypeError(f"matmul(): argument 'other' must be Tensor, not {type(b).__name__}")
    da, db = a._data.ndim, b._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 2 and db == 2:
        return Mm.apply(a, b)
    if da == 1 and db == 1:
        if a._data.shape != b._data.shape:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{a._data.shape[0]}] and src "
                f"[{b._data.shape[0]}] to have the same number of elements, but got "
                f"{a._data.shape[0]} and {b._data.shape[0]} elements respectively"
            )
        return Dot.apply(a, b)
    if da == 2 and db == 1:
        return Mv.apply(a, b)
    if da == 1 and db == 2:
        return SqueezeDims.apply(Mm.apply(a.unsqueeze(0), b), dim=(0,))
    if da <= 2 or db <= 2:
        return _folded(a, b)
    if da == 3 and db == 3 and (a.shape[0] == 1) != (b.shape[0] == 1):
        # A batch of one against a larger batch: torch squeezes the one away and folds.
        return matmul(a.squeeze(0), b) if a.shape[0] == 1 else matmul(a, b.squeeze(0))
    return _batched(a, b)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:  # noqa: A002 - torch's name
    """``input + mat1 @ mat2`` as one node (``AddmmBackward0``), what ``nn.Linear`` records."""
    return Addmm.apply(input, mat1, mat2)


TABLE = [
    op("matmul", matmul, operators=("__matmul__",)),
    op("rmatmul", rmatmul, method=False, function=False, operators=("__rmatmul__",)),
    op("mm", Mm),
    op("mv", Mv),
    op("dot", Dot),
    op("bmm", Bmm),
    op("addmm", addmm, method=False),
]
