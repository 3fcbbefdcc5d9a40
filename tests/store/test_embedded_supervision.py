"""The embedded Redis' supervisor: a server that dies under hulldown is started again on the same
data dir, a restart that fails is tried again until it works, and ``stop()`` ends it all
(docs/limits-and-outages.md)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hulldown.store import EmbeddedRedis
from hulldown.store.embedded import RESTART_RETRY_FIRST

from .test_embedded import _check_history, _pid_alive, _write_history

WAIT_S = 20.0  # the longest any step here may take before the test fails


async def _until(what: str, predicate: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {WAIT_S:.0f} s: {what}")
        await asyncio.sleep(0.02)


def _kill(server: EmbeddedRedis) -> int:
    pid = server.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    return pid


def _restarted(server: EmbeddedRedis, times: int) -> Callable[[], bool]:
    """The supervisor has started the server ``times`` times and it answers (it counts a
    restart once the new server answers PING)."""
    return lambda: server.restarts == times


async def test_a_killed_server_is_started_again_with_its_data(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "data")
    server.start()
    try:
        server.supervise()
        await _write_history(server.url, 12)
        killed = _kill(server)
        await _until("a new redis-server runs", _restarted(server, 1))
        assert server.running and server.pid != killed
        await _check_history(server.url, 12)
        # and again: the supervisor watches the server it started itself
        killed = _kill(server)
        await _until("a second new redis-server runs", _restarted(server, 2))
        assert server.running and server.pid != killed
        await _check_history(server.url, 12)
    finally:
        server.stop()


async def test_a_failed_restart_is_tried_again(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    server = EmbeddedRedis(tmp_path / "data")
    server.start()
    try:
        server.supervise()
        await _write_history(server.url, 5)
        working = server.executable
        server.executable = str(tmp_path / "no-such-redis-server")  # the binary went away
        with caplog.at_level(logging.ERROR, logger="hulldown.store.embedded"):
            killed = _kill(server)
            await _until(
                "a logged failed restart",
                lambda: any("restart failed" in r.getMessage() for r in caplog.records),
            )
            assert not server.running
            assert server.restarts == 0
            server.executable = working  # the binary is back: the next try succeeds
            await _until("a new redis-server runs", _restarted(server, 1))
        assert server.running and server.pid != killed
        failures = [r for r in caplog.records if "restart failed" in r.getMessage()]
        assert f"trying again in {RESTART_RETRY_FIRST:.1f} s" in failures[0].getMessage()
        await _check_history(server.url, 5)
    finally:
        server.stop()


async def test_stop_ends_the_supervisor_and_starts_nothing(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "data")
    server.start()
    server.supervise()
    pid = server.pid
    assert pid is not None
    watcher = server._watcher
    assert watcher is not None and watcher.is_alive()
    server.stop()
    assert not watcher.is_alive()
    assert not _pid_alive(pid)
    await asyncio.sleep(RESTART_RETRY_FIRST * 2)
    assert not server.running
    assert server.restarts == 0
    assert not server.socket_path.exists()


def test_supervise_needs_a_started_server(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="call start"):
        EmbeddedRedis(tmp_path / "data").supervise()
