"""A long fold - a stored move through 3,000 waypoints, written before moves were bounded, folded
on a cold load (~4 ms a waypoint: over 10 s) - neither stalls the server nor delays SIGTERM
(docs/limits-and-outages.md): /healthz still answers at once meanwhile, and the process is gone
within the shutdown bound although the fold is not finished."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from hulldown.cli.serve import SHUTDOWN_DEADLINE
from hulldown.match.actions import Move
from hulldown.match.events import Event, encode_event
from hulldown.match.state import Point
from hulldown.store.redis_store import RedisEventStore

from ..hostile.frames import create
from ..server_process import ServerProcess

pytestmark = pytest.mark.faults

WAYPOINTS = 3000
CORNERS = [(10.25, 24.0), (10.25, 24.25), (10.0, 24.25), (10.0, 24.0)]


async def test_a_long_cold_fold_keeps_the_server_responsive_and_sigterm_is_honoured(
    tmp_path: Path, redis_url: str, key_prefix: str
) -> None:
    maker = ServerProcess(redis_url=redis_url, prefix=key_prefix, log=tmp_path / "maker.log")
    maker.start()
    try:
        created = create(maker)
    finally:
        maker.stop()
    match_id = created["match_id"]
    path = tuple(Point(*CORNERS[i % 4]) for i in range(WAYPOINTS))
    legacy = Event(seq=2, at=time.time(), by="a", action_id="legacy", body=Move(unit="predator-1", path=path))
    async with RedisEventStore.from_url(redis_url, prefix=key_prefix) as store:
        assert (
            await store.append(match_id, encode_event(legacy), expect=1, action_id="legacy")
        ).status == "appended"

    server = ServerProcess(redis_url=redis_url, prefix=key_prefix, log=tmp_path / "server.log")
    server.start()
    assert server.process is not None
    loading = threading.Thread(
        target=lambda: httpx.get(f"{server.http}/matches/{match_id}/state", timeout=60), daemon=True
    )
    loading.start()  # the cold load folds the 3,000-waypoint move on the rules pool
    time.sleep(1.0)
    started = time.monotonic()
    assert httpx.get(f"{server.http}/healthz", timeout=10).status_code == 200
    assert time.monotonic() - started < 2.0  # generous: ~1 ms when the loop is free
    assert loading.is_alive(), "the fold finished too soon to test anything"

    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    server.process.wait(SHUTDOWN_DEADLINE + 10)
    took = time.monotonic() - started
    print(f"exit after SIGTERM mid-fold: {took:.2f} s")
    assert took < SHUTDOWN_DEADLINE + 1
