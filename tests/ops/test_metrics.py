"""The operator's view (docs/operations.md): /metrics after a played match, /readyz, --version."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import httpx
import pytest
from prometheus_client import REGISTRY
from redis.exceptions import RedisError

from hulldown import __version__
from hulldown.client import Client
from hulldown.live import observe
from hulldown.store.connect import command_observers, make_client, observe_commands
from hulldown.web.app import create_app
from hulldown.web.settings import Settings
from hulldown.wire import protocol

from ..server_process import ServerProcess, free_port
from .helpers import CONCEDE, END, MOVE, create, metric_samples, sample


async def test_metrics_after_a_played_match(server: ServerProcess) -> None:
    created = create(server.http)
    url = created["live_url"]
    async with Client(url, token=created["tokens"]["a"]) as a, Client(url, token=created["tokens"]["b"]) as b:
        async with Client(url, spectator=True) as watcher:
            await watcher.wait_seq(1)
            during = metric_samples(server.http)
            for role in ("a", "b", "spectator"):
                assert sample(during, "hulldown_connections", role=role) == 1
            assert sample(during, "hulldown_matches_loaded") == 1
        for action in (MOVE, END):
            assert isinstance(await a.act(action), protocol.Ack)
        refused = await b.act(MOVE)
        assert isinstance(refused, protocol.Rejected)
        assert isinstance(await a.act(CONCEDE), protocol.Ack)
        await a.wait_until(lambda: a.view.ready and a.view.data["ended"] and bool(a.view.data["seed"]))
    await asyncio.sleep(0.6)  # the loop-lag watch ticks every 0.25 s
    after = metric_samples(server.http)

    assert sample(after, "hulldown_actions_total", kind="move", outcome="ack") == 1
    assert sample(after, "hulldown_actions_total", kind="end_phase", outcome="ack") == 1
    assert sample(after, "hulldown_actions_total", kind="concede", outcome="ack") == 1
    assert sample(after, "hulldown_actions_total", kind="move", outcome="rejected") == 1
    assert sample(after, "hulldown_rejections_total", code=refused.code) == 1
    acks = sample(after, "hulldown_ack_seconds_count")
    assert acks == 4 and 0 < sample(after, "hulldown_ack_seconds_sum") < 4 * 5.0
    # Every event folded: the three actions, the seed reveal after the concession (and a replay
    # of any the tailer delivered would be skipped, not folded twice).
    assert sample(after, "hulldown_fold_seconds_count") >= 4
    assert sample(after, "hulldown_redis_command_seconds_count", command="EVALSHA") >= 4
    assert sample(after, "hulldown_redis_command_seconds_count", command="XREAD") >= 1
    assert not [key for key in after if key[0] == "hulldown_redis_errors_total"]  # none failed
    assert sample(after, "hulldown_queue_overflows_total") == 0
    assert sample(after, "hulldown_resyncs_total", reason="overflow") == 0
    assert sample(after, "hulldown_event_loop_lag_seconds_count") >= 2
    assert 0 <= sample(after, "hulldown_event_loop_lag_last_seconds") < 5.0
    for role in ("a", "b", "spectator", "delayed", "replay"):
        assert sample(after, "hulldown_connections", role=role) == 0
    assert sample(after, "hulldown_cache_entries", cache="loading_locks") == 0
    assert sample(after, "hulldown_cache_entries", cache="matches") == 1
    assert sample(after, "hulldown_build_info", version=__version__) == 1
    assert sample(after, "process_resident_memory_bytes") > 10_000_000
    text = httpx.get(f"{server.http}/metrics", timeout=10).text
    for token in created["tokens"].values():
        assert token not in text
    assert created["match_id"] not in text  # no per-match label: bounded series only


def test_readyz_beside_healthz(server: ServerProcess) -> None:
    ready = httpx.get(f"{server.http}/readyz", timeout=10)
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "redis": True, "tailer": True}
    assert httpx.get(f"{server.http}/healthz", timeout=10).json() == {"status": "ok"}


def test_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hulldown.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == f"hulldown {__version__}"


async def test_failed_redis_commands_are_counted_by_command_and_error() -> None:
    labels = {"command": "PING", "error": "ConnectionError"}
    observe_commands(observe.redis_command)
    client = make_client(f"redis://127.0.0.1:{free_port()}", retries=0, socket_connect_timeout=1.0)
    try:
        before = REGISTRY.get_sample_value("hulldown_redis_errors_total", labels) or 0.0
        with pytest.raises(RedisError):
            await client.ping()
        assert REGISTRY.get_sample_value("hulldown_redis_errors_total", labels) == before + 1
    finally:
        command_observers.remove(observe.redis_command)
        await client.aclose()


async def test_readyz_is_503_while_redis_does_not_answer(key_prefix: str) -> None:
    app = create_app(Settings(redis_url=f"redis://127.0.0.1:{free_port()}", key_prefix=key_prefix))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://hulldown.test") as client:
            answer = await client.get("/readyz")
            assert answer.status_code == 503
            assert answer.json() == {"status": "not ready", "redis": False, "tailer": True}
            assert (await client.get("/healthz")).status_code == 503
