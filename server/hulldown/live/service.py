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
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass

from ..match.events import Event, decode_event, encode_event
from ..match.reducer import initial_state, state_hash
from ..match.rejection import Rejection
from ..match.scenario import CreateMatch, check_scenario, match_created
from ..match.state import MatchState, Side
from ..match.timeline import Timeline
from ..rules.dice import commitment
from ..store.redis_store import RedisEventStore
from ..store.tail import make_tailer
from .presence import Counts, Presence
from .runtime import MatchRuntime
from .states import StateSource

TIMELINES_KEPT = 8


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
    ) -> None:
        self.store = store
        self.evict_after = evict_after
        self._evictor: asyncio.Task[None] | None = None
        self.snapshot_every = snapshot_every
        self.runtimes: dict[str, MatchRuntime] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self.tailer = make_tailer(redis_url, self._on_events, prefix=prefix)
        self._timelines: OrderedDict[str, Timeline] = OrderedDict()
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
        await self.tailer.start()
        await self.presence.start()
        if self.evict_after > 0:
            self._evictor = asyncio.create_task(self._evict_periodically())

    async def stop(self) -> None:
        if self._evictor is not None:
            self._evictor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._evictor
        await self.presence.stop()
        await self.tailer.stop()
        for runtime in self.runtimes.values():
            runtime.close()

    async def _evict_periodically(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, self.evict_after / 4))
            await self.evict_idle(self.evict_after)

    async def evict_idle(self, idle_seconds: float) -> list[str]:
        """Forget matches nobody has used for ``idle_seconds`` (no connection, nothing in flight):
        they stop being tailed and are loaded again, from a snapshot, on their next use."""
        evicted = []
        for match_id in list(self.runtimes):
            # Under the match's loading lock: a get() that misses the runtime while it is being
            # evicted waits here and then loads and follows the match afresh.
            lock = self._loading.setdefault(match_id, asyncio.Lock())
            if lock.locked():
                continue
            async with lock:
                runtime = self.runtimes.get(match_id)
                idle = None if runtime is None else runtime.idle_for(time.monotonic())
                if runtime is None or idle is None or idle < idle_seconds:
                    continue
                del self.runtimes[match_id]
                self._timelines.pop(match_id, None)
                runtime.close()
                await self.tailer.unfollow(match_id)
                await self.presence.forget(match_id)
                evicted.append(match_id)
        return evicted

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
        body = match_created(request.edition, request.scenario, request.options, commitment(seed))
        first = state_hash(initial_state(match_id, body))
        event = Event(seq=1, at=time.time(), by="system", action_id="create", body=body, state_hash=first)
        await self.store.append(match_id, encode_event(event), expect=0, action_id="create")
        return CreatedMatch(match_id=match_id, tokens=tokens, spectator_token=spectator_token)

    # ---- loading -------------------------------------------------------------------------

    async def get(self, match_id: str) -> MatchRuntime | None:
        """The runtime of ``match_id``, loading it (snapshot + events) on first use."""
        runtime = self.runtimes.get(match_id)
        if runtime is not None:
            return runtime
        lock = self._loading.setdefault(match_id, asyncio.Lock())
        async with lock:
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
            await runtime.start_delayed()
            self.runtimes[match_id] = runtime
            await self.tailer.follow(match_id, after_seq=state.seq)
            await runtime.catch_up()
            await runtime.reveal_if_ended()  # a process that ended the match died before revealing
            return runtime

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
            timeline = Timeline(match_id, runtime.states.dice)
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
