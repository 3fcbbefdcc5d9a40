"""One match as this process serves it: the folded state, recent patches and its hub.

Validate-then-append is serialised per match by a lock; the Lua version check in the store
stops writers in other processes (docs/architecture.md sections 1 and 17). Every new event -
appended here or read from the stream by the tailer - is folded exactly once, in seq order, and its
patch is encoded once and fanned out.

The fold is the history-aware one (``match/history.py``): an undo or a granted takeback restores
an earlier state, loaded through :class:`StateSource` (memory, else snapshot + fold) before the
pure fold runs. An action is folded *before* it is appended, so the event written to the stream
carries the dice it revealed, and the hash of the state it was folded onto (h3, match/hashing.py),
worked out after the act before it was sent (``hulldown verify`` checks both).
When a fold ends the match, the runtime appends the seed reveal (the seed is secret until then).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator

import msgspec
from redis.exceptions import RedisError

from ..match import doc_refs
from ..match.actions import Action, TakebackRequest
from ..match.events import Event, EventBody, SeedRevealed, decode_event
from ..match.hashing import base_hash
from ..match.history import StateAt
from ..match.identity_cache import LastOne
from ..match.rejection import Rejection, reject
from ..match.state import MatchState, Side
from ..match.validate import validate
from ..match.views import view_json, view_patch
from ..rules.dice import Dice
from ..store.keys import dedupe_field
from ..store.pending_append import PendingAppend
from ..store.redis_store import RedisEventStore
from ..store.results import AppendResult
from ..store.snapshots import should_snapshot
from ..wire import protocol
from . import metrics, observe
from .deciding import Decided, decide, fold_for_append
from .delayed import DelayedFeed
from .hub import Connection, Hub
from .match_lock import MatchLock
from .outgoing import Outgoing
from .rules_pool import inline_now, rules_kind, run_inline, run_rules_for, run_rules_of_kind
from .states import StateSource

log = logging.getLogger("hulldown.live")

# Patches of one match kept for resuming clients; one further behind gets a resync (a full view).
RECENT_PATCHES = 256
OUTAGES_RULE = "docs/limits-and-outages.md"
MAX_APPEND_RETRIES = 5
REVEAL_ACTION_ID = "system-reveal-seed"
# Seconds a commit's follow-up work - the hash the next act will carry - waits after the patch
# went out, so that the clients the patch woke, and what other sockets sent meanwhile, go first
# (docs/architecture.md section 7). An act that comes sooner works its hash out itself. 2 ms:
# longer than the 1.1 ms of CPU the peer harness' spectator process spends reading one patch on
# its 100 sockets, and short beside the time players take to act.
FOLLOW_UP_DELAY = 0.002
# Seconds a due snapshot waits after the patch went out. Encoding the whole state and writing it
# (which wakes Redis) is the largest follow-up work: at 2 ms it landed while the spectators'
# process was still reading the patch, on the 1 act in 100 that makes a snapshot - where the last
# spectator's p99 is. 20 ms is past that reading, and nothing waits for a snapshot: a load that
# finds none yet folds from the one before (docs/architecture.md section 7).
SNAPSHOT_DELAY = 0.02
DELAY_READ_PAGE = 4096  # events read back at a time to find where a delayed view starts

state_encoder = msgspec.json.Encoder()
state_decoder = msgspec.json.Decoder(MatchState)


class MatchRuntime:
    """The live state of one match in this process."""

    def __init__(
        self,
        store: RedisEventStore,
        match_id: str,
        seed: bytes,
        state: MatchState,
        *,
        snapshot_every: int,
    ) -> None:
        self.store = store
        self.match_id = match_id
        self._seed = seed
        self.state = state
        self.snapshot_every = snapshot_every
        self.lock = MatchLock()
        self._fold_lock = asyncio.Lock()
        self.hub = Hub()
        self.recent: deque[tuple[int, str]] = deque(maxlen=RECENT_PATCHES)
        self.view_text_cache: tuple[int, str] | None = None
        self.states = StateSource(store, match_id, seed)
        self.states.remember(state)
        self.delayed: DelayedFeed | None = None
        self._changed: asyncio.Event | None = None  # made when someone waits (``changed``)
        # The event this process is appending, the state it makes and its bytes, while the append
        # is in flight: the tailer may deliver it first, and it is neither decoded nor folded twice.
        self._inflight: Decided | None = None
        # The store's every action id of this match with its seq, kept by the runtime of a
        # private store (no other writer, LiveService): its acts are appended without the
        # append script, the runtime having checked the version and the action id itself.
        self.action_ids: dict[str, int] | None = None
        # An append failed with the store (no reply, a lost connection): it may have landed,
        # so the state may trail the stream. Until a catch-up, acts take the awaited path, which
        # catches up first: a private store's runtime must not decide on a state that trails.
        self._may_trail = False
        # Acts started by submit_now that finish in a task (kept here while they run).
        self._finishing: set[asyncio.Future[None]] = set()
        # Snapshots are saved in the background after the ack, one at a time per match; a newer
        # one due meanwhile waits here (only the latest), older ones due meanwhile are skipped.
        self._snapshot_task: asyncio.Task[None] | None = None
        self._snapshot_next: MatchState | None = None
        # Connections using this runtime (live and replay sockets) and when it was last used:
        # an idle runtime with no users may be evicted from the process (LiveService.evict_idle).
        self.users = 0
        self.last_used = time.monotonic()
        # Told the state anyone may see whenever it changes (keeps the match list current).
        self.on_visible: Callable[[MatchState], None] | None = None
        # The h3 hash of a state (match/hashing.py): the next event appended onto it carries it.
        # Worked out once the state is committed and its patch sent (``_hash_soon``), so an act
        # does not wait for it; an act decided before then works it out itself.
        self._hashed: LastOne[MatchState, str] = LastOne()
        self._hash_timer: asyncio.TimerHandle | None = None
        # The rules version of the match's creation event (match/rules_version.py), read from
        # the stream when first asked (LiveService.rules_version).
        self.rules_version: int | None = None

    # ---- folding -------------------------------------------------------------------------

    async def advance(self, event: Event) -> bool:
        """Fold ``event`` if it is the next one; returns whether it was applied."""
        async with self._fold_lock:
            if event.seq != self.state.seq + 1:
                return False
            inflight = self._inflight
            patch = None
            if inflight is not None and _same_event(inflight.event, event):
                # Our own append, read back by the tailer before the append's reply came in:
                # the state it makes was folded already.
                after, patch = inflight.after, inflight.patch
            else:
                after, _ = await self._fold(self.state, event)
            self._commit(event, after, patch)
            self._note_action_id(event)
            self.last_used = time.monotonic()
            return True

    def _note_action_id(self, event: Event) -> None:
        """A private store's runtime keeps every action id in the stream, also those of events
        it folds from the stream (an append whose reply was lost, read back by a catch-up)."""
        if self.action_ids is not None and event.action_id:
            self.action_ids[dedupe_field(event.by, event.action_id)] = event.seq

    async def _fold(self, base: MatchState, event: Event) -> tuple[MatchState, Dice]:
        dice = self.states.dice(event)
        with observe.folding():
            return await self.states.evolve(base, event, dice), dice

    def _commit(
        self,
        event: Event,
        after: MatchState,
        patch: str | None = None,
        answer: tuple[Connection, Outgoing] | None = None,
    ) -> None:
        """Make ``after`` the current state: patch to every live audience, hold it for the
        delayed one. Synchronous, so patches go out in seq order. ``patch`` is the encoded patch
        from the current state to ``after`` when it was prepared already; ``answer``, the
        actor's connection and ack, sent with the patch (``Hub.broadcast``)."""
        before = self.state
        self.state = after
        self.states.remember(after)
        text = patch if patch is not None else _patch_text(before, after)
        self.recent.append((after.seq, text))
        self.hub.broadcast(text, answer=answer)
        if self.delayed is not None:
            self.delayed.hold(event.at, after)
            self.delayed.release(after.seq)
        self._notify()
        if answer is not None or self.hub.count("a") or self.hub.count("b"):
            self._hash_soon()

    def _hash_soon(self) -> None:
        """Work out the current state's hash ``FOLLOW_UP_DELAY`` after its patch was sent: the
        next act appended onto it does not wait for it. Done when this process appended the
        event or holds a player's socket (a player here may act next); a process that only
        follows the match for spectators never hashes (an act it appends works the hash out
        itself)."""
        if self._hash_timer is None:
            self._hash_timer = asyncio.get_running_loop().call_later(FOLLOW_UP_DELAY, self._hash_now)

    def _hash_now(self) -> None:
        self._hash_timer = None
        self._base_hash(self.state)

    def _base_hash(self, state: MatchState) -> str:
        """The h3 hash an event appended onto ``state`` carries (kept for the current state)."""
        return self._hashed.get_or_make(state, base_hash)

    @property
    def changed(self) -> asyncio.Event:
        """Set at the next change of the state (a new event each time: wait on the one got
        before looking at the state)."""
        changed = self._changed
        if changed is None:
            changed = self._changed = asyncio.Event()
        return changed

    def _notify(self) -> None:
        changed, self._changed = self._changed, None
        if changed is not None:
            changed.set()
        if self.on_visible is not None:
            self.on_visible(self.public_state)

    async def advance_payloads(self, entries: list[tuple[int, bytes]]) -> None:
        """Fold events read from the stream (the tailer's delivery); skips ones already folded
        (by seq, undecoded), and commits this process's own append in flight without decoding
        or folding it again (the stored bytes are the ones it sent)."""
        for seq, payload in entries:
            if seq > self.state.seq + 1:
                # A gap: an earlier delivery failed (the tailer logged it and went on). Read
                # what is missing from the stream; that read covers this entry and the rest.
                await self.catch_up()
                continue
            await self._advance_payload(seq, payload)

    async def _advance_payload(self, seq: int, payload: bytes) -> None:
        if seq <= self.state.seq:
            return
        inflight = self._inflight
        if inflight is not None and seq == inflight.event.seq and payload == inflight.payload:
            async with self._fold_lock:
                if seq == self.state.seq + 1:
                    self._commit(inflight.event, inflight.after, inflight.patch)
                    self._note_action_id(inflight.event)
                    self.last_used = time.monotonic()
            return
        await self.advance(decode_event(payload))

    async def catch_up(self) -> None:
        """Read and fold whatever the stream holds beyond our state (another process's appends,
        or this one's whose reply was lost)."""
        for seq, payload in await self.store.read(self.match_id, after=self.state.seq):
            await self._advance_payload(seq, payload)

    # ---- acting --------------------------------------------------------------------------

    async def submit(
        self,
        side: Side,
        action: Action,
        action_id: str,
        expect: int | None = None,
        answer: Connection | None = None,
    ) -> protocol.Ack | protocol.Rejected:
        """Validate against the current state, fold, append with ``expect``. Never half-writes.

        The store failing (down, or hanging past its socket timeouts) answers the retryable
        rejection ``store_unavailable``: the act may or may not have been appended, and sending
        it again with the same ``action_id`` is answered by its ``ack`` (``duplicate``) if it was.

        ``answer``: the actor's connection, which is sent the answer too. An act this call
        appends gets its ack in the same write as its patch, before anyone else's patch
        (``Hub.broadcast``); any other answer is sent when it is known.
        """
        reply = _Reply(answer) if answer is not None else None
        return await self._answered(action_id, reply, self._submit(side, action, action_id, expect, reply))

    async def _answered(
        self,
        action_id: str,
        reply: _Reply | None,
        work: Awaitable[protocol.Ack | protocol.Rejected],
    ) -> protocol.Ack | protocol.Rejected:
        """The answer ``work`` comes to - ``store_unavailable`` if the store failed under it -
        sent to ``reply``'s connection unless it went out with the patch."""
        try:
            result = await work
        except RedisError as exc:
            log.warning("match %s: store unavailable for action %s: %r", self.match_id, action_id, exc)
            result = _rejected(
                action_id,
                reject(
                    "store_unavailable",
                    OUTAGES_RULE,
                    "the match store is unavailable; send the act again (same action_id) shortly",
                    retryable=True,
                ),
            )
        if reply is not None and not reply.sent:
            reply.connection.push(protocol.encode(result).decode())
        return result

    def submit_now(
        self,
        side: Side,
        action: Action,
        action_id: str,
        expect: int | None,
        answer: Connection,
        done: Callable[[protocol.Ack | protocol.Rejected | BaseException], None],
    ) -> bool:
        """:meth:`submit`, started from a callback of the loop (the live socket's receive) with
        no task and nothing awaited, when nothing needs waiting for: the match's lock is free,
        the act's kind is quick to decide (live/rules_pool.py), no earlier state must be
        loaded, and the append connection is open. Then the act is decided here and its append
        written before this returns True; Redis' reply commits it (its patch and ack to
        ``answer`` in one write, as :meth:`submit` does) and ``done`` is called with the
        answer - or with the exception that stopped it. Anything out of the ordinary (a
        conflict, a lost script, the end of the match) finishes in a task, as :meth:`submit`
        would.

        False: nothing was done or written; use :meth:`submit`. An act the rules reject
        returns False too: :meth:`submit` answers it (it looks up whether a rejected act is a
        retry of one appended already, and whether the state trails the stream)."""
        if expect is not None and expect != self.state.seq:
            return False
        if self._may_trail:  # the awaited path catches up first
            return False
        if isinstance(action, TakebackRequest):  # may need the states of the line of play
            return False
        kind = rules_kind("decide", action)
        if not inline_now(kind) or not self.lock.try_acquire():
            return False
        base = self.state
        settle: list[Callable[[], None]] = []  # what Redis' reply calls (set once it is written)
        try:
            decided = self._decide_now(base, side, action, action_id, kind)
            pending = (
                None if decided is None else self._append_now(base, decided, action_id, lambda: settle[0]())
            )
        except BaseException:
            self.lock.release()
            raise
        if decided is None or pending is None:
            self.lock.release()
            return False
        reply = _Reply(answer)
        settle.append(
            lambda: self._appended_now(base, decided, pending, side, action, action_id, expect, reply, done)
        )
        self._inflight = decided
        # The patch is made while Redis runs the append; nothing is sent before it answers.
        decided.patch = _patch_text(base, decided.after)
        return True

    def _append_now(
        self, base: MatchState, decided: Decided, action_id: str, then: Callable[[], None]
    ) -> PendingAppend | None:
        """Write the append of ``decided`` (expecting ``base.seq``) now, ``then`` to be called
        when Redis answered; None if it cannot be written now."""
        known = self.action_ids
        field = dedupe_field(decided.event.by, action_id)
        if known is None:
            return self.store.append_now(self.match_id, decided.payload, base.seq, field, then)
        if field in known:  # a retry: answered by submit (the duplicate ack)
            return None
        return self.store.append_private_now(self.match_id, decided.payload, base.seq + 1, field, then)

    def _decide_now(
        self, base: MatchState, side: Side, action: Action, action_id: str, kind: str
    ) -> Decided | None:
        """:meth:`_decide` on the loop, for :meth:`submit_now`: None when it cannot be done so
        (an earlier state to load) or the rules reject the act."""
        event = Event(seq=base.seq + 1, at=time.time(), by=side, action_id=action_id, body=action)
        restore = self.states.restorer_now(base, event)
        if restore is None:
            return None
        decided = run_inline(
            self.match_id,
            kind,
            decide,
            base,
            side,
            action,
            event,
            self.states.dice(event),
            None,
            restore,
            self._base_hash(base),
        )
        if not isinstance(decided, Decided):
            return None
        metrics.FOLD_SECONDS.observe(decided.fold_seconds)
        return decided

    def _appended_now(
        self,
        base: MatchState,
        decided: Decided,
        pending: PendingAppend,
        side: Side,
        action: Action,
        action_id: str,
        expect: int | None,
        reply: _Reply,
        done: Callable[[protocol.Ack | protocol.Rejected | BaseException], None],
    ) -> None:
        """Redis answered the append :meth:`submit_now` wrote. The usual case - appended, the
        fold lock free, the match not over - is committed and answered here; the rest is left
        to :meth:`_settle` in a task, which holds the lock until it is done."""
        self._inflight = None
        result = None if self._fold_lock.locked() else pending.settled_now()
        if result is None or result.status != "appended":
            settle = self._settle(base, decided, pending, result, side, action, expect, reply)
            self._later(self._answered(action_id, reply, settle), done)
            return
        try:
            self._commit_appended(base, decided, action_id, result.seq, reply)
            self._snapshot_soon()
        except BaseException as exc:
            self.lock.release()
            done(exc)
            return
        ack = protocol.Ack(action_id=action_id, seq=result.seq)
        if self.state.ended and not self.state.seed:
            self._later(self._answered(action_id, reply, self._reveal_then(ack)), done)
            return
        self.lock.release()
        if not reply.sent:
            reply.connection.push(protocol.encode(ack).decode())
        done(ack)

    def submit_later(
        self,
        side: Side,
        action: Action,
        action_id: str,
        expect: int | None,
        answer: Connection,
        done: Callable[[protocol.Ack | protocol.Rejected | BaseException], None],
    ) -> None:
        """:meth:`submit` in a task, for a caller on a callback of the loop (when
        :meth:`submit_now` could not start the act): ``done`` gets the answer, or the exception
        that stopped it."""
        self._later(self.submit(side, action, action_id, expect, answer=answer), done)

    def _later(
        self,
        work: Awaitable[protocol.Ack | protocol.Rejected],
        done: Callable[[protocol.Ack | protocol.Rejected | BaseException], None],
    ) -> None:
        """Finish an act in a task; ``done`` gets its answer or the exception that ended it."""

        async def finish() -> None:
            try:
                result = await work
            except BaseException as exc:
                done(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                return
            done(result)

        task = asyncio.ensure_future(finish())
        self._finishing.add(task)
        task.add_done_callback(self._finishing.discard)

    async def _settle(
        self,
        base: MatchState,
        decided: Decided,
        pending: PendingAppend,
        known: AppendResult | None,
        side: Side,
        action: Action,
        expect: int | None,
        reply: _Reply,
    ) -> protocol.Ack | protocol.Rejected:
        """The rest of an act :meth:`submit_now` started, the way :meth:`_submit` goes on after
        its append (``known``: the append's result if it is in already); it holds the match's
        lock, which it releases. A conflict (another process appended first) is decided again
        on the state caught up with, through :meth:`_submit`."""
        action_id = decided.event.action_id
        try:
            result = known
            if result is None:
                self._inflight = decided
                try:
                    result = await pending.finish()
                except RedisError:
                    self._may_trail = True
                    raise
                finally:
                    self._inflight = None
            if await self._commit_if_appended(base, decided, action_id, result, reply):
                await self._reveal_if_ended()
                return protocol.Ack(action_id=action_id, seq=result.seq)
            await self.catch_up()
            if result.status == "duplicate":
                return protocol.Ack(action_id=action_id, seq=result.seq, duplicate=True)
        finally:
            self.lock.release()
        return await self._submit(side, action, action_id, expect, reply)

    async def _reveal_then(self, ack: protocol.Ack) -> protocol.Ack:
        """Reveal the seed of the match an act ended (holding the lock, which it releases)."""
        try:
            await self._reveal_if_ended()
        finally:
            self.lock.release()
        return ack

    async def _submit(
        self, side: Side, action: Action, action_id: str, expect: int | None, reply: _Reply | None
    ) -> protocol.Ack | protocol.Rejected:
        async with self.lock:
            if self._may_trail:
                await self.catch_up()
                self._may_trail = False
            for _ in range(MAX_APPEND_RETRIES):
                if expect is not None and expect != self.state.seq:
                    await self.catch_up()
                base = self.state
                decided = await self._decide(base, side, action, action_id, expect)
                if not isinstance(decided, Decided):
                    duplicate = await self._duplicate_of(side, action_id)
                    if duplicate is not None:
                        return protocol.Ack(action_id=action_id, seq=duplicate, duplicate=True)
                    if await self.store.version(self.match_id) > base.seq:
                        # Decided on a state that trails the stream (another process appended):
                        # catch up and decide again on the latest version.
                        await self.catch_up()
                        continue
                    return _rejected(action_id, decided)
                status, seq = await self._append_decided(base, decided, action_id, reply)
                if status == "appended":
                    await self._reveal_if_ended()
                    return protocol.Ack(action_id=action_id, seq=seq)
                if status == "duplicate":
                    await self.catch_up()
                    return protocol.Ack(action_id=action_id, seq=seq, duplicate=True)
                await self.catch_up()
            return _rejected(
                action_id,
                reject("busy", doc_refs.ACTION_FLOW, "the match kept changing under this action; try again"),
            )

    async def _decide(
        self, base: MatchState, side: Side, action: Action, action_id: str, expect: int | None
    ) -> Rejection | Decided:
        """Validate and fold ``action`` on ``base`` in one trip to the rules pool (what it needs
        from earlier states - a takeback's line of play, the state an undo restores - is loaded
        first); a rejection changes nothing."""
        stale = _stale(base, expect)
        if stale is not None:
            return stale
        event = Event(seq=base.seq + 1, at=time.time(), by=side, action_id=action_id, body=action)
        line_at = await self._line_at(base, side, action)
        restore = await self.states.restorer(base, event)
        decided = await run_rules_of_kind(
            self.match_id,
            rules_kind("decide", action),
            decide,
            base,
            side,
            action,
            event,
            self.states.dice(event),
            line_at,
            restore if restore is not None else _missing(self.match_id),
            self._base_hash(base),
        )
        if isinstance(decided, Decided):
            metrics.FOLD_SECONDS.observe(decided.fold_seconds)
        return decided

    async def check(
        self, side: Side, action: Action, action_id: str, expect: int | None = None, *, retry: bool = True
    ) -> tuple[MatchState, protocol.Ack | protocol.Rejected]:
        """What :meth:`submit` would answer now, without appending, drawing a die or changing
        anything: validation only (``POST /matches/{id}/check``, docs/table.md). An ``Ack`` gives
        the seq the action would get. Returns the state it was checked against too. ``retry``:
        ``action_id`` is one the client named, so an act of ``side`` appended under it makes
        this a retry (a duplicate ack); False for a check that named none."""
        async with self.lock:
            if expect is not None and expect != self.state.seq:
                await self.catch_up()
            base = self.state
            rejection = await self._check(base, side, action, expect)
            duplicate = await self._duplicate_of(side, action_id) if retry else None
            if duplicate is not None:
                # The dedupe check runs before validation in submit's append: a retry is an ack.
                return base, protocol.Ack(action_id=action_id, seq=duplicate, duplicate=True)
            if rejection is not None:
                return base, _rejected(action_id, rejection)
            return base, protocol.Ack(action_id=action_id, seq=base.seq + 1)

    async def _append(self, base: MatchState, event: Event, action_id: str | None) -> tuple[str, int]:
        """Fold ``event`` onto ``base`` and append it (with its dice and state hash) expecting
        ``base.seq`` (system events: no validation)."""
        restore = await self.states.restorer(base, event)
        decided = await run_rules_of_kind(
            self.match_id,
            rules_kind("fold", event.body),
            fold_for_append,
            base,
            event,
            self.states.dice(event),
            restore if restore is not None else _missing(self.match_id),
            self._base_hash(base),
        )
        metrics.FOLD_SECONDS.observe(decided.fold_seconds)
        return await self._append_decided(base, decided, action_id)

    async def _append_decided(
        self, base: MatchState, decided: Decided, action_id: str | None, reply: _Reply | None = None
    ) -> tuple[str, int]:
        """Append a decided event expecting ``base.seq``; once Redis confirmed it, commit the
        state it makes (unless the tailer delivered it first) - nobody is sent anything before.
        ``reply``: the actor's connection, sent the ack with the patch when this commits it.

        The patch is encoded while Redis runs the append script: the command is written first,
        then the patch is prepared, then the reply awaited."""
        self._inflight = decided
        try:
            field = None if action_id is None else dedupe_field(decided.event.by, action_id)
            result_of = await self.store.begin_append(
                self.match_id, decided.payload, expect=base.seq, action_id=field
            )
            decided.patch = _patch_text(base, decided.after)
            result = await result_of()
        except RedisError:
            self._may_trail = True
            raise
        finally:
            self._inflight = None
        await self._commit_if_appended(base, decided, action_id, result, reply)
        return result.status, result.seq

    async def _commit_if_appended(
        self,
        base: MatchState,
        decided: Decided,
        action_id: str | None,
        result: AppendResult,
        reply: _Reply | None,
    ) -> bool:
        """Once Redis confirmed ``decided``'s append: commit it (under the fold lock) and save a
        snapshot if one is due. Whether it was appended."""
        if result.status != "appended":
            return False
        async with self._fold_lock:
            self._commit_appended(base, decided, action_id, result.seq, reply)
        self._snapshot_soon()
        return True

    def _commit_appended(
        self, base: MatchState, decided: Decided, action_id: str | None, seq: int, reply: _Reply | None
    ) -> None:
        """Commit the state of an append Redis confirmed, unless the tailer committed it first
        (the caller holds the fold lock, or saw it free); the actor's ack goes with the patch."""
        if self.action_ids is not None and action_id is not None:
            self.action_ids[dedupe_field(decided.event.by, action_id)] = seq
        if self.state is not base:
            return
        answer = None
        if reply is not None and action_id is not None:
            ack = protocol.Ack(action_id=action_id, seq=seq)
            answer = (reply.connection, Outgoing(protocol.encode(ack).decode()))
            reply.sent = True
        self._commit(decided.event, decided.after, decided.patch, answer)

    async def _check(
        self, base: MatchState, side: Side, action: Action, expect: int | None
    ) -> Rejection | None:
        stale = _stale(base, expect)
        if stale is not None:
            return stale
        line_at = await self._line_at(base, side, action)
        return await run_rules_for(self.match_id, validate, base, side, action, state_at=line_at)

    async def _line_at(self, base: MatchState, side: Side, action: Action) -> StateAt | None:
        """The states of the line of play a takeback request is checked against, loaded only
        for a request the checks without them let through (a target outside the line, or a
        request while another is pending, would otherwise load every state on the line)."""
        if not isinstance(action, TakebackRequest) or base.ended or base.line is None:
            return None
        if validate(base, side, action) is not None:  # cheap: no rule of the edition runs
            return None
        return (await self._line_states(base, action.to_seq)).__getitem__

    async def _line_states(self, base: MatchState, down_to: int) -> dict[int, MatchState]:
        """The states on the line of play from ``base`` back to ``down_to`` (for takebacks)."""
        found: dict[int, MatchState] = {}
        current: MatchState | None = base
        while current is not None and current.line is not None and current.line.parent > down_to:
            parent = current.line.parent
            current = await self.states.get(parent)
            if current is not None:
                found[parent] = current
        return found

    async def _duplicate_of(self, side: Side, action_id: str) -> int | None:
        """The seq a retried action was appended at, if ``side`` appended ``action_id`` already."""
        raw = await self.store.client.hget(
            self.store.keys.dedupe(self.match_id), dedupe_field(side, action_id)
        )
        return None if raw is None else int(raw)

    async def append_system(self, event_body: EventBody, action_id: str | None = None) -> int:
        """Append a system event (match end, seed reveal) under the lock; a match it ends gets
        its seed revealed right after."""
        async with self.lock:
            seq = await self._append_system(event_body, action_id)
            await self._reveal_if_ended()
            return seq

    async def _append_system(self, event_body: EventBody, action_id: str | None) -> int:
        while True:
            base = self.state
            event = Event(
                seq=base.seq + 1,
                at=time.time(),
                by="system",
                action_id=action_id or f"system-{base.seq + 1}",
                body=event_body,
            )
            status, seq = await self._append(base, event, action_id)
            if status == "appended":
                return seq
            await self.catch_up()
            if status == "duplicate":
                return seq

    async def _reveal_if_ended(self) -> None:
        """The match is over: reveal the seed in an event (once, whichever process gets there)."""
        if self.state.ended and not self.state.seed:
            await self._append_system(SeedRevealed(seed=self._seed.hex()), REVEAL_ACTION_ID)

    async def reveal_if_ended(self) -> None:
        async with self.lock:
            await self._reveal_if_ended()

    # ---- snapshots and views -------------------------------------------------------------

    def _snapshot_soon(self) -> None:
        """Save a snapshot of the current state if one is due, off the action path: the state is
        encoded and written by a background task, which starts ``SNAPSHOT_DELAY`` after this
        action's patches and ack went out. One save at a time per match; a newer due state waits
        for it."""
        state = self.state
        if not should_snapshot(state.seq, self.snapshot_every):
            return
        if self._snapshot_task is not None:
            self._snapshot_next = state
            return
        self._snapshot_task = asyncio.create_task(
            self._save_snapshots(state), name=f"hulldown-snapshot-{self.match_id}"
        )

    async def _save_snapshots(self, state: MatchState) -> None:
        try:
            await asyncio.sleep(SNAPSHOT_DELAY)
            current: MatchState | None = state
            while current is not None:
                try:
                    await self.store.save_snapshot(self.match_id, current.seq, state_encoder.encode(current))
                except (RedisError, OSError) as exc:  # not fatal: a later snapshot, or a longer fold
                    log.warning("match %s: snapshot at seq %d not saved: %r", self.match_id, current.seq, exc)
                current, self._snapshot_next = self._snapshot_next, None
        finally:
            self._snapshot_task = None

    def view_text(self) -> tuple[int, str]:
        """The full current view as JSON text (cached per seq)."""
        cached = self.view_text_cache
        if cached is not None and cached[0] == self.state.seq:
            return cached
        text = state_encoder.encode(view_json(self.state)).decode()
        self.view_text_cache = (self.state.seq, text)
        return self.view_text_cache

    def patches_after(self, seq: int) -> list[str] | None:
        """The patches after ``seq`` still held in memory, or None if some were dropped."""
        if seq == self.state.seq:
            return []
        if not self.recent or self.recent[0][0] > seq + 1 or seq > self.state.seq:
            return None
        return [text for s, text in self.recent if s > seq]

    # ---- the delayed spectator view ------------------------------------------------------

    @property
    def public_state(self) -> MatchState:
        """What anyone without a side token may see: the delayed view when the match has one."""
        return self.delayed.state if self.delayed is not None else self.state

    async def start_delayed(self) -> None:
        """Set up the delayed feed (before the runtime is shared: nothing folds meanwhile)."""
        options = self.state.options
        events, seconds = options.spectator_delay_events, options.spectator_delay_seconds
        if events <= 0 and seconds <= 0:
            return
        current = self.state.seq
        now = time.time()
        cut = max(1, current - max(0, events))
        # The newest seq at least ``events`` behind whose event is at least ``seconds`` old: read
        # back a page at a time until one is found (an event not read is never taken as old).
        read: dict[int, Event] = {}
        low = current  # every event after ``low`` is in ``read``
        while cut > 1 and seconds > 0:
            if cut <= low:
                start = max(0, cut - DELAY_READ_PAGE)
                for seq, payload in await self.store.read(self.match_id, after=start, until=low):
                    read[seq] = decode_event(payload)
                low = start
            if read[cut].at <= now - seconds:
                break
            cut -= 1
        released = await self.states.get(cut)
        if released is None:
            # The store lacks events up to the cut. Starting from the live state would show
            # delayed spectators what the delay hides: the match is not served (503) instead.
            raise IncompleteLog(f"match {self.match_id}: the stream lacks events up to seq {cut}")
        feed = DelayedFeed(
            events,
            seconds,
            released,
            lambda text: self.hub.broadcast(text, ("delayed",)),
            self._notify,
        )
        if low > released.seq:  # the events after the cut that were not read back (an event delay)
            for seq, payload in await self.store.read(self.match_id, after=released.seq, until=low):
                read[seq] = decode_event(payload)
        later = [read[seq] for seq in range(released.seq + 1, current + 1)]
        states = await self.states.fold(released, later)
        for event, state in zip(later, states, strict=True):
            feed.hold(event.at, state)
        self.delayed = feed
        feed.release(current, now)

    @contextlib.contextmanager
    def in_use(self) -> Iterator[None]:
        """Mark the runtime as used by a connection for the ``with`` block."""
        self.users += 1
        try:
            yield
        finally:
            self.users -= 1
            self.last_used = time.monotonic()

    def idle_for(self, now: float) -> float | None:
        """Seconds since the runtime was last used, or None while it is in use or busy."""
        if self.users or self.lock.locked() or self._fold_lock.locked():
            return None
        return now - self.last_used

    def close(self) -> None:
        if self._hash_timer is not None:
            self._hash_timer.cancel()
            self._hash_timer = None
        if self.delayed is not None:
            self.delayed.close()


class IncompleteLog(RedisError):
    """The store lacks events a state needs (a stream trimmed or edited by hand): a store error,
    answered ``store_unavailable`` like the store being down."""


def _patch_text(before: MatchState, after: MatchState) -> str:
    """The encoded patch message from the view of ``before`` to the view of ``after``."""
    return protocol.encode(protocol.Patch(seq=after.seq, ops=view_patch(before, after))).decode()


def _stale(base: MatchState, expect: int | None) -> Rejection | None:
    if expect is not None and expect != base.seq:
        return reject(
            "stale",
            doc_refs.ACTION_FLOW,
            f"action based on seq {expect}, the match is at seq {base.seq}",
            expect=expect,
            current=base.seq,
        )
    return None


class _missing:
    """The ``state_at`` of an undo or takeback whose state could not be loaded: folding it fails."""

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id

    def __call__(self, seq: int) -> MatchState:
        raise LookupError(f"match {self.match_id}: no state at seq {seq} to restore")


def _same_event(a: Event, b: Event) -> bool:
    """The same appended event: same seq, actor, action id and stored outcome."""
    return a.seq == b.seq and a.by == b.by and a.action_id == b.action_id and a.state_hash == b.state_hash


class _Reply:
    """The connection an act came from, and whether its answer went out with the patch."""

    __slots__ = ("connection", "sent")

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.sent = False


def _rejected(action_id: str, rejection: Rejection) -> protocol.Rejected:
    return protocol.Rejected(
        action_id=action_id,
        code=rejection.code,
        rule=rejection.rule,
        message=rejection.message,
        values=rejection.values,
    )
