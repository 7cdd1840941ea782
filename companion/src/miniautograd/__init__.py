"""miniautograd: torch.autograd rebuilt on numpy, small enough to read and fast enough to use.

``import miniautograd as torch`` runs programs that use the covered subset of PyTorch's API
unchanged and gives the same numbers (random numbers included: the generator is torch's).
"""

from importlib.metadata import version as _installed_version
from pathlib import Path as _Path

import tomllib as _tomllib

from . import accelerator, autograd, cuda, distributions, linalg, nn, ops, optim
from ._backend import device, get_default_device, set_default_device
from ._creation import (
    arange,
    as_tensor,
    bernoulli,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    initial_seed,
    linspace,
    manual_seed,
    multinomial,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    seed,
    tensor,
    zeros,
    zeros_like,
)
from ._dtype import (
    bool_,
    dtype,
    finfo,
    float32,
    float64,
    get_default_dtype,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from ._legacy import BoolTensor, ByteTensor, DoubleTensor, FloatTensor, IntTensor, LongTensor
from ._random import Generator, default_generator, get_rng_state, set_rng_state
from ._tensor import Size, Tensor, is_tensor

# Makes autograd.functional an attribute. Imported here, after the ops: it calls ops, which
# import autograd.function, so importing it from autograd/__init__ would be a cycle.
from .autograd import functional as _functional
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)

# torch.utils.data as an attribute, as torch imports it; it builds on the tensor functions.
from .utils import data as _data

# Every operation in the op table (ops/): Tensor methods (x.exp(), x + y, x.add_(y)) and the
# functions of this module (miniautograd.exp, miniautograd.cat, ...).
ops.install(Tensor, globals())

del _functional, _data

# torch's short dtype names; they shadow builtins only as attributes of this module.
globals().update({"bool": bool_, "float": float32, "double": float64, "long": int64,
                  "int": int32})


def _version() -> str:
    """The version in companion/pyproject.toml (one number, one place): read there when this
    is the source tree (imported from src/, installed or not), else from the installed metadata."""
    pyproject = _Path(__file__).parents[2] / "pyproject.toml"
    if pyproject.is_file():
        with pyproject.open("rb") as file:
            project = _tomllib.load(file).get("project", {})
        if project.get("name") == __name__:
            return project["version"]
    return _installed_version(__name__)


__version__ = _version()
