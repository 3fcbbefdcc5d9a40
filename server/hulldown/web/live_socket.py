"""The websocket endpoint ``/matches/{id}/live``: hello -> welcome -> patches, acts -> ack/rejected.

Every frame is decoded strictly against the protocol types. Malformed JSON, unknown message
types, oversize frames, spectators trying to act and floods each get a clear ``error`` while the
connection and the match carry on; nothing is appended for them.

After the welcome, the connection's messages are handled by a ``LiveReader``
(``web/live_reader.py``): under ``hulldown serve`` the socket hands each message to it as it is
read (``web/ws_protocol.py``); under another ASGI server this coroutine reads them one by one.
"""

from __future__ import annotations

import logging

from redis.exceptions import RedisError
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..live import observe
from ..live.hub import Audience, Connection
from ..live.runtime import MatchRuntime
from ..live.service import LiveService
from ..wire import protocol
from .live_reader import LiveReader, patches_after, resync_text, view_text
from .socket_frames import (
    close_store_unavailable,
    error_text,
    read_first,
    received_data,
)
from .ws_protocol import FrameOutlet, outlet_for

log = logging.getLogger("hulldown.web")

HELLO_TIMEOUT = 10.0


_error = error_text


async def live_socket(websocket: WebSocket) -> None:
    live: LiveService = websocket.app.state.live
    settings = websocket.app.state.settings
    match_id = websocket.path_params["match_id"]
    await websocket.accept()
    try:
        hello = await _read_hello(websocket, settings.max_frame)
        if hello is None:
            return
        if hello.protocol != protocol.PROTOCOL_VERSION:
            await websocket.send_text(
                _error(
                    "unsupported_protocol",
                    f"this server speaks protocol {protocol.PROTOCOL_VERSION}, the client asked for {hello.protocol}",
                    fatal=True,
                )
            )
            await websocket.close(code=4400)
            return
        runtime = await live.get(match_id)
        if runtime is None:
            await websocket.send_text(_error("unknown_match", f"no match {match_id}", fatal=True))
            await websocket.close(code=4404)
            return
        # In use from here (nothing awaited since ``get``): the match cannot be evicted from the
        # process while the token is checked, leaving this socket on a runtime nobody follows.
        with runtime.in_use():
            audience = await _authorise(live, match_id, hello)
            if audience == "spectator" and runtime.delayed is not None:
                audience = "delayed"  # the match's delay is enforced for every spectator
            if audience is None:
                await websocket.send_text(_error("unauthorised", "bad token for this match", fatal=True))
                await websocket.close(code=4401)
                return
            with observe.connected(audience):
                await _serve(
                    websocket,
                    runtime,
                    audience,
                    hello,
                    settings.send_queue,
                    settings.max_frame,
                    settings.rate,
                )
    except WebSocketDisconnect:
        return
    except RedisError as exc:
        await close_store_unavailable(websocket, exc)


async def _read_hello(websocket: WebSocket, max_frame: int) -> protocol.Hello | None:
    return await read_first(
        websocket,
        protocol.client_decoder,
        protocol.Hello,
        max_frame=max_frame,
        timeout=HELLO_TIMEOUT,
        timeout_code="hello_timeout",
        first_code="hello_first",
    )


async def _authorise(live: LiveService, match_id: str, hello: protocol.Hello) -> Audience | None:
    if hello.token is not None:
        side = await live.authenticate(match_id, hello.token)
        return side
    if hello.spectator and await live.spectator_allowed(match_id, hello.spectator_token):
        return "spectator"
    return None


async def _serve(
    websocket: WebSocket,
    runtime: MatchRuntime,
    audience: Audience,
    hello: protocol.Hello,
    queue_size: int,
    max_frame: int,
    rate: int,
) -> None:
    def resync() -> str:
        return resync_text(runtime, audience, "too far behind")

    outlet = outlet_for(websocket)
    connection = Connection(outlet, audience, queue_size, resync)

    # Registering and queueing the welcome happen with no await between them, so no patch
    # can fall between the welcome's seq and the first queued patch.
    runtime.hub.add(connection)
    try:  # whatever fails from here, the connection leaves the hub
        role: protocol.Role = audience if audience in ("a", "b") else "spectator"
        resumed = (
            patches_after(runtime, audience, hello.resume_from) if hello.resume_from is not None else None
        )
        if resumed is not None:
            for text in resumed:
                connection.push(text)
        else:
            seq, view = view_text(runtime, audience)
            delay = runtime.delayed
            delayed = (
                f'"delay_events":{delay.events},"delay_seconds":{delay.seconds},"delayed":true'
                if delay is not None and audience == "delayed"
                else '"delay_events":0,"delay_seconds":0.0,"delayed":false'
            )
            connection.push(
                f'{{"type":"welcome","match_id":"{runtime.match_id}","role":"{role}","seq":{seq},'
                f'"view":{view},"protocol":{protocol.PROTOCOL_VERSION},{delayed}}}'
            )
        if isinstance(outlet, FrameOutlet):
            await _read_directly(websocket, outlet, runtime, connection, audience, max_frame, rate)
        else:
            await _read_in_turn(websocket, runtime, connection, audience, max_frame, rate)
    except WebSocketDisconnect:
        pass
    finally:
        runtime.hub.remove(connection)
        connection.close()


async def _read_directly(
    websocket: WebSocket,
    outlet: FrameOutlet,
    runtime: MatchRuntime,
    connection: Connection,
    audience: Audience,
    max_frame: int,
    rate: int,
) -> None:
    """The socket hands every message to the reader as it reads it; this coroutine only waits
    for the connection to end."""

    def fail(exc: BaseException) -> None:
        log.error("live socket of match %s failed", runtime.match_id, exc_info=exc)
        outlet.abort()

    reader = LiveReader(
        runtime,
        connection,
        audience,
        max_frame=max_frame,
        rate=rate,
        fail=fail,
        pause=outlet.pause_reading,
        resume=outlet.resume_reading,
    )
    outlet.receive_directly(reader.feed)
    try:
        while (message := await _received(websocket)) is not None:
            reader.feed(message)  # (only what reached the app's queue before the hand-over)
    finally:
        reader.close()


async def _read_in_turn(
    websocket: WebSocket,
    runtime: MatchRuntime,
    connection: Connection,
    audience: Audience,
    max_frame: int,
    rate: int,
) -> None:
    """Under an ASGI server without the direct hand-over: read a message, let the reader answer
    it, then read the next. An exception that stops the reader ends the connection."""
    failed: list[BaseException] = []
    reader = LiveReader(runtime, connection, audience, max_frame=max_frame, rate=rate, fail=failed.append)
    try:
        while (message := await _received(websocket)) is not None:
            reader.feed(message)
            await reader.idle()
            if failed:
                raise failed[0]
    finally:
        reader.close()


async def _received(websocket: WebSocket) -> str | bytes | None:
    """The next message the app receives, None once the client has gone."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        return None
    return received_data(message)
