"""Shared pytest fixtures. One section per concern; add new sections at the end.

Sections:
    1. Redis: ``embedded_redis``, ``redis_url``, ``key_prefix``, ``store_url``, ``store``
    2. A real server: ``server``
    3. A local Redis Cluster: ``redis_cluster``, ``fresh_cluster``
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from hulldown.store import EmbeddedRedis, RedisEventStore

from .redis_cluster import FAILOVER_NODE_TIMEOUT_MS, LocalCluster, cluster_binaries
from .server_process import ServerProcess

# ---------------------------------------------------------------------------------------------
# 1. Redis
#
# Tests never touch the machine's Redis (e.g. 127.0.0.1:6379) unless REDIS_URL says so:
# without REDIS_URL they use a private embedded redis-server on a unix socket in a temp dir.
# Every test gets its own key prefix, so tests can share one server.
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def embedded_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A private redis-server for the whole session (started on first use)."""
    server = EmbeddedRedis(Path(tmp_path_factory.mktemp("redis")))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest) -> str:
    """``REDIS_URL`` when set, else the URL of the session's embedded server."""
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    server: EmbeddedRedis = request.getfixturevalue("embedded_redis")
    return server.url


@pytest.fixture
def key_prefix() -> str:
    """A key prefix unique to this test."""
    return f"hdtest-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def store_url(redis_url: str) -> str:
    """The Redis the ``store`` fixture uses; tests/store overrides it to run on every backend."""
    return redis_url


@pytest.fixture
async def store(store_url: str, key_prefix: str) -> AsyncIterator[RedisEventStore]:
    """A RedisEventStore under this test's key prefix; its keys are deleted afterwards."""
    event_store = RedisEventStore.from_url(store_url, prefix=key_prefix)
    try:
        yield event_store
    finally:
        try:
            stale = [key async for key in event_store.client.scan_iter(match=f"{key_prefix}:*", count=500)]
            if stale:
                await event_store.client.delete(*stale)
        finally:
            await event_store.aclose()


# ---------------------------------------------------------------------------------------------
# 2. A real server: ``hulldown serve`` in a subprocess on a free port, using the test Redis.
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def server(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[ServerProcess]:
    """A running ``hulldown serve`` on the test Redis, under this test's key prefix."""
    process = ServerProcess(
        redis_url=redis_url, prefix=key_prefix, snapshot_every=5, log=tmp_path / "server.log"
    )
    process.start()
    yield process
    process.stop()


@pytest.fixture
def creating_server(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[ServerProcess]:
    """``server`` without the per-client limit on match creation (HULLDOWN_CREATE_RATE=0), for
    the tests that post more match definitions in a minute than that limit allows."""
    process = ServerProcess(
        redis_url=redis_url,
        prefix=key_prefix,
        snapshot_every=5,
        log=tmp_path / "server.log",
        env={"HULLDOWN_CREATE_RATE": "0"},
    )
    process.start()
    yield process
    process.stop()


# ---------------------------------------------------------------------------------------------
# 3. A local Redis Cluster (3 primaries, 3 replicas) for the tests marked ``cluster``:
#    ``redis_cluster`` (session scope, started on first use, tests/redis_cluster.py).
#    Tests that kill nodes use their own cluster (``fresh_cluster``, short node timeout) so
#    they cannot break the shared one.
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    if cluster_binaries() is None:
        pytest.fail(
            "redis-server/redis-cli missing: ./dev test installs them (apt-get install redis-server redis-tools)"
        )
    cluster = LocalCluster(Path(tmp_path_factory.mktemp("cluster")))
    cluster.start_or_stop()
    yield cluster
    cluster.stop()


@pytest.fixture
def fresh_cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """A cluster of this test's own, with a short node timeout (for tests that kill nodes)."""
    if cluster_binaries() is None:
        pytest.fail(
            "redis-server/redis-cli missing: ./dev test installs them (apt-get install redis-server redis-tools)"
        )
    cluster = LocalCluster(tmp_path / "cluster", node_timeout_ms=FAILOVER_NODE_TIMEOUT_MS)
    cluster.start_or_stop()
    yield cluster
    cluster.stop()
