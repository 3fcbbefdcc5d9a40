"""A raw websocket client of /matches/{id}/replay that keeps the view with jsonpatch."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import jsonpatch
import websockets


class ReplayClient:
    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.arrivals: list[float] = []
        self.view: Any = None
        self.seq = 0
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, **options: Any) -> ReplayClient:
        ws = await websockets.connect(url, max_size=2**24)
        client = cls(ws)
        await client.send({"type": "replay_open", **options})
        await client.wait_for(lambda m: m["type"] in ("replay_state", "error"))
        return client

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                self.messages.append(message)
                self.arrivals.append(time.monotonic())
                if message["type"] == "replay_state":
                    self.view, self.seq = message["view"], message["seq"]
                elif message["type"] == "replay_frame":
                    assert message["seq"] == self.seq + 1, (self.seq, message["seq"])
                    self.view = jsonpatch.apply_patch(self.view, message["ops"])
                    self.seq = message["seq"]
        except websockets.ConnectionClosed:
            pass

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def wait_for(self, predicate: Any, start: int = 0, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for message in self.messages[start:]:
                if predicate(message):
                    return message
            if time.monotonic() > deadline:
                raise TimeoutError(f"no matching message in {self.messages[start:]}")
            await asyncio.sleep(0.01)

    def frames(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "replay_frame"]

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
