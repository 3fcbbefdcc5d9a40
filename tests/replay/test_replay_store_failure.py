"""A replay in play mode whose store fails under it (loading the match's timeline: Redis down)
ends the connection as any other store failure does - a fatal ``store_unavailable`` error and
close 1013 (docs/limits-and-outages.md) - instead of its player stopping silently. The session
runs in this process over a real LiveService and Redis; the websocket is a recording stand-in,
and the failure is the live service's timeline load raising after the first one."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from starlette.websockets import WebSocketDisconnect

from hulldown.live.service import CreatedMatch, LiveService
from hulldown.match.actions import EndPhase
from hulldown.match.timeline import Timeline
from hulldown.store.redis_store import RedisEventStore
from hulldown.web.access import Access
from hulldown.web.replay_socket import ReplaySession
from hulldown.wire import protocol
from tests.scenarios import duel


class RecordingSocket:
    """What ReplaySession uses of a websocket: it records what is sent, and its receive waits
    until the session closes it, then says the client went away."""

    def __init__(self, path: str) -> None:
        self.url = SimpleNamespace(path=path)
        self.sent: list[dict[str, Any]] = []
        self.closed_with: int | None = None
        self._closed = asyncio.Event()

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000) -> None:
        self.closed_with = code
        self._closed.set()

    async def receive(self) -> dict[str, Any]:
        await self._closed.wait()
        return {"type": "websocket.disconnect", "code": self.closed_with}


async def test_a_store_failure_while_playing_closes_the_replay_with_store_unavailable(
    store: RedisEventStore, redis_url: str, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    live = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    try:
        created = await live.create(duel())
        assert isinstance(created, CreatedMatch)
        runtime = await live.get(created.match_id)
        assert runtime is not None
        for n in (2, 3, 4):
            assert isinstance(await runtime.submit("a", EndPhase(), f"end-{n}"), protocol.Ack)
        loads = 0
        load = live.timeline

        async def failing_after_the_first(match_id: str, upto: int) -> Timeline | None:
            nonlocal loads
            loads += 1
            if loads > 1:
                raise RedisConnectionError("the store went away")
            return await load(match_id, upto)

        monkeypatch.setattr(live, "timeline", failing_after_the_first)
        socket = RecordingSocket(f"/matches/{created.match_id}/replay")
        opened = protocol.ReplayOpen(from_seq=1, mode="play", speed=1000.0)
        session = ReplaySession(socket, live, runtime, Access(side=None), opened, 65536, 50)  # type: ignore[arg-type]
        with pytest.raises(WebSocketDisconnect):  # the client "goes away" once the session closed it
            await asyncio.wait_for(session.run(), 10)
        assert [m["type"] for m in socket.sent] == ["replay_state", "error"]
        assert socket.sent[-1]["code"] == "store_unavailable" and socket.sent[-1]["fatal"] is True
        assert socket.closed_with == 1013
    finally:
        await live.stop()
