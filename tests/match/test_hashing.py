"""The state hash (docs/architecture.md, "State hash"; match/hashing.py): the h2 hash reusing
cached sub-tree digests equals the hash computed from scratch after random playthroughs of every
edition; it follows its documented definition; changing any sub-tree changes it; logs whose
events carry the older h1 hash still verify, and so do logs mixing both formats."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from hulldown.cli.verify import verify_events
from hulldown.match.actions import Concede, EndPhase, Fire, Move, Shoot
from hulldown.match.events import Event, MatchCreated, SeedRevealed, decode_event, encode_event
from hulldown.match.hashing import (
    H2_PREFIX,
    H3_PREFIX,
    clear_caches,
    hash_format,
    legacy_state_hash,
    matches_logged,
    state_hash,
    state_hash_uncached,
)
from hulldown.match.history import game_hash
from hulldown.match.mission_state import MarkerControl
from hulldown.match.reducer import state_hash as reducer_state_hash
from hulldown.match.state import LogEntry, MatchState, Point

from ..dice.forge import Forge
from ..missions.driver import Game, created, play_game, standard
from ..missions.test_playthrough import CASES
from ..scenarios import rectangle

canonical = msgspec.json.Encoder(order="sorted")
MATCH = "hash-test"
SEED = hashlib.sha256(b"hash-test").digest()
STEPS = 260


def digest(value: object) -> str:
    return hashlib.sha256(canonical.encode(value)).hexdigest()


def by_the_definition(state: MatchState) -> str:
    """h2 written out from docs/architecture.md, independently of match/hashing.py."""
    record: dict[str, Any] = msgspec.json.decode(canonical.encode(state))
    record["units"] = digest({uid: digest(u) for uid, u in state.units.items()})
    record["terrain"] = digest({tid: digest(t) for tid, t in state.terrain.items()})
    lines = b"".join(hashlib.sha256(canonical.encode(e)).digest() for e in state.log)
    record["log"] = hashlib.sha256(lines).hexdigest()
    if state.mission is None:
        record["mission"] = None
    else:
        mission = msgspec.json.decode(canonical.encode(state.mission))
        mission["mission"] = digest(state.mission.mission)
        record["mission"] = digest(mission)
    return "h2:" + digest(record)


def played(edition: str, seed: int = 7) -> Game:
    """A mission game of ``edition`` by random legal play (set-up, battle, maybe the end)."""
    units, mission_id, deployment, battle = CASES[edition]
    ruin = rectangle("ruin-1", 34, 20, 38, 26, ("difficult", "blocks_los", "cover"), 4)
    the_mission = standard(edition, mission_id, deployment)
    body = created(edition, units(), the_mission, (ruin,))  # type: ignore[arg-type]
    # Through JSON, as a server has it (a decoded snapshot must hash the same).
    body = msgspec.json.decode(msgspec.json.encode(body), type=MatchCreated)
    game = Game(body, dice_seed=f"hash-{edition}-{seed}".encode())
    play_game(game, battle, seed=seed, max_steps=STEPS, end_early=0.1)
    return game


@pytest.mark.parametrize("edition", ["40k7", "hh3", "40k11"])
def test_the_cached_hash_equals_the_hash_from_scratch_after_random_play(edition: str) -> None:
    game = played(edition)
    states = [game.states[seq] for seq in sorted(game.states)]
    assert len(states) > 50
    assert states[-1].mission is not None and states[-1].mission.step == "battle"
    clear_caches()
    hashes = []
    for state in states:  # in fold order: each state shares most sub-trees with the one before
        cached = state_hash(state)
        assert cached == state_hash_uncached(state), state.seq
        hashes.append(cached)
    assert all(h.startswith(H2_PREFIX) and len(h) == len(H2_PREFIX) + 64 for h in hashes)
    assert len(set(hashes)) == len(states)  # the seq alone tells every state apart
    # Out of order (an undo target, a state asked for by seq): the same values.
    shuffled = list(zip(states, hashes, strict=True))
    random.Random(1).shuffle(shuffled)
    for state, expected in shuffled[:40]:
        assert state_hash(state) == expected
    # And a decoded copy (a snapshot: all new objects) hashes the same.
    last = states[-1]
    copy = msgspec.json.decode(msgspec.json.encode(last), type=MatchState)
    assert copy is not last and state_hash(copy) == hashes[-1]


@pytest.mark.parametrize("edition", ["40k7", "hh3", "40k11"])
def test_the_hash_follows_its_documented_definition(edition: str) -> None:
    game = played(edition, seed=3)
    for seq in sorted(game.states)[:: max(1, len(game.states) // 12)]:
        state = game.states[seq]
        assert state_hash(state) == by_the_definition(state), seq
    assert game.state.mission is not None  # the mission member was hashed too


def _changes(state: MatchState) -> dict[str, MatchState]:
    """One edit per sub-tree of ``state`` (a 40k7 mission game in its battle)."""
    uid, unit = next(iter(state.units.items()))
    mid, model = next(iter(unit.models.items()))
    moved = replace(model, pos=Point(model.pos.x + 0.5, model.pos.y))
    tid, piece = next(iter(state.terrain.items()))
    first = state.log[0]
    assert state.mission is not None
    marker = next(iter(state.mission.mission.objectives))
    return {
        "a model's position": replace(
            state, units={**state.units, uid: replace(unit, models={**unit.models, mid: moved})}
        ),
        "a unit's flag": replace(
            state, units={**state.units, uid: replace(unit, turn_flags=(*unit.turn_flags, "x"))}
        ),
        "a unit removed": replace(state, units={k: v for k, v in state.units.items() if k != uid}),
        "a terrain piece": replace(state, terrain={**state.terrain, tid: replace(piece, cover_save=2)}),
        "a log line": replace(state, log=(replace(first, text=first.text + "!"), *state.log[1:])),
        "the log window": replace(state, log=state.log[1:]),
        "a log line's value": replace(
            state, log=(*state.log[:-1], replace(state.log[-1], values={"changed": 1}))
        ),
        "the victory points": replace(
            state, mission=replace(state.mission, vp={**state.mission.vp, "a": state.mission.vp["a"] + 1})
        ),
        "a marker's holder": replace(
            state,
            mission=replace(
                state.mission, control={**state.mission.control, marker.id: MarkerControl(holder="b")}
            ),
        ),
        "the mission definition": replace(
            state,
            mission=replace(state.mission, mission=replace(state.mission.mission, name="another")),
        ),
        "the phase": replace(state, phase="shooting" if state.phase != "shooting" else "assault"),
        "the log count": replace(state, log_count=state.log_count + 1),
        "the acted bookkeeping": replace(state, acted={**state.acted, "a": state.acted.get("a", 0) + 99}),
    }


def test_changing_any_sub_tree_changes_the_hash() -> None:
    game = played("40k7", seed=5)
    state = game.state
    assert state.terrain and state.log and state.mission is not None
    before = state_hash(state)
    seen = {before}
    for what, changed in _changes(state).items():
        h = state_hash(changed)
        assert h != before, what
        assert h == state_hash_uncached(changed) == by_the_definition(changed), what
        seen.add(h)
    assert len(seen) == 1 + len(_changes(state))
    assert state_hash(state) == before  # the edits made new objects: the original is unchanged


def test_the_reducer_and_game_hashes_are_h2() -> None:
    state = played("hh3", seed=2).state
    assert reducer_state_hash(state) == state_hash(state)
    bare = replace(state, seq=0, log=(), log_count=0, acted={}, last_undo=None)
    assert game_hash(state) == state_hash(bare) == by_the_definition(bare)
    assert hash_format(game_hash(state)) == "h2"


# ---- old logs: h1 --------------------------------------------------------------------------

SHOOT = Shoot(unit="predator-1", fire=(Fire(weapon="lascannon", target="rhino-1"),))
MOVES = [
    ("a", Move(unit="predator-1", path=(Point(14.0, 24.0),), heading=0.0)),
    ("a", EndPhase()),
    ("a", SHOOT),
    ("a", EndPhase()),
    ("a", EndPhase()),
    ("b", EndPhase()),
    ("b", Concede()),
]


def finished() -> Forge:
    forge = Forge(MATCH, SEED)
    forge.play(MOVES)  # type: ignore[arg-type]
    forge.reveal()
    return forge


def as_h1(forge: Forge, events: list[Event], upto: int | None = None) -> list[Event]:
    """The same log as a server before the h2 format wrote it (the h1 hash of each state),
    through JSON like a stored log; ``upto``: only the events up to that seq."""
    out = []
    for event in events:
        if upto is None or event.seq <= upto:
            event = replace(event, state_hash=legacy_state_hash(forge.timeline.state_at(event.seq)))
        out.append(decode_event(encode_event(event)))
    return out


def as_h2(forge: Forge, events: list[Event], upto: int | None = None) -> list[Event]:
    """The same log as a server before the h3 format wrote it (the h2 hash of the state after
    each event); ``upto``: only the events up to that seq."""
    return [
        replace(e, state_hash=state_hash(forge.timeline.state_at(e.seq)))
        if upto is None or e.seq <= upto
        else e
        for e in events
    ]


def test_new_events_carry_h3_and_verify() -> None:
    """Every event carries the h3 hash of the state before it, but the creation (there is no
    state before it), which carries the h2 hash of the state it makes."""
    forge = finished()
    assert [hash_format(e.state_hash) for e in forge.events] == ["h2"] + ["h3"] * (len(forge.events) - 1)
    assert forge.events[2].state_hash == H3_PREFIX + state_hash(forge.timeline.state_at(2))[len(H2_PREFIX) :]
    report = verify_events(MATCH, forge.events)
    assert report.ok, report.failures


def test_an_older_log_with_h2_hashes_still_verifies() -> None:
    forge = finished()
    older = as_h2(forge, forge.events)
    assert {hash_format(e.state_hash) for e in older} == {"h2"}
    assert verify_events(MATCH, older).ok


def test_an_old_log_with_h1_hashes_still_verifies() -> None:
    forge = finished()
    old = as_h1(forge, forge.events)
    assert all(hash_format(e.state_hash) == "h1" for e in old)
    assert old[3].state_hash == hashlib.sha256(canonical.encode(forge.timeline.state_at(4))).hexdigest()
    report = verify_events(MATCH, old)
    assert report.ok, report.failures


@pytest.mark.parametrize("older", [as_h1, as_h2])
def test_a_log_mixing_formats_verifies(older: Any) -> None:
    """A match that ran across an upgrade: its first events carry h1 (or h2), the later ones h3."""
    forge = finished()
    mixed = older(forge, forge.events, upto=4)
    assert {hash_format(e.state_hash) for e in mixed} == {older.__name__[3:], "h3"}
    assert verify_events(MATCH, mixed).ok


@pytest.mark.parametrize("older", [as_h1, as_h2, None])
def test_a_tampered_event_is_caught_in_every_format(older: Any) -> None:
    """h1, h2 or h3 everywhere: the edited move is caught at seq 2 (by h3, through the hash the
    event after it carries)."""
    forge = finished()
    events = older(forge, forge.events) if older is not None else list(forge.events)
    moved = events[1]
    assert isinstance(moved.body, Move)
    events[1] = replace(moved, body=replace(moved.body, path=(Point(16.0, 24.0),)))
    report = verify_events(MATCH, events)
    assert [(f.kind, f.seq) for f in report.failures] == [("state", 2)]


def test_h3_checks_the_state_before_and_the_reveal_checks_the_last() -> None:
    """h3 (match/hashing.py): the hash an event carries is checked against the state before it;
    an event's altered hash names the event before it, whose state it logged; the seed's reveal
    carries the final state's hash."""
    forge = finished()
    events = list(forge.events)
    assert matches_logged(forge.timeline.state_at(2), events[2].state_hash)
    assert not matches_logged(forge.timeline.state_at(3), events[2].state_hash)
    wrong = [*events[:2], replace(events[2], state_hash=H3_PREFIX + "0" * 64), *events[3:]]
    report = verify_events(MATCH, wrong)
    assert [(f.kind, f.seq) for f in report.failures] == [("state", 2)]
    assert "logged by event 3" in report.failures[0].message
    assert isinstance(events[-1].body, SeedRevealed)
    last = [*events[:-1], replace(events[-1], state_hash=H3_PREFIX + "0" * 64)]
    assert [(f.kind, f.seq) for f in verify_events(MATCH, last).failures] == [("state", events[-2].seq)]
    first = [replace(events[0], state_hash=H3_PREFIX + "0" * 64), *events[1:]]
    failures = verify_events(MATCH, first).failures
    assert [(f.kind, f.seq) for f in failures] == [("state", 1)]
    assert "before the match was created" in failures[0].message


