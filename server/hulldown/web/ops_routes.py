"""The operator's routes: ``GET /metrics`` (Prometheus) and ``GET /readyz`` (readiness), and the
process-wide instrumentation they report on (docs/operations.md).

``/healthz`` (http_routes.py) answers whether the process and its Redis are alive; ``/readyz``
whether this process should get traffic: Redis answers *and* the stream tailer - which feeds
every match this process serves with the other processes' events - is running.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..live import gc_pauses, metrics, observe
from ..live.service import LiveService
from ..store.connect import command_observers, observe_commands
from .responses import MsgspecJSON


async def get_metrics(request: Request) -> Response:
    # On the loop, not in a thread: the cache sizes are read from the live service's dicts,
    # which only the loop may touch. A scrape takes about a millisecond.
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)


async def readyz(request: Request) -> Response:
    live: LiveService = request.app.state.live
    redis = await live.store.ping()
    tailer = live.tailer.running
    ready = redis and tailer
    return MsgspecJSON(
        {"status": "ready" if ready else "not ready", "redis": redis, "tailer": tailer},
        status_code=200 if ready else 503,
    )


@contextlib.asynccontextmanager
async def instrumented(live: LiveService) -> AsyncIterator[None]:
    """For the app's lifetime: Redis command timing, cache sizes, the event-loop lag watch and
    the garbage collector's pauses."""
    observe_commands(observe.redis_command)
    gc_pauses.install()
    metrics.bind_cache_sizes(live.cache_sizes)
    watcher = asyncio.create_task(observe.watch_loop_lag(), name="hulldown-loop-lag")
    try:
        yield
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        metrics.bind_cache_sizes(None)
        gc_pauses.uninstall()
        if observe.redis_command in command_observers:
            command_observers.remove(observe.redis_command)


routes = [
    Route("/metrics", get_metrics, methods=["GET"]),
    Route("/readyz", readyz, methods=["GET"]),
]
