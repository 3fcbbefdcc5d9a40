"""Cyclic garbage collection paused while many events are folded in a row (docs/architecture.md,
section 7, "Cold fold").

A fold makes no reference cycles: its states, events and log lines are frozen trees freed by
reference counting alone. But every state it keeps (the timeline's events, checkpoints and
recent states) is an object the cyclic collector must visit, and its full collections, which a
growing heap triggers again and again, walk everything kept so far: on a 100,000-event cold fold
they were a fifth of the time. While :func:`collections_paused` is active the collector does not
run (nothing is lost: whatever cycles other code makes meanwhile are collected once it resumes).

Nested and concurrent uses (the rules pool folds in threads) share one count: the collector is
turned off by the first and back on by the last, and only if it was on to begin with.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Pauses:
    """How many folds hold the collector off, and whether to turn it back on after the last."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.holders = 0
        self.resume = False

    def enter(self) -> None:
        with self.lock:
            if self.holders == 0:
                self.resume = gc.isenabled()
                gc.disable()
            self.holders += 1

    def leave(self) -> None:
        with self.lock:
            self.holders -= 1
            if self.holders == 0 and self.resume:
                gc.enable()


_PAUSES = _Pauses()


@contextmanager
def collections_paused() -> Iterator[None]:
    """The cyclic garbage collector does not run inside this block (reference counting does)."""
    _PAUSES.enter()
    try:
        yield
    finally:
        _PAUSES.leave()
