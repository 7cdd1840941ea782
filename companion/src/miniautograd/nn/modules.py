"""``nn.Module`` and the layers the book uses."""

from __future__ import annotations

import math
import operator
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .. import _backend
from .._creation import empty, ones, tensor, zeros
from .._tensor import Tensor, zero_grads
from ..autograd.grad_mode import no_grad
from . import functional as F
from . import init
from .parameter import Parameter


class Module:
    """Base class: assigning a Parameter or Module attribute registers it."""

    training: bool

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "training", True)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                "cannot assign attributes before Module.__init__() call; call "
                "super().__init__() first in your __init__"
            )
        # A registry keeps its insertion order, so a re-assigned name keeps its place.
        target = (self._parameters if isinstance(value, Parameter)
                  else self._modules if isinstance(value, Module) else None)
        for registry in (self._parameters, self._modules, self._buffers):
            if registry is not target:
                registry.pop(name, None)
        if target is None:
            object.__setattr__(self, name, value)
        else:
            self.__dict__.pop(name, None)
            target[name] = value

    def __getattr__(self, name: str) -> Any:
        for registry in ("_parameters", "_modules", "_buffers"):
            values = self.__dict__.get(registry)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def register_buffer(self, name: str, tensor: Tensor | None) -> None:
        self._buffers[name] = tensor

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        self._modules[name] = module

    # ---- traversal ---------------------------------------------------------------------------
    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                yield from child.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def children(self) -> Iterator[Module]:
        yield from (m for m in self._modules.values() if m is not None)

    def named_parameters(
        self, prefix: str = "", recurse: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        seen: set[int] = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, param in module._parameters.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{module_prefix}.{name}" if module_prefix else name), param

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def apply(self, fn: Callable[[Module], None]) -> Module:
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ---- modes and state -------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        zero_grads(self.parameters(), set_to_none)

    def state_dict(self) -> OrderedDict[str, Tensor]:
        state: OrderedDict[str, Tensor] = OrderedDict()
        for prefix, module in self.named_modules():
            for name, value in [*module._parameters.items(), *module._buffers.items()]:
                if value is not None:
                    state[f"{prefix}.{name}" if prefix else name] = value.detach()
        return state

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> Any:
        """Copy values in place; also accepts a torch ``state_dict`` (any array-like values)."""
        own = self.state_dict()
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}: missing keys "
                f"{missing}, unexpected keys {unexpected}"
            )
        with no_grad():
            for key, target in own.items():
                if key in state_dict:
                    value = state_dict[key]
                    array = value.detach().cpu().numpy() if hasattr(value, "detach") else value
                    array = np.asarray(array, dtype=target._data.dtype)
                    if array.shape != target._data.shape:
                        raise RuntimeError(
                            f"size mismatch for {key}: copying a param with shape "
                            f"{list(array.shape)}, the shape in current model is "
                            f"{list(target.shape)}."
                        )
                    target._data[...] = _backend.asarray(array, None, target.device)
                    target._vc[0] += 1
        return missing, unexpected

    def to(self, *args: Any, **kwargs: Any) -> Module:
        for module in self.modules():
            for registry in (module._parameters, module._buffers):
                for value in registry.values():
                    if value is None:
                        continue
                    moved = value.detach().to(*args, **kwargs)
                    value._data = moved._data  # keep the same Parameter object (optimizers hold it)
        return self

    def cpu(self) -> Module:
        return self.to("cpu")

    def cuda(self) -> Module:
        return self.to("cuda")

    def double(self) -> Module:
        return self.to(np.float64)

    def float(self) -> Module:
        return self.to(np.float32)

    # ---- printing ------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = [f"({name}): " + repr(child).replace("\n", "\n  ")
                 for name, child in self._modules.items()]
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        body = "\n  ".join(([extra] if extra else []) + lines)
        return f"{type(self).__name__}(\n  {body}\n)"


