"""The websocket protocol ``hulldown serve`` runs under uvicorn, and the outlets the hub writes to.

:class:`FrameWritingProtocol` is uvicorn's own websockets sans-I/O protocol (``ws="websockets-
sansio"``, what uvicorn's ``auto`` picks) with one addition: it puts a :class:`FrameOutlet` in the
connection's ASGI scope (extension :data:`FRAME_OUTLET`). Through it the hub writes ready-made
frame bytes straight to the socket's transport - one frame built per broadcast, shared by every
socket - instead of Starlette -> uvicorn -> websockets framing the same text again per socket
(docs/architecture.md section 6, bench/fanout.py).

A socket that negotiated per-message deflate cannot take a shared frame (its frames are compressed
with its own context): its outlet frames each message through the socket's own websockets
protocol, compressed, on the same write path. Deflate is off by default (``HULLDOWN_WS_DEFLATE``).

Under any other ASGI server there is no such extension and :func:`outlet_for` falls back to a
:class:`TextOutlet`: one writer task awaiting Starlette's ``send_text`` one message at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, cast

from starlette.websockets import WebSocket
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import State

from ..live.hub import Express, Outlet
from ..live.outgoing import Outgoing
from .client_frames import TooLarge, split_frames

POLICY_VIOLATION = 1008  # websocket close code: a TextOutlet's socket that does not read its answers
FRAME_OUTLET = "hulldown.frame_outlet"  # the ASGI scope extension that carries the outlet


def _never_drained() -> None:
    return None


# A close of a websocket connection whose buffered bytes have not gone out this many seconds
# later becomes an abort: the peer stopped reading, so they never will, and a plain close would
# wait for them for ever - the connection, its app task and its queue held with it. The abort
# ends the connection, and the app hears of the disconnect (docs/limits-and-outages.md).
CLOSE_FLUSH_TIMEOUT = 5.0


class ClosingTransport:
    """The transport as uvicorn's protocol holds it: the real one, except that ``close`` also
    arms an abort after CLOSE_FLUSH_TIMEOUT unless the connection is gone by then. Whoever closes
    - the keepalive's ping timeout, the app's close after its close timeout, a protocol error -
    the connection ends. The hub's frames go to the real transport (:class:`FrameOutlet`)."""

    __slots__ = ("_abort_armed", "_protocol", "transport")

    def __init__(self, transport: asyncio.Transport, protocol: FrameWritingProtocol) -> None:
        self.transport = transport
        self._protocol = protocol
        self._abort_armed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.transport.write(data)

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def pause_reading(self) -> None:
        self.transport.pause_reading()

    def resume_reading(self) -> None:
        self.transport.resume_reading()

    def abort(self) -> None:
        self.transport.abort()

    def close(self) -> None:
        self.transport.close()
        if not self._abort_armed:
            self._abort_armed = True
            asyncio.get_running_loop().call_later(CLOSE_FLUSH_TIMEOUT, self._abort_if_open)

    def _abort_if_open(self) -> None:
        if not self._protocol.disconnected:
            self.transport.abort()

    def __getattr__(self, name: str) -> Any:  # the rest of the transport's interface
        return getattr(self.transport, name)


# A TLS transport's high-water mark: it pauses the protocol once it holds this many bytes of the
# app's (not yet encrypted, or encrypted and not yet handed to the socket's own transport, which
# buffers on its own terms beneath), so 1 pauses it as soon as a byte stays.
TLS_PAUSE_AT = 1


