"""An async client of ``/matches/{id}/live`` (client-protocol/SPEC.md).

- connects as a side (token) or a spectator, and keeps a :class:`LocalView` current by applying
  the patches in seq order;
- ``act()`` gives every action a fresh ``action_id`` (uuid4) and keeps it until the server
  answers: when the connection drops before the ack, the same ``action_id`` is sent again after
  reconnecting, and the server's dedupe turns a second delivery into ``ack(duplicate=true)``
  with the original seq - never a second event;
- a patch whose seq is not the next one is a gap: the client sends ``resume {from_seq}`` and
  ignores patches until the missing ones arrive (a ``resync`` replaces the view whole);
- a lost connection is re-opened with exponential backoff, saying ``hello {resume_from}`` so
  the server sends only the patches missed meanwhile (or a fresh welcome if it can not); the
  fatal error ``store_unavailable`` (close 1013, "try again later") is such a loss, not a refusal;
- ``rate_limited`` means the server dropped one frame sent before the error, without saying
  which: after a pause the client re-sends the unanswered acts (and the outstanding resume) sent
  before it, a few at a time, with one re-send scheduled however many errors arrive.

Readiness: after ``hello`` the client sends ``ping {nonce}``; the server answers frames in
order, so the ``pong`` arrives after the welcome or the resumed patches - from then on the view
is current and pending actions are (re)sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from ..match.actions import Action
from ..wire import protocol
from .backoff import Backoff, GiveUp
from .patch import PatchError
from .view import LocalView

ActResult = protocol.Ack | protocol.Rejected
Listener = Callable[[protocol.ServerMessage], None]
RATE_LIMIT_RETRY = 0.25  # seconds before re-sending what a ``rate_limited`` error may have dropped
RATE_LIMIT_RESEND_BATCH = 10  # frames re-sent per pause: 40 a second, under the server's 50
RETRY_LATER_CODES = frozenset({"store_unavailable"})  # fatal errors that mean "reconnect shortly"
NO_FRAME = 0  # frame marks count from 1 on each connection


class ClientError(Exception):
    """The client can not do what was asked (closed, spectator acting, ...)."""


class FatalError(ClientError):
    """The server refused the connection for good (``error`` with ``fatal: true``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ConnectionLost(ClientError):
    """Reconnecting gave up (the backoff's ``max_attempts`` ran out)."""


class _TryAgainLater(Exception):
    """The server ends this connection but asks to reconnect shortly (``store_unavailable``)."""


@dataclass
class ClientStats:
    """Counters a test or a benchmark can read."""

    connections: int = 0
    welcomes: int = 0
    resyncs: int = 0
    patches: int = 0
    duplicates: int = 0
    gaps: int = 0
    resumes: int = 0
    resent: int = 0
    patch_errors: int = 0
    unknown_messages: int = 0
    errors: list[protocol.Error] = field(default_factory=list)


@dataclass
class _Pending:
    message: protocol.Act
    future: asyncio.Future[ActResult]
    sent_on: int = -1  # the connection number it was last sent on
    sent_mark: int = NO_FRAME  # its frame mark on that connection (see Client._limited_mark)
    callers: int = 0  # act() calls waiting for the answer: the entry lives while one does


class Client:
    """One websocket session to one match, surviving reconnects. Use ``await Client.open(...)``
    or ``async with Client(...) as client``."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        spectator: bool = False,
        spectator_token: str | None = None,
        backoff: Backoff | None = None,
        open_timeout: float = 10.0,
        act_timeout: float = 30.0,
        max_size: int = 2**24,
    ) -> None:
        if (token is None) == (not spectator):
            raise ClientError("give either a side token or spectator=True")
        self.url = url
        self.token = token
        self.spectator = spectator
        self.spectator_token = spectator_token
        self.backoff = backoff or Backoff()
        self.open_timeout = open_timeout
        self.act_timeout = act_timeout
        self.max_size = max_size
        self.view = LocalView()
        self.stats = ClientStats()
        self.match_id: str | None = None
        self.role: protocol.Role | None = None
        self.delay_events = 0
        self.delayed = False  # a spectator of a match with a spectator delay sees it late
        # Test hook: return False to drop an incoming message as if the network lost it.
        self.inbound_filter: Callable[[protocol.ServerMessage], bool] | None = None
        self._listeners: list[Listener] = []
        self._pending: dict[str, _Pending] = {}
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        self._ws: ClientConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._connection_no = 0
        self._ready = False
        self._ready_nonce = ""
        self._resume_from: int | None = None
        self._closing = False
        self._failure: ClientError | None = None
        # Acts and resumes get increasing marks on each connection; a ``rate_limited`` error
        # may have dropped any of them sent up to ``_limited_mark``.
        self._frame_marks = NO_FRAME
        self._limited_mark = NO_FRAME
        self._resume_mark = NO_FRAME
        self._rate_limit_resend: asyncio.Task[None] | None = None

    # ---- lifecycle -------------------------------------------------------------------------

    @classmethod
    async def open(cls, url: str, **options: Any) -> Client:
        client = cls(url, **options)
        await client.connect()
        return client

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def connect(self) -> None:
        """Start the session and wait until the view is current (raises FatalError if the server
        refuses, TimeoutError if it can not be reached in ``open_timeout``)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"hulldown-client {self.url}")
        await self.wait_until(lambda: self._ready, self.open_timeout)

    async def close(self) -> None:
        self._closing = True
        self._fail_pending(ClientError("client closed"))
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._rate_limit_resend is not None:
            self._rate_limit_resend.cancel()

    @property
    def connected(self) -> bool:
        return self._ready

    @property
    def failure(self) -> ClientError | None:
        return self._failure

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener`` with every message the client handles (after it is applied)."""
        self._listeners.append(listener)

    async def drop_connection(self) -> None:
        """Test hook: abort the socket without a closing handshake, as a network failure would;
        the client reconnects by itself."""
        ws = self._ws
        if ws is not None:
            ws.transport.abort()

    # ---- acting ----------------------------------------------------------------------------

    async def act(
        self,
        action: Action | Mapping[str, Any],
        *,
        action_id: str | None = None,
        expect: int | None = None,
        timeout: float | None = None,
    ) -> ActResult:
        """Send an action and wait for the server's answer (``Ack`` or ``Rejected``).

        ``action`` may be an Action struct or its JSON form (checked locally first). Safe to
        call while disconnected: the action goes out when the connection is back, and is sent
        again with the same ``action_id`` until answered. Calling again with the ``action_id``
        of an action still waiting for its answer sends nothing new: the call waits for the same
        answer, with its own timeout (``ClientError`` on ``close()``)."""
        if self.spectator:
            raise ClientError("spectators can not act")
        if self._failure is not None:
            raise self._failure
        if self._closing:
            raise ClientError("client closed")
        typed: Action = msgspec.convert(action, Action) if isinstance(action, Mapping) else action
        action_id = action_id or uuid.uuid4().hex
        pending = self._pending.get(action_id)
        if pending is not None:
            return await self._await_answer(pending, timeout or self.act_timeout)
        future: asyncio.Future[ActResult] = asyncio.get_running_loop().create_future()
        pending = _Pending(protocol.Act(action_id=action_id, action=typed, expect=expect), future)
        self._pending[action_id] = pending
        return await self._await_answer(pending, timeout or self.act_timeout, send_now=self._ready)

    async def _await_answer(self, pending: _Pending, timeout: float, *, send_now: bool = False) -> ActResult:
        """Wait for the answer as one more caller; the last caller to stop waiting (answered,
        timed out, cancelled or closed) forgets the action, so a later answer is dropped."""
        pending.callers += 1
        try:
            if send_now:
                await self._send_act(pending)
            return await asyncio.wait_for(asyncio.shield(pending.future), timeout)
        finally:
            pending.callers -= 1
            action_id = pending.message.action_id
            if pending.callers == 0 and self._pending.get(action_id) is pending:
                del self._pending[action_id]

    def _next_frame_mark(self) -> int:
        self._frame_marks += 1
        return self._frame_marks

    async def _send_quietly(self, ws: ClientConnection, message: protocol.ClientMessage) -> None:
        # A send on a dying socket fails quietly: what is pending is re-sent on reconnect.
        with contextlib.suppress(ConnectionClosed):
            await ws.send(protocol.encode(message).decode())

    async def _send_act(self, pending: _Pending) -> None:
        ws = self._ws
        if ws is None or pending.future.done():
            return
        if pending.sent_on != -1:
            self.stats.resent += 1
        pending.sent_on = self._connection_no
        pending.sent_mark = self._next_frame_mark()
        await self._send_quietly(ws, pending.message)

    async def _send_resume(self, ws: ClientConnection) -> None:
        self._resume_from = self.view.seq
        self._resume_mark = self._next_frame_mark()
        self.stats.resumes += 1
        await self._send_quietly(ws, protocol.Resume(from_seq=self.view.seq))

    async def _resend_pending(self) -> None:
        for pending in list(self._pending.values()):
            if pending.sent_on != self._connection_no:
                await self._send_act(pending)

    # ---- rate_limited: re-send what may have been dropped ----------------------------------

    def _on_rate_limited(self) -> None:
        """One frame sent before this error was dropped (the error does not say which). Every
        error moves the mark; one re-send at a time is scheduled however many errors arrive."""
        self._limited_mark = self._frame_marks
        if self._rate_limit_resend is None:
            self._rate_limit_resend = asyncio.create_task(self._resend_after_rate_limit())

    async def _resend_after_rate_limit(self) -> None:
        try:
            while True:
                await asyncio.sleep(RATE_LIMIT_RETRY)
                if not await self._resend_dropped_batch():
                    return
        finally:
            self._rate_limit_resend = None

    def _acts_maybe_dropped(self) -> list[_Pending]:
        """Acts sent on this connection before the last ``rate_limited`` and still unanswered
        (one whose answer came meanwhile is not re-sent)."""
        return [
            pending
            for pending in self._pending.values()
            if pending.sent_on == self._connection_no
            and pending.sent_mark <= self._limited_mark
            and not pending.future.done()
        ]

    def _resume_maybe_dropped(self) -> bool:
        return self._resume_from is not None and self._resume_mark <= self._limited_mark

    async def _resend_dropped_batch(self) -> bool:
        """Re-send the outstanding resume and up to ``RATE_LIMIT_RESEND_BATCH`` frames in all;
        True while more wait for the next pause. A reconnect re-sends everything anyway."""
        ws = self._ws
        if ws is None or not self._ready:
            return False
        budget = RATE_LIMIT_RESEND_BATCH
        if self._resume_maybe_dropped():
            await self._send_resume(ws)
            budget -= 1
        for pending in self._acts_maybe_dropped()[:budget]:
            await self._send_act(pending)
        return bool(self._acts_maybe_dropped()) or self._resume_maybe_dropped()

    def _fail_pending(self, error: ClientError) -> None:
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(error)
                pending.future.exception()  # mark retrieved: the caller may have timed out

    # ---- waiting ---------------------------------------------------------------------------

    async def wait_until(self, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
        """Wait until ``predicate()`` holds (checked after every message)."""
        if self._failure is not None:
            raise self._failure
        if predicate():
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (predicate, future)
        self._waiters.append(entry)
        try:
            await asyncio.wait_for(future, timeout)
        finally:
            if entry in self._waiters:
                self._waiters.remove(entry)

    async def wait_seq(self, seq: int, timeout: float = 10.0) -> None:
        """Wait until the local view is at ``seq`` or later."""
        await self.wait_until(lambda: self.view.ready and self.view.seq >= seq, timeout)

    def _check_waiters(self) -> None:
        for predicate, future in list(self._waiters):
            if future.done():
                continue
            if self._failure is not None:
                future.set_exception(self._failure)
            elif predicate():
                future.set_result(None)

    # ---- the connection loop ---------------------------------------------------------------

    async def _run(self) -> None:
        while not self._closing:
            try:
                async with websockets.connect(
                    self.url, max_size=self.max_size, open_timeout=self.open_timeout
                ) as ws:
                    self._ws = ws
                    await self._session(ws)
            except FatalError as exc:
                self._give_up(exc)
                return
            except (_TryAgainLater, ConnectionClosed, OSError, TimeoutError, InvalidHandshake, InvalidURI):
                pass
            finally:
                self._ws = None
                self._ready = False
            if self._closing:
                return
            try:
                delay = self.backoff.next_delay()
            except GiveUp as exc:
                self._give_up(ConnectionLost(str(exc)))
                return
            await asyncio.sleep(delay)

    def _give_up(self, error: ClientError) -> None:
        self._failure = error
        self._fail_pending(error)
        self._check_waiters()

    async def _session(self, ws: ClientConnection) -> None:
        self._connection_no += 1
        self._ready_nonce = f"ready-{self._connection_no}"
        self._resume_from = None
        self._frame_marks = self._limited_mark = self._resume_mark = NO_FRAME
        hello = protocol.Hello(
            token=self.token,
            spectator=self.spectator,
            spectator_token=self.spectator_token,
            resume_from=self.view.seq if self.view.ready else None,
        )
        await ws.send(protocol.encode(hello).decode())
        await ws.send(protocol.encode(protocol.Ping(nonce=self._ready_nonce)).decode())
        async for raw in ws:
            try:
                message = protocol.server_decoder.decode(raw)
            except msgspec.DecodeError:
                self.stats.unknown_messages += 1  # SPEC: ignore message types you do not know
                continue
            if self.inbound_filter is not None and not self.inbound_filter(message):
                continue
            await self._handle(ws, message)
            for listener in self._listeners:
                listener(message)
            self._check_waiters()

    async def _handle(self, ws: ClientConnection, message: protocol.ServerMessage) -> None:
        match message:
            case protocol.Patch():
                await self._on_patch(ws, message)
            case protocol.Welcome():
                self.match_id = message.match_id
                self.role = message.role
                self.delay_events = message.delay_events
                self.delayed = message.delayed
                self.view.reset(message.seq, message.view)
                self.stats.welcomes += 1
            case protocol.Resync():
                self.view.reset(message.seq, message.view)
                self._resume_from = None
                self.stats.resyncs += 1
            case protocol.Ack() | protocol.Rejected():
                pending = self._pending.get(message.action_id)
                if pending is not None and not pending.future.done():
                    pending.future.set_result(message)
            case protocol.Pong():
                if message.nonce == self._ready_nonce and not self._ready:
                    self._ready = True
                    self.backoff.reset()
                    self.stats.connections += 1
                    await self._resend_pending()
            case protocol.Error():
                self._on_error(message)

    def _on_error(self, message: protocol.Error) -> None:
        if message.fatal and message.code not in RETRY_LATER_CODES:
            raise FatalError(message.code, message.message)
        self.stats.errors.append(message)
        if message.fatal:
            raise _TryAgainLater(message.code)  # SPEC 6.1: retry shortly (close 1013)
        if message.code == "rate_limited":
            self._on_rate_limited()

    async def _on_patch(self, ws: ClientConnection, message: protocol.Patch) -> None:
        try:
            outcome = self.view.apply(message.seq, message.ops)
        except PatchError:
            # The view and the server disagree: start again from a fresh welcome.
            self.stats.patch_errors += 1
            self.view.clear()
            await ws.close()
            return
        if outcome == "applied":
            self.stats.patches += 1
            self._resume_from = None
        elif outcome == "duplicate":
            self.stats.duplicates += 1
        else:
            self.stats.gaps += 1
            if self.view.ready and self._resume_from != self.view.seq:
                await self._send_resume(ws)