class Linear(Module):
    """y = x @ W^T + b, initialised like torch (uniform in +-1/sqrt(in_features))."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(empty(out_features, in_features, dtype=dtype, device=device))
        self.bias = Parameter(empty(out_features, dtype=dtype, device=device)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """torch's start: the weight uniform in +-1/sqrt(fan_in) (Kaiming with a = sqrt(5)),
        then the bias in the same range, drawn in this order."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - torch's name
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Sequential(Module):
    """Modules applied one after another."""

    def __init__(self, *modules: Module) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(modules):
                self.add_module(str(index), module)

    def forward(self, input: Any) -> Any:  # noqa: A002 - torch's name
        value = input
        for module in self._modules.values():
            value = module(value)
        return value

    def _key(self, index: int) -> str:
        """The name of the module at ``index`` (negative counts from the end), as torch finds it."""
        size = len(self._modules)
        index = operator.index(index)
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of range")
        return list(self._modules)[index % size]

    def __getitem__(self, index: int | slice) -> Module:
        if isinstance(index, slice):  # a new Sequential that keeps the modules' names
            return type(self)(OrderedDict(list(self._modules.items())[index]))
        return self._modules[self._key(index)]

    def __setitem__(self, index: int, module: Module) -> None:
        key = self._key(index)
        if not isinstance(module, Module):
            raise TypeError(
                f"cannot assign '{type(module).__name__}' as child module '{key}' "
                "(torch.nn.Module or None expected)"
            )
        self._modules[key] = module

    def __delitem__(self, index: int | slice) -> None:
        keys = list(self._modules)[index] if isinstance(index, slice) else [self._key(index)]
        for key in keys:
            del self._modules[key]
        self._renumber(list(self._modules.values()))

    def _renumber(self, modules: list[Module]) -> None:
        """Hold ``modules`` named 0, 1, 2, ..., as torch renames them after a delete or insert."""
        self._modules.clear()
        self._modules.update((str(i), module) for i, module in enumerate(modules))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        size = len(self._modules)
        if not -size <= index <= size:
            raise IndexError(f"Index out of range: {index}")
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._renumber(modules)
        return self

    def extend(self, sequential: Any) -> Sequential:
        for module in sequential:
            self.append(module)
        return self

    def pop(self, index: int | slice) -> Module:
        module = self[index]
        del self[index]
        return module


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.relu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.tanh()


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.sigmoid()


class Softmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class MSELoss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.mse_loss(input, target, self.reduction)


class CrossEntropyLoss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.cross_entropy(input, target, self.reduction)


class Flatten(Module):
    """Merge dimensions ``start_dim``..``end_dim`` into one; by default all but the batch."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size``: the inverse of ``Flatten``."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for position, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError("unflattened_size must be tuple of ints, but found element of "
                                f"type {type(size).__name__} at pos {position}")
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size!r}"


class BCEWithLogitsLoss(Module):
    """``F.binary_cross_entropy_with_logits`` as a module; ``weight`` and ``pos_weight`` are
    buffers, as in torch (they follow ``.to()`` and appear in ``state_dict``)."""

    def __init__(self, weight: Tensor | None = None, size_average: None = None,
                 reduce: None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__()
        F.refuse_legacy_reduction(size_average, reduce)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)
        self.reduction = reduction

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class Embedding(Module):
    """A table of ``num_embeddings`` vectors of size ``embedding_dim``, looked up by index;
    initialised from N(0, 1), as in torch, with ``padding_idx``'s row zero."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = F.padding_row(padding_idx, num_embeddings)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            weight = empty(num_embeddings, embedding_dim, dtype=dtype, device=device)
            self.weight = Parameter(weight, requires_grad=not _freeze)
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None, **options: Any) -> Embedding:
        """A table holding ``embeddings`` (a 2-D tensor), trainable only with freeze=False."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, _weight=embeddings, _freeze=freeze, **options)


class BatchNorm1d(Module):
    """Normalise each of ``num_features`` channels of an (N, C) or (N, C, L) input: by the
    batch's statistics while training (keeping running averages of them), by the running
    averages in eval mode. ``momentum=None`` averages all batches equally."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        options = {"dtype": dtype, "device": device}
        self.weight = Parameter(empty(num_features, **options)) if affine else None
        self.bias = Parameter(empty(num_features, **options)) if affine and bias else None
        for name in ("weight", "bias"):
            if getattr(self, name) is None:
                self.register_parameter(name, None)
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            self.register_buffer(name, None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **options))
            self.register_buffer("running_var", ones(num_features, **options))
            self.register_buffer("num_batches_tracked", tensor(0, device=device))
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative average of every batch so far
                factor = 1.0 / float(self.num_batches_tracked)
        stats = not self.training or self.track_running_stats
        in_training = self.training or self.running_mean is None
        return F.batch_norm(input, self.running_mean if stats else None,
                            self.running_var if stats else None, self.weight, self.bias,
                            in_training, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")
