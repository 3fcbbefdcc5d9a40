"""``hulldown verify`` and ``hulldown replay`` beside a running server on the embedded Redis
(README, Command line): they read through the server's socket, whichever way the data dir is
named - also relatively, as the default ``hulldown-data`` is. A relative data dir made the URL
``unix://hulldown-data/redis.sock``, whose first part reads as a host: both tools exited 3 with
"Error 2 connecting to /redis.sock" while the server ran."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hulldown.cli import main
from hulldown.live.service import CreatedMatch, LiveService
from hulldown.store.embedded import EmbeddedRedis
from hulldown.store.redis_store import RedisEventStore

from ..scenarios import duel
from .helpers import clear_settings

EXIT_OK = 0
EXIT_NOT_VERIFIABLE = 2  # verify: the seed of a match still being played is not revealed yet


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_settings(monkeypatch)


@pytest.fixture
async def match_id(embedded_redis: EmbeddedRedis, key_prefix: str) -> AsyncIterator[str]:
    """A match created in the session's embedded Redis, as a running server would have."""
    store = RedisEventStore.from_url(embedded_redis.url, prefix=key_prefix)
    live = LiveService(store, embedded_redis.url, prefix=key_prefix, snapshot_every=100)
    await live.start()
    try:
        created = await live.create(duel())
        assert isinstance(created, CreatedMatch), created
        yield created.match_id
    finally:
        await live.stop()
        await store.aclose()


def relative_flag(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return ["--data-dir", data_dir.name]


def relative_variable(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("HULLDOWN_DATA_DIR", data_dir.name)
    return []


NAMED = {"--data-dir NAME": relative_flag, "HULLDOWN_DATA_DIR=NAME": relative_variable}


@pytest.mark.parametrize("naming", sorted(NAMED))
async def test_replay_reads_a_running_server_by_a_relative_data_dir(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    embedded_redis: EmbeddedRedis,
    key_prefix: str,
    match_id: str,
    naming: str,
) -> None:
    monkeypatch.chdir(embedded_redis.data_dir.parent)
    arguments = NAMED[naming](embedded_redis.data_dir, monkeypatch)
    status = await asyncio.to_thread(main, ["replay", match_id, *arguments, "--prefix", key_prefix])
    captured = capsys.readouterr()
    assert (status, captured.err) == (EXIT_OK, "")
    assert captured.out.startswith(f"Match {match_id} (40k7), dice commitment ")


async def test_verify_reads_a_running_server_by_a_relative_data_dir(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    embedded_redis: EmbeddedRedis,
    key_prefix: str,
    match_id: str,
) -> None:
    monkeypatch.chdir(embedded_redis.data_dir.parent)
    arguments = ["--data-dir", embedded_redis.data_dir.name, "--prefix", key_prefix]
    status = await asyncio.to_thread(main, ["verify", match_id, *arguments])
    err = capsys.readouterr().err
    # It reached the match: the seed of a match in play is not revealed (2), not "cannot read" (3).
    assert status == EXIT_NOT_VERIFIABLE, err
    assert err.startswith("hulldown verify: ") and "cannot read the store" not in err


async def test_a_socket_left_by_a_killed_redis_does_not_stop_the_tools(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, key_prefix: str
) -> None:
    """After a crash that took the server and its Redis down at once (SIGKILL of both, the host
    lost), the data dir keeps ``redis.sock`` with nobody behind it. The tools read the data dir as
    when the server was stopped cleanly (they start its Redis on the AOF for the time of the
    command); they tried the dead socket and exited 3 with "Connection refused"."""
    data_dir = tmp_path / "data"
    embedded = EmbeddedRedis(data_dir)
    embedded.start()
    try:
        store = RedisEventStore.from_url(embedded.url, prefix=key_prefix)
        live = LiveService(store, embedded.url, prefix=key_prefix, snapshot_every=100)
        await live.start()
        created = await live.create(duel())
        assert isinstance(created, CreatedMatch), created
        await live.stop()
        await store.aclose()
        assert embedded.pid is not None
        os.kill(embedded.pid, signal.SIGKILL)
    finally:
        embedded.stop()  # the server's side of the crash: its lock is gone with it
    assert embedded.socket_path.exists()  # what the killed Redis left behind

    arguments = ["--data-dir", str(data_dir), "--prefix", key_prefix]
    status = await asyncio.to_thread(main, ["replay", created.match_id, *arguments])
    captured = capsys.readouterr()
    assert (status, captured.err) == (EXIT_OK, "")
    assert captured.out.startswith(f"Match {created.match_id} (40k7), dice commitment ")
