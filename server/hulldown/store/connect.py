"""Building redis-py asyncio clients with explicit, sane settings.

redis-py's defaults are easy to trip on: no socket timeout at all on the asyncio client,
a non-blocking pool that raises "Too many connections" when exhausted. Here every client gets
an explicit socket timeout, a *blocking* pool (callers wait for a free
connection instead of failing) and retries with jittered exponential backoff on connection
errors and timeouts.

Retrying an append is safe: the Lua script checks the expected version (a blind retry of an
append that did land gets a ``conflict``) and the action id (a retry gets ``duplicate`` with
the original seq), so a retry can never write an event twice.

A Redis Cluster is named by a ``redis+cluster://`` (or ``rediss+cluster://`` for TLS) URL
listing one or more startup nodes, e.g. ``redis+cluster://10.0.0.1:7000,10.0.0.2:7000``
(``user:password@`` may precede the first node; every node uses the same credentials). Query
parameters tune the replica acknowledgement of appends (docs/scaling.md): ``wait_replicas``
(default 1) and ``wait_ms`` (default 500). :func:`make_store_client` builds a
``RedisCluster`` for such a URL and a plain ``Redis`` otherwise.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

SUPPORTED_SCHEMES = ("redis", "rediss", "unix")
CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
DEFAULT_WAIT_REPLICAS = 1
DEFAULT_WAIT_MS = 500

# A Redis that is down or hangs must fail a request within a bounded time, not hang it
# (docs/limits-and-outages.md): one command fails after at most (retries + 1) socket timeouts plus
# the backoff, ~4 s; waiting for a pooled connection gives up after the pool timeout.
DEFAULT_SOCKET_TIMEOUT = 2.0
DEFAULT_CONNECT_TIMEOUT = 2.0
# No PING-before-command health check: redis-py checks the health of a fresh connection while
# connecting it (HELLO), and under a hanging Redis each failed PING reconnects, which checks
# health again - a request on a new pooled connection then never fails. A dead idle connection is
# caught by the retry on ConnectionError instead (docs/limits-and-outages.md).
DEFAULT_HEALTH_CHECK_INTERVAL = 0
DEFAULT_MAX_CONNECTIONS = 64
DEFAULT_POOL_TIMEOUT = 2.0
DEFAULT_RETRIES = 1
# A cluster client rides out a failover (about two node timeouts) by retrying with a refreshed
# slot map: 12 tries with backoff capped at 1 s cover ~10 s (docs/scaling.md).
DEFAULT_CLUSTER_RETRIES = 12

# Told ``(command name, seconds, error or None)`` after every command a client of make_client runs
# (pipelines excepted); the server's metrics register here (live/observe.py).
CommandObserver = Callable[[str, float, BaseException | None], None]
command_observers: list[CommandObserver] = []


_URL_PASSWORD = re.compile(r"(//[^/@]*?:)[^/@]*@")


def without_password(url: str) -> str:
    """The Redis URL as a message may show it: its password, if any, masked."""
    return _URL_PASSWORD.sub(r"\1***@", url)


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
        raise ValueError(
            f"unsupported Redis URL scheme {scheme!r}: use redis://, rediss://, unix:// "
            "(one Redis) or redis+cluster:// (a Redis Cluster)"
        )
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


def is_cluster_url(url: str) -> bool:
    """True for a ``redis+cluster://`` or ``rediss+cluster://`` URL."""
    return urlsplit(url).scheme in CLUSTER_SCHEMES


@dataclass(frozen=True, slots=True)
class ClusterURL:
    """A parsed ``redis+cluster://`` URL."""

    nodes: tuple[tuple[str, int], ...]
    tls: bool
    username: str | None
    password: str | None
    wait_replicas: int
    wait_ms: int


