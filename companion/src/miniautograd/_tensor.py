"""``Tensor``: an array, plus what autograd needs to know about it (read this file fourth).

A tensor holds its data (a numpy or CuPy array), whether it ``requires_grad``, the node that
produced it (``grad_fn``; None for a leaf) and a version counter that in-place operations bump,
so that backward can refuse to use a saved value that was later overwritten.

The class body is about what autograd stores. The operations (``+``, ``exp``, ``sum``,
``reshape``, ``to``, ...) are attached by the package's ``__init__`` from the op table
(``ops/``), the way torch generates its methods from ``native_functions.yaml``. (The file is
``_tensor.py``, as in torch: ``miniautograd.tensor`` is the function that makes tensors.)
"""

from __future__ import annotations

import math
import warnings
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import _backend, _dtype
from ._backend import device as Device
from ._format import tensor_repr
from .utils.hooks import RemovableHandle

_GRAD_OF_NON_LEAF = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead."
)


class Size(tuple):
    """A shape; a tuple that prints like ``torch.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"miniautograd.Size({list(self)})"

    def numel(self) -> int:
        # math.prod, not np.prod: no array made for a few sizes (a policy's sample() asks at
        # every step: ~3 us of its ~20 us glue around the draw)
        return math.prod(self)


class _ValuesIndices(NamedTuple):
    values: Tensor
    indices: Tensor


class MaxResult(_ValuesIndices):
    """What ``max(dim)`` returns: the ``values`` and their ``indices``."""

    __slots__ = ()

    def __repr__(self) -> str:
        name = type(self).__name__.removesuffix("Result").lower()
        return (f"miniautograd.return_types.{name}(\nvalues={self.values!r},"
                f"\nindices={self.indices!r})")


class MinResult(MaxResult):
    """What ``min(dim)`` returns: the ``values`` and their ``indices``."""

    __slots__ = ()


class SortResult(MaxResult):
    """What ``sort`` returns: the sorted ``values`` and the ``indices`` they came from."""

    __slots__ = ()


def shape_args(shape: tuple) -> tuple:
    """Accept ``f(2, 3)`` and ``f((2, 3))`` alike (a ``Size`` or a list too): the one place
    for creation functions and shape methods (reshape, view, expand, permute)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        return tuple(shape[0])
    return shape


def _legacy_shape(args: tuple) -> tuple | None:
    """The shape the legacy constructors (``Tensor(...)``, ``FloatTensor(...)``) are given:
    none (``(0,)``), sizes ``(2, 3)`` or one ``Size``; None when they are given data."""
    if len(args) == 1 and isinstance(args[0], Size):
        return tuple(args[0])
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        return tuple(args) if args else (0,)
    return None


