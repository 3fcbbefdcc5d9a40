"""Lean Redis connections for the two commands of every action: the append and the tail's XREAD.

The store appends on one dedicated connection (``RedisEventStore.begin_append``) and the stream
tailer reads on another (``store/tail.py``). Both skip the layers a pooled redis-py call goes
through (pool checkout, retry wrapper, command packing in Python, a task per call): a command is
packed by hiredis, written straight to an asyncio transport, and its reply parsed by hiredis in
``data_received``, which resolves the caller's future. Replies come back in the order commands
were written, so appends from different matches pipeline on the one connection without a lock.

Bounded, never wedged (docs/limits-and-outages.md):

- connecting gives up after :data:`LEAN_CONNECT_TIMEOUT` seconds (the AUTH/SELECT/SETNAME
  hand-shake after the reply timeout more); one attempt is shared by every caller waiting;
- each command has a deadline: no reply within the connection's reply timeout of being
  written (:data:`APPEND_REPLY_TIMEOUT` for appends; the tailer's block time plus
  ``TAIL_REPLY_MARGIN``) drops the connection - every command in flight on it fails with a
  redis-py ``TimeoutError`` (a ``RedisError``: an act is answered ``store_unavailable``) - and
  the next call connects afresh. Replies come in order, so one timer per connection watches
  the oldest command in flight (no timer is made or cancelled per command). A closed connection (Redis killed) fails its calls with a
  ``ConnectionError`` the same way. There is no retry here: the caller answers at once, and a
  client's resend with the same action id is deduplicated by the append script;
- nothing else uses these connections: health checks (``PING``), reads and snapshots go through
  the store's pooled client, so they never wait behind a hung append.

Used for ``redis://`` and ``unix://`` URLs (the embedded Redis is a unix socket); TLS URLs and a
Redis Cluster keep the redis-py clients (``store/cluster_append.py``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import hiredis
from redis.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .connect import command_observers

log = logging.getLogger("hulldown.store")

# Seconds: connecting (TCP or unix socket) to Redis gives up after this long.
LEAN_CONNECT_TIMEOUT = 2.0
# Seconds: a command on the append connection that has no reply this long after it was written
# fails, and the connection is dropped (the next append reconnects). Equal to the pooled
# clients' socket timeout (store/connect.py); there is no retry, so an act in flight during a
# Redis hang is answered within about this long.
APPEND_REPLY_TIMEOUT = 2.0

LEAN_SCHEMES = ("redis", "unix")

Command = tuple[bytes | str | int, ...]


@dataclass(frozen=True, slots=True)
class LeanAddress:
    """Where a lean connection goes, from a ``redis://`` or ``unix://`` URL."""

    host: str = "localhost"
    port: int = 6379
    path: str | None = None  # a unix socket
    db: int = 0
    username: str | None = None
    password: str | None = None

    @classmethod
    def from_url(cls, url: str) -> LeanAddress | None:
        """The address of a plain ``redis://``/``unix://`` URL; None for any other URL (TLS,
        cluster), which keeps the redis-py client."""
        if urlsplit(url).scheme not in LEAN_SCHEMES:
            return None
        parsed: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
        return cls(
            host=str(parsed.get("host", "localhost")),
            port=int(parsed.get("port", 6379)),
            path=parsed.get("path"),
            db=int(parsed.get("db", 0) or 0),
            username=parsed.get("username"),
            password=parsed.get("password"),
        )


Then = Callable[[], None]


class _Pending:
    """A command (or a batch of them) written and waiting for its reply (their replies)."""

    __slots__ = ("future", "left", "replies", "then", "written")

    def __init__(self, future: asyncio.Future[Any], written: float, count: int, then: Then | None) -> None:
        self.future = future
        self.written = written  # the loop's time when it was written (for the reply timeout)
        self.then = then  # called right after the future is resolved, from data_received
        self.left = count  # replies still to come
        self.replies: list[Any] | None = [] if count > 1 else None


