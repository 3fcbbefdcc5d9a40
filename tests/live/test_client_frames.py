"""Reading clients' frames without the websockets parser (web/client_frames.py, web/ws_protocol.py,
docs/architecture.md section 6): plain text frames are unmasked and handed to the live socket's
reader; every other frame reaches the websockets parser whole, so it always starts at a frame.

Over the real server protocol in this process (uvicorn with ``FrameWritingProtocol``): a message
split into single bytes, fragmented messages, pings and binary frames between plain ones, all
answered in order; and the switch happens only where the websockets parser holds nothing."""

from __future__ import annotations

import asyncio
import json
import os
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import msgspec
import pytest
import uvicorn

from hulldown.web.app import create_app
from hulldown.web.client_frames import TooLarge, split_frames
from hulldown.web.settings import Settings
from hulldown.web.ws_protocol import FrameOutlet, FrameWritingProtocol
from tests.live.test_fanout import RawFrames
from tests.scenarios import duel
from tests.server_process import free_port
from tests.uvicorn_in_process import serving


def frame(payload: bytes, opcode: int = 0x1, fin: bool = True, masked: bool = True, rsv: int = 0) -> bytes:
    """A client frame as RFC 6455 section 5.2 lays it out."""
    first = (0x80 if fin else 0) | rsv | opcode
    size = len(payload)
    if size < 126:
        head = bytes((first, (0x80 if masked else 0) | size))
    elif size < 65536:
        head = struct.pack("!BBH", first, (0x80 if masked else 0) | 126, size)
    else:
        head = struct.pack("!BBQ", first, (0x80 if masked else 0) | 127, size)
    if not masked:
        return head + payload
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Collected:
    def __init__(self) -> None:
        self.plain: list[bytes] = []
        self.other: list[bytes] = []
        self.order: list[str] = []

    def on_plain(self, payload: bytes) -> None:
        self.plain.append(payload)
        self.order.append("plain")

    def on_other(self, raw: bytes) -> None:
        self.other.append(raw)
        self.order.append("other")


def split(buffer: bytes, limit: int = 1 << 20, plain_ok: bool = True) -> tuple[int | TooLarge, Collected]:
    got = Collected()
    used = split_frames(buffer, limit, lambda: plain_ok, got.on_plain, got.on_other)
    return used, got


def test_plain_text_frames_are_unmasked_and_the_rest_passed_whole() -> None:
    ping, binary = frame(b"hi", opcode=0x9), frame(b"\x00\x01", opcode=0x2)
    first_part, last_part = frame(b"fra", fin=False), frame(b"gment", opcode=0x0)
    compressed, unmasked = frame(b"x", rsv=0x40), frame(b"bare", masked=False)
    medium = b"m" * 300  # a 16-bit length
    stream = b"".join(
        (
            frame(b"one"),
            ping,
            frame(medium),
            binary,
            first_part,
            last_part,
            compressed,
            unmasked,
            frame(b"two"),
        )
    )
    used, got = split(stream)
    assert used == len(stream)
    assert got.plain == [b"one", medium, b"two"]
    assert got.other == [ping, binary, first_part, last_part, compressed, unmasked]
    assert got.order == ["plain", "other", "plain", *["other"] * 5, "plain"]


def test_a_frame_not_complete_yet_is_left_for_later() -> None:
    stream = frame(b"first") + frame(b"second" * 30)
    for cut in range(len(stream)):
        used, got = split(stream[:cut])
        whole = len(frame(b"first"))
        assert used == (whole if cut >= whole else 0)
        assert got.plain == ([b"first"] if cut >= whole else [])


def test_while_plain_frames_are_not_ok_they_go_to_the_parser_too() -> None:
    text = frame(b"in a fragmented message")
    used, got = split(text, plain_ok=False)
    assert used == len(text) and got.plain == [] and got.other == [text]


def test_a_frame_over_the_limit_is_the_parsers_from_its_start() -> None:
    big = frame(b"x" * 70_000)  # a 64-bit length
    used, got = split(frame(b"ok") + big, limit=65_536)
    assert used == TooLarge(at=len(frame(b"ok")))
    assert got.plain == [b"ok"]


# ---- over the server protocol --------------------------------------------------------------------


@dataclass
class InProcess:
    port: int
    app: Any


@pytest.fixture
async def served(redis_url: str, key_prefix: str) -> AsyncIterator[InProcess]:
    port = free_port()
    settings = Settings(redis_url=redis_url, key_prefix=key_prefix, rate=100_000)
    app = create_app(settings)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, ws=FrameWritingProtocol, log_level="warning", lifespan="on"
    )
    async with serving(config):
        yield InProcess(port, app)


