"""``miniautograd.utils.data``: ``Dataset``, ``TensorDataset`` and ``DataLoader`` as torch has
them, loading in the calling process.

The point is the randomness: a shuffled loader draws from torch's generators in torch's order,
so a seeded program gets torch's batches and leaves the default generator where torch leaves
it. Per pass over the data (``iter(loader)``), torch draws:

1. a base seed for its workers, one ``random_()`` int64 from ``loader.generator`` (or the
   default generator), at ``iter()``;
2. at the first batch, the shuffle: with ``generator=g``, ``randperm(n, generator=g)``;
   without, one more int64 from the default generator seeds a fresh ``Generator``, whose
   ``randperm`` gives the order (``RandomSampler.__iter__``).

``num_workers`` is accepted and the batches are the same, but they are loaded here, in one
process: workers change where a batch is loaded, not which samples it holds.
"""

from __future__ import annotations

import collections.abc
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from .. import _creation, _random
from .._tensor import Tensor
from ..ops.shape import stack

__all__ = ["BatchSampler", "DataLoader", "Dataset", "RandomSampler", "Sampler",
           "SequentialSampler", "TensorDataset", "default_collate", "default_convert"]


class Dataset:
    """A map-style dataset: ``dataset[i]`` is sample ``i``; subclasses define ``__getitem__``
    (and ``__len__``, which a sampler needs)."""

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; every tensor has the same first size."""

    def __init__(self, *tensors: Tensor) -> None:
        if any(t.size(0) != tensors[0].size(0) for t in tensors):
            # torch checks this with an assert: the same class, with a message that says what
            raise AssertionError(
                "Size mismatch between tensors: every tensor of a TensorDataset needs the same "
                f"first size, got {[t.size(0) for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Sampler:
    """An iterable of indices (or of lists of indices, for a batch sampler)."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source: collections.abc.Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A permutation of the indices per pass (or draws with replacement), from torch's RNG."""

    def __init__(self, data_source: collections.abc.Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Any = None) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}")
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:  # a fresh generator, seeded from the default one
            generator = _random.Generator(int(_random.random_((), np.int64)))
        if self.replacement:  # torch draws in chunks of 32
            for size in [32] * (self.num_samples // 32) + [self.num_samples % 32]:
                yield from _random.randint(0, n, (size,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _random.randperm(n, generator).tolist()
            yield from _random.randperm(n, generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; the last may be short unless
    ``drop_last``."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def default_convert(data: Any) -> Any:
    """A sample as a loader without batching returns it: NumPy arrays become tensors."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "SUO":
        return _creation.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({key: default_convert(value) for key, value in data.items()})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(value) for value in data))
    if isinstance(data, tuple):
        return [default_convert(value) for value in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return type(data)([default_convert(value) for value in data])
    return data


def default_collate(batch: Sequence[Any]) -> Any:
    """A list of samples as one batch: tensors stacked on a new first dimension, numbers made
    tensors (floats float64, as torch does), and tuples, lists and dicts collated field by
    field (a tuple of fields comes back as a list)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    numpy_value = isinstance(elem, (np.ndarray, np.number, np.bool_))
    if numpy_value and np.asarray(elem).dtype.kind not in "SUO":
        if np.ndim(elem) == 0:
            return _creation.as_tensor(np.array(batch))
        return default_collate([_creation.as_tensor(b) for b in batch])
    if isinstance(elem, float):
        return _creation.tensor(batch, dtype=np.float64)
    if isinstance(elem, int):
        return _creation.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return type(elem)({key: default_collate([d[key] for d in batch]) for key in elem})
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch, strict=True)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(list(field)) for field in zip(*batch, strict=True)]
        return fields if isinstance(elem, tuple) else type(elem)(fields)
    raise TypeError("default_collate: batch must contain tensors, numpy arrays, numbers, "
                    f"dicts or lists; found {type(elem)}")


class DataLoader:
    """Batches of a map-style dataset, shuffled with torch's draws when ``shuffle=True``."""

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Iterable | None = None, batch_sampler: Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, generator: Any = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers = num_workers
        self.collate_fn = collate_fn or (default_collate if batch_sampler is not None
                                         else default_convert)

    def __iter__(self) -> Iterator[Any]:
        indices = iter(self.batch_sampler if self.batch_sampler is not None else self.sampler)
        _random.random_((), np.int64, self.generator)  # the workers' base seed, as torch draws it
        return self._batches(indices)

    def _batches(self, indices: Iterator) -> Iterator[Any]:
        for index in indices:
            if self.batch_sampler is not None:
                yield self.collate_fn([self.dataset[i] for i in index])
            else:
                yield self.collate_fn(self.dataset[index])

    def __len__(self) -> int:
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
