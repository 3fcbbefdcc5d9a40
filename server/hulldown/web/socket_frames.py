"""Frame handling shared by the websocket endpoints: error frames, reading one frame so that
every frame gets an answer, and the strict read of the first message a connection must send
(``hello`` on the live socket, ``replay_open`` on the replay socket).

Every frame a client sends is answered or acted on; none closes the connection by itself
(docs/limits-and-outages.md): a binary frame gets ``binary_frame``, a frame over the size limit
(counted in UTF-8 bytes) ``too_large``, JSON that does not decode - including JSON nested too
deeply for the decoder - ``bad_message``. Only frames over the websocket layer's own hard limit
(:data:`WS_HARD_LIMIT_FACTOR` times ours) are refused by the layer itself (close code 1009).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..wire import protocol
from .json_errors import json_problem

First = TypeVar("First")
log = logging.getLogger("hulldown.web")

STORE_UNAVAILABLE_CLOSE = 1013  # "try again later"

# The websocket layer (uvicorn) closes a connection on a frame over its own limit before we see
# it; it is set this many times above our ``max_frame`` so that oversize frames reach us and get
# ``too_large`` instead (``hulldown serve`` passes it to uvicorn).
WS_HARD_LIMIT_FACTOR = 16
WS_HARD_LIMIT_MIN = 4 * 1024 * 1024


def ws_hard_limit(max_frame: int) -> int:
    """The websocket layer's own frame limit for our ``max_frame`` (bytes)."""
    return max(WS_HARD_LIMIT_MIN, max_frame * WS_HARD_LIMIT_FACTOR)


def error_text(code: str, message: str, fatal: bool = False) -> str:
    """An ``error`` frame, encoded."""
    return protocol.encode(protocol.Error(code=code, message=message, fatal=fatal)).decode()


@dataclass(frozen=True, slots=True)
class Refused:
    """A frame that is answered with this ``error`` frame instead of being decoded."""

    text: str
    problem: str = ""


def utf8_size(text: str, limit: int) -> int:
    """The UTF-8 size of ``text`` in bytes (exact whenever it might exceed ``limit``)."""
    if len(text) * 4 <= limit:
        return len(text)  # even all 4-byte characters would fit: no need to encode
    return len(text.encode("utf-8", "surrogatepass"))


async def receive_frame(websocket: WebSocket, max_frame: int) -> str | Refused:
    """The next text frame, or the error that answers it (binary or too large). Raises
    ``WebSocketDisconnect`` when the client has gone."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    return checked_frame(received_data(message), max_frame)


def received_data(message: Any) -> str | bytes:
    """The text (or, of a binary frame, the bytes) of an ASGI ``websocket.receive`` message."""
    text: str | None = message.get("text")
    if text is not None:
        return text
    data: bytes = message.get("bytes") or b""
    return data


def checked_frame(message: str | bytes, max_frame: int) -> str | Refused:
    """A received message as a text frame to decode, or the error that answers it: a binary
    frame, or one over ``max_frame`` bytes."""
    if not isinstance(message, str):
        return Refused(
            error_text(
                "binary_frame",
                f"a binary frame of {len(message)} bytes: send each message as a JSON text frame",
            )
        )
    size = utf8_size(message, max_frame)
    if size > max_frame:
        return Refused(error_text("too_large", f"frame of {size} bytes > {max_frame}"))
    return message


def decode_frame(decoder: msgspec.json.Decoder[Any], text: str) -> Any | Refused:
    """Decode a frame strictly; ``bad_message`` (naming the problem) if it does not decode."""
    try:
        return decoder.decode(text)
    except msgspec.DecodeError as exc:
        problem = json_problem(exc, text)
        return Refused(error_text("bad_message", problem), problem)
    except RecursionError:
        problem = "JSON nested too deeply"
        return Refused(error_text("bad_message", problem), problem)


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
    """Wait for the connection's first message of type ``expected``. Binary, oversize, malformed
    and other messages before it each get an ``error`` frame and are ignored; no first message
    in ``timeout`` seconds closes the connection (``None``)."""
    name = expected.__struct_config__.tag if issubclass(expected, msgspec.Struct) else expected.__name__
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        try:
            if left <= 0:
                raise TimeoutError
            frame = await asyncio.wait_for(receive_frame(websocket, max_frame), left)
        except TimeoutError:
            await websocket.send_text(error_text(timeout_code, f"send {name} first", fatal=True))
            await websocket.close(code=4408)
            return None
        message = frame if isinstance(frame, Refused) else decode_frame(decoder, frame)
        if isinstance(message, Refused):
            await websocket.send_text(message.text)
            continue
        if isinstance(message, expected):
            return message
        got = getattr(getattr(message, "__struct_config__", None), "tag", type(message).__name__)
        await websocket.send_text(error_text(first_code, f"expected {name}, got {got}"))


async def close_store_unavailable(websocket: WebSocket, exc: Exception) -> None:
    """The store failed under this connection: a fatal, retryable ``store_unavailable`` error
    frame, then close 1013 (try again later). The client reconnects and resumes."""
    log.warning("store unavailable on %s: %r", websocket.url.path, exc)
    with contextlib.suppress(Exception):
        await websocket.send_text(
            error_text("store_unavailable", "the match store is unavailable; reconnect shortly", fatal=True)
        )
        await websocket.close(code=STORE_UNAVAILABLE_CLOSE)
