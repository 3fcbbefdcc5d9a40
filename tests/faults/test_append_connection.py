"""The store's lean append connection under a hanging and a dead Redis (docs/limits-and-outages.md).

- SIGSTOP: an append in flight fails with a ``TimeoutError`` after ``APPEND_REPLY_TIMEOUT``,
  and the health check answers "down" meanwhile without waiting for it; once Redis is back the
  next append reconnects and lands. A command on a fresh pooled connection fails in bounded
  time too (no health check recursing on connect).
- SIGKILL: the append fails at once with a ``ConnectionError``; after a restart on the same data
  directory the next append reconnects and lands.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from hulldown.store import EmbeddedRedis, RedisEventStore
from hulldown.store.lean_connection import APPEND_REPLY_TIMEOUT
from hulldown.store.redis_store import PING_TIMEOUT

pytestmark = pytest.mark.faults

SLACK = 2.0  # seconds on top of the designed bound, for a loaded machine


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(tmp_path / "redis")
    server.start()
    yield server
    server.stop()


def _signal(server: EmbeddedRedis, sig: signal.Signals) -> None:
    assert server.pid is not None
    os.kill(server.pid, sig)


async def test_a_hanging_redis_times_the_append_out_without_blocking_health_and_it_reconnects(
    private_redis: EmbeddedRedis,
) -> None:
    async with RedisEventStore.from_url(private_redis.url, prefix="lean") as store:
        lean = store.append_connection
        assert lean is not None
        assert (await store.append("m", b"one", expect=0, action_id="a1")).seq == 1
        assert lean.connects == 1
        _signal(private_redis, signal.SIGSTOP)
        try:
            started = time.monotonic()
            append = asyncio.ensure_future(store.append("m", b"two", expect=1, action_id="a2"))
            assert not await store.ping()  # answered while the append hangs
            assert time.monotonic() - started < PING_TIMEOUT + SLACK
            assert not append.done()
            with pytest.raises(RedisTimeoutError):
                await append
            waited = time.monotonic() - started
            assert APPEND_REPLY_TIMEOUT - 0.1 < waited < APPEND_REPLY_TIMEOUT + SLACK, waited
            assert not lean.connected  # dropped

            fresh = RedisEventStore.from_url(private_redis.url, prefix="lean")
            started = time.monotonic()
            with pytest.raises(RedisError):
                await asyncio.wait_for(fresh.get_meta("m"), 30)
            assert time.monotonic() - started < 10.0  # ~2 tries of the 2 s socket timeout
            await fresh.aclose()
        finally:
            _signal(private_redis, signal.SIGCONT)
        # The append that timed out may or may not have landed; the same action id tells.
        retried = await store.append("m", b"two", expect=1, action_id="a2")
        assert (retried.status, retried.seq) in (("appended", 2), ("duplicate", 2))
        assert lean.connects == 2
        assert [payload for _, payload in await store.read("m")] == [b"one", b"two"]


async def test_a_dead_redis_fails_the_append_at_once_and_a_restarted_one_takes_the_next(
    private_redis: EmbeddedRedis,
) -> None:
    async with RedisEventStore.from_url(private_redis.url, prefix="lean") as store:
        lean = store.append_connection
        assert lean is not None
        assert (await store.append("m", b"one", expect=0)).seq == 1
        _signal(private_redis, signal.SIGKILL)
        await asyncio.sleep(0.2)
        started = time.monotonic()
        with pytest.raises(RedisConnectionError):
            await store.append("m", b"two", expect=1)
        assert time.monotonic() - started < 1.0
        private_redis.stop()
        private_redis.start()
        result = await store.append("m", b"two", expect=1)
        assert (result.status, result.seq) == ("appended", 2)
        assert lean.connects == 2
