"""The site's lock is re-entrant within a process: a session that holds the site shared (the
`site` fixture) can run a second fixture that takes it exclusively (the reader's editions of
the Colab test) without waiting for itself."""

from __future__ import annotations

import threading

import build_book


def test_a_second_hold_in_the_same_process_does_not_wait_for_the_first() -> None:
    inner_got: list[bool] = []

    def hold_twice() -> None:
        with build_book.exclusive() as outer:
            build_book.share(outer)
            with build_book.exclusive() as inner:
                inner_got.append(inner is outer)

    worker = threading.Thread(target=hold_twice, daemon=True)  # a deadlock must not hang pytest
    worker.start()
    worker.join(timeout=30)
    assert inner_got == [True], "the second hold waited for the first (a self-deadlock)"