class _RespProtocol(asyncio.Protocol):
    """One connection: writes packed commands, parses replies in order with hiredis."""

    def __init__(self, owner: LeanConnection) -> None:
        self._owner = owner
        self._reader = hiredis.Reader(protocolError=InvalidResponse, replyError=ResponseError)
        self.transport: asyncio.Transport | None = None
        self.pending: deque[_Pending] = deque()
        self.closed = False
        # One timer watches the oldest command in flight (replies come in order), instead of a
        # timer per command; it is armed while commands are in flight (LeanConnection._watch).
        self.watchdog: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is no asyncio.Transport

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        reader.feed(data)
        pending = self.pending
        while pending:
            reply = reader.gets()
            if reply is False:
                return
            done = pending[0]
            replies = done.replies
            if replies is not None:  # a batch: its future gets every reply, in order
                replies.append(reply)
                done.left -= 1
                if done.left:
                    continue
                reply = replies
            pending.popleft()
            _resolve(done, reply, None)
        if reader.gets() is not False:  # a reply nobody asked for: the stream is out of step
            self.fail(RedisConnectionError("unexpected reply on a lean Redis connection"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(RedisConnectionError(f"a lean Redis connection closed ({exc or 'EOF'})"))

    def fail(self, error: Exception) -> None:
        """Fail every command in flight and close the connection (idempotent)."""
        if not self.closed:
            self.closed = True
            if self.watchdog is not None:
                self.watchdog.cancel()
                self.watchdog = None
            if self.transport is not None:
                self.transport.abort()
            self._owner._lost(self)
        while self.pending:
            _resolve(self.pending.popleft(), None, error)


def _resolve(done: _Pending, reply: Any, error: Exception | None) -> None:
    """Settle a command's future with its reply (or ``error``), then tell its ``then``."""
    future = done.future
    if not future.done():  # its caller may have been cancelled
        if error is None:
            future.set_result(reply)
        else:
            future.set_exception(error)
    if done.then is not None:
        try:
            done.then()
        except Exception:  # the caller's own failure must not stop this connection's replies
            log.exception("a lean Redis connection's reply callback failed")


class LeanConnection:
    """One dedicated connection (see the module docstring); ``reply_timeout`` in seconds."""

    def __init__(
        self,
        address: LeanAddress,
        *,
        reply_timeout: float,
        client_name: str,
        connect_timeout: float = LEAN_CONNECT_TIMEOUT,
    ) -> None:
        self.address = address
        self.connect_timeout = connect_timeout
        self.reply_timeout = reply_timeout
        self.client_name = client_name
        self._protocol: _RespProtocol | None = None
        self._connecting: asyncio.Task[_RespProtocol] | None = None
        self._opening: _RespProtocol | None = None  # the connection whose hand-shake runs
        self._closed = False
        self.connects = 0  # connections made so far (a reconnect after a drop adds one)

    @property
    def connected(self) -> bool:
        return self._protocol is not None and not self._protocol.closed

    # -- calls ----------------------------------------------------------------------------

    async def send(self, command: Command) -> asyncio.Future[Any]:
        """Write ``command`` now (connecting first if need be) and return the future of its
        reply, which fails on a timeout or a lost connection. Await the future to get it; an
        error reply is returned as a ``ResponseError`` instance, not raised."""
        protocol = self._protocol
        if protocol is None or protocol.closed:
            protocol = await self._connection()
        return self._write(protocol, (command,))

    def send_now(self, command: Command, then: Then | None = None) -> asyncio.Future[Any] | None:
        """Write ``command`` now if the connection is open, without awaiting anything (for
        callers on a callback of the loop); None, with nothing written, when it is not (then
        :meth:`send` connects first). ``then`` is called as soon as the future is settled,
        from the connection's own callback (the future's callbacks run a loop turn later)."""
        protocol = self._open_now()
        if protocol is None:
            return None
        return self._write(protocol, (command,), then)

    def send_batch_now(
        self, commands: tuple[Command, ...], then: Then | None = None
    ) -> asyncio.Future[list[Any]] | None:
        """:meth:`send_now` for several commands in one write (a ``MULTI`` ... ``EXEC``
        transaction, say): the future of the list of their replies, in order."""
        protocol = self._open_now()
        if protocol is None:
            return None
        return self._write(protocol, commands, then)

    def _open_now(self) -> _RespProtocol | None:
        """The connection, if it is open and not closing right now."""
        protocol = self._protocol
        if protocol is None or protocol.closed:
            return None
        transport = protocol.transport
        if transport is None or transport.is_closing():
            return None
        return protocol

    async def call(self, command: Command) -> Any:
        """Send ``command`` and wait for its reply; an error reply raises ``ResponseError``."""
        reply = await (await self.send(command))
        if isinstance(reply, ResponseError):
            raise reply
        return reply

    def _write(
        self, protocol: _RespProtocol, commands: tuple[Command, ...], then: Then | None = None
    ) -> asyncio.Future[Any]:
        """Write ``commands`` in one write; one future for their reply (a list of the replies
        when there are several)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        protocol.pending.append(_Pending(future, loop.time(), len(commands), then))
        if protocol.watchdog is None:
            protocol.watchdog = loop.call_later(self.reply_timeout, self._watch, protocol)
        transport = protocol.transport
        assert transport is not None
        if protocol.closed or transport.is_closing():
            # Closed under its caller (between the connect and this write, say): the command
            # fails, a loop turn later, so that ``then`` is not called before this returns.
            loop.call_soon(protocol.fail, RedisConnectionError(f"{self.client_name} closed"))
            return future
        # hiredis' stub types the argument as a 1-tuple; it takes any number of arguments.
        packed = [hiredis.pack_command(command) for command in commands]  # type: ignore[arg-type]
        transport.write(packed[0] if len(packed) == 1 else b"".join(packed))
        return future

    def _watch(self, protocol: _RespProtocol) -> None:
        """The watchdog: the oldest command in flight has had no reply for ``reply_timeout``
        seconds - drop the connection - or else look again when it will have."""
        protocol.watchdog = None
        if not protocol.pending:
            return
        if protocol.closed:  # commands left on a closed connection fail now
            protocol.fail(RedisConnectionError(f"{self.client_name} closed"))
            return
        loop = asyncio.get_running_loop()
        left = protocol.pending[0].written + self.reply_timeout - loop.time()
        if left > 0:
            protocol.watchdog = loop.call_later(left, self._watch, protocol)
            return
        self._timed_out(protocol)

    def _timed_out(self, protocol: _RespProtocol) -> None:
        protocol.fail(
            RedisTimeoutError(
                f"no reply from Redis within {self.reply_timeout}s on {self.client_name} "
                "(dropped; the next command reconnects)"
            )
        )

    def _lost(self, protocol: _RespProtocol) -> None:
        if self._protocol is protocol:
            self._protocol = None

    # -- connecting -----------------------------------------------------------------------

    async def _connection(self) -> _RespProtocol:
        if self._closed:
            raise RedisConnectionError(f"{self.client_name} is closed")
        task = self._connecting
        if task is None:
            task = asyncio.create_task(self._connect(), name="hulldown-append-connect")
            self._connecting = task
            task.add_done_callback(self._connected)
        # Shielded: a caller that gives up does not cancel the attempt the others wait for.
        return await asyncio.shield(task)

    def _connected(self, task: asyncio.Task[_RespProtocol]) -> None:
        if self._connecting is task:
            self._connecting = None
        if not task.cancelled():
            task.exception()  # retrieved here: a failed attempt is reported to its waiters

    async def _connect(self) -> _RespProtocol:
        protocol = _RespProtocol(self)
        self._opening = protocol
        try:
            return await self._open(protocol)
        finally:
            self._opening = None

    async def _open(self, protocol: _RespProtocol) -> _RespProtocol:
        loop = asyncio.get_running_loop()
        address = self.address
        try:
            if address.path is not None:
                opened = loop.create_unix_connection(lambda: protocol, address.path)
            else:
                opened = loop.create_connection(lambda: protocol, address.host, address.port)
            transport, _ = await asyncio.wait_for(opened, self.connect_timeout)
        except (OSError, TimeoutError) as exc:
            raise RedisConnectionError(f"cannot connect {self.client_name} to Redis: {exc!r}") from exc
        # Another event loop (uvloop) may call connection_made only after the connection is
        # returned: the transport is the one it returned, either way.
        protocol.transport = transport
        handshake: list[Command] = []
        if address.password is not None:
            if address.username is not None:
                handshake.append(("AUTH", address.username, address.password))
            else:
                handshake.append(("AUTH", address.password))
        if address.db:
            handshake.append(("SELECT", address.db))
        handshake.append(("CLIENT", "SETNAME", self.client_name))
        replies = await asyncio.gather(*(self._write(protocol, (command,)) for command in handshake))
        for reply in replies:
            if isinstance(reply, ResponseError):
                protocol.fail(RedisConnectionError(f"{self.client_name} hand-shake: {reply}"))
                raise reply
        if self._closed:
            protocol.fail(RedisConnectionError(f"{self.client_name} is closed"))
            raise RedisConnectionError(f"{self.client_name} is closed")
        if protocol.closed:  # Redis closed it right after the hand-shake (a restart, CLIENT KILL)
            raise RedisConnectionError(f"{self.client_name}: Redis closed the connection as it opened")
        self._protocol = protocol
        self.connects += 1
        return protocol

    async def close(self) -> None:
        """Close for good: commands in flight fail with a ``ConnectionError``."""
        self._closed = True
        closed = RedisConnectionError(f"{self.client_name} is closed")
        opening, task = self._opening, self._connecting
        if opening is not None and opening.transport is not None:
            opening.fail(closed)  # its hand-shake fails, and so do the callers waiting on it
        elif task is not None:
            task.cancel()
        protocol, self._protocol = self._protocol, None
        if protocol is not None:
            protocol.fail(closed)


def report_command(name: str, started: float, error: BaseException | None) -> None:
    """Tell the command observers (the server's metrics) about a command on a lean connection
    that started at ``started`` (``time.perf_counter()``)."""
    if command_observers:
        seconds = time.perf_counter() - started
        for observer in command_observers:
            observer(name, seconds, error)
