"""Appends written on the store's lean connection whose reply is still to come
(docs/architecture.md section 5).

:class:`LeanAppend` is the append script's call (``EVALSHA``: dedupe, version check, ``XADD``);
:class:`PrivateAppend` the plain transaction a private store's runtime writes instead, having
made both checks itself (``MULTI``, ``XADD``, ``HSET``, ``EXEC``). Both are read the same way: the
result at once from the reply's callback when it is an ordinary one (:meth:`settled_now`), or,
awaited, whatever it takes to get one (:meth:`finish`).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from redis.exceptions import RedisError, ResponseError

from .decode import as_int, as_str
from .lean_connection import Command, LeanConnection, report_command
from .results import AppendResult, AppendStatus
from .scripts import script_source

_STATUSES: dict[str, AppendStatus] = {
    "appended": "appended",
    "duplicate": "duplicate",
    "conflict": "conflict",
}


class PendingAppend(Protocol):
    """An append written and not answered yet (either kind below)."""

    @property
    def reply(self) -> asyncio.Future[Any]: ...

    def settled_now(self) -> AppendResult | None: ...

    async def finish(self) -> AppendResult: ...


def append_result(reply: Any) -> AppendResult:
    """The append script's reply ``{status, seq}`` as a result."""
    return AppendResult(status=_STATUSES[as_str(reply[0])], seq=as_int(reply[1]))


class LeanAppend:
    """An append written on the lean connection whose reply is still to come."""

    __slots__ = ("_args", "_keys", "_lean", "_started", "reply")

    def __init__(
        self,
        lean: LeanConnection,
        reply: asyncio.Future[Any],
        keys: list[str],
        args: list[bytes | str | int],
        started: float,
    ) -> None:
        self._lean = lean
        self.reply = reply
        self._keys = keys
        self._args = args
        self._started = started

    def settled_now(self) -> AppendResult | None:
        """The result, when the reply is in and is one; None while it is not in, and when it
        is an error, a lost script (``NOSCRIPT``: Redis restarted, or its script cache was
        flushed) or a failure: :meth:`finish` then deals with it (loads the script again,
        raises the error). Never raises."""
        reply = self.reply
        if not reply.done() or reply.cancelled() or reply.exception() is not None:
            return None
        value = reply.result()
        if isinstance(value, ResponseError):
            return None
        report_command("EVALSHA", self._started, None)
        return append_result(value)

    async def finish(self) -> AppendResult:
        """Await the reply (and send the script again after ``NOSCRIPT``); the result."""
        try:
            reply = await self.reply
            if isinstance(reply, ResponseError) and _lost_script(reply):
                reply = await self._lean.call(
                    ("EVAL", script_source("append.lua"), 2, *self._keys, *self._args)
                )
            if isinstance(reply, ResponseError):
                raise reply
        except RedisError as exc:
            report_command("EVALSHA", self._started, exc)
            raise
        report_command("EVALSHA", self._started, None)
        return append_result(reply)


def _lost_script(reply: ResponseError) -> bool:
    return str(reply).startswith("NOSCRIPT")


def private_append_commands(
    events: str, dedupe: str, seq: int, payload: bytes, action_id: str
) -> tuple[Command, ...]:
    """The transaction of a private store's append: event ``seq`` and its action id, together.
    ``HSETNX``: an action id already recorded keeps its seq, even when ``XADD`` refuses the seq
    (a retry of an append that landed though its reply was lost)."""
    return (
        ("MULTI",),
        ("XADD", events, f"0-{seq}", "e", payload),
        ("HSETNX", dedupe, action_id, seq),
        ("EXEC",),
    )


class PrivateAppend:
    """A private store's append in flight: ``MULTI``, ``XADD 0-<seq>``, ``HSETNX`` of the action
    id, ``EXEC``, in one write. Its runtime is the only writer of the stream (the embedded
    Redis: one process owns it) and checked the version and the action id itself; ``XADD``'s own
    rule - an entry id must be above the stream's last - still refuses a seq that is taken. Such
    a refusal (the stream changed behind the runtime's back) is a ``conflict``, and the action id,
    if this transaction wrote it, is taken out again before that is reported (one recorded
    before, by the append that landed, stays)."""

    __slots__ = ("_action_id", "_dedupe", "_lean", "_seq", "_started", "reply")

    def __init__(
        self,
        lean: LeanConnection,
        reply: asyncio.Future[list[Any]],
        dedupe: str,
        action_id: str,
        seq: int,
        started: float,
    ) -> None:
        self._lean = lean
        self.reply = reply
        self._dedupe = dedupe
        self._action_id = action_id
        self._seq = seq
        self._started = started

    def _appended(self, replies: list[Any]) -> bool | None:
        """True: appended; False: ``XADD`` refused the seq; None: the transaction failed."""
        executed = replies[-1]
        if not isinstance(executed, list) or len(executed) != 2:
            return None  # EXECABORT, or an error reply in place of the transaction's
        return not isinstance(executed[0], ResponseError)

    def settled_now(self) -> AppendResult | None:
        """The result when the reply is in and the event was appended; None otherwise
        (:meth:`finish` deals with it). Never raises."""
        reply = self.reply
        if not reply.done() or reply.cancelled() or reply.exception() is not None:
            return None
        if not self._appended(reply.result()):
            return None
        report_command("EXEC", self._started, None)
        return AppendResult("appended", self._seq)

    async def finish(self) -> AppendResult:
        """Await the reply: ``appended``, or ``conflict`` when ``XADD`` refused the seq (the
        action id taken out again first); a failed transaction raises its error."""
        try:
            replies = await self.reply
            appended = self._appended(replies)
            if appended is None:
                failed = replies[-1]
                raise failed if isinstance(failed, RedisError) else ResponseError(f"EXEC answered {failed!r}")
            if not appended and replies[-1][1] == 1:  # HSETNX wrote the action id
                await self._lean.call(("HDEL", self._dedupe, self._action_id))
        except RedisError as exc:
            report_command("EXEC", self._started, exc)
            raise
        report_command("EXEC", self._started, None)
        return AppendResult("appended", self._seq) if appended else AppendResult("conflict", self._seq - 1)
