"""Helpers for talking to a real server with hostile frames: raw websockets, one frame at a time."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import msgspec
import websockets

from tests.undo.live_helpers import with_reserve

from ..server_process import ServerProcess


def create(server: ServerProcess) -> dict[str, Any]:
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(with_reserve()), timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def connect(url: str) -> Any:
    return await websockets.connect(url, max_size=2**24, open_timeout=10)


async def reply(ws: Any, timeout: float = 10.0) -> dict[str, Any]:
    """The next frame from the server that is not a patch."""
    while True:
        raw = await asyncio.wait_for(ws.recv(), timeout)
        message: dict[str, Any] = json.loads(raw)
        if message["type"] != "patch":
            return message


async def hello(ws: Any, token: str) -> dict[str, Any]:
    await ws.send(json.dumps({"type": "hello", "token": token}))
    return await reply(ws)


async def still_open(ws: Any) -> bool:
    """The connection answers a ping with its pong."""
    await ws.send(json.dumps({"type": "ping", "nonce": "alive"}))
    return (await reply(ws)) == {"type": "pong", "nonce": "alive"}


def events(server: ServerProcess, match_id: str, token: str) -> list[dict[str, Any]]:
    response = httpx.get(
        f"{server.http}/matches/{match_id}/events",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()["events"]
    return found