class Tensor:
    """A multi-dimensional array that can record the operations applied to it."""

    __slots__ = (
        "__weakref__",
        "_acc_ref",
        "_data",
        "_grad",
        "_hooks",
        "_output_nr",
        "_post_accumulate_hooks",
        "_requires_grad",
        "_retains_grad",
        "_vc",
        "_view_base",
        "grad_fn",
    )
    __array_priority__ = 1000  # make `ndarray * tensor` defer to Tensor.__rmul__

    def __init__(self, *args: Any) -> None:
        """The legacy constructor ``torch.Tensor(data)``: the default dtype (float32 unless
        ``set_default_dtype`` changed it), whatever the data's."""
        dtype = _dtype.get_default_dtype().np_dtype
        shape = _legacy_shape(args)
        if shape is not None:
            self._init(np.zeros(shape, dtype=dtype))
        else:
            data = args[0]._data.astype(dtype) if isinstance(args[0], Tensor) else args[0]
            self._init(np.array(data, dtype=dtype))

    def _init(self, data: Any, requires_grad: bool = False, grad_fn: Any = None,
              output_nr: int = 0, vc: list | None = None) -> None:
        """Set every field: the one place a tensor is filled in (``_make``, ``__init__`` and
        ``Parameter`` all come here)."""
        if type(data) is not np.ndarray and (
            isinstance(data, np.generic) or not _backend.is_cuda_array(data)
        ):
            data = np.asarray(data)  # numpy returns scalars from 0-d operations
        self._data = data
        self._requires_grad = requires_grad
        self.grad_fn = grad_fn
        self._output_nr = output_nr
        self._grad = None
        self._vc = [0] if vc is None else vc  # shared with views: one storage, one version
        self._acc_ref = None  # a weak reference to this leaf's AccumulateGrad node
        self._hooks = None
        self._post_accumulate_hooks = None
        self._retains_grad = False
        self._view_base = None

    @classmethod
    def _make(cls, data: Any, requires_grad: bool = False, grad_fn: Any = None,
              output_nr: int = 0, vc: list | None = None) -> Tensor:
        """Wrap an array without copying: how every operation makes its output."""
        tensor = cls.__new__(cls)
        tensor._init(data, requires_grad, grad_fn, output_nr, vc)
        return tensor

    # ---- metadata ---------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Size | int:
        return Size(self._data.shape) if dim is None else self._data.shape[dim]

    def dim(self) -> int:
        return self._data.ndim

    ndim = property(dim)

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype.from_numpy_dtype(self._data.dtype)

    @property
    def device(self) -> Device:
        return _backend.device_of(self._data)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def _version(self) -> int:
        return self._vc[0]

    @property
    def output_nr(self) -> int:
        """Which output of ``grad_fn`` this tensor is (0 unless the op has several outputs)."""
        return self._output_nr

    def element_size(self) -> int:
        return self._data.itemsize

    def data_ptr(self) -> int:
        return _backend.to_numpy(self._data).__array_interface__["data"][0] if not self.is_cuda \
            else self._data.data.ptr

    # ---- requires_grad, grad ----------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach()."
                )
            return self
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients "
                f"(this one is {self.dtype}; convert it first, e.g. `t.float()`)."
            )
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self) -> Tensor | None:
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(_GRAD_OF_NON_LEAF, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None and value.shape != self.shape:
            raise RuntimeError(
                "assigned grad has data of a different size: the gradient of a tensor must have "
                f"the tensor's shape {list(self.shape)}, got {list(value.shape)}"
            )
        self._grad = value

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor too (leaves always keep it)."""
        if self.grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains_grad:
            return
        self._retains_grad = True
        node = self.grad_fn
        if node._retained is None:
            node._retained = {}
        node._retained[self._output_nr] = weakref.ref(self)

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any:
        """``hook(grad)`` runs when the gradient for this tensor is computed; may replace it."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._register_tensor_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return RemovableHandle(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> Any:
        """``hook(tensor)`` runs once backward has added into this leaf's ``.grad``: the place
        for an optimizer step per parameter, while backward goes on for the others."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = []
        self._post_accumulate_hooks.append(hook)
        return RemovableHandle(self._post_accumulate_hooks, hook)

    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Sequence[Tensor] | None = None) -> None:
        """Compute the gradient of this tensor w.r.t. the leaves, accumulating into ``.grad``.

        For a non-scalar tensor, ``gradient`` is the vector v of the vector-Jacobian product
        v^T J (what the result is weighted by), not a place to store the result.
        """
        # Lazy: the engine computes on tensors, so it imports this module.
        from .autograd.engine import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ---- detaching, copying, moving -----------------------------------------------------------
    def detach(self) -> Tensor:
        """The same storage and version counter, cut off from the graph."""
        return Tensor._make(self._data, vc=self._vc)

    def detach_(self) -> Tensor:
        self.grad_fn, self._requires_grad, self._output_nr = None, False, 0
        return self

    def _alias(self) -> Tensor:
        return Tensor._make(self._data, self._requires_grad, self.grad_fn, self._output_nr,
                            self._vc)

    def _detached_copy(self) -> Tensor:
        return Tensor._make(self._data.copy())

    @property
    def data(self) -> Tensor:
        """The storage without autograd - and WITHOUT the version counter (see ``detach``)."""
        return Tensor._make(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._data = value._data

    def cpu(self) -> Tensor:
        return self.to("cpu")

    def cuda(self, device: int | str | None = None) -> Tensor:
        return self.to(Device("cuda", device if isinstance(device, int) else None)
                       if not isinstance(device, str) else device)

    def float(self) -> Tensor:
        return self.to(_dtype.float32)

    def double(self) -> Tensor:
        return self.to(_dtype.float64)

    def long(self) -> Tensor:
        return self.to(_dtype.int64)

    def int(self) -> Tensor:
        return self.to(_dtype.int32)

    def bool(self) -> Tensor:
        return self.to(_dtype.bool_)

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        """With no argument, the legacy type name (``'miniautograd.FloatTensor'``); otherwise
        this tensor converted to a dtype, a legacy type (``DoubleTensor``) or its name."""
        if dtype is None:
            return self.dtype.legacy_name
        return self.to(_dtype.from_type(dtype))

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)

    # ---- leaving autograd -----------------------------------------------------------------------
    def _numpy_view(self) -> np.ndarray:
        return _backend.to_numpy(self._data)

    def numpy(self, force: bool = False) -> np.ndarray:
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        if self.is_cuda and not force:
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to "
                "copy the tensor to host memory first."
            )
        return self._numpy_view()

    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar; "
                "index it first (t[0]) or reduce it (t.sum())"
            )
        return self._data.item()

    def __format__(self, format_spec: str) -> str:
        """As torch: a 0-d tensor formats its number (``f"{loss:.4f}"``, and ``f"{loss}"``
        prints the Python float), any other tensor formats as ``str`` with an empty spec."""
        if self._data.ndim == 0:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def tolist(self) -> Any:
        return self._numpy_view().tolist()

    def _scalar(self) -> Any:
        if self._data.size != 1:
            raise ValueError(
                "only one element tensors can be converted to Python scalars (this one has "
                f"{self._data.size}); index it (t[0]) or reduce it (t.sum()) first"
            )
        return self._data.item()

    def __float__(self) -> float:
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iu":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous; use .any() or "
                f".all() (shape {list(self.shape)})"
            )
        return bool(self.item())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self._numpy_view()
        return array if dtype is None else array.astype(dtype)

    @property
    def T(self) -> Tensor:  # noqa: N802 - torch's name
        return self.permute(*reversed(range(self._data.ndim)))

    @property
    def mT(self) -> Tensor:  # noqa: N802 - torch's name
        return self.transpose(-2, -1)

    def __repr__(self) -> str:
        return tensor_repr(self)

    def __hash__(self) -> int:
        return id(self)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))  # torch iterates through one UnbindBackward0 node

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild, (self._numpy_view(), self._requires_grad))

    def __deepcopy__(self, memo: dict) -> Tensor:
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment."
            )
        copy = type(self)._make(self._data.copy(), self._requires_grad)
        memo[id(self)] = copy
        return copy


def _rebuild(array: np.ndarray, requires_grad: bool) -> Tensor:
    return Tensor._make(np.array(array), requires_grad)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def zero_grads(tensors: Iterable[Tensor], set_to_none: bool = True) -> None:
    """Forget the gradients of the last step (backward adds to ``.grad``, it never resets it):
    what ``Module.zero_grad`` and ``Optimizer.zero_grad`` both do."""
    for tensor in tensors:
        if set_to_none:
            tensor.grad = None
        elif tensor._grad is not None:
            tensor._grad.zero_()
