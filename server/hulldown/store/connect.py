"""Building redis-py asyncio clients with explicit, sane settings.

redis-py's defaults are easy to trip on: no socket timeout at all on the asyncio client,
a non-blocking pool that raises "Too many connections" when exhausted. Here every client gets
an explicit socket timeout, a health check, a *blocking* pool (callers wait for a free
connection instead of failing) and retries with jittered exponential backoff on connection
errors and timeouts.

Retrying an append is safe: the Lua script checks the expected version (a blind retry of an
append that did land gets a ``conflict``) and the action id (a retry gets ``duplicate`` with
the original seq), so a retry can never write an event twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

SUPPORTED_SCHEMES = ("redis", "rediss", "unix")

# A Redis that is down or hangs must fail a request within a bounded time, not hang it
# (docs/limits-and-outages.md): one command fails after at most (retries + 1) socket timeouts plus
# the backoff, ~4 s; waiting for a pooled connection gives up after the pool timeout.
DEFAULT_SOCKET_TIMEOUT = 2.0
DEFAULT_CONNECT_TIMEOUT = 2.0
DEFAULT_HEALTH_CHECK_INTERVAL = 30
DEFAULT_MAX_CONNECTIONS = 64
DEFAULT_POOL_TIMEOUT = 2.0
DEFAULT_RETRIES = 1

# Told ``(command name, seconds, error or None)`` after every command a client of make_client runs
# (pipelines excepted); the server's metrics register here (live/observe.py).
CommandObserver = Callable[[str, float, BaseException | None], None]
command_observers: list[CommandObserver] = []


def observe_commands(observer: CommandObserver) -> None:
    """Call ``observer`` after every Redis command (once per observer)."""
    if observer not in command_observers:
        command_observers.append(observer)


class ObservedRedis(Redis):
    """A client that reports each command's latency and failure to ``command_observers``."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        if not command_observers:
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        name = args[0].decode() if isinstance(args[0], bytes) else str(args[0])
        start = time.perf_counter()
        try:
            result = await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        except Exception as exc:  # a cancelled command (shutdown) is no Redis error
            _report(name.upper(), time.perf_counter() - start, exc)
            raise
        _report(name.upper(), time.perf_counter() - start, None)
        return result


def _report(name: str, seconds: float, error: BaseException | None) -> None:
    for observer in command_observers:
        observer(name, seconds, error)


def make_client(
    url: str,
    *,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    socket_timeout: float | None = DEFAULT_SOCKET_TIMEOUT,
    socket_connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    health_check_interval: int = DEFAULT_HEALTH_CHECK_INTERVAL,
    pool_timeout: float = DEFAULT_POOL_TIMEOUT,
    retries: int = DEFAULT_RETRIES,
    client_name: str | None = None,
    decode_responses: bool = False,
) -> Redis:
    """A ``redis.asyncio.Redis`` for ``redis://``, ``rediss://`` or ``unix://`` URLs.

    ``decode_responses`` defaults to False: the store keeps bytes payloads.
    ``retries=0`` disables retrying (the stream tailer handles reconnects itself).
    """
    scheme = urlsplit(url).scheme
    if scheme not in SUPPORTED_SCHEMES:
        raise ValueError(f"unsupported Redis URL scheme {scheme!r}: use redis://, rediss:// or unix://")
    if max_connections < 1:
        raise ValueError("max_connections must be >= 1")
    retry = Retry(ExponentialWithJitterBackoff(cap=1.0, base=0.05), max(retries, 0))
    kwargs: dict[str, Any] = {
        "max_connections": max_connections,
        "timeout": pool_timeout,
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": socket_connect_timeout,
        "health_check_interval": health_check_interval,
        "retry": retry,
        "retry_on_error": [RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError],
        "decode_responses": decode_responses,
    }
    if client_name is not None:
        kwargs["client_name"] = client_name
    pool = BlockingConnectionPool.from_url(url, **kwargs)
    return ObservedRedis.from_pool(pool)
