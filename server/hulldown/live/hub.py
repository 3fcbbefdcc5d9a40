"""Fan-out: one frame, many sockets, and a bounded queue per connection (docs/architecture.md
section 6).

A broadcast is one :class:`~.outgoing.Outgoing`: its websocket frame is built once and the same
bytes are written to every socket of the audience whose write buffer is empty - synchronously, no
task, no coroutine. A socket that takes only part of a frame (the rest waits in its transport)
has pushed back: later messages wait in that connection's queue until its outlet reports it has
drained. A queue that would grow past its capacity has its patches replaced by one ``resync`` (a
fresh full view, built when the socket drains; the connection's own answers stay queued after
it, and a socket whose own answers alone fill the queue is closed): a slow consumer never slows
the others, and the patches broadcast while a resync is pending are dropped (the resync's view
contains them).

The players come first: a broadcast reaches side ``a`` and side ``b`` before any spectator, and
spectators in the order they joined.

Where the bytes go is an :class:`Outlet` (the web layer's): uvicorn's transport itself, or, under
an ASGI server without that hook, a writer task awaiting ``send_text`` one message at a time.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Callable
from typing import Literal, Protocol

from . import observe
from .outgoing import Outgoing

log = logging.getLogger(__name__)

Audience = Literal["a", "b", "spectator", "delayed"]

_PLAYERS_FIRST: tuple[Audience, ...] = ("a", "b", "spectator", "delayed")  # broadcast order
LIVE_AUDIENCES: tuple[Audience, ...] = ("a", "b", "spectator")


class Transport(Protocol):
    """The part of an asyncio transport the fan-out's express lane uses."""

    def is_closing(self) -> bool: ...

    def write(self, data: bytes) -> None: ...


class Closing(Protocol):
    """The socket's protocol, as far as the express lane looks at it."""

    close_sent: bool  # a close frame was sent: nothing may follow it


class Pushback(Protocol):
    """The outlet, as far as the express lane looks at it."""

    paused: bool  # the socket pushed back: part of what was written waits in the transport


# The transport, what says it is closing, what says it pushed back, and its socket's file
# descriptor: a frame is written to that descriptor itself while the transport holds nothing.
Express = tuple[Transport, Closing, Pushback, int]


class Outlet(Protocol):
    """Where one connection's messages are written."""

    def express(self) -> Express | None:
        """The transport a shared frame can be written to directly, what says whether the socket
        was closed or pushed back, and the socket's file descriptor; None when every message
        must go through ``send`` (a socket that compresses or encrypts its messages, or one
        written through a task)."""
        ...

    @property
    def closed(self) -> bool:
        """The socket is gone (or closing): nothing more will be written."""
        ...

    def attach(self, drained: Callable[[], None]) -> None:
        """Call ``drained`` whenever the socket has taken everything written to it after a
        ``send`` returned False (and it is still open)."""
        ...

    def detach(self) -> None:
        """Stop calling ``drained``."""
        ...

    def send(self, message: Outgoing, then: Outgoing | None = None) -> bool:
        """Write ``message`` now (and ``then`` right after it, in the same write where the socket
        allows); False when the socket pushed back (part of it waits to be written: wait for
        ``drained``) or is closed."""
        ...

    def abort(self) -> None:
        """Close the socket at once, dropping what waits to be written."""
        ...


