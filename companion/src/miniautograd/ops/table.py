"""The op table: one line per public operation, the one place that registers it.

Each op module ends with its part of the table, e.g. in ``arithmetic.py``::

    TABLE = [
        op("exp", Exp, inplace=True),
        op("add", add, inplace="method", operators=("__add__", "__radd__")),
        ...
    ]

and the package's ``__init__`` turns every line into what torch has for that name, as torch
generates its bindings from ``native_functions.yaml``:

- ``Tensor.exp`` (``method=True``, the default);
- ``miniautograd.exp(input, ...)`` (``function=True``, the default), which checks that
  ``input`` is a tensor and calls the method;
- ``Tensor.exp_`` and ``miniautograd.exp_`` (``inplace=True``), or only ``Tensor.add_``
  (``inplace="method"``: torch has no ``torch.add_``): the op computed out of place, its
  result written back with torch's in-place rules (``inplace.py``);
- the operators listed, and for a binary one its augmented assignment (``+=`` is ``add_``).

Like torch's argument parser (``numpy_compatibility_arg_names`` in python_arg_parser.cpp),
every method and function whose parameters include ``dim`` or ``keepdim`` also takes them
under NumPy's names, ``axis`` and ``keepdims``: ``x.sum(axis=1, keepdims=True)``; except
where torch writes the binding in Python, outside that parser (``PYTHON_BINDINGS``).

``impl`` is an ``Op`` (or ``Function``) class, whose ``apply`` takes the tensor first, or a
function ``(input, ...)`` that parses torch's arguments and picks the op. With
``method=False`` it is the module-level function as it is (``cat`` takes a list).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._tensor import Tensor

# The augmented assignment of each binary operator: ``a += b`` runs ``a.add_(b)``.
_AUGMENTED = {"__add__": "__iadd__", "__sub__": "__isub__", "__mul__": "__imul__",
              "__truediv__": "__itruediv__", "__pow__": "__ipow__"}


@dataclass(frozen=True)
class Entry:
    """One line of the op table (see the module docstring)."""

    name: str
    impl: Callable[..., Any]
    method: bool = True
    function: bool = True
    inplace: bool | str = False
    operators: tuple[str, ...] = ()


def op(name: str, impl: Callable[..., Any], *, method: bool = True, function: bool = True,
       inplace: bool | str = False, operators: tuple[str, ...] = ()) -> Entry:
    if inplace not in (False, True, "method"):
        raise ValueError(f"op({name!r}): inplace is False, True or 'method', not {inplace!r}")
    return Entry(name, impl, method, function, inplace, operators)


# NumPy's name for a parameter -> torch's: torch's parser accepts either, and not both.
NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim"}
# Bindings torch defines in Python (torch/_tensor.py, torch/functional.py), which take only
# torch's names: (methods, module-level functions). torch.unflatten is native, the method not.
PYTHON_BINDINGS = ({"norm", "split", "unflatten"}, {"norm", "split"})


def _parameters(impl: Callable[..., Any]) -> set[str]:
    """The parameter names of an op's forward, or of a function's signature."""
    target = impl.forward if isinstance(impl, type) else impl
    try:
        return set(inspect.signature(target).parameters)
    except (TypeError, ValueError):  # a builtin with no signature: no names to translate
        return set()


def with_numpy_names(name: str, impl: Callable[..., Any], call: Callable[..., Any]
                     ) -> Callable[..., Any]:
    """``call``, also accepting ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``
    where ``impl`` has those parameters; ``call`` itself where it has neither."""
    names = _parameters(impl)
    aliases = [(numpy, torch) for numpy, torch in NUMPY_NAMES.items() if torch in names]
    if not aliases:
        return call

    @functools.wraps(call)
    def translated(*args: Any, **kwargs: Any) -> Any:
        for numpy, torch in aliases:
            if numpy in kwargs:
                if torch in kwargs:  # torch's parser then reads the NumPy name as unknown
                    raise TypeError(f"{name}() got an unexpected keyword argument '{numpy}'")
                kwargs[torch] = kwargs.pop(numpy)
        return call(*args, **kwargs)

    return translated


def as_method(impl: Callable[..., Any]) -> Callable[..., Any]:
    """``impl`` as a Tensor method: an op class is called through its ``apply``."""
    if not isinstance(impl, type):
        return impl
    apply = impl.apply
    if isinstance(impl.__dict__.get("apply"), staticmethod):  # an Op's: a plain function
        return apply

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return apply(self, *args, **kwargs)

    return method


def as_function(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """``miniautograd.<name>(input, ...)``: the method, called on ``input``."""

    def function(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 - torch's name
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not "
                f"{type(input).__name__}"
            )
        return method(input, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, ...)``: the same as ``input.{name}(...)``."
    return function


def bindings(entry: Entry, inplace_method: Callable[[str, Callable], Callable]
             ) -> tuple[dict[str, Any], dict[str, Any]]:
    """What one table line defines: (Tensor attributes, module-level functions) by name."""
    methods: dict[str, Any] = {}
    functions: dict[str, Any] = {}
    python_methods, python_functions = PYTHON_BINDINGS
    plain = as_method(entry.impl)
    method = plain
    if entry.name not in python_methods:
        method = with_numpy_names(entry.name, entry.impl, plain)
    if entry.method:
        methods[entry.name] = method
    if entry.function:
        function = as_function(entry.name, plain) if entry.method else entry.impl
        if entry.name not in python_functions:
            function = with_numpy_names(entry.name, entry.impl, function)
        functions[entry.name] = function
    for operator in entry.operators:
        methods[operator] = method
    if entry.inplace:
        in_place = inplace_method(entry.name, method)
        in_place.__name__ = in_place.__qualname__ = entry.name + "_"
        methods[entry.name + "_"] = in_place
        if entry.inplace is True:
            functions[entry.name + "_"] = as_function(entry.name + "_", in_place)
        for operator in entry.operators:
            if operator in _AUGMENTED:
                methods[_AUGMENTED[operator]] = in_place
    return methods, functions
