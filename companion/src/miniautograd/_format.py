"""``repr`` of tensors in torch's style: ``tensor([1., 2.], requires_grad=True)``.

The rules follow torch's printer: four significant decimals, ``1.`` for floats that are whole
numbers, scientific notation when magnitudes span more than 1000x or leave [1e-4, 1e8), and
``...`` summaries past 1000 elements.
"""

from __future__ import annotations

import numpy as np

PRECISION = 4
THRESHOLD = 1000
EDGE_ITEMS = 3
LINE_WIDTH = 80


def _float_formatter(values: np.ndarray):
    finite = values[np.isfinite(values)]
    nonzero = np.abs(finite[finite != 0]).astype(np.float64)
    if finite.size and np.all(finite == np.round(finite)):
        if nonzero.size and (nonzero.max() / nonzero.min() > 1000 or nonzero.max() > 1e8):
            return lambda v: f"{v:.{PRECISION}e}"
        return lambda v: f"{v:.0f}." if np.isfinite(v) else _special(v)
    if nonzero.size and (
        nonzero.max() / nonzero.min() > 1000 or nonzero.max() > 1e8 or nonzero.min() < 1e-4
    ):
        return lambda v: f"{v:.{PRECISION}e}"
    return lambda v: f"{v:.{PRECISION}f}" if np.isfinite(v) else _special(v)


def _special(value: float) -> str:
    return "nan" if np.isnan(value) else ("inf" if value > 0 else "-inf")


def _summarized(array: np.ndarray) -> np.ndarray:
    """The elements that will be printed (the edges of each dimension when summarizing)."""
    if array.ndim == 0 or array.size <= THRESHOLD:
        return array.ravel()
    parts = []
    if array.shape[0] > 2 * EDGE_ITEMS:
        rows = list(array[:EDGE_ITEMS]) + list(array[-EDGE_ITEMS:])
    else:
        rows = list(array)
    for row in rows:
        parts.append(_summarized(np.asarray(row)))
    return np.concatenate(parts) if parts else array.ravel()


def format_array(array: np.ndarray, indent: int) -> str:
    if array.dtype == np.bool_:
        formatter = lambda v: "True" if v else "False"  # noqa: E731
    elif array.dtype.kind in "iu":
        formatter = str
    else:
        shown = _summarized(array)
        formatter = _float_formatter(shown)
    summarize = array.size > THRESHOLD
    shown = _summarized(array)
    if array.dtype.kind == "f":  # torch sizes columns by the finite non-zero values only
        shown = shown[np.isfinite(shown) & (shown != 0)]
    width = max((len(formatter(v)) for v in shown), default=1)
    pad = lambda v: formatter(v).rjust(width)  # noqa: E731
    return _nested(array, pad, indent, summarize, width)


def _nested(array: np.ndarray, pad, indent: int, summarize: bool, width: int) -> str:
    if array.ndim == 0:
        return pad(array.item())
    if array.ndim == 1:
        values = array.tolist()
        if summarize and len(values) > 2 * EDGE_ITEMS:
            items = [pad(v) for v in values[:EDGE_ITEMS]] + [" ..."]
            items += [pad(v) for v in values[-EDGE_ITEMS:]]
        else:
            items = [pad(v) for v in values]
        # Wrap rows at 80 characters, as torch does.
        per_line = max(1, (LINE_WIDTH - indent) // (width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(array.shape[0])
    if summarize and array.shape[0] > 2 * EDGE_ITEMS:
        rows = [*range(EDGE_ITEMS), None, *range(array.shape[0] - EDGE_ITEMS, array.shape[0])]
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    texts = ["..." if r is None else _nested(array[r], pad, indent + 1, summarize, width)
             for r in rows]
    return "[" + separator.join(texts) + "]"


def tensor_repr(tensor) -> str:
    array = tensor._numpy_view()
    prefix = "tensor("
    suffixes = []
    if tensor.device.type != "cpu":
        suffixes.append(f"device='{tensor.device}'")
    if array.size == 0 and array.ndim == 1:
        body = "[]"
    elif array.size == 0:
        body = "[]"
        suffixes.insert(0, f"size={tuple(array.shape)}")
    else:
        body = format_array(array, len(prefix))
    default_dtypes = (np.dtype(np.float32), np.dtype(np.int64), np.dtype(np.bool_))
    if array.dtype not in default_dtypes or (array.size == 0 and array.dtype != np.float32):
        suffixes.append(f"dtype={tensor.dtype}")
    if tensor.grad_fn is not None:
        suffixes.append(f"grad_fn=<{tensor.grad_fn.name()}>")
    elif tensor._requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + body, suffixes, len(prefix))


def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``dtype=...`` etc., starting a new line when the current one would pass 80."""
    parts = [text]
    line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line_length + len(suffix) + 2 > LINE_WIDTH:
            parts.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_length += len(suffix) + 2
    return "".join(parts) + ")"
