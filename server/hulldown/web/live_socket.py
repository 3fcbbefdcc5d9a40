"""The websocket endpoint ``/matches/{id}/live``: hello -> welcome -> patches, acts -> ack/rejected.

Every frame is decoded strictly against the protocol types. Malformed JSON, unknown message
types, oversize frames, spectators trying to act and floods each get a clear ``error`` while the
connection and the match carry on; nothing is appended for them.
"""

from __future__ import annotations

import re
import time

import msgspec
from redis.exceptions import RedisError
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..live import observe
from ..live.hub import Audience, Connection
from ..live.runtime import MatchRuntime
from ..live.service import LiveService
from ..match.rejection import reject
from ..wire import protocol
from .socket_frames import (
    Refused,
    close_store_unavailable,
    decode_frame,
    error_text,
    read_first,
    receive_frame,
)
from .ws_protocol import outlet_for

HELLO_TIMEOUT = 10.0


class RateLimit:
    """A token bucket: ``rate`` messages per second with a burst of twice that."""

    def __init__(self, rate: int) -> None:
        self.rate = float(rate)
        self.capacity = float(rate * 2)
        self.tokens = self.capacity
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


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
        audience = await _authorise(live, match_id, hello)
        if audience == "spectator" and runtime.delayed is not None:
            audience = "delayed"  # the match's delay is enforced for every spectator
        if audience is None:
            await websocket.send_text(_error("unauthorised", "bad token for this match", fatal=True))
            await websocket.close(code=4401)
            return
        with runtime.in_use(), observe.connected(audience):
            await _serve(
                websocket, runtime, audience, hello, settings.send_queue, settings.max_frame, settings.rate
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
    def resync_text() -> str:
        return _resync(runtime, audience, "too far behind")

    connection = Connection(outlet_for(websocket), audience, queue_size, resync_text)

    # Registering and queueing the welcome happen with no await between them, so no patch
    # can fall between the welcome's seq and the first queued patch.
    runtime.hub.add(connection)
    role: protocol.Role = audience if audience in ("a", "b") else "spectator"
    resumed = _patches_after(runtime, audience, hello.resume_from) if hello.resume_from is not None else None
    if resumed is not None:
        for text in resumed:
            connection.push(text)
    else:
        seq, view = _view_text(runtime, audience)
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
    limiter = RateLimit(rate)
    try:
        while True:
            frame = await receive_frame(websocket, max_frame)
            if not limiter.allow():
                connection.push(_error("rate_limited", f"more than {rate} messages per second"))
                continue
            if isinstance(frame, Refused):
                connection.push(frame.text)
                continue
            message = decode_frame(protocol.client_decoder, frame)
            if isinstance(message, Refused):
                connection.push(_unreadable_act(frame, message.problem, role) or message.text)
                continue
            await _handle(message, runtime, connection, role, audience)
    except WebSocketDisconnect:
        pass
    finally:
        runtime.hub.remove(connection)
        connection.close()


class _ActProbe(msgspec.Struct):
    """Just enough of a frame to answer a malformed ``act``: its type and action id."""

    type: str = ""
    action_id: object = None


_probe_decoder = msgspec.json.Decoder(_ActProbe)
BAD_ACTION_RULE = "client-protocol/SPEC.md section 6.2"


def _unreadable_act(text: str, problem: str, role: protocol.Role) -> str | None:
    """A ``rejected`` (code ``bad_action``) for an ``act`` that does not decode but whose
    ``action_id`` can be read: every act gets exactly one ``ack`` or ``rejected``. None when the
    frame is not such an act (it gets the ``bad_message`` error instead)."""
    if role == "spectator":
        return None
    try:
        probe = _probe_decoder.decode(text)
        kind, action_id = probe.type, probe.action_id
    except msgspec.DecodeError:
        return None
    except RecursionError:  # nested too deeply (in the action): read the top level by hand
        top = _top_level_strings(text)
        kind, action_id = top.get("type", ""), top.get("action_id")
    if kind != "act" or not isinstance(action_id, str):
        return None
    refused = reject("bad_action", BAD_ACTION_RULE, f"the act does not decode: {problem}")
    return protocol.encode(
        protocol.Rejected(action_id=action_id, code=refused.code, rule=refused.rule, message=refused.message)
    ).decode()


_JSON_MARKS = re.compile(r'["{}\[\],]')
# The rest of a JSON string after its opening quote: plain characters or escapes, then the
# closing quote (RFC 8259 section 7: no raw control characters inside a string).
_JSON_STRING_REST = re.compile(r'(?:[^"\\\x00-\x1f]|\\.)*"')


def _read_json_string(text: str, at: int) -> tuple[str, int]:
    """The JSON string whose opening quote ends just before ``at``, and the index after its
    closing quote; ``ValueError`` when it is not a well-formed string."""
    rest = _JSON_STRING_REST.match(text, at)
    if rest is None:
        raise ValueError("unterminated string")
    try:
        value = msgspec.json.decode(text[at - 1 : rest.end()], type=str)
    except msgspec.DecodeError as error:
        raise ValueError(str(error)) from error
    return value, rest.end()


def _top_level_strings(text: str) -> dict[str, str]:
    """The string-valued fields of a JSON object's top level, found without decoding what is
    nested in it (however deep). Linear in the text; a frame is at most ``max_frame`` bytes."""
    found: dict[str, str] = {}
    depth, key, at = 0, None, 0
    while (mark := _JSON_MARKS.search(text, at)) is not None:
        ch, at = mark.group(), mark.end()
        if ch == '"':
            try:
                value, at = _read_json_string(text, at)
            except ValueError:
                return found
            if depth == 1:
                if key is None:
                    key = value
                else:
                    found.setdefault(key, value)
                    key = None
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif depth == 1:  # a comma between top-level fields
            key = None
    return found


def _resync(runtime: MatchRuntime, audience: Audience, reason: str) -> str:
    """A ``resync`` frame: the audience's full view as JSON text (cached per seq), spliced in."""
    seq, view = _view_text(runtime, audience)
    return f'{{"type":"resync","seq":{seq},"view":{view},"reason":"{reason}"}}'


def _view_text(runtime: MatchRuntime, audience: Audience) -> tuple[int, str]:
    """The full view ``audience`` may see: a delayed spectator gets the released state only."""
    if audience == "delayed" and runtime.delayed is not None:
        return runtime.delayed.view_text()
    return runtime.view_text()


def _patches_after(runtime: MatchRuntime, audience: Audience, seq: int) -> list[str] | None:
    if audience == "delayed" and runtime.delayed is not None:
        return runtime.delayed.patches_after(seq)
    return runtime.patches_after(seq)


async def _handle(
    message: protocol.ClientMessage,
    runtime: MatchRuntime,
    connection: Connection,
    role: protocol.Role,
    audience: Audience,
) -> None:
    match message:
        case protocol.Act():
            if role == "spectator":
                connection.push(
                    _error("spectators_cannot_act", "spectators watch; only a side's token may act")
                )
                return
            started = time.perf_counter()
            result = await runtime.submit(
                role, message.action, message.action_id, message.expect, answer=connection
            )
            kind = message.action.__struct_config__.tag
            observe.action_done(runtime.match_id, role, str(kind), result, time.perf_counter() - started)
        case protocol.Resume():
            patches = _patches_after(runtime, audience, message.from_seq)
            if patches is None:
                observe.resynced("resume_too_old")
                connection.push(_resync(runtime, audience, "resume too old"))
            else:
                for text in patches:
                    connection.push(text)
        case protocol.Ping():
            connection.push(protocol.encode(protocol.Pong(nonce=message.nonce)).decode())
        case protocol.Hello():
            connection.push(_error("already_hello", "hello was already received on this connection"))
