"""A minimal raw websocket test client: hello, collect messages, apply patches with jsonpatch."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import jsonpatch
import websockets


class RawClient:
    """Holds a websocket, every message received, and a local view kept with jsonpatch."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.view: Any = None
        self.seq = 0
        self.patch_seqs: list[int] = []
        self._reader = asyncio.create_task(self._read())
        self._waiters: list[tuple[Any, asyncio.Future[dict[str, Any]]]] = []

    @classmethod
    async def connect(cls, url: str, hello: dict[str, Any]) -> RawClient:
        ws = await websockets.connect(url, max_size=2**24)
        client = cls(ws)
        await ws.send(json.dumps({"type": "hello", **hello}))
        await client.wait_for(lambda m: m["type"] in ("welcome", "error"))
        return client

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                self.messages.append(message)
                if message["type"] in ("welcome", "resync"):
                    self.view = message["view"]
                    self.seq = message["seq"]
                elif message["type"] == "patch":
                    assert message["seq"] == self.seq + 1, f"gap: at {self.seq}, got {message['seq']}"
                    self.view = jsonpatch.apply_patch(self.view, message["ops"])
                    self.seq = message["seq"]
                    self.patch_seqs.append(message["seq"])
                for predicate, future in list(self._waiters):
                    if not future.done() and predicate(message):
                        future.set_result(message)
                        self._waiters.remove((predicate, future))
        except websockets.ConnectionClosed:
            pass

    async def wait_for(self, predicate: Any, timeout: float = 10.0, start: int = 0) -> dict[str, Any]:
        for message in self.messages[start:]:
            if predicate(message):
                return message
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        return await asyncio.wait_for(future, timeout)

    async def wait_seq(self, seq: int, timeout: float = 10.0) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while self.seq < seq:
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"client at seq {self.seq}, wanted {seq}")
            await asyncio.sleep(0.01)

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def act(self, action: dict[str, Any], action_id: str, expect: int | None = None) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "act", "action_id": action_id, "action": action}
        if expect is not None:
            message["expect"] = expect
        seen = len(self.messages)
        await self.send(message)
        return await self.wait_for(
            lambda m: m.get("action_id") == action_id and m["type"] in ("ack", "rejected"), start=seen
        )

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()