class FrameOutlet:
    """Writes whole frames to one uvicorn websocket connection's transport."""

    __slots__ = ("_compressed", "_drained", "_protocol", "_tls", "_transport", "paused")

    def __init__(self, protocol: FrameWritingProtocol) -> None:
        self._protocol = protocol
        self._transport = protocol.raw_transport
        # Extensions are settled by the handshake (before the outlet exists).
        self._compressed = bool(protocol.conn.extensions)
        # Its bytes are encrypted below the transport (TLS): settled when the socket was accepted.
        self._tls = self._transport.get_extra_info("sslcontext") is not None
        self._drained: Callable[[], None] = _never_drained
        self.paused = False  # the transport holds bytes it could not write yet

    @property
    def closed(self) -> bool:
        protocol = self._protocol
        return protocol.close_sent or protocol.disconnected or self._transport.is_closing()

    def express(self) -> Express | None:
        """This transport and its socket's descriptor, for shared frames written directly
        (hub.Connection.express); none for a socket that compresses its messages, nor for one
        whose bytes are encrypted below the transport (TLS)."""
        transport = self._transport
        if self._compressed or self._tls:
            return None
        sock = transport.get_extra_info("socket")
        if sock is None:
            return None
        return (transport, self._protocol, self, sock.fileno())

    def attach(self, drained: Callable[[], None]) -> None:
        self._drained = drained
        # Pause (and later resume) the protocol as soon as a single byte stays buffered: "the
        # write buffer is empty" is then exactly "not paused", and resuming means fully drained.
        # A clear transport pauses once it holds more than ``high`` bytes; a TLS transport
        # (asyncio's and uvloop's) once it holds ``high`` or more, so 0 would pause it after
        # every write with nothing held, and nothing would resume it.
        self._transport.set_write_buffer_limits(high=TLS_PAUSE_AT if self._tls else 0, low=0)

    def detach(self) -> None:
        self._drained = _never_drained
        # asyncio's defaults, for uvicorn's own sends - unless the connection is gone (a client
        # that dropped without a close frame): uvloop refuses any call on a closed transport.
        if not self._transport.is_closing():
            self._transport.set_write_buffer_limits()

    def send(self, message: Outgoing, then: Outgoing | None = None) -> bool:
        transport = self._transport
        if transport.is_closing() or self._protocol.close_sent:
            return False
        if self._compressed:  # per-message deflate: this socket frames (and compresses) its own
            conn = self._protocol.conn
            if conn.state is not State.OPEN:
                return False
            conn.send_text(message.payload)
            if then is not None:
                conn.send_text(then.payload)
            transport.write(b"".join(conn.data_to_send()))
        elif then is None:
            transport.write(message.frame)
        else:  # two frames, one write
            transport.write(message.frame + then.frame)
        return not self.paused

    def receive_directly(self, deliver: Callable[[str | bytes], None]) -> None:
        """From now on, hand every message the socket receives to ``deliver`` as it is read,
        in order, instead of queueing it for the app's ``receive`` (which then only learns of
        the disconnect); messages already queued are handed over first."""
        self._protocol.receive_directly(deliver)

    def pause_reading(self) -> None:
        """Stop reading from the socket (what the client sends waits in the kernel)."""
        self._protocol.pause_reading_now()

    def resume_reading(self) -> None:
        self._protocol.resume_reading_now()

    def abort(self) -> None:
        """Close the connection at once (the app failed on it): what is buffered is dropped."""
        self._transport.abort()

    def pause(self) -> None:
        self.paused = True

    def resume(self) -> None:
        self.paused = False
        if not self.closed:
            self._drained()


# Reading from a socket is paused once this many received messages wait for the app to take
# them, or once one larger than READ_AHEAD_BYTES waits; uvicorn pauses after every message (and
# resumes when the app takes it): two ``epoll_ctl`` system calls per message, on the path of every
# act (docs/architecture.md section 6). What a connection holds read ahead stays about what it
# held before: a few small messages besides the one large one uvicorn would hold.
RECEIVE_BACKLOG = 8
READ_AHEAD_BYTES = 4096


class FrameWritingProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets sans-I/O protocol plus a :class:`FrameOutlet` in the ASGI scope,
    reading paused only when the messages waiting for the app are many or large, and messages
    handed straight to the app's reader once it asks for them (:meth:`receive_directly`)."""

    outlet: FrameOutlet | None = None
    deliver: Callable[[str | bytes], None] | None = None
    raw_transport: asyncio.Transport  # what ``transport`` wraps (a ClosingTransport)

    # Reading frames ourselves (web/client_frames.py) once messages go to the reader; what is
    # read of a frame not complete yet waits here.
    framing = False
    _unparsed = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.raw_transport = cast(asyncio.Transport, transport)
        super().connection_made(cast(asyncio.Transport, ClosingTransport(self.raw_transport, self)))

    def receive_directly(self, deliver: Callable[[str | bytes], None]) -> None:
        self.deliver = deliver
        conn = self.conn
        # Read frames ourselves only when the websockets parser holds nothing, waits for the
        # start of a frame and is in no fragmented message: it then never sees half a frame.
        self.framing = not conn.extensions and _fragment_free(conn) and _at_frame_boundary(conn)
        queue, kept = self.queue, []
        was_paused, self.read_paused = self.read_paused, False
        while not queue.empty():
            message = queue.get_nowait()
            if message["type"] == "websocket.receive":
                text = message.get("text")
                deliver(text if text is not None else message.get("bytes") or b"")
            else:  # the disconnect stays for the app's receive
                kept.append(message)
        for message in kept:
            queue.put_nowait(message)
        if was_paused and not self.read_paused:
            self.transport.resume_reading()

    def pause_reading_now(self) -> None:
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()

    def resume_reading_now(self) -> None:
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        if not self.framing:
            super().data_received(data)
            return
        buffer = self._unparsed + data if self._unparsed else data
        used = split_frames(
            buffer, self.config.ws_max_size, self._plain_ok, self._plain_text, self._other_frame
        )
        if isinstance(used, TooLarge):  # the websockets parser refuses it (close 1009)
            self.framing, self._unparsed = False, b""
            super().data_received(buffer[used.at :])
            return
        self._unparsed = buffer[used:]

    def _plain_ok(self) -> bool:
        conn = self.conn
        return (
            conn.state is State.OPEN
            and not self.close_sent
            and conn.parser_exc is None
            and _fragment_free(conn)
        )

    def _plain_text(self, payload: bytes) -> None:
        deliver = self.deliver
        assert deliver is not None  # reading frames ourselves starts with the hand-over
        self._hand_over(deliver, payload, "text")

    def _other_frame(self, frame: bytes) -> None:
        """A frame for the websockets parser, whole: uvicorn handles what it makes of it."""
        super().data_received(frame)
        if self.conn.parser_exc is not None or self.conn.state is not State.OPEN:
            self.framing = False  # it failed the connection or is closing it: all its own now

    def send_receive_event_to_app(self) -> None:
        deliver = self.deliver
        if deliver is not None:
            self._deliver(deliver)
            return
        if self.read_paused:
            super().send_receive_event_to_app()
            return
        size = sum(len(part) for part in self.frames)
        # uvicorn's method queues the message, then pauses reading unless it is paused already:
        # it is marked paused for the call, and really paused only when the backlog is full or
        # the message large. ``receive`` resumes reading once the app has taken every message.
        self.read_paused = True
        super().send_receive_event_to_app()
        if self.queue.qsize() >= RECEIVE_BACKLOG or size > READ_AHEAD_BYTES:
            self.transport.pause_reading()
        else:
            self.read_paused = False

    def _deliver(self, deliver: Callable[[str | bytes], None]) -> None:
        """uvicorn's ``send_receive_event_to_app``, handing the message to ``deliver``."""
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        self._hand_over(deliver, data, self.curr_msg_data_type)

    def _hand_over(self, deliver: Callable[[str | bytes], None], data: bytes, kind: str) -> None:
        if self.close_sent:
            return  # past the app's close: discarded, as uvicorn does
        if kind != "text":
            deliver(bytes(data))
            return
        try:
            text = data.decode()
        except UnicodeDecodeError:  # as uvicorn: close 1007 (invalid frame payload data)
            self.logger.exception("Invalid UTF-8 sequence received from client.")
            self.conn.send_close(1007)
            self.handle_parser_exception()
            return
        deliver(text)

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope: Any = getattr(self, "scope", None)  # set only when the handshake is accepted
        if scope is not None and self.response.status_code == 101:
            self.outlet = FrameOutlet(self)
            scope["extensions"][FRAME_OUTLET] = self.outlet

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.outlet is not None:
            self.outlet.pause()

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.outlet is not None:
            self.outlet.resume()


