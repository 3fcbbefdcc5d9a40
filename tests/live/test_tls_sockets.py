"""Sockets whose bytes are encrypted below the transport (TLS) stay off the fan-out's express lane
(web/ws_protocol.py ``FrameOutlet.express``, docs/architecture.md section 6): the lane writes a
frame to the socket's descriptor, which on a TLS socket would put clear bytes on an encrypted
stream. ``hulldown serve`` does not terminate TLS itself, but uvicorn with the same protocol class
can (its ``--ssl-certfile``), and a proxy in front of it is the usual set-up.

The same server, with and without TLS, in this process: players and a spectator over real
sockets, every patch in order and applied to a view that matches the player's own."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import ssl
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
import trustme
import uvicorn
import uvloop
import websockets
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from hulldown.live.outgoing import Outgoing
from hulldown.web.app import create_app
from hulldown.web.settings import Settings
from hulldown.web.ws_protocol import FrameOutlet, FrameWritingProtocol, outlet_for
from tests.live.wsclient import RawClient
from tests.scenarios import duel
from tests.server_process import free_port
from tests.uvicorn_in_process import serving

ACTS = 6
LOOPS: dict[str, Callable[[Coroutine[Any, Any, None]], None]] = {"asyncio": asyncio.run, "uvloop": uvloop.run}
FIRST = Outgoing('{"type":"first"}')
LARGE = Outgoing("x" * 1_000_000)  # more than the socket takes at once
SMALL_BUFFER = 4096
NEXT = Outgoing('{"type":"next"}')


@dataclass
class Served:
    base: str  # http(s)://127.0.0.1:<port>
    app: Any
    client_ssl: ssl.SSLContext | None


@pytest.fixture(params=["tls", "clear"])
async def served(
    request: pytest.FixtureRequest, redis_url: str, key_prefix: str, tmp_path: Path
) -> AsyncIterator[Served]:
    tls = request.param == "tls"
    port = free_port()
    extra: dict[str, Any] = {}
    client_ssl = None
    if tls:
        extra, client_ssl = certificates(tmp_path)
    app = create_app(Settings(redis_url=redis_url, key_prefix=key_prefix, rate=100_000))
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        ws=FrameWritingProtocol,
        ws_per_message_deflate=False,  # as `hulldown serve` by default: a compressed socket is off the lane too
        log_level="warning",
        lifespan="on",
        **extra,
    )
    async with serving(config):
        yield Served(f"{'https' if tls else 'http'}://127.0.0.1:{port}", app, client_ssl)


def certificates(folder: Path) -> tuple[dict[str, Any], ssl.SSLContext]:
    """uvicorn's TLS settings for a certificate of 127.0.0.1 from a new authority, and a client
    context that trusts that authority."""
    authority = trustme.CA()
    certificate = authority.issue_cert("127.0.0.1")
    key_file, cert_file = folder / "server.key", folder / "server.pem"
    certificate.private_key_pem.write_to_path(str(key_file))
    certificate.cert_chain_pems[0].write_to_path(str(cert_file))
    client_ssl = ssl.create_default_context()
    authority.configure_trust(client_ssl)
    return {"ssl_keyfile": str(key_file), "ssl_certfile": str(cert_file)}, client_ssl


async def connect(served: Served, path: str, hello: dict[str, Any]) -> RawClient:
    url = served.base.replace("http", "ws", 1) + path
    ws = await websockets.connect(url, ssl=served.client_ssl, max_size=2**24)
    client = RawClient(ws)
    await ws.send(json.dumps({"type": "hello", **hello}))
    welcome = await client.wait_for(lambda m: m["type"] in ("welcome", "error"))
    assert welcome["type"] == "welcome", welcome
    return client


async def test_tls_sockets_take_every_patch_off_the_express_lane(served: Served) -> None:
    tls = served.client_ssl is not None
    async with httpx.AsyncClient(base_url=served.base, verify=served.client_ssl or True) as http:
        answer = await http.post("/matches", content=msgspec.json.encode(duel()), timeout=10)
    assert answer.status_code == 201, answer.text
    created = answer.json()
    path = f"/matches/{created['match_id']}/live"
    players = {side: await connect(served, path, {"token": created["tokens"][side]}) for side in ("a", "b")}
    spectator = await connect(served, path, {"spectator": True})

    runtime = served.app.state.live.runtimes[created["match_id"]]
    connections = runtime.hub.connections
    assert len(connections) == 3
    for connection in connections:
        outlet = connection._outlet
        assert isinstance(outlet, FrameOutlet)  # the server's own protocol, not a stock one
        # Off the lane under TLS; on it over clear TCP (the same server otherwise).
        assert (outlet.express() is None) is tls
        assert (connection.express is None) is tls

    for i in range(ACTS):
        side = players["a"].view["active"]
        seq = players[side].seq
        await players[side].ws.send(
            json.dumps(
                {"type": "act", "action_id": f"tls-{i}", "action": {"type": "end_phase"}, "expect": seq}
            )
        )
        ack = await players[side].wait_for(lambda m, i=i: m.get("action_id") == f"tls-{i}")
        assert ack["type"] == "ack" and ack["seq"] == seq + 1
        for client in (*players.values(), spectator):
            await client.wait_for(lambda m, s=seq + 1: m["type"] == "patch" and m["seq"] == s)

    first = runtime.state.seq - ACTS + 1
    for client in (*players.values(), spectator):
        # every patch once, in order (RawClient asserts there is no gap), none dropped for a resync
        assert client.patch_seqs == list(range(first, first + ACTS))
        assert not [m for m in client.messages if m["type"] == "resync"]
    assert players["b"].view == players["a"].view  # the players see the same table
    assert spectator.view["seq"] == players["a"].view["seq"] == runtime.state.seq
    for client in (*players.values(), spectator):
        await client.ws.close()


@pytest.mark.parametrize("loop", sorted(LOOPS))
@pytest.mark.parametrize("tls", [True, False], ids=["tls", "clear"])
def test_an_outlet_pauses_only_while_bytes_wait_and_resumes_once_drained(
    tls: bool, loop: str, tmp_path: Path
) -> None:
    """The outlet's ``paused`` means "the transport holds bytes": a small frame leaves it clear,
    a frame larger than the socket takes pauses it, and it resumes (``drained``) once the client
    has read everything. A TLS transport hands what it encrypted to the socket's own transport
    beneath it, which holds what the socket does not take; it holds bytes itself, and pauses
    the outlet, from the next write on: one frame later than a clear transport. On asyncio's
    loop and on uvloop (what ``hulldown serve`` runs), whose TLS transports are their own."""
    LOOPS[loop](_pause_and_drain(tls, tmp_path))


async def _pause_and_drain(tls: bool, tmp_path: Path) -> None:
    seen: dict[str, Any] = {"drained": asyncio.Event()}

    async def app(websocket: WebSocket) -> None:
        await websocket.accept()
        outlet = outlet_for(websocket)
        assert isinstance(outlet, FrameOutlet)
        outlet.attach(seen["drained"].set)
        seen["small_clear"] = outlet.send(FIRST)
        seen["large_clear"] = outlet.send(LARGE)
        seen["next_clear"] = outlet.send(NEXT)
        seen["sent"] = True
        message = await websocket.receive()  # until the client goes
        assert message["type"] == "websocket.disconnect"

    extra, client_ssl = certificates(tmp_path) if tls else ({}, None)
    config = uvicorn.Config(
        Starlette(routes=[WebSocketRoute("/ws", app)]),
        host="127.0.0.1",
        ws=FrameWritingProtocol,
        ws_per_message_deflate=False,
        log_level="warning",
        lifespan="off",
        **extra,
    )
    # Small socket buffers on both ends (the accepted socket inherits the listener's): the
    # kernel takes little of a large frame, whatever the machine's defaults.
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL_BUFFER)
    listener.bind(("127.0.0.1", 0))
    async with serving(config, sockets=[listener]):
        # A client that reads nothing until the server has written its frames.
        client = socket.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_BUFFER)
        client.connect(listener.getsockname())
        client.setblocking(False)
        reader, writer = await asyncio.open_connection(
            sock=client, ssl=client_ssl, server_hostname="127.0.0.1" if tls else None
        )
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        assert head.startswith(b"HTTP/1.1 101"), head
        for _ in range(500):
            if "sent" in seen:
                break
            await asyncio.sleep(0.01)
        assert seen["small_clear"] is True  # nothing held after a frame the socket took whole
        if not tls:
            assert seen["large_clear"] is False
        assert seen["next_clear"] is False
        assert not seen["drained"].is_set()

        expected = len(FIRST.frame) + len(LARGE.frame) + len(NEXT.frame)
        received = await asyncio.wait_for(reader.readexactly(expected), 20)
        assert received.endswith(NEXT.frame)
        await asyncio.wait_for(seen["drained"].wait(), 10)  # resumed once everything went out
        writer.close()
