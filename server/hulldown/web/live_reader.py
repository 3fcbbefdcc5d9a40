"""What one live socket receives, handled in order as it is read (docs/architecture.md section 6).

A :class:`LiveReader` takes a connection's messages one by one - from the socket's own receive
callback when the server hands them over directly (``web/ws_protocol.py``), else from the
app's receive loop - and answers each before the next: the rate limit, the size limit, the
strict decode, then the message itself. Nothing here awaits. An act is started with
``MatchRuntime.submit_now`` (decided and its append written right away; Redis' reply commits
and answers it) or, when it needs to wait for something, in a task
(``MatchRuntime.submit_later``). Until an act is answered the reader holds the messages read after it
(up to ``RECEIVE_BACKLOG``, or one larger than ``READ_AHEAD_BYTES``, before reading pauses),
so a connection's acts are applied one by one, each on the state the one before made.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import deque
from collections.abc import Callable

import msgspec

from ..live import observe
from ..live.hub import Audience, Connection
from ..live.runtime import MatchRuntime
from ..match.rejection import reject
from ..wire import protocol
from .rate_limit import RateLimit
from .socket_frames import Refused, checked_frame, decode_frame, error_text
from .ws_protocol import READ_AHEAD_BYTES, RECEIVE_BACKLOG

log = logging.getLogger("hulldown.web")

BAD_ACTION_RULE = "client-protocol/SPEC.md section 6.2"

Answer = protocol.Ack | protocol.Rejected

SPECTATORS_CANNOT_ACT = "spectators watch; only a side's token may act"


class LiveReader:
    """The incoming side of one live connection (see the module docstring).

    ``pause``/``resume`` stop and restart reading from the socket (None: the caller reads one
    message at a time anyway); ``fail`` is told of an exception that ends the connection."""

    def __init__(
        self,
        runtime: MatchRuntime,
        connection: Connection,
        audience: Audience,
        *,
        max_frame: int,
        rate: int,
        fail: Callable[[BaseException], None],
        pause: Callable[[], None] | None = None,
        resume: Callable[[], None] | None = None,
    ) -> None:
        self.runtime = runtime
        self.connection = connection
        self.audience = audience
        self.role: protocol.Role = audience if audience in ("a", "b") else "spectator"
        self.max_frame = max_frame
        self.rate = rate
        self.limiter = RateLimit(rate)
        self._fail = fail
        self._pause = pause
        self._resume = resume
        self.backlog: deque[str | bytes] = deque()
        self.paused = False
        self.busy = False  # an act of this connection is being answered
        self.closed = False
        self._idle: asyncio.Future[None] | None = None

    # ---- reading ---------------------------------------------------------------------------

    def feed(self, message: str | bytes) -> None:
        """The next message read from the socket: handled now, or after the act in progress."""
        if self.closed:
            return
        if self.busy or self.backlog:
            self.backlog.append(message)
            if len(self.backlog) >= RECEIVE_BACKLOG or len(message) > READ_AHEAD_BYTES:
                self._pause_reading()
            return
        self._guarded(message)

    async def idle(self) -> None:
        """Wait until every message fed so far has been answered (or the reader closed)."""
        while (self.busy or self.backlog) and not self.closed:
            self._idle = asyncio.get_running_loop().create_future()
            await self._idle

    def close(self) -> None:
        """The connection is gone: drop what waits; an act in progress still completes."""
        self.closed = True
        self.backlog.clear()
        self._wake_idle()

    def _guarded(self, message: str | bytes) -> None:
        try:
            self._handle(message)
        except Exception as exc:
            self._failed(exc)

    def _failed(self, exc: BaseException) -> None:
        self.busy = False
        self.close()
        if not isinstance(exc, asyncio.CancelledError):  # the server is shutting down
            self._fail(exc)

    def _drain(self) -> None:
        """Handle what waits until an act makes the connection wait again."""
        backlog = self.backlog
        while backlog and not self.busy and not self.closed:
            self._guarded(backlog.popleft())
        if not backlog:
            self._resume_reading()
        self._wake_idle()

    def _pause_reading(self) -> None:
        if not self.paused and self._pause is not None:
            self.paused = True
            self._pause()

    def _resume_reading(self) -> None:
        if self.paused and self._resume is not None:
            self.paused = False
            self._resume()

    def _wake_idle(self) -> None:
        idle = self._idle
        if idle is not None and not idle.done() and (self.closed or not (self.busy or self.backlog)):
            idle.set_result(None)

    # ---- one message -----------------------------------------------------------------------

    def _handle(self, message: str | bytes) -> None:
        frame = checked_frame(message, self.max_frame)
        push = self.connection.push
        if not self.limiter.allow():
            push(error_text("rate_limited", f"more than {self.rate} messages per second"))
            return
        if isinstance(frame, Refused):
            push(frame.text)
            return
        decoded = decode_frame(protocol.client_decoder, frame)
        if isinstance(decoded, Refused):
            push(_unreadable_act(frame, decoded.problem, self.role) or decoded.text)
            return
        match decoded:
            case protocol.Act():
                self._act(decoded)
            case protocol.Resume():
                patches = patches_after(self.runtime, self.audience, decoded.from_seq)
                if patches is None:
                    observe.resynced("resume_too_old")
                    ahead = decoded.from_seq > latest_seq(self.runtime, self.audience)
                    # A resume beyond what this client may see was answered "resume too old".
                    push(
                        resync_text(
                            self.runtime, self.audience, "resume ahead" if ahead else "resume too old"
                        )
                    )
                else:
                    for text in patches:
                        push(text)
            case protocol.Ping():
                push(protocol.encode(protocol.Pong(nonce=decoded.nonce)).decode())
            case protocol.Hello():
                push(error_text("already_hello", "hello was already received on this connection"))

    def _act(self, message: protocol.Act) -> None:
        role = self.role
        if role == "spectator":
            self.connection.push(error_text("spectators_cannot_act", SPECTATORS_CANNOT_ACT))
            return
        started = time.perf_counter()
        kind = str(message.action.__struct_config__.tag)

        def done(result: Answer | BaseException) -> None:
            self._acted(kind, started, result)

        self.busy = True
        act = (role, message.action, message.action_id, message.expect, self.connection, done)
        if not self.runtime.submit_now(*act):
            self.runtime.submit_later(*act)

    def _acted(self, kind: str, started: float, result: Answer | BaseException) -> None:
        """An act of this connection was answered (or failed): record it, then go on reading."""
        if isinstance(result, BaseException):
            self._failed(result)
            return
        observe.action_done(self.runtime.match_id, self.role, kind, result, time.perf_counter() - started)
        self.busy = False
        self._drain()


# ---- answers shared with the socket's set-up ---------------------------------------------------


def resync_text(runtime: MatchRuntime, audience: Audience, reason: str) -> str:
    """A ``resync`` frame: the audience's full view as JSON text (cached per seq), spliced in."""
    seq, view = view_text(runtime, audience)
    return f'{{"type":"resync","seq":{seq},"view":{view},"reason":"{reason}"}}'


