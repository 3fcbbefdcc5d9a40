"""The process-wide live service: loads matches on demand, tails their streams, creates matches.

Any process can serve any match: a match is loaded from its latest snapshot plus the events
after it, then followed by this process's single stream tailer.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from ..match.dice_binding import event_dice
from ..match.events import Event, decode_event, encode_event
from ..match.reducer import evolve
from ..match.rejection import Rejection
from ..match.scenario import CreateMatch, check_scenario, match_created
from ..match.state import MatchState, Side
from ..rules.dice import commitment
from ..store.redis_store import RedisEventStore
from ..store.tail import StreamTailer
from .runtime import MatchRuntime, state_decoder


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class CreatedMatch:
    match_id: str
    tokens: dict[str, str]
    spectator_token: str | None


class LiveService:
    """Every match this process serves, and the one tail loop that feeds them."""

    def __init__(self, store: RedisEventStore, redis_url: str, *, prefix: str, snapshot_every: int) -> None:
        self.store = store
        self.snapshot_every = snapshot_every
        self.runtimes: dict[str, MatchRuntime] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self.tailer = StreamTailer(redis_url, self._on_events, prefix=prefix)

    async def start(self) -> None:
        await self.tailer.start()

    async def stop(self) -> None:
        await self.tailer.stop()

    async def _on_events(self, match_id: str, entries: list[tuple[int, bytes]]) -> None:
        runtime = self.runtimes.get(match_id)
        if runtime is not None:
            runtime.advance_payloads(entries)

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
        event = Event(seq=1, at=time.time(), by="system", action_id="create", body=body)
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
            state = await self.state_at(match_id, None, seed=seed)
            if state is None:
                return None
            runtime = MatchRuntime(self.store, match_id, seed, state, snapshot_every=self.snapshot_every)
            self.runtimes[match_id] = runtime
            await self.tailer.follow(match_id, after_seq=state.seq)
            await runtime.catch_up()
            return runtime

    async def state_at(
        self, match_id: str, seq: int | None, *, seed: bytes | None = None
    ) -> MatchState | None:
        """The state as of ``seq`` (None: the latest), from the nearest snapshot plus a fold."""
        if seed is None:
            meta = await self.store.get_meta(match_id)
            if meta is None:
                return None
            seed = bytes.fromhex(meta["seed"])
        snapshot = await self.store.load_snapshot(match_id, at_or_before=seq)
        state = MatchState(match_id=match_id, edition="40k7", seq=0)
        after = 0
        if snapshot is not None:
            after, payload = snapshot
            state = state_decoder.decode(payload)
        entries = await self.store.read(match_id, after=after, until=seq)
        for _, payload in entries:
            event = decode_event(payload)
            state = evolve(state, event, event_dice(seed, match_id, event))
        if state.seq == 0:
            return None
        return state

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
