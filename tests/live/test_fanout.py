"""The fan-out's writer (docs/architecture.md section 6, "One frame, many sockets"), over a real
``hulldown serve`` (uvicorn) with real websocket clients:

- every socket of an audience receives byte-identical frames for a broadcast;
- a client that stops reading falls back to its bounded queue, and once that overflows gets one
  ``resync`` (reason ``too far behind``) in place of its queued patches - its own answers all
  kept - while the clients that read keep receiving every patch; one that reads none of its
  answers is closed;
- a socket that goes away is dropped from the match.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import socket
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import httpx
import jsonpatch
import msgspec
import pytest
import websockets

from hulldown.live.outgoing import text_frame
from hulldown.match.state import Options
from hulldown.web.ws_protocol import FrameOutlet
from tests.live.test_end_to_end import END, MOVE
from tests.live.wsclient import RawClient
from tests.ops.helpers import metric_samples, sample
from tests.scenarios import duel
from tests.server_process import ServerProcess, free_port, server_with_env
from tests.spectators.test_spectators import create, get, live_url
from tests.uvicorn_in_process import serving

SEND_QUEUE = 4  # messages a connection may queue behind a socket that pushes back
BIG_NONCE = "x" * 60_000  # a ping's nonce comes back in the pong: 60 KB per answer


MID_SEND_QUEUE = 256  # more than the pongs the overflow test leaves queued


@pytest.fixture
def mid_queue_server(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[ServerProcess]:
    env = {"HULLDOWN_SEND_QUEUE": str(MID_SEND_QUEUE), "HULLDOWN_RATE": "100000"}
    with server_with_env(redis_url, key_prefix, tmp_path, env) as process:
        yield process


@pytest.fixture
def small_queue_server(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[ServerProcess]:
    env = {"HULLDOWN_SEND_QUEUE": str(SEND_QUEUE), "HULLDOWN_RATE": "100000"}
    with server_with_env(redis_url, key_prefix, tmp_path, env) as process:
        yield process


# ---- a raw websocket client: the exact bytes of every frame the server sends --------------------


class Listening(Protocol):
    """A server on 127.0.0.1 (a ``ServerProcess``, or one served in the test's process)."""

    @property
    def port(self) -> int: ...


class RawFrames:
    """A websocket client on a bare TCP stream that keeps each server frame's bytes as sent."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def connect(cls, server: Listening, path: str) -> RawFrames:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        assert head.startswith(b"HTTP/1.1 101"), head
        assert b"sec-websocket-extensions" not in head.lower()  # no compression negotiated
        return cls(reader, writer)

    @staticmethod
    def client_frame(message: dict[str, Any]) -> bytes:
        """A masked text frame of ``message`` as a client sends it."""
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        size = len(payload)
        header = bytes((0x81, 0x80 | size)) if size < 126 else struct.pack("!BBH", 0x81, 0x80 | 126, size)
        return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_at_once([message])

    async def send_at_once(self, messages: list[dict[str, Any]]) -> None:
        """Every message's frame in one write (the server reads them in one go)."""
        self.writer.write(b"".join(self.client_frame(m) for m in messages))
        await self.writer.drain()

    async def frame(self, timeout: float = 10.0) -> bytes:
        """The next frame, header and payload, exactly as received."""
        head = await asyncio.wait_for(self.reader.readexactly(2), timeout)
        assert head[1] & 0x80 == 0, "a server frame is never masked"
        size = head[1] & 0x7F
        extra = b""
        if size == 126:
            extra = await self.reader.readexactly(2)
            size = struct.unpack("!H", extra)[0]
        elif size == 127:
            extra = await self.reader.readexactly(8)
            size = struct.unpack("!Q", extra)[0]
        return head + extra + await self.reader.readexactly(size)

    async def message(self, kind: str) -> tuple[bytes, dict[str, Any]]:
        """The next text frame whose message has type ``kind`` (raw bytes and decoded)."""
        while True:
            raw = await self.frame()
            if raw[0] != 0x81:  # a ping or other control frame
                continue
            payload = raw[2 + {126: 2, 127: 8}.get(raw[1] & 0x7F, 0) :]
            decoded: dict[str, Any] = json.loads(payload)
            if decoded["type"] == kind:
                return raw, decoded

    def abort(self) -> None:
        """Drop the connection without a closing handshake (as a crashed client would)."""
        self.writer.transport.abort()


async def test_every_socket_of_the_audience_gets_the_same_frame_bytes(server: ServerProcess) -> None:
    created = create(server, Options())
    match_id = created["match_id"]
    path = f"/matches/{match_id}/live"
    mover = await RawClient.connect(live_url(server, match_id), {"token": created["tokens"]["a"]})
    opponent = await RawFrames.connect(server, path)
    await opponent.send({"type": "hello", "token": created["tokens"]["b"]})
    spectators = [await RawFrames.connect(server, path) for _ in range(3)]
    for spectator in spectators:
        await spectator.send({"type": "hello", "spectator": True})
    for client in (opponent, *spectators):
        _, welcome = await client.message("welcome")
        assert welcome["seq"] == 1

    ack = await mover.act(MOVE, "m1")
    assert ack["type"] == "ack" and ack["seq"] == 2
    frames = [await client.message("patch") for client in (opponent, *spectators)]
    raw_frames = {raw for raw, _ in frames}
    assert len(raw_frames) == 1, "the opponent and every spectator get byte-identical frames"
    raw, patch = frames[0]
    assert patch["seq"] == 2
    # A well-formed unmasked text frame whose payload is the patch the mover got as well.
    payload = raw[4:] if raw[1] == 126 else raw[2:]
    assert text_frame(payload) == raw
    await mover.wait_seq(2)
    assert json.loads(payload) == next(m for m in mover.messages if m["type"] == "patch" and m["seq"] == 2)
    await mover.close()
    for client in (opponent, *spectators):
        client.abort()


async def test_delayed_spectators_share_their_own_frames(server: ServerProcess) -> None:
    created = create(server, Options(spectator_delay_events=1))
    match_id = created["match_id"]
    mover = await RawClient.connect(live_url(server, match_id), {"token": created["tokens"]["a"]})
    delayed = [await RawFrames.connect(server, f"/matches/{match_id}/live") for _ in range(3)]
    for spectator in delayed:
        await spectator.send({"type": "hello", "spectator": True})
        _, welcome = await spectator.message("welcome")
        assert welcome["delayed"] is True and welcome["seq"] == 1
    for k, action in enumerate((MOVE, END)):  # seqs 2 and 3: seq 2 is released one event later
        await mover.act(action, f"act-{k}")
    frames = [await spectator.message("patch") for spectator in delayed]
    assert len({raw for raw, _ in frames}) == 1, "every delayed spectator gets the same bytes"
    assert frames[0][1]["seq"] == 2
    await mover.close()
    for spectator in delayed:
        spectator.abort()


# ---- a client that stops reading ------------------------------------------------------------------


async def stalled_spectator(server: ServerProcess, match_id: str) -> Any:
    """A spectator whose socket stops taking data: a small receive buffer and a client library
    that stops reading after one message (nothing here reads it until told)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", server.port))
    ws = await websockets.connect(live_url(server, match_id), sock=sock, max_queue=1, max_size=2**24)
    await ws.send(json.dumps({"type": "hello", "spectator": True}))
    return ws


class SpecView:
    """A view kept by the protocol's rules (client-protocol/SPEC.md section 2.6)."""

    def __init__(self) -> None:
        self.seq = 0
        self.view: Any = None
        self.resyncs: list[str] = []
        self.patches = 0
        self.gaps = 0

    def take(self, message: dict[str, Any]) -> None:
        if message["type"] in ("welcome", "resync"):
            self.view, self.seq = message["view"], message["seq"]
            if message["type"] == "resync":
                self.resyncs.append(message["reason"])
        elif message["type"] == "patch":
            if message["seq"] == self.seq + 1:
                self.view = jsonpatch.apply_patch(self.view, message["ops"])
                self.seq = message["seq"]
                self.patches += 1
            elif message["seq"] > self.seq + 1:
                self.gaps += 1


def overflows(server: ServerProcess) -> float:
    return sample(metric_samples(server.http), "hulldown_queue_overflows_total")


async def test_a_client_that_stops_reading_is_queued_then_resynced_while_the_others_keep_up(
    mid_queue_server: ServerProcess,
) -> None:
    server = mid_queue_server
    created = create(server, Options(turn_limit=0))
    match_id = created["match_id"]
    players = {
        side: await RawClient.connect(live_url(server, match_id), {"token": created["tokens"][side]})
        for side in ("a", "b")
    }
    fast = await RawClient.connect(live_url(server, match_id), {"spectator": True})
    slow = await stalled_spectator(server, match_id)
    assert overflows(server) == 0

    # Each pong carries its 60 KB nonce back: the slow socket's buffers fill and the rest of its
    # pongs wait in its queue (fewer than MID_SEND_QUEUE).
    pings = 120
    for k in range(pings):
        await slow.send(json.dumps({"type": "ping", "nonce": f"{k}-{BIG_NONCE}"}))
    # The match goes on: the patches queue behind the pongs until the queue overflows, while the
    # reading spectator keeps receiving every patch at once.
    deadline = asyncio.get_running_loop().time() + 60
    acts = 0
    while overflows(server) == 0 or acts < 3:
        assert asyncio.get_running_loop().time() < deadline, "the stalled client's queue never overflowed"
        side = fast.view["active"] if fast.view else "a"
        ack = await players[side].act(END, f"act-{acts}")
        assert ack["type"] == "ack", ack
        await fast.wait_seq(ack["seq"], timeout=5)
        acts += 1
    final = fast.seq
    assert fast.patch_seqs == list(range(2, final + 1))
    assert [m for m in fast.messages if m["type"] == "resync"] == []

    # The slow client reads again: the pongs written before it pushed back, one resync (too far
    # behind) with the current view in place of the queued patches, then the queued pongs - every
    # pong, in order (no answer is dropped).
    seen = SpecView()
    nonces: list[str] = []
    while seen.seq < final or not seen.resyncs or len(nonces) < pings:
        message = json.loads(await asyncio.wait_for(slow.recv(), 10))
        if message["type"] == "pong":
            nonces.append(message["nonce"].split("-", 1)[0])
        seen.take(message)
    assert seen.resyncs == ["too far behind"]
    assert nonces == [str(k) for k in range(pings)]
    assert seen.view == fast.view and seen.seq == final and seen.gaps == 0

    # Caught up, it follows live patches again.
    ack = await players[fast.view["active"]].act(END, "after")
    while seen.seq < ack["seq"]:
        seen.take(json.loads(await asyncio.wait_for(slow.recv(), 10)))
    await fast.wait_seq(ack["seq"])
    assert seen.view == fast.view
    await slow.close()
    for client in (*players.values(), fast):
        await client.close()


async def test_a_client_that_reads_none_of_its_answers_is_closed(small_queue_server: ServerProcess) -> None:
    """Its own answers alone fill its queue (SEND_QUEUE pongs): rather than drop an answer, the
    server closes the socket; the others carry on."""
    server = small_queue_server
    created = create(server, Options())
    match_id = created["match_id"]
    a = await RawClient.connect(live_url(server, match_id), {"token": created["tokens"]["a"]})
    watcher = await RawClient.connect(live_url(server, match_id), {"spectator": True})
    stalled = await stalled_spectator(server, match_id)
    assert get(server, f"/matches/{match_id}").json()["spectators"] == 2
    with contextlib.suppress(websockets.ConnectionClosed):  # closed part way, as it should be
        for k in range(120):
            await stalled.send(json.dumps({"type": "ping", "nonce": f"{k}-{BIG_NONCE}"}))
    deadline = asyncio.get_running_loop().time() + 20
    while get(server, f"/matches/{match_id}").json()["spectators"] != 1:
        assert asyncio.get_running_loop().time() < deadline, "the socket that reads nothing was not closed"
        await asyncio.sleep(0.05)
    with pytest.raises(websockets.ConnectionClosed):  # what was written, then the end
        while True:
            await asyncio.wait_for(stalled.recv(), 10)
    ack = await a.act(MOVE, "m1")
    await watcher.wait_seq(ack["seq"], timeout=5)
    assert watcher.patch_seqs == [2]
    for client in (a, watcher):
        await client.close()


async def test_closed_sockets_are_dropped_and_the_others_carry_on(small_queue_server: ServerProcess) -> None:
    server = small_queue_server
    created = create(server, Options())
    match_id = created["match_id"]
    path = f"/matches/{match_id}/live"
    a = await RawClient.connect(live_url(server, match_id), {"token": created["tokens"]["a"]})
    watcher = await RawClient.connect(live_url(server, match_id), {"spectator": True})
    crashed = await RawFrames.connect(server, path)  # goes away without a closing handshake
    await crashed.send({"type": "hello", "spectator": True})
    await crashed.message("welcome")
    stalled = await stalled_spectator(server, match_id)  # goes away with bytes waiting for it
    assert get(server, f"/matches/{match_id}").json()["spectators"] == 3
    for k in range(3):
        await stalled.send(json.dumps({"type": "ping", "nonce": f"{k}-{BIG_NONCE}"}))

    crashed.abort()
    stalled.transport.abort()
    deadline = asyncio.get_running_loop().time() + 10
    while get(server, f"/matches/{match_id}").json()["spectators"] != 1:
        assert asyncio.get_running_loop().time() < deadline, "closed sockets were not dropped"
        await asyncio.sleep(0.05)
    for k, action in enumerate((MOVE, END)):
        ack = await a.act(action, f"act-{k}")
        await watcher.wait_seq(ack["seq"], timeout=5)
    assert watcher.patch_seqs == [2, 3]
    for client in (a, watcher):
        await client.close()


@pytest.fixture
def deflate_server(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[ServerProcess]:
    with server_with_env(redis_url, key_prefix, tmp_path, {"HULLDOWN_WS_DEFLATE": "1"}) as process:
        yield process


async def test_sockets_with_per_message_deflate_get_their_own_compressed_frames(
    deflate_server: ServerProcess,
) -> None:
    server = deflate_server
    created = create(server, Options())
    match_id = created["match_id"]
    a = await RawClient.connect(live_url(server, match_id), {"token": created["tokens"]["a"]})
    compressed = await RawClient.connect(live_url(server, match_id), {"spectator": True})  # deflate offered
    plain = await RawFrames.connect(server, f"/matches/{match_id}/live")  # offers no extension
    await plain.send({"type": "hello", "spectator": True})
    await plain.message("welcome")
    for client in (a, compressed):
        assert client.ws.response.headers["Sec-WebSocket-Extensions"].startswith("permessage-deflate")
    for k, action in enumerate((MOVE, END)):
        ack = await a.act(action, f"act-{k}")
        await compressed.wait_seq(ack["seq"], timeout=5)
        raw, patch = await plain.message("patch")
        assert raw[0] == 0x81 and patch["seq"] == ack["seq"]  # uncompressed (RSV1 clear) for it
    assert compressed.view == a.view and compressed.patch_seqs == [2, 3]
    for client in (a, compressed):
        await client.close()
    plain.abort()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # websockets' legacy server, under uvicorn's
@pytest.mark.filterwarnings("ignore::uvicorn.config.UvicornDeprecationWarning")  # legacy "websockets"
@pytest.mark.parametrize("ws_impl", ["websockets-sansio", "websockets"])
async def test_under_plain_uvicorn_protocols_the_text_outlet_keeps_the_same_behaviour(
    ws_impl: str, redis_url: str, key_prefix: str
) -> None:
    """Without the frame outlet (uvicorn's stock websocket protocols: any ASGI server) every socket
    writes through Starlette's ``send_text``; players and spectators follow the match as before."""
    import uvicorn

    from hulldown.web.app import create_app
    from hulldown.web.settings import Settings

    port = free_port()
    app = create_app(Settings(redis_url=redis_url, key_prefix=key_prefix))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, ws=ws_impl, log_level="warning", lifespan="on")
    async with serving(config):
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            answer = await http.post("/matches", content=msgspec.json.encode(duel()), timeout=10)
        assert answer.status_code == 201, answer.text
        created = answer.json()
        match_id = created["match_id"]
        url = f"ws://127.0.0.1:{port}/matches/{match_id}/live"
        a = await RawClient.connect(url, {"token": created["tokens"]["a"]})
        watchers = [await RawClient.connect(url, {"spectator": True}) for _ in range(3)]
        runtime = app.state.live.runtimes[match_id]
        assert all(not isinstance(c._outlet, FrameOutlet) for c in runtime.hub.connections)
        for k, action in enumerate((MOVE, END, END)):
            ack = await a.act(action, f"act-{k}")
            for watcher in watchers:
                await watcher.wait_seq(ack["seq"], timeout=5)
        assert all(w.patch_seqs == [2, 3, 4] and w.view == a.view for w in watchers)
        for client in (a, *watchers):
            await client.close()
