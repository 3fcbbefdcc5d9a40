"""Frame handling shared by the websocket endpoints: error frames and the strict read of the
first message a connection must send (``hello`` on the live socket, ``replay_open`` on the
replay socket)."""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

import msgspec
from starlette.websockets import WebSocket

from ..wire import protocol

First = TypeVar("First")


def error_text(code: str, message: str, fatal: bool = False) -> str:
    """An ``error`` frame, encoded."""
    return protocol.encode(protocol.Error(code=code, message=message, fatal=fatal)).decode()


async def read_first(
    websocket: WebSocket,
    decoder: msgspec.json.Decoder[Any],
    expected: type[First],
    *,
    max_frame: int,
    timeout: float,
    timeout_code: str,
    first_code: str,
) -> First | None:
    """Wait for the connection's first message of type ``expected``. Oversize, malformed and
    other messages before it each get an ``error`` frame and are ignored; no first message in
    ``timeout`` seconds closes the connection (``None``)."""
    name = expected.__struct_config__.tag if issubclass(expected, msgspec.Struct) else expected.__name__
    while True:
        try:
            text = await asyncio.wait_for(websocket.receive_text(), timeout)
        except TimeoutError:
            await websocket.send_text(error_text(timeout_code, f"send {name} first", fatal=True))
            await websocket.close(code=4408)
            return None
        if len(text) > max_frame:
            await websocket.send_text(error_text("too_large", f"frame of {len(text)} bytes > {max_frame}"))
            continue
        try:
            message = decoder.decode(text)
        except msgspec.DecodeError as exc:
            await websocket.send_text(error_text("bad_message", str(exc)))
            continue
        if isinstance(message, expected):
            return message
        got = getattr(getattr(message, "__struct_config__", None), "tag", type(message).__name__)
        await websocket.send_text(error_text(first_code, f"expected {name}, got {got}"))
