"""The rules run off the event loop, on a small pool of worker threads, shared fairly.

Validating and folding an action is pure CPU work (``match/``, ``rules/``: no I/O). On the event
loop, one expensive action would stall every other match of the process: their pings, acks and
patches would wait for it. Run on these threads instead, the loop keeps answering meanwhile;
Python's GIL is handed over every :data:`SWITCH_INTERVAL` seconds, so the loop's own short steps
wait at most about that long behind a running fold, and shapely releases the GIL inside GEOS.

Fair share: at most :data:`RULES_WORKERS` rule calls run at once, and when more wait, the one
whose match has used the least rules CPU lately (decaying with a half-life of
:data:`USAGE_HALF_LIFE` seconds) goes first. A match flooding costly actions therefore queues
behind its own calls, while a quiet match's cheap action takes the next free worker.

The pure functions share nothing mutable (states are frozen structs; the geometry caches are
thread-safe ``functools.lru_cache``s), so several matches may fold at once. Per match, the
runtime's locks keep folds in seq order exactly as before.

Quick calls stay on the loop. A call on a worker holds the GIL until it ends or the switch
interval passes, so a call that takes less than :data:`INLINE_BUDGET` (the switch interval)
delays the loop no more when it runs on the loop itself - and on the loop it saves the two
thread hand-overs (the worker's wake-up, the loop's wake-up with the result), which cost more
than a cheap fold on an idle machine (bench/peers/RESULTS.md). :func:`run_rules_of_kind` (a
call of a ``kind``, such as an action's type) runs it inline when every recent call of that kind,
in any match, was cheap: the process keeps each kind's most expensive recent CPU time, decaying with a
half-life of :data:`USAGE_HALF_LIFE`. A kind never seen, or one that cost more than the budget
lately, goes to the pool; so a costly kind is inline again only after its estimate decayed below
the budget (a 10 ms move: about 7 s without another costly one). An inline call does not give
the loop a turn, so only calls that are followed by I/O - an act's decision, then its append -
are made this way; folds of many events in a row (catching up, loading) stay on the pool.

Measured in ``bench/hostile.py``; documented in docs/limits-and-outages.md.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

import msgspec

RULES_WORKERS = 16  # threads; above the matches busy at once, so a quiet one rarely waits (bench)
SWITCH_INTERVAL = 0.001  # seconds (CPython's default is 0.005)
USAGE_HALF_LIFE = 2.0  # seconds: how fast a match's recent rules CPU is forgotten
USAGE_KEPT = 4096  # owners remembered; the least recent usage is forgotten beyond that
INLINE_BUDGET = SWITCH_INTERVAL  # seconds: a kind whose recent calls all cost less runs on the loop

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


class FairShare:
    """Admission to the pool: ``RULES_WORKERS`` slots, the least-used owner first."""

    def __init__(self, slots: int) -> None:
        self.free = slots
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._usage: OrderedDict[str, tuple[float, float]] = OrderedDict()  # owner -> (cpu s, at)

    def usage(self, owner: str, now: float | None = None) -> float:
        """The owner's recent rules CPU (seconds, decayed)."""
        value, at = self._usage.get(owner, (0.0, 0.0))
        now = time.monotonic() if now is None else now
        return float(value * 0.5 ** ((now - at) / USAGE_HALF_LIFE))

    async def acquire(self, owner: str) -> None:
        if self.free > 0 and not self._waiting:
            self.free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (self.usage(owner), next(self._order), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release_slot()  # we were handed the slot just as we were cancelled
            raise

    @property
    def waiting(self) -> bool:
        """Some calls wait for a slot."""
        return bool(self._waiting)

    def release(self, owner: str, cpu: float) -> None:
        self.count(owner, cpu)
        self.release_slot()

    def count(self, owner: str, cpu: float, now: float | None = None) -> None:
        """Add ``cpu`` seconds to ``owner``'s recent usage (``now``: ``time.monotonic()``)."""
        now = time.monotonic() if now is None else now
        self._usage[owner] = (self.usage(owner, now) + cpu, now)
        self._usage.move_to_end(owner)
        if len(self._usage) > USAGE_KEPT:
            self._usage.popitem(last=False)  # the owner whose last call is the oldest

    def release_slot(self) -> None:
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():
                turn.set_result(None)  # the slot passes straight to the least-used waiter
                return
        self.free += 1


class KindCosts:
    """Each kind's most expensive recent call (CPU seconds), decaying with a half-life of
    ``USAGE_HALF_LIFE``: what decides whether a call of that kind may run on the loop."""

    def __init__(self) -> None:
        self._costs: dict[str, tuple[float, float]] = {}  # kind -> (cpu s, at)

    def estimate(self, kind: str, now: float | None = None) -> float | None:
        """The kind's decayed recent maximum, or None for a kind never measured."""
        known = self._costs.get(kind)
        if known is None:
            return None
        cost, at = known
        now = time.monotonic() if now is None else now
        return float(cost * 0.5 ** ((now - at) / USAGE_HALF_LIFE))

    def quick(self, kind: str) -> bool:
        """Every recent call of ``kind`` cost less than ``INLINE_BUDGET``."""
        estimate = self.estimate(kind)
        return estimate is not None and estimate < INLINE_BUDGET

    def record(self, kind: str, cpu: float, now: float | None = None) -> None:
        """A call of ``kind`` took ``cpu`` seconds: the estimate is the larger of it and the
        decayed one (``now``: ``time.monotonic()``)."""
        now = time.monotonic() if now is None else now
        estimate = self.estimate(kind, now)
        self._costs[kind] = (cpu if estimate is None else max(cpu, estimate), now)

    def forget(self, kind: str) -> None:
        """Drop what is known of ``kind`` (its next call goes to the pool)."""
        self._costs.pop(kind, None)


_share = FairShare(RULES_WORKERS)
kind_costs = KindCosts()  # the process's estimates, by kind


async def run_rules(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)`` on the rules pool, counted against no match in particular."""
    return await run_rules_for("", fn, *args, **kwargs)


async def run_rules_for(owner: str, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)`` on the rules pool for ``owner`` (a match id), awaited without
    blocking the event loop, admitted by fair share."""
    return await _on_pool(owner, None, fn, *args, **kwargs)


def rules_kind(step: str, body: msgspec.Struct) -> str:
    """The kind a rules call is costed as: the step (``decide``, ``fold``) and the action's or
    event's type tag."""
    return f"{step}/{body.__struct_config__.tag}"


async def run_rules_of_kind(
    owner: str, kind: str, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs
) -> R:
    """``fn(*args, **kwargs)`` for ``owner`` (a match id), a call of ``kind`` (say, the action's
    type): on the loop at once when every recent call of that kind was quick and no call waits
    for the pool, else as :func:`run_rules_for` (the module's docstring says why). Either way
    its CPU counts towards ``owner``'s fair share and ``kind``'s estimate."""
    if not inline_now(kind):
        return await _on_pool(owner, kind, fn, *args, **kwargs)
    return run_inline(owner, kind, fn, *args, **kwargs)


def inline_now(kind: str) -> bool:
    """A call of ``kind`` may run on the loop now: every recent call of that kind was quick
    and no call waits for the pool."""
    return not _share.waiting and kind_costs.quick(kind)


def run_inline(owner: str, kind: str, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)`` right here (ask :func:`inline_now` first), its CPU counted
    towards ``owner``'s fair share and ``kind``'s estimate."""
    start = time.thread_time()
    try:
        return fn(*args, **kwargs)
    finally:
        cpu = time.thread_time() - start
        now = time.monotonic()
        kind_costs.record(kind, cpu, now)
        _share.count(owner, cpu, now)


async def _on_pool(owner: str, kind: str | None, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    await _share.acquire(owner)
    spent: list[float] = []
    try:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(pool(), functools.partial(_counted, spent, fn, *args, **kwargs))
    finally:
        cpu = spent[0] if spent else 0.0
        if kind is not None:
            kind_costs.record(kind, cpu)
        _share.release(owner, cpu)


_running = 0
_running_lock = threading.Lock()


def _counted(spent: list[float], fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    global _running
    with _running_lock:
        _running += 1
    start = time.thread_time()
    try:
        return fn(*args, **kwargs)
    finally:
        spent.append(time.thread_time() - start)
        with _running_lock:
            _running -= 1


def running() -> int:
    """Rule calls running on the pool right now (shutdown does not wait for them)."""
    return _running


def usage(owner: str) -> float:
    """``owner``'s recent rules CPU in seconds (decayed), as the fair share sees it."""
    return _share.usage(owner)
