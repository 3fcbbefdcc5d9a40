"""Matches nobody uses are evicted from the process and come back intact on their next use."""

from __future__ import annotations

import time
from typing import Any

import httpx
import msgspec
import pytest
import uvicorn

from hulldown.live.service import CreatedMatch, LiveService
from hulldown.match.actions import EndPhase
from hulldown.match.reducer import state_hash
from hulldown.store.redis_store import RedisEventStore
from hulldown.web.app import create_app
from hulldown.web.settings import Settings
from hulldown.web.ws_protocol import FrameWritingProtocol
from hulldown.wire.protocol import Ack
from tests.live.wsclient import RawClient
from tests.scenarios import duel
from tests.server_process import free_port
from tests.uvicorn_in_process import serving


async def test_an_idle_match_is_evicted_and_reloads_identically(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    live = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=2)
    await live.start()
    try:
        created = await live.create(duel())
        assert isinstance(created, CreatedMatch)
        runtime = await live.get(created.match_id)
        assert runtime is not None
        for i in range(3):
            assert isinstance(await runtime.submit("a", EndPhase(), f"end-{i}"), Ack)
        before = state_hash(runtime.state)

        with runtime.in_use():  # a connected socket keeps it
            assert await live.evict_idle(0.0) == []
        assert await live.evict_idle(3600.0) == []  # not idle long enough
        runtime.last_used = time.monotonic() - 10.0
        assert await live.evict_idle(5.0) == [created.match_id]
        assert created.match_id not in live.runtimes
        assert created.match_id not in live.tailer.following()

        reloaded = await live.get(created.match_id)
        assert reloaded is not None and reloaded is not runtime
        assert state_hash(reloaded.state) == before
        assert created.match_id in live.tailer.following()
        assert isinstance(await reloaded.submit("b", EndPhase(), "b-end"), Ack)
    finally:
        await live.stop()


async def test_a_match_is_not_evicted_while_a_socket_joining_it_checks_its_token(
    redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The token check awaits the store; were the runtime not in use yet, an eviction meanwhile
    (the evictor's round, or another match loaded into a full process) would leave the socket
    on a runtime the process no longer follows."""
    port = free_port()
    app = create_app(Settings(redis_url=redis_url, key_prefix=key_prefix, rate=100_000))
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, ws=FrameWritingProtocol, log_level="warning", lifespan="on"
    )
    async with serving(config):
        live: LiveService = app.state.live
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            answer = await http.post("/matches", content=msgspec.json.encode(duel()), timeout=10)
        created = answer.json()
        match_id = created["match_id"]
        authenticate = live.authenticate
        evicted: list[str] = []

        async def evicting_meanwhile(match: str, token: str) -> Any:
            evicted.extend(await live.evict_idle(0.0))  # idle for 0 s or more: anything unused goes
            return await authenticate(match, token)

        monkeypatch.setattr(live, "authenticate", evicting_meanwhile)
        client = await RawClient.connect(
            f"ws://127.0.0.1:{port}/matches/{match_id}/live", {"token": created["tokens"]["a"]}
        )
        assert evicted == []
        runtime = live.runtimes[match_id]
        assert len(runtime.hub.connections) == 1
        ack = await client.act({"type": "end_phase"}, "end-1")
        assert ack["seq"] == 2 and live.runtimes[match_id] is runtime
        await client.close()
