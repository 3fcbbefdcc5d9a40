"""The process-wide live service: loads matches on demand, tails their streams, creates matches.

Any process can serve any match: a match is loaded from its latest snapshot plus the events
after it, then followed by this process's stream tailer (one loop on one Redis; one loop per
primary node on a Redis Cluster).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass

import msgspec

from ..match.events import Event, MatchCreated, decode_event, encode_event
from ..match.reducer import initial_state, state_hash
from ..match.rejection import Rejection
from ..match.rules_version import UNRECORDED
from ..match.scenario import CreateMatch, check_scenario, match_created
from ..match.state import MatchState, Side
from ..match.timeline import DiceFor, Timeline
from ..rules.dice import commitment
from ..rules.geometry.shapes import polygon_cache_sizes
from ..store.keys import dedupe_field
from ..store.listing import MatchListing, created_ms
from ..store.redis_store import RedisEventStore
from ..store.tailers import make_tailer
from .keyed_locks import KeyedLocks
from .list_backfill import keep_backfilling
from .presence import Counts, Presence
from .rules_pool import run_rules_for
from .runtime import MatchRuntime
from .states import StateSource
from .summaries import SummaryWriter, summary_fields

log = logging.getLogger(__name__)

TIMELINES_KEPT = 8
# Matches kept in memory at most (HULLDOWN_MAX_MATCHES): beyond it the least recently used idle
# ones are dropped from the process (loaded again from a snapshot on their next use).
DEFAULT_MAX_MATCHES = 1000

created_decoder = msgspec.json.Decoder(MatchCreated)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class CreatedMatch:
    match_id: str
    tokens: dict[str, str]
    spectator_token: str | None


class LiveService:
    """Every match this process serves, and the one tail loop that feeds them."""

    def __init__(
        self,
        store: RedisEventStore,
        redis_url: str,
        *,
        prefix: str,
        snapshot_every: int,
        evict_after: float = 0.0,
        max_matches: int = DEFAULT_MAX_MATCHES,
        private_store: bool = False,
    ) -> None:
        """``private_store``: no other process writes to this store (the embedded Redis), so
        nothing is read back from its streams (``store/tailers.py``), and each runtime, knowing
        every action id of its match, appends without the append script (section 5 of
        docs/architecture.md)."""
        self.store = store
        self.evict_after = evict_after
        self.max_matches = max_matches
        self.listing = MatchListing(store.client, store.keys)
        self._summaries: dict[str, SummaryWriter] = {}
        self._evictor: asyncio.Task[None] | None = None
        self._backfill: asyncio.Task[None] | None = None
        self.snapshot_every = snapshot_every
        self.runtimes: dict[str, MatchRuntime] = {}
        self._loading = KeyedLocks()
        self.private_store = private_store
        self.tailer = make_tailer(redis_url, self._on_events, prefix=prefix, private=private_store)
        self._timelines: OrderedDict[str, Timeline] = OrderedDict()
        self._timeline_build = asyncio.Lock()  # one cold history fold at a time
        self.presence = Presence(store, self._local_counts)

    def _local_counts(self) -> dict[str, Counts]:
        """(spectators, players) connected to this process, per match it serves."""
        return {
            match_id: (
                runtime.hub.count("spectator") + runtime.hub.count("delayed"),
                runtime.hub.count("a") + runtime.hub.count("b"),
            )
            for match_id, runtime in self.runtimes.items()
        }

    async def start(self) -> None:
        self._backfill = asyncio.create_task(
            keep_backfilling(self.store, self.listing), name="hulldown-list-backfill"
        )
        await self.tailer.start()
        await self.presence.start()
        if self.evict_after > 0:
            self._evictor = asyncio.create_task(self._evict_periodically())

    async def stop(self) -> None:
        if self._backfill is not None and not self._backfill.done():
            self._backfill.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._backfill
        if self._evictor is not None:
            self._evictor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._evictor
        await self.presence.stop()
        await self.tailer.stop()
        for runtime in self.runtimes.values():
            runtime.close()
        writers, self._summaries = list(self._summaries.values()), {}
        await asyncio.gather(*(writer.close() for writer in writers))

    async def _evict_periodically(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, self.evict_after / 4))
            await self.evict_idle(self.evict_after)

    async def evict_idle(self, idle_seconds: float) -> list[str]:
        """Forget matches nobody has used for ``idle_seconds`` (no connection, nothing in flight):
        they stop being tailed and are loaded again, from a snapshot, on their next use."""
        evicted = []
        for match_id in list(self.runtimes):
            if await self._evict(match_id, idle_seconds):
                evicted.append(match_id)
        return evicted

    async def evict_over_capacity(self, keep: str = "") -> list[str]:
        """Drop the least recently used idle matches (but ``keep``, just loaded for a caller)
        while more than ``max_matches`` are loaded."""
        evicted: list[str] = []
        if self.max_matches <= 0 or len(self.runtimes) <= self.max_matches:
            return evicted
        for match_id in sorted(self.runtimes, key=lambda m: self.runtimes[m].last_used):
            if len(self.runtimes) <= self.max_matches:
                break
            if match_id != keep and await self._evict(match_id, 0.0):
                evicted.append(match_id)
        return evicted

    async def _evict(self, match_id: str, idle_seconds: float) -> bool:
        # Under the match's loading lock: a get() that misses the runtime while it is being
        # evicted waits here and then loads and follows the match afresh.
        if self._loading.locked(match_id):
            return False
        async with self._loading.hold(match_id):
            runtime = self.runtimes.get(match_id)
            idle = None if runtime is None else runtime.idle_for(time.monotonic())
            if runtime is None or idle is None or idle < idle_seconds:
                return False
            del self.runtimes[match_id]
            self._timelines.pop(match_id, None)
            runtime.close()
            await self.tailer.unfollow(match_id)
            await self.presence.forget(match_id)
            writer = self._summaries.pop(match_id, None)
            if writer is not None:
                await writer.close()
            return True

    async def _on_events(self, match_id: str, entries: list[tuple[int, bytes]]) -> None:
        runtime = self.runtimes.get(match_id)
        if runtime is not None:
            await runtime.advance_payloads(entries)

    # ---- creating ------------------------------------------------------------------------

    async def create(self, request: CreateMatch) -> CreatedMatch | Rejection:
        """Create a match: secret seed, hashed side tokens, and the MatchCreated event at seq 1."""
        problem = check_scenario(request.scenario)
        if problem is not None:
            return problem
        match_id = secrets.token_hex(6)
        seed = secrets.token_bytes(32)
        tokens = {"a": secrets.token_urlsafe(24), "b": secrets.token_urlsafe(24)}
        spectator_token = secrets.token_urlsafe(24) if request.options.private_spectators else None
        meta = {
            "edition": request.edition,
            "created_at": f"{time.time():.3f}",
            "token_a": token_hash(tokens["a"]),
            "token_b": token_hash(tokens["b"]),
            "seed": seed.hex(),
            "commitment": commitment(seed),
        }
        if spectator_token is not None:
            meta["spectator_token"] = token_hash(spectator_token)
        if not await self.store.create_match(match_id, meta):
            return await self.create(request)  # id collision: draw another
        body = match_created(
            request.edition, request.scenario, request.options, commitment(seed), request.mission
        )
        # Hashed as every fold of the log builds it, from the event read back from the stream: a
        # standard mission's map is built with whole numbers that its float fields read back as
        # floats, and the hash tells 0 from 0.0.
        first = state_hash(initial_state(match_id, created_decoder.decode(msgspec.json.encode(body))))
        event = Event(seq=1, at=time.time(), by="system", action_id="create", body=body, state_hash=first)
        await self.store.append(
            match_id, encode_event(event), expect=0, action_id=dedupe_field(event.by, event.action_id)
        )
        if not request.options.private_spectators:  # a private match is never listed
            first_state = initial_state(match_id, body)
            summary = {**summary_fields(first_state), "seq": "1", "created_at": meta["created_at"]}
            await self.listing.add(match_id, created_ms(meta["created_at"]), summary)
        return CreatedMatch(match_id=match_id, tokens=tokens, spectator_token=spectator_token)

    # ---- loading -------------------------------------------------------------------------

    async def get(self, match_id: str) -> MatchRuntime | None:
        """The runtime of ``match_id``, loading it (snapshot + events) on first use."""
        runtime = self.runtimes.get(match_id)
        if runtime is not None:
            return runtime
        async with self._loading.hold(match_id):
            runtime = self.runtimes.get(match_id)
            if runtime is not None:
                return runtime
            meta = await self.store.get_meta(match_id)
            if meta is None:
                return None
            seed = bytes.fromhex(meta["seed"])
            states = StateSource(self.store, match_id, seed)
            state = await states.get(None)
            if state is None:
                return None
            runtime = MatchRuntime(self.store, match_id, seed, state, snapshot_every=self.snapshot_every)
            if self.private_store:  # its runtime is the one writer: it keeps the action ids
                runtime.action_ids = await self.store.action_ids(match_id)
            await runtime.start_delayed()
            self._follow_summary(runtime, meta)
            self.runtimes[match_id] = runtime
            await self.tailer.follow(match_id, after_seq=state.seq)
            await runtime.catch_up()
            await runtime.reveal_if_ended()  # a process that ended the match died before revealing
        await self.evict_over_capacity(keep=match_id)
        return runtime

    async def rules_version(self, runtime: MatchRuntime) -> int:
        """The rules version the match was created under (match/rules_version.py), read from its
        creation event once per runtime; 0 for a match created before versions were recorded."""
        if runtime.rules_version is None:
            version = UNRECORDED
            entries = await self.store.read(runtime.match_id, after=0, until=1)
            if entries:
                body = decode_event(entries[0][1]).body
                if isinstance(body, MatchCreated):
                    version = body.rules_version
            runtime.rules_version = version
        return runtime.rules_version

    def _follow_summary(self, runtime: MatchRuntime, meta: dict[str, str]) -> None:
        """Keep a public match's list entry current from its visible state."""
        if runtime.state.options.private_spectators or "created_at" not in meta:
            return
        writer = SummaryWriter(self.listing, runtime.match_id, meta["created_at"])
        self._summaries[runtime.match_id] = writer
        runtime.on_visible = writer.changed
        writer.changed(runtime.public_state)  # an entry older than the list index gets turn and phase

    def cache_sizes(self) -> dict[str, int]:
        """How much each per-match cache of this process holds (exported as metrics)."""
        return {
            "matches": len(self.runtimes),
            "loading_locks": len(self._loading),
            "timelines": len(self._timelines),
            "summary_writers": len(self._summaries),
            "states": sum(len(r.states) for r in self.runtimes.values()),
            "patches": sum(len(r.recent) for r in self.runtimes.values()),
            "followed": len(self.tailer.following()),
            # Process-wide, shared by every match: footprint polygons (rules/geometry/shapes.py).
            **polygon_cache_sizes(),
        }

    async def state_at(
        self, match_id: str, seq: int | None, *, seed: bytes | None = None
    ) -> MatchState | None:
        """The state as of ``seq`` (None: the latest), from memory or the nearest snapshot plus a
        history-aware fold (an undo in the range loads the state it restores the same way)."""
        runtime = self.runtimes.get(match_id)
        if runtime is not None:
            return await runtime.states.get(seq)
        if seed is None:
            meta = await self.store.get_meta(match_id)
            if meta is None:
                return None
            seed = bytes.fromhex(meta["seed"])
        return await StateSource(self.store, match_id, seed).get(seq)

    async def timeline(self, match_id: str, upto: int) -> Timeline | None:
        """The match's whole history in memory, folded at least to ``upto`` (for the turn/phase
        index and the replay feed). A few recently used matches are kept."""
        runtime = await self.get(match_id)
        if runtime is None:
            return None
        timeline = self._timelines.get(match_id)
        if timeline is None:
            timeline = await self._build_timeline(match_id, runtime.states.dice, upto)
            self._timelines[match_id] = timeline
        self._timelines.move_to_end(match_id)
        while len(self._timelines) > TIMELINES_KEPT:
            self._timelines.popitem(last=False)
        if timeline.seq < upto:
            entries = await self.store.read(match_id, after=timeline.seq, until=upto)
            for seq, payload in entries:
                if seq == timeline.seq + 1:  # another request may have extended it meanwhile
                    timeline.push(decode_event(payload))
        return timeline

    async def _build_timeline(self, match_id: str, dice: DiceFor, upto: int) -> Timeline:
        """A match's history folded from the start, on the rules pool: a long match's cold
        replay does not stall the event loop. The timeline is nobody else's until returned, so
        the thread folds it alone; later (short) extensions happen on the loop."""
        async with self._timeline_build:
            known = self._timelines.get(match_id)
            if known is not None:
                return known
            fresh = Timeline(match_id, dice)
            entries = await self.store.read(match_id, after=0, until=upto)
            await run_rules_for(match_id, fresh.extend, [decode_event(payload) for _, payload in entries])
            return fresh

    async def authenticate(self, match_id: str, token: str) -> Side | None:
        """Which side ``token`` acts for (compared against the stored hashes), or None."""
        meta = await self.store.get_meta(match_id)
        if meta is None:
            return None
        digest = token_hash(token)
        for side in ("a", "b"):
            if hmac.compare_digest(meta.get(f"token_{side}", ""), digest):
                return "a" if side == "a" else "b"
        return None

    async def spectator_allowed(self, match_id: str, token: str | None) -> bool:
        meta = await self.store.get_meta(match_id)
        if meta is None:
            return False
        expected = meta.get("spectator_token")
        if expected is None:
            return True
        return token is not None and hmac.compare_digest(expected, token_hash(token))
