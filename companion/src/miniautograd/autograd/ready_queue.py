"""The queue of nodes ready to run, ordered exactly as torch's engine orders them.

torch keeps ready nodes in a C++ ``std::priority_queue`` that pops the highest sequence
number first. Nodes with equal numbers (all ``AccumulateGrad`` nodes share the largest one)
come out in an order fixed by the heap's sift steps, so this is libstdc++'s binary heap
(``push_heap``/``pop_heap``), step for step. Python's ``heapq`` breaks ties differently.
"""

from __future__ import annotations

from typing import Any


class ReadyQueue:
    __slots__ = ("_heap",)

    def __init__(self) -> None:
        self._heap: list[Any] = []

    def __bool__(self) -> bool:
        return bool(self._heap)

    def push(self, node: Any) -> None:
        heap = self._heap
        heap.append(node)
        if len(heap) > 1:  # alone in the heap, a node is where sifting would leave it
            self._sift_up(len(heap) - 1, 0, node)

    def pop(self) -> Any:
        heap = self._heap
        last = heap.pop()
        if not heap:  # the only node: the top
            return last
        top = heap[0]
        self._adjust(0, len(heap), last)
        return top

    def _sift_up(self, hole: int, top: int, node: Any) -> None:
        heap, seq = self._heap, node._seq
        parent = (hole - 1) // 2
        while hole > top and heap[parent]._seq < seq:
            heap[hole] = heap[parent]
            hole = parent
            parent = (hole - 1) // 2
        heap[hole] = node

    def _adjust(self, hole: int, length: int, node: Any) -> None:
        """libstdc++'s ``__adjust_heap``: move the hole down to a leaf, then sift ``node`` up."""
        heap, top, child = self._heap, hole, hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if heap[child]._seq < heap[child - 1]._seq:
                child -= 1
            heap[hole] = heap[child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            heap[hole] = heap[child - 1]
            hole = child - 1
        self._sift_up(hole, top, node)
