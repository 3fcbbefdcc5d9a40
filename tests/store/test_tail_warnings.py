"""The stream tailer's retry warnings name the Redis they cannot reach, its password masked
(docs/operations.md: a log line says what is wrong; it said only "ConnectionError")."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from hulldown.store import StreamTailer
from tests.server_process import free_port


async def test_a_redis_out_of_reach_is_named_without_its_password(caplog: pytest.LogCaptureFixture) -> None:
    port = free_port()
    tailer = StreamTailer(f"redis://user:hunter2@127.0.0.1:{port}", lambda *args: None)
    caplog.set_level(logging.WARNING, logger="hulldown.store.tail")
    with contextlib.suppress(Exception):  # starting may already fail to connect
        await tailer.start()
    await tailer.follow("m")
    for _ in range(100):
        if any("stream tail" in r.getMessage() for r in caplog.records):
            break
        await asyncio.sleep(0.05)
    await tailer.stop()
    lines = [r.getMessage() for r in caplog.records if "stream tail" in r.getMessage()]
    assert lines, "no retry warning"
    assert f"redis://user:***@127.0.0.1:{port}" in lines[0] and "hunter2" not in lines[0]
