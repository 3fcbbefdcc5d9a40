"""``verify_events`` (docs/architecture.md section 8): a clean log verifies; a tampered roll, a
tampered seed and a tampered event are each detected and named exactly."""

from __future__ import annotations

import hashlib

import pytest
from msgspec.structs import replace

from hulldown.cli.verify import NotRevealed, verify_events
from hulldown.match.actions import Concede, EndPhase, Fire, Move, Shoot
from hulldown.match.events import SeedRevealed
from hulldown.match.state import Point

from .forge import Forge

MATCH = "verify-test"
SEED = hashlib.sha256(b"verify").digest()
SHOOT = Shoot(unit="predator-1", fire=(Fire(weapon="lascannon", target="rhino-1"),))


def finished(nonce: str = "") -> Forge:
    forge = Forge(MATCH, SEED)
    forge.play(
        [
            ("a", Move(unit="predator-1", path=(Point(14.0, 24.0),), heading=0.0)),
            ("a", EndPhase()),
            ("a", replace(SHOOT, nonce=nonce)),
            ("a", EndPhase()),
            ("a", EndPhase()),
            ("b", EndPhase()),
            ("b", EndPhase()),
            ("b", EndPhase()),
            ("a", EndPhase()),
            ("a", replace(SHOOT, nonce="second")),
            ("b", Concede()),
        ]
    )
    forge.reveal()
    return forge


def test_a_finished_match_verifies_and_every_logged_die_is_listed() -> None:
    forge = finished()
    report = verify_events(MATCH, forge.events)
    assert report.ok, report.failures
    assert report.commitment == hashlib.sha256(SEED).hexdigest() and report.seed == SEED.hex()
    assert report.revealed_at == forge.events[-1].seq
    shots = [e for e in forge.events if e.rolls]
    assert len(shots) == 2
    assert report.rolls == sum(len(e.rolls) for e in shots) == len(report.dice)
    first = report.dice[0]
    assert (first.seq, first.i, first.value) == (shots[0].seq, 0, shots[0].rolls[0])
    assert first.derived == first.value and first.purpose == "to hit"
    assert sum(report.faces.values()) == report.rolls


def test_verify_before_the_reveal_says_so() -> None:
    forge = Forge(MATCH, SEED)
    forge.act("a", EndPhase())
    with pytest.raises(NotRevealed):
        verify_events(MATCH, forge.events)


def test_a_tampered_roll_is_named_by_event_and_die() -> None:
    events = list(finished().events)
    k = next(k for k, e in enumerate(events) if e.rolls)
    original = events[k].rolls[1]
    rolls = list(events[k].rolls)
    rolls[1] = original % 6 + 1  # any other face
    events[k] = replace(events[k], rolls=tuple(rolls))
    report = verify_events(MATCH, events)
    assert not report.ok
    assert [(f.kind, f.seq, f.i) for f in report.failures] == [("roll", events[k].seq, 1)]
    failure = report.failures[0]
    assert (failure.logged, failure.derived) == (rolls[1], original)
    assert failure.message == (
        f"event {events[k].seq} (shoot by a), die 1: logged {rolls[1]}, the seed gives {original}"
    )


def test_a_tampered_seed_fails_the_commitment() -> None:
    events = list(finished().events)
    other = hashlib.sha256(b"another seed").digest()
    events[-1] = replace(events[-1], body=SeedRevealed(seed=other.hex()))
    report = verify_events(MATCH, events)
    assert not report.ok
    assert [f.kind for f in report.failures] == ["commitment"]
    assert report.failures[0].seq == events[-1].seq
    assert hashlib.sha256(other).hexdigest() in report.failures[0].message
    assert "is not the committed one" in report.failures[0].message


def test_a_tampered_event_is_caught_at_its_seq() -> None:
    """The move at seq 2 is edited to end elsewhere: its dice are unchanged (it rolled none), but
    the state after it no longer has the logged hash."""
    events = list(finished().events)
    moved = events[1]
    assert isinstance(moved.body, Move)
    events[1] = replace(moved, body=replace(moved.body, path=(Point(16.0, 24.0),)))
    report = verify_events(MATCH, events)
    assert [(f.kind, f.seq) for f in report.failures] == [("state", 2)]
    assert "state after event 2 (move by a)" in report.failures[0].message


def test_a_tampered_nonce_changes_the_dice_and_is_caught() -> None:
    events = list(finished(nonce="original").events)
    k = next(k for k, e in enumerate(events) if e.rolls)
    body = events[k].body
    assert isinstance(body, Shoot)
    events[k] = replace(events[k], body=replace(body, nonce="forged"))
    report = verify_events(MATCH, events)
    kinds = {f.kind for f in report.failures}
    assert "roll" in kinds and all(f.seq == events[k].seq for f in report.failures)


def test_dropped_dice_are_caught() -> None:
    events = list(finished().events)
    k = next(k for k, e in enumerate(events) if e.rolls)
    events[k] = replace(events[k], rolls=events[k].rolls[:-1])
    report = verify_events(MATCH, events)
    assert ("dice_count", events[k].seq) in [(f.kind, f.seq) for f in report.failures]


def test_a_missing_event_is_caught() -> None:
    events = list(finished().events)
    del events[3]
    report = verify_events(MATCH, events)
    assert report.failures[0].kind == "log" and "seq 5 follows seq 3" in report.failures[0].message