def parse_cluster_url(url: str) -> ClusterURL:
    """Parse ``redis+cluster://[user:password@]host:port[,host:port...][?wait_replicas=N&wait_ms=M]``.

    Raises ``ValueError`` naming what is wrong (scheme, a node, a parameter)."""
    parts = urlsplit(url)
    if parts.scheme not in CLUSTER_SCHEMES:
        raise ValueError(f"not a cluster URL {url!r}: use redis+cluster:// or rediss+cluster://")
    netloc = parts.netloc
    username = password = None
    if "@" in netloc:
        credentials, netloc = netloc.rsplit("@", 1)
        user, _, secret = credentials.partition(":")
        username = unquote(user) or None
        password = unquote(secret) or None
    nodes: list[tuple[str, int]] = []
    for item in netloc.split(","):
        host, sep, port_text = item.strip().rpartition(":")
        if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise ValueError(f"cluster URL node {item!r}: expected host:port (port 1-65535)")
        nodes.append((host.strip("[]"), int(port_text)))
    if parts.path not in ("", "/", "/0"):
        raise ValueError(f"cluster URL path {parts.path!r}: a Redis Cluster has only database 0")
    query = parse_qs(parts.query, keep_blank_values=True)
    allowed = {"wait_replicas", "wait_ms"}
    unknown = sorted(set(query) - allowed)
    if unknown:
        raise ValueError(f"cluster URL parameter {unknown[0]!r}: allowed are {sorted(allowed)}")

    def number(name: str, default: int) -> int:
        values = query.get(name)
        if not values:
            return default
        if not values[-1].isdigit():
            raise ValueError(f"cluster URL parameter {name}={values[-1]!r}: expected an integer >= 0")
        return int(values[-1])

    return ClusterURL(
        nodes=tuple(nodes),
        tls=parts.scheme == "rediss+cluster",
        username=username,
        password=password,
        wait_replicas=number("wait_replicas", DEFAULT_WAIT_REPLICAS),
        wait_ms=number("wait_ms", DEFAULT_WAIT_MS),
    )


def make_cluster_client(
    url: str,
    *,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    socket_timeout: float | None = DEFAULT_SOCKET_TIMEOUT,
    socket_connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    retries: int = DEFAULT_CLUSTER_RETRIES,
    decode_responses: bool = False,
) -> RedisCluster:
    """A ``redis.asyncio.cluster.RedisCluster`` for a ``redis+cluster://`` URL.

    ``max_connections`` is per node. redis-py follows MOVED/ASK itself and, on connection
    errors, refreshes the slot map and retries (``retries`` times, jittered backoff).
    """
    parsed = parse_cluster_url(url)
    if max_connections < 1:
        raise ValueError("max_connections must be >= 1")
    if socket_timeout is not None:
        # An append's or a read's WAIT may take ``wait_ms``: the socket waits that long beyond its
        # own timeout (a shorter one timed the command out and retried it, answered duplicate).
        socket_timeout += parsed.wait_ms / 1000.0
    kwargs: dict[str, Any] = {
        "startup_nodes": [ClusterNode(host, port) for host, port in parsed.nodes],
        "max_connections": max_connections,
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": socket_connect_timeout,
        "retry": Retry(ExponentialWithJitterBackoff(cap=1.0, base=0.05), max(retries, 0)),
        "decode_responses": decode_responses,
        "ssl": parsed.tls,
    }
    if parsed.username is not None:
        kwargs["username"] = parsed.username
    if parsed.password is not None:
        kwargs["password"] = parsed.password
    return RedisCluster(**kwargs)


def make_store_client(url: str, **options: Any) -> Redis | RedisCluster:
    """:func:`make_cluster_client` for a cluster URL, else :func:`make_client`."""
    if is_cluster_url(url):
        allowed = {
            "max_connections",
            "socket_timeout",
            "socket_connect_timeout",
            "retries",
            "decode_responses",
        }
        return make_cluster_client(url, **{k: v for k, v in options.items() if k in allowed})
    return make_client(url, **options)
