"""A scripted stand-in for ``/matches/{id}/live``, in process on a free port: a test writes what
each connection answers (frame builders below) to put the client in a situation a real server
reaches only under faults - the store down at a reconnect, the rate limit dropping a frame."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from hulldown.wire import protocol

WELCOME_SEQ = 5  # the fake match's seq when a client connects
STORE_UNAVAILABLE_CLOSE = 1013  # "try again later" (SPEC 6.1)
SERVER_ERROR_CLOSE = 1011


def welcome(seq: int = WELCOME_SEQ) -> str:
    return _text(protocol.Welcome(match_id="m", role="a", seq=seq, view={"log": []}))


def patch(seq: int) -> str:
    """The event at ``seq`` appends ``seq`` to the view's log: the log shows what was applied."""
    return _text(protocol.Patch(seq=seq, ops=[{"op": "add", "path": "/log/-", "value": seq}]))


def ack(action_id: str, seq: int, *, duplicate: bool = False) -> str:
    return _text(protocol.Ack(action_id=action_id, seq=seq, duplicate=duplicate))


def error(code: str, *, fatal: bool = False) -> str:
    return _text(protocol.Error(code=code, message=f"fake {code}", fatal=fatal))


def pong(nonce: str) -> str:
    return _text(protocol.Pong(nonce=nonce))


def _text(message: protocol.ServerMessage) -> str:
    return protocol.encode(message).decode()


def decode(raw: str | bytes) -> protocol.ClientMessage:
    return protocol.client_decoder.decode(raw)


@dataclass
class FakeLive:
    """What the fake server saw: every client frame of every connection, in order."""

    url: str
    connections: list[list[protocol.ClientMessage]] = field(default_factory=list)

    def frames(self, kind: type[Any]) -> list[Any]:
        return [frame for frames in self.connections for frame in frames if isinstance(frame, kind)]

    def acts_of(self, action_id: str) -> int:
        return sum(1 for act in self.frames(protocol.Act) if act.action_id == action_id)


Script = Callable[[int, ServerConnection, list[protocol.ClientMessage]], Awaitable[None]]


@asynccontextmanager
async def fake_live(script: Script) -> AsyncIterator[FakeLive]:
    """Serve ``script(connection_number, websocket, frames_seen)`` for every connection (numbered
    from 1); ``frames_seen`` is this connection's log, which the script appends to as it reads."""
    seen = FakeLive(url="")

    async def handler(websocket: ServerConnection) -> None:
        frames: list[protocol.ClientMessage] = []
        seen.connections.append(frames)
        number = len(seen.connections)
        try:
            await script(number, websocket, frames)
        except ConnectionClosed:  # the client left first: what it sent is in the log
            return

    async with serve(handler, "127.0.0.1", 0, max_queue=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        seen.url = f"ws://127.0.0.1:{port}/matches/m/live"
        yield seen


async def receive(
    websocket: ServerConnection, frames: list[protocol.ClientMessage]
) -> protocol.ClientMessage:
    """The next client frame, logged."""
    frame = decode(await websocket.recv())
    frames.append(frame)
    return frame


async def following(
    websocket: ServerConnection, frames: list[protocol.ClientMessage]
) -> AsyncIterator[protocol.ClientMessage]:
    """Every further client frame, logged; a ``ping`` is answered with its ``pong`` first."""
    async for raw in websocket:
        frame = decode(raw)
        frames.append(frame)
        if isinstance(frame, protocol.Ping):
            await websocket.send(pong(frame.nonce))
        yield frame


async def greet(websocket: ServerConnection, frames: list[protocol.ClientMessage]) -> protocol.Hello:
    """Read the hello and answer it with a welcome at ``WELCOME_SEQ`` (the client's ping follows)."""
    hello = await receive(websocket, frames)
    assert isinstance(hello, protocol.Hello)
    await websocket.send(welcome())
    return hello


class FakeMatch:
    """Appends each new ``action_id`` once (patch, then ack) and answers a second delivery with
    ``ack(duplicate)`` and the original seq, as the server's dedupe does."""

    def __init__(self) -> None:
        self.seq = WELCOME_SEQ
        self.appended: dict[str, int] = {}

    async def answer(self, websocket: ServerConnection, act: protocol.Act) -> None:
        first_seq = self.appended.get(act.action_id)
        if first_seq is not None:
            await websocket.send(ack(act.action_id, first_seq, duplicate=True))
            return
        self.seq += 1
        self.appended[act.action_id] = self.seq
        await websocket.send(patch(self.seq))
        await websocket.send(ack(act.action_id, self.seq))
