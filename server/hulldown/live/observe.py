"""The measuring points of the live server: one small call each, updating the metrics
(``live/metrics.py``) and writing the structured event log (``hulldown.actions``).

Every log event carries its facts as fields (``match_id``, ``seq``, ``side``, ``action``, ``code``,
``duration_ms``) that the JSON log format writes as keys (``cli/logging_setup.py``). No token
ever reaches these functions.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator
from typing import Any

from redis.exceptions import NoScriptError

from ..wire import protocol
from . import metrics

actions_log = logging.getLogger("hulldown.actions")

LOOP_LAG_INTERVAL = 0.25

# The labelled children of the per-action metrics, looked up once per label set (prometheus'
# ``labels()`` checks and locks on every call; the label sets are bounded, metrics.py).
_action_counters: dict[tuple[str, str], Any] = {}
_redis_timers: dict[str, Any] = {}


def _actions(kind: str, outcome: str) -> Any:
    child = _action_counters.get((kind, outcome))
    if child is None:
        child = _action_counters[(kind, outcome)] = metrics.ACTIONS.labels(kind=kind, outcome=outcome)
    return child


def action_done(
    match_id: str,
    side: str,
    kind: str,
    result: protocol.Ack | protocol.Rejected,
    seconds: float,
) -> None:
    """An act got its answer after ``seconds``."""
    metrics.ACK_SECONDS.observe(seconds)
    duration_ms = round(seconds * 1000.0, 3)
    if isinstance(result, protocol.Ack):
        outcome = "duplicate" if result.duplicate else "ack"
        _actions(kind, outcome).inc()
        if not actions_log.isEnabledFor(logging.INFO):
            return
        actions_log.info(
            "act %s",
            outcome,
            extra={
                "match_id": match_id,
                "seq": result.seq,
                "side": side,
                "action": kind,
                "code": outcome,
                "action_id": result.action_id,
                "duration_ms": duration_ms,
            },
        )
        return
    _actions(kind, "rejected").inc()
    metrics.REJECTIONS.labels(code=result.code).inc()
    actions_log.info(
        "act rejected: %s",
        result.code,
        extra={
            "match_id": match_id,
            "side": side,
            "action": kind,
            "code": result.code,
            "rule": result.rule,
            "action_id": result.action_id,
            "duration_ms": duration_ms,
        },
    )


@contextlib.contextmanager
def connected(role: str) -> Iterator[None]:
    """A websocket of ``role`` is open for the ``with`` block."""
    gauge = metrics.CONNECTIONS.labels(role=role)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


@contextlib.contextmanager
def folding() -> Iterator[None]:
    """One event is being folded."""
    start = time.perf_counter()
    try:
        yield
    finally:
        metrics.FOLD_SECONDS.observe(time.perf_counter() - start)


def queue_overflowed(resync: bool = True) -> None:
    """A connection's send queue filled: its patches give way to a resync, or (``resync``
    False) its own answers alone filled it and the socket is closed, no resync sent."""
    metrics.QUEUE_OVERFLOWS.inc()
    if resync:
        metrics.RESYNCS.labels(reason="overflow").inc()


def resynced(reason: str) -> None:
    metrics.RESYNCS.labels(reason=reason).inc()


def redis_command(command: str, seconds: float, error: BaseException | None) -> None:
    """A Redis command finished (``store/connect.py`` calls this for every command)."""
    timer = _redis_timers.get(command)
    if timer is None:
        timer = _redis_timers[command] = metrics.REDIS_SECONDS.labels(command=command)
    timer.observe(seconds)
    # NoScriptError is redis-py loading a Lua script on first use (EVALSHA, then SCRIPT LOAD): normal.
    if error is not None and not isinstance(error, NoScriptError):
        metrics.REDIS_ERRORS.labels(command=command, error=type(error).__name__).inc()


async def watch_loop_lag(interval: float = LOOP_LAG_INTERVAL) -> None:
    """Forever: sleep ``interval`` and record how much later than asked the loop woke us."""
    loop = asyncio.get_running_loop()
    while True:
        start = loop.time()
        await asyncio.sleep(interval)
        lag = max(0.0, loop.time() - start - interval)
        metrics.LOOP_LAG.observe(lag)
        metrics.LOOP_LAG_LAST.set(lag)