async def player(served: InProcess) -> tuple[RawFrames, Any]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{served.port}") as http:
        answer = await http.post("/matches", content=msgspec.json.encode(duel()), timeout=10)
    assert answer.status_code == 201, answer.text
    created = answer.json()
    raw = await RawFrames.connect(served, f"/matches/{created['match_id']}/live")
    await raw.send({"type": "hello", "token": created["tokens"]["a"]})
    await raw.message("welcome")
    runtime = served.app.state.live.runtimes[created["match_id"]]
    (connection,) = runtime.hub.connections
    outlet = connection._outlet
    assert isinstance(outlet, FrameOutlet)
    return raw, outlet._protocol


def ping(nonce: str) -> bytes:
    return RawFrames.client_frame({"type": "ping", "nonce": nonce})


async def text_message(raw: RawFrames) -> dict[str, Any]:
    """The next text frame's message, whatever its type (control frames skipped)."""
    while True:
        received = await raw.frame()
        if received[0] == 0x81:
            decoded: dict[str, Any] = json.loads(received[2 + {126: 2, 127: 8}.get(received[1] & 0x7F, 0) :])
            return decoded


async def pongs(raw: RawFrames, count: int) -> list[str]:
    return [(await raw.message("pong"))[1]["nonce"] for _ in range(count)]


async def test_the_server_reads_plain_frames_itself_once_the_player_is_in(served: InProcess) -> None:
    raw, protocol = await player(served)
    assert protocol.framing  # the websockets parser held nothing after the hello

    # One message sent a byte at a time: left whole for later until it is complete.
    for byte in ping("slow"):
        raw.writer.write(bytes((byte,)))
        await raw.writer.drain()
        await asyncio.sleep(0.001)
    assert await pongs(raw, 1) == ["slow"]

    # A fragmented message, a websocket ping and a binary frame between plain ones: in order.
    text = b'{"type":"ping","nonce":"pieces"}'
    raw.writer.write(
        ping("before")
        + frame(text[:10], fin=False)
        + frame(b"", opcode=0x9)  # a control frame may come between the fragments
        + frame(text[10:], opcode=0x0)
        + frame(b"\x01", opcode=0x2)
        + ping("after")
    )
    await raw.writer.drain()
    answers = [await text_message(raw) for _ in range(4)]
    assert [(m["type"], m.get("nonce") or m.get("code")) for m in answers] == [
        ("pong", "before"),
        ("pong", "pieces"),
        ("error", "binary_frame"),
        ("pong", "after"),
    ]
    assert protocol.framing

    await raw.send({"type": "act", "action_id": "after-all", "action": {"type": "end_phase"}})
    _, ack = await raw.message("ack")
    assert ack["seq"] == 2
    raw.writer.close()


async def test_a_frame_over_the_limit_leaves_it_to_the_websockets_parser(served: InProcess) -> None:
    raw, protocol = await player(served)
    assert protocol.framing
    too_big = protocol.config.ws_max_size + 1
    raw.writer.write(struct.pack("!BBQ", 0x81, 0x80 | 127, too_big) + os.urandom(4))
    await raw.writer.drain()
    closing = await raw.frame()
    assert closing[0] == 0x88  # a close frame, from the websockets parser
    assert struct.unpack("!H", closing[2:4])[0] == 1009  # message too big
    assert not protocol.framing


async def _closing_code(raw: RawFrames) -> int:
    """The code of the close frame the server sends next (other frames skipped)."""
    while True:
        received = await raw.frame()
        if received[0] == 0x88:
            code: int = struct.unpack("!H", received[2:4])[0]
            return code


async def test_a_text_frame_that_is_not_utf8_closes_the_socket_with_1007(served: InProcess) -> None:
    """RFC 6455 section 8.1: a text message must be UTF-8; one that is not fails the connection
    with 1007 (invalid frame payload data), as uvicorn closes it - on the frames the server reads
    itself as on those the websockets parser reads (before the hello). The match carries on for
    everyone else."""
    raw, protocol = await player(served)
    assert protocol.framing
    raw.writer.write(frame(b'{"type":"ping","nonce":"\xff\xfe"}'))
    await raw.writer.drain()
    assert await _closing_code(raw) == 1007
    assert await asyncio.wait_for(raw.reader.read(), 10) == b""  # and the server closed it

    runtime = next(iter(served.app.state.live.runtimes.values()))
    before_hello = await RawFrames.connect(served, f"/matches/{runtime.match_id}/live")
    before_hello.writer.write(frame(b"\xc3\x28"))
    await before_hello.writer.drain()
    assert await _closing_code(before_hello) == 1007

    again, _ = await player(served)  # a new match and player: the server serves on
    again.writer.write(ping("after"))
    await again.writer.drain()
    assert await pongs(again, 1) == ["after"]
    again.writer.close()