class Connection:
    """One websocket's outgoing side: writes straight through while the socket keeps up, else a
    bounded queue (``capacity`` messages, 0 = unbounded) drained when the socket catches up."""

    __slots__ = (
        "_clear",
        "_express",
        "_outlet",
        "_resync",
        "audience",
        "capacity",
        "closed",
        "express",
        "pending",
        "resync_due",
        "resyncs",
    )

    def __init__(
        self,
        outlet: Outlet,
        audience: Audience,
        capacity: int,
        resync: Callable[[], str],
    ) -> None:
        self._outlet = outlet
        self._resync = resync
        self.audience = audience
        self.capacity = capacity
        self.pending: deque[Outgoing] = deque()
        self.resync_due = False  # the queue overflowed: a resync goes out before anything queued
        self.resyncs = 0
        self.closed = False
        # Nothing queued, no resync due, the outlet took everything: the next message goes
        # straight out. The one flag the fan-out's per-socket step tests.
        self._clear = True
        # The fan-out's express lane (Hub.broadcast): the socket's transport and its outlet's
        # state while the connection is clear, None otherwise (or when the outlet has none).
        self._express = outlet.express()
        self.express = self._express
        outlet.attach(self._drained)

    def push(self, text: str) -> None:
        """A message for this connection alone (welcome, ack, error...): send or queue it."""
        self.send(Outgoing(text))

    def send(self, message: Outgoing, then: Outgoing | None = None) -> None:
        """Send ``message`` (and ``then`` after it, in one write) now if the socket keeps up,
        else queue it (a full queue turns into one resync)."""
        if self._clear:
            if not self._outlet.send(message, then):
                self._pushed_back()
            return
        self._queue(message)
        if then is not None:
            self._queue(then)

    def _queue(self, message: Outgoing) -> None:
        if self.closed:
            return
        if message.shared and self.resync_due:
            return  # the resync about to be sent is a view that already contains it
        if 0 < self.capacity <= len(self.pending):
            self._overflow()
            if self.closed or message.shared:
                return
        self.pending.append(message)

    def _pushed_back(self) -> None:
        self._clear = False
        self.express = None
        if self._outlet.closed:
            self.close()

    def _overflow(self) -> None:
        """The queue is full: its shared messages (patches) give way to one resync, whose view
        contains them; the connection's own messages (acks, rejections, errors, pongs: answers
        to what the client sent) stay, in order, after it - no answer is ever dropped. When they
        alone fill the queue, the client has sent that many messages without reading an answer:
        the socket is closed."""
        own = [message for message in self.pending if not message.shared]
        if len(own) >= self.capacity:
            observe.queue_overflowed(resync=False)
            log.warning(
                "a %s socket sent %d messages without reading their answers: closed", self.audience, len(own)
            )
            self.close()
            self._outlet.abort()
            return
        observe.queue_overflowed()
        self.resyncs += 1
        self.pending.clear()
        self.pending.extend(own)
        self.resync_due = True

    def _drained(self) -> None:
        """The socket took everything: write what waits until it pushes back again or nothing
        is left."""
        outlet, pending = self._outlet, self.pending
        while not self.closed:
            if self.resync_due:
                self.resync_due = False
                message = Outgoing(self._resync())
            elif pending:
                message = pending.popleft()
            else:
                self._clear = True
                self.express = self._express
                return
            if not outlet.send(message):
                if outlet.closed:
                    self.close()
                return

    def close(self) -> None:
        """Stop sending: whatever is queued is dropped."""
        self.closed = True
        self._clear = False
        self.express = None
        self.pending.clear()
        self.resync_due = False
        self._outlet.detach()


class Hub:
    """The connections of one match, by audience (each in the order it joined)."""

    def __init__(self) -> None:
        self._audiences: dict[Audience, dict[Connection, None]] = {a: {} for a in _PLAYERS_FIRST}

    @property
    def connections(self) -> list[Connection]:
        return [c for members in self._audiences.values() for c in members]

    def add(self, connection: Connection) -> None:
        self._audiences[connection.audience][connection] = None

    def remove(self, connection: Connection) -> None:
        self._audiences[connection.audience].pop(connection, None)

    def broadcast(
        self,
        text: str,
        audiences: tuple[Audience, ...] = LIVE_AUDIENCES,
        answer: tuple[Connection, Outgoing] | None = None,
    ) -> None:
        """Send ``text`` to every connection of ``audiences``, players first: one frame, built
        on the first socket that needs it, written to all (or queued where a socket is behind).

        ``answer``: the connection whose act made this patch and its answer (the ack). It is
        served first of all, the patch and the ack in one write, so the player who acted waits
        for nobody and its socket takes one write, not two."""
        message = Outgoing(text, shared=True)
        actor = None
        if answer is not None:
            actor, reply = answer
            actor.send(message, reply)
        frame = message.frame
        size = len(frame)
        write = os.write
        for audience in _PLAYERS_FIRST:
            if audience in audiences:
                # Nothing here awaits, so no connection joins or leaves during the loop.
                for connection in self._audiences[audience]:
                    if connection is actor:
                        continue
                    # The express lane: a clear socket that takes shared frames gets this one
                    # written right here (what Connection.send and the outlet would do, without
                    # their calls: bench/fanout.py). A clear socket's transport holds nothing,
                    # so the frame goes to its descriptor itself, in order; whatever the socket
                    # does not take at once goes to the transport, which holds it (the outlet
                    # is then paused) or reports the socket's failure.
                    express = connection.express
                    if express is not None:
                        transport, protocol, outlet, fd = express
                        if not transport.is_closing() and not protocol.close_sent:
                            try:
                                written = write(fd, frame)
                            except OSError:  # it would block, or the socket failed
                                written = 0
                            if written != size:
                                transport.write(frame[written:])  # the whole frame when none went
                                if outlet.paused:
                                    connection._pushed_back()
                            continue
                    connection.send(message)

    def count(self, audience: Audience | None = None) -> int:
        if audience is None:
            return sum(len(members) for members in self._audiences.values())
        return len(self._audiences[audience])