def _fragment_free(conn: Any) -> bool:
    """The websockets protocol is in no fragmented message (``current_size``; ``cur_size``
    before websockets 13): False when neither is known."""
    return getattr(conn, "current_size", getattr(conn, "cur_size", 0)) is None


def _at_frame_boundary(conn: Any) -> bool:
    """The websockets parser has nothing buffered and waits for the first byte of a frame: its
    generator is suspended in ``at_eof`` (websockets' ``Protocol.parse`` loop), not part way
    through a frame. False whenever that cannot be seen (another websockets version)."""
    reader = getattr(conn, "reader", None)
    if reader is None or len(getattr(reader, "buffer", b"x")):
        return False
    generator = getattr(conn, "parser", None)
    while generator is not None:
        inner = getattr(generator, "gi_yieldfrom", None)
        if inner is None:
            return False
        if getattr(inner, "__name__", "") == "at_eof":
            return getattr(inner, "gi_yieldfrom", None) is None
        generator = inner
    return False


class TextOutlet:
    """For ASGI servers without the frame outlet: a writer task per message, awaiting
    ``send_text``; the socket counts as pushed back until that send finished."""

    def __init__(
        self, send_text: Callable[[str], Awaitable[None]], close: Callable[[int], Awaitable[None]]
    ) -> None:
        self._send_text = send_text
        self._close = close
        self._drained: Callable[[], None] = _never_drained
        self._writing: asyncio.Task[None] | None = None
        self._aborting: asyncio.Future[None] | None = None
        self.closed = False

    def express(self) -> None:
        return None  # every message goes through a writer task

    def attach(self, drained: Callable[[], None]) -> None:
        self._drained = drained

    def detach(self) -> None:
        self._drained = _never_drained
        if self._writing is not None:
            self._writing.cancel()

    def send(self, message: Outgoing, then: Outgoing | None = None) -> bool:
        if self.closed:
            return False
        texts = (message.text,) if then is None else (message.text, then.text)
        self._writing = asyncio.ensure_future(self._write(texts))
        return False

    def abort(self) -> None:
        """Stop writing and close the socket (policy violation, 1008)."""
        if self.closed:
            return
        self.closed = True
        self.detach()
        self._aborting = asyncio.ensure_future(self._close_quietly())

    async def _close_quietly(self) -> None:
        with contextlib.suppress(Exception):  # the socket may be gone already
            await self._close(POLICY_VIOLATION)

    async def _write(self, texts: tuple[str, ...]) -> None:
        try:
            for text in texts:
                await self._send_text(text)
        except Exception:  # the socket is gone; the receive loop ends the connection
            self.closed = True
            return
        self._writing = None
        self._drained()


def outlet_for(websocket: WebSocket) -> Outlet:
    """The fastest outlet the server offers for this (accepted) websocket."""
    outlet: FrameOutlet | None = websocket.scope.get("extensions", {}).get(FRAME_OUTLET)
    if outlet is not None:
        return outlet
    return TextOutlet(websocket.send_text, websocket.close)