def view_text(runtime: MatchRuntime, audience: Audience) -> tuple[int, str]:
    """The full view ``audience`` may see: a delayed spectator gets the released state only."""
    if audience == "delayed" and runtime.delayed is not None:
        return runtime.delayed.view_text()
    return runtime.view_text()


def latest_seq(runtime: MatchRuntime, audience: Audience) -> int:
    """The newest seq ``audience`` may see (a delayed spectator's trails the match)."""
    if audience == "delayed" and runtime.delayed is not None:
        return runtime.delayed.state.seq
    return runtime.state.seq


def patches_after(runtime: MatchRuntime, audience: Audience, seq: int) -> list[str] | None:
    if audience == "delayed" and runtime.delayed is not None:
        return runtime.delayed.patches_after(seq)
    return runtime.patches_after(seq)


# ---- an act that does not decode ---------------------------------------------------------------


class _ActProbe(msgspec.Struct):
    """Just enough of a frame to answer a malformed ``act``: its type and action id."""

    type: str = ""
    action_id: object = None


_probe_decoder = msgspec.json.Decoder(_ActProbe)


def _unreadable_act(text: str, problem: str, role: protocol.Role) -> str | None:
    """A ``rejected`` (code ``bad_action``) for an ``act`` that does not decode but whose
    ``action_id`` can be read: every act gets exactly one ``ack`` or ``rejected``; from a
    spectator, the ``spectators_cannot_act`` error any act of theirs gets (it was told
    ``bad_message``, as if fixing the act would help). None when the frame is not such an act (it
    gets the ``bad_message`` error instead)."""
    try:
        probe = _probe_decoder.decode(text)
        kind, action_id = probe.type, probe.action_id
    except msgspec.DecodeError:
        return None
    except RecursionError:  # nested too deeply (in the action): read the top level by hand
        top = _top_level_strings(text)
        kind, action_id = top.get("type", ""), top.get("action_id")
    if kind == "act" and role == "spectator":
        return error_text("spectators_cannot_act", SPECTATORS_CANNOT_ACT)
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
