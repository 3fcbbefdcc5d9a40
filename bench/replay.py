"""Cold replay and snapshot loading of a long match (docs/architecture.md section 7).

Builds a 40k7 match of ``--events`` events in process (pivots and phase changes by both sides,
every action validated first), then measures:

- cold replay: decode every stored payload and fold it from nothing (``fold_history``, undo-aware),
  in events per second, hashing only the final state; beside it, in the same run, decoding alone
  (the floor), and the fold hashing every state as ``hulldown verify`` does, with the h2 hash
  every new event carries and with the h1 hash of older logs (docs/architecture.md, "State
  hash");
- snapshot load: the events and snapshots written to a private embedded Redis, then a fresh
  ``LiveService`` loads the match (latest snapshot + the events after it) - the time to a ready
  runtime, beside a bare Redis PING round trip measured in the same run.

The replay timings are the process's CPU time (``time.process_time``: on a shared machine the
wall clock also counts other processes' turns); the snapshot load is wall-clock time.

Prints one JSON object. Not a test: nothing is asserted.

    python bench/replay.py --events 100000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.scenarios import duel  # noqa: E402

from hulldown.live.service import LiveService  # noqa: E402
from hulldown.match.actions import Action, EndPhase, Pivot  # noqa: E402
from hulldown.match.dice_binding import event_dice  # noqa: E402
from hulldown.match.events import Event, decode_event, encode_event  # noqa: E402
from hulldown.match.hashing import legacy_state_hash  # noqa: E402
from hulldown.match.history import evolve_with_history  # noqa: E402
from hulldown.match.reducer import state_hash  # noqa: E402
from hulldown.match.scenario import match_created  # noqa: E402
from hulldown.match.state import MatchState, Options  # noqa: E402
from hulldown.match.timeline import Timeline, fold_history  # noqa: E402
from hulldown.match.validate import validate  # noqa: E402
from hulldown.rules.dice import commitment  # noqa: E402
from hulldown.store.embedded import EmbeddedRedis  # noqa: E402
from hulldown.store.redis_store import RedisEventStore  # noqa: E402

SEED = bytes(range(32))
MATCH = "bench-replay"
state_encoder = msgspec.json.Encoder()


def no_state(seq: int) -> MatchState:
    raise LookupError(seq)


def build(events: int, snapshot_every: int) -> tuple[list[bytes], dict[int, bytes], MatchState]:
    """A legal match log of ``events`` events and the snapshots a server would have saved."""
    request = duel()
    created = match_created(request.edition, request.scenario, Options(turn_limit=0), commitment(SEED))
    # Through JSON, as a server stores it (the scenario builders write some coordinates as ints).
    first = decode_event(encode_event(Event(seq=1, at=0.0, by="system", action_id="create", body=created)))
    state = evolve_with_history(
        MatchState(match_id=MATCH, edition="40k7"), first, event_dice(SEED, MATCH, first), no_state
    )
    payloads = [encode_event(first)]
    snapshots: dict[int, bytes] = {}
    rng = random.Random(1)
    while len(payloads) < events:
        side = state.active
        mine = [u.id for u in state.units.values() if u.side == side]
        action: Action = EndPhase()
        if state.phase == "movement" and rng.random() < 0.7:
            candidate = Pivot(unit=rng.choice(mine), heading=float(rng.randrange(360)))
            if validate(state, side, candidate) is None:
                action = candidate
        assert validate(state, side, action) is None
        event = Event(seq=state.seq + 1, at=float(state.seq), by=side, action_id=f"a{state.seq}", body=action)
        dice = event_dice(SEED, MATCH, event)
        state = evolve_with_history(state, event, dice, no_state)
        event = msgspec.structs.replace(
            event, rolls=tuple(r.value for r in dice.rolls), state_hash=state_hash(state)
        )
        payloads.append(encode_event(event))
        if state.seq % snapshot_every == 0:
            snapshots[state.seq] = state_encoder.encode(state)
    return payloads, snapshots, state


def cold_replay(payloads: list[bytes]) -> tuple[float, MatchState]:
    """Decode and fold every event from nothing; only the final state is hashed (by the caller)."""
    t0 = time.process_time()
    state = fold_history(MATCH, (decode_event(p) for p in payloads), lambda e: event_dice(SEED, MATCH, e))
    return time.process_time() - t0, state


def decode_only(payloads: list[bytes]) -> float:
    t0 = time.process_time()
    for p in payloads:
        decode_event(p)
    return time.process_time() - t0


def hashed_replay(payloads: list[bytes], state_hash_of: Callable[[MatchState], str]) -> float:
    """The cold replay hashing the state after every event, as ``hulldown verify`` does."""
    t0 = time.process_time()
    timeline = Timeline(MATCH, lambda e: event_dice(SEED, MATCH, e))
    for p in payloads:
        state_hash_of(timeline.push(decode_event(p)))
    return time.process_time() - t0


async def snapshot_load(payloads: list[bytes], snapshots: dict[int, bytes], repeats: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="hulldown-replay-") as tmp, EmbeddedRedis(Path(tmp)) as redis:
        store = RedisEventStore.from_url(redis.url, prefix="bench")
        await store.create_match(
            MATCH, {"edition": "40k7", "seed": SEED.hex(), "commitment": commitment(SEED)}
        )
        pipe = store.client.pipeline(transaction=False)
        for seq, payload in enumerate(payloads, start=1):
            pipe.xadd(store.keys.events(MATCH), {"e": payload}, id=f"0-{seq}")
            if seq % 5000 == 0:
                await pipe.execute()
        await pipe.execute()
        for seq, payload in snapshots.items():
            await store.save_snapshot(MATCH, seq, payload)
        loads, pings = [], []
        for _ in range(repeats):
            t0 = time.perf_counter()
            await store.ping()
            pings.append(time.perf_counter() - t0)
            live = LiveService(store, redis.url, prefix="bench", snapshot_every=100)
            t0 = time.perf_counter()
            runtime = await live.get(MATCH)
            loads.append(time.perf_counter() - t0)
            assert runtime is not None and runtime.state.seq == len(payloads)
            await live.tailer.unfollow(MATCH)
        await store.aclose()
    return {
        "load_ms_p50": round(statistics.median(loads) * 1000, 2),
        "load_ms_max": round(max(loads) * 1000, 2),
        "redis_ping_ms_p50": round(statistics.median(pings) * 1000, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--snapshot-every", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    t0 = time.perf_counter()
    payloads, snapshots, live_state = build(args.events, args.snapshot_every)
    build_s = time.perf_counter() - t0
    n = len(payloads)
    seconds, replayed = cold_replay(payloads)
    assert state_hash(replayed) == state_hash(live_state), "replay differs from the live fold"
    decode_s = decode_only(payloads)
    h2_s = hashed_replay(payloads, state_hash)
    h1_s = hashed_replay(payloads, legacy_state_hash)
    result = {
        "bench": "replay",
        "events": n,
        "build_s": round(build_s, 2),
        "cold_replay_s": round(seconds, 3),
        "cold_replay_events_per_s": round(n / seconds),
        "decode_only_events_per_s": round(n / decode_s),
        "replay_hashing_every_state_events_per_s": {"h2": round(n / h2_s), "h1": round(n / h1_s)},
        "ratios": {
            "cold_replay_over_decode_only": round(seconds / decode_s, 1),
            "h1_every_state_over_h2_every_state": round(h1_s / h2_s, 2),
            "h2_every_state_over_cold_replay": round(h2_s / seconds, 2),
        },
        "state_bytes": len(state_encoder.encode(live_state)),
        "snapshot": asyncio.run(snapshot_load(payloads, snapshots, args.repeats)),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
