"""The queue of nodes ready to run, ordered exactly as torch's engine orders them.

torch keeps ready nodes in a C++ ``std::priority_queue`` that pops the highest sequence
number first. Nodes with equal numbers (all ``AccumulateGrad`` nodes share the largest one)
come out in an order fixed by the heap's sift steps, so this is libstdc++'s binary heap
(``push_heap``/``pop_heap``), step for step. Python's ``heapq`` breaks ties differently.
"""

from __future__ import annotations

from typing import Any


class ReadyQueue(list):
    """A binary max-heap of nodes by sequence number, kept in the list itself (so that the
    engine's ``while ready:`` is a plain list test)."""

    __slots__ = ()

    def push(self, node: Any) -> None:
        self.append(node)
        if len(self) > 1:  # a lone node is already in place (the common case: a chain)
            self._sift_up(len(self) - 1, 0, node)

    def pop(self) -> Any:  # type: ignore[override]
        top = self[0]
        last = list.pop(self)
        if self:
            self._adjust(0, len(self), last)
        return top

    def _sift_up(self, hole: int, top: int, node: Any) -> None:
        seq = node._seq
        parent = (hole - 1) // 2
        while hole > top and self[parent]._seq < seq:
            self[hole] = self[parent]
            hole = parent
            parent = (hole - 1) // 2
        self[hole] = node

    def _adjust(self, hole: int, length: int, node: Any) -> None:
        """libstdc++'s ``__adjust_heap``: move the hole down to a leaf, then sift ``node`` up."""
        top, child = hole, hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if self[child]._seq < self[child - 1]._seq:
                child -= 1
            self[hole] = self[child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            self[hole] = self[child - 1]
            hole = child - 1
        self._sift_up(hole, top, node)
