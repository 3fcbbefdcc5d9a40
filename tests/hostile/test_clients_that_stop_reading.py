"""A websocket client that stops reading while the server has bytes buffered for it is still
closed, and the app hears of it (web/ws_protocol.py ``ClosingTransport``): a plain close waits
for the buffered bytes to go out, which they never do, so it becomes an abort after
CLOSE_FLUSH_TIMEOUT. Over uvicorn with the server's protocol, in this process, and a raw client
socket that never reads."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from hulldown.live.outgoing import Outgoing
from hulldown.web import ws_protocol
from hulldown.web.ws_protocol import FrameOutlet, FrameWritingProtocol, outlet_for
from tests.uvicorn_in_process import bound_port, serving

BUFFERED = Outgoing("x" * 1_000_000)  # what a busy match's frames leave in a stalled socket
WAIT_S = 10.0


@dataclass
class Served:
    port: int
    server: uvicorn.Server
    disconnected: asyncio.Event = field(default_factory=asyncio.Event)
    outlets: list[FrameOutlet] = field(default_factory=list)


@pytest.fixture
async def served(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Served]:
    monkeypatch.setattr(ws_protocol, "CLOSE_FLUSH_TIMEOUT", 0.3)
    found: list[Served] = []

    async def app(websocket: WebSocket) -> None:
        await websocket.accept()
        outlet = outlet_for(websocket)
        assert isinstance(outlet, FrameOutlet)
        found[0].outlets.append(outlet)
        outlet.attach(lambda: None)
        for _ in range(8):
            outlet.send(BUFFERED)
        message = await websocket.receive()  # as the live socket does: wait for the disconnect
        assert message["type"] == "websocket.disconnect"
        found[0].disconnected.set()

    config = uvicorn.Config(
        Starlette(routes=[WebSocketRoute("/ws", app)]),
        host="127.0.0.1",
        port=0,
        ws=FrameWritingProtocol,
        ws_ping_interval=0.2,
        ws_ping_timeout=0.2,
        log_level="warning",
        lifespan="off",
    )
    async with serving(config) as server:
        found.append(Served(bound_port(server), server))
        yield found[0]


async def _silent_client(port: int) -> socket.socket:
    """A websocket client that opens the connection and never reads a byte."""
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.setblocking(False)
    await asyncio.get_running_loop().sock_connect(client, ("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    client.send(
        f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    return client


async def test_the_keepalive_ends_a_client_that_stopped_reading(served: Served) -> None:
    client = await _silent_client(served.port)
    try:
        # ping after 0.2 s, no pong by 0.4 s: closed, and aborted 0.3 s later
        await asyncio.wait_for(served.disconnected.wait(), WAIT_S)
        assert not served.server.server_state.connections
    finally:
        client.close()


async def test_the_outlets_abort_drops_what_is_buffered_at_once(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ws_protocol, "CLOSE_FLUSH_TIMEOUT", WAIT_S * 10)  # only abort() may end it
    client = await _silent_client(served.port)
    try:
        while not served.outlets:
            await asyncio.sleep(0.01)
        served.outlets[0].abort()  # what the live socket does when it fails on a connection
        await asyncio.wait_for(served.disconnected.wait(), 2.0)
    finally:
        client.close()