def test_a_hash_of_no_known_format_does_not_verify() -> None:
    forge = finished()
    state = forge.timeline.state_at(3)
    assert matches_logged(state, state_hash(state)) and matches_logged(state, legacy_state_hash(state))
    for bad in ("h4:" + state_hash(state)[3:], legacy_state_hash(state).upper(), "h2:", "h3:", "x"):
        assert hash_format(bad) == "unknown" or not matches_logged(state, bad)
        assert not matches_logged(state, bad)
    events = list(forge.events)
    events[2] = replace(events[2], state_hash="h4:" + events[2].state_hash[3:])
    report = verify_events(MATCH, events)
    assert [(f.kind, f.seq) for f in report.failures] == [("state", 3)]


def test_identity_cache_entries_keep_their_objects() -> None:
    """A cached digest is found only for the very object it was computed from: an equal but
    distinct object is looked up by value again, and a different object at a reused id misses."""
    entry = LogEntry(n=0, seq=1, text="one")
    state = MatchState(match_id="m", edition="40k7", log=(entry,))
    h = state_hash(state)
    other = replace(state, log=(LogEntry(n=0, seq=1, text="two"),))
    assert state_hash(other) != h
    assert state_hash(replace(state, log=(LogEntry(n=0, seq=1, text="one"),))) == h
