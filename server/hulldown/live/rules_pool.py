"""The rules run off the event loop, on a small pool of worker threads.

Validating and folding an action is pure CPU work (``match/``, ``rules/``: no I/O). On the event
loop, one expensive action would stall every other match of the process: their pings, acks and
patches would wait for it. Run on these threads instead, the loop keeps answering meanwhile;
Python's GIL is handed over every :data:`SWITCH_INTERVAL` seconds, so the loop's own short steps
wait at most about that long behind a running fold, and shapely releases the GIL inside GEOS.

The pure functions share nothing mutable (states are frozen structs; the geometry caches are
thread-safe ``functools.lru_cache``s), so several matches may fold at once. Per match, the
runtime's locks keep folds in seq order exactly as before.

Measured in ``bench/hostile.py``; documented in docs/limits-and-outages.md.
"""

from __future__ import annotations

import asyncio
import functools
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

RULES_WORKERS = 8
SWITCH_INTERVAL = 0.001  # seconds (CPython's default is 0.005)

P = ParamSpec("P")
R = TypeVar("R")

_pool: ThreadPoolExecutor | None = None


def pool() -> ThreadPoolExecutor:
    """The process's rules pool (created on first use; its threads are named ``hulldown-rules``)."""
    global _pool
    if _pool is None:
        sys.setswitchinterval(SWITCH_INTERVAL)
        _pool = ThreadPoolExecutor(max_workers=RULES_WORKERS, thread_name_prefix="hulldown-rules")
    return _pool


async def run_rules(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)`` on the rules pool, awaited without blocking the event loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(pool(), functools.partial(_counted, fn, *args, **kwargs))


_running = 0
_running_lock = threading.Lock()


def _counted(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    global _running
    with _running_lock:
        _running += 1
    try:
        return fn(*args, **kwargs)
    finally:
        with _running_lock:
            _running -= 1


def running() -> int:
    """Rule calls running on the pool right now (shutdown does not wait for them)."""
    return _running
