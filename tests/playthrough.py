"""Random playthrough machinery shared by the hh3 and 40k11 tests (the replay check of
docs/architecture.md section 1).

An edition's test supplies the match (its ``MatchCreated`` event) and a ``candidates`` function
proposing actions for the state; :func:`play` validates them in order, applies the first legal
one as an event that is encoded and decoded (match/events.py) and evolved with ``SeededDice``;
:func:`assert_fold_equals_live` folds the log from scratch and compares it with the live state,
hash and value. The edition's test then checks that the run exercised its rules.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from hulldown.match.actions import Action, Decide, EndPhase, Move
from hulldown.match.events import Event, MatchCreated, decode_event, encode_event
from hulldown.match.reducer import evolve, fold, state_hash
from hulldown.match.state import Battlefield, Edition, MatchState, Options, Point, Side, Terrain, Unit
from hulldown.match.validate import validate
from hulldown.rules.dice import NoDice, SeededDice

Candidates = Callable[[MatchState, random.Random], list[tuple[Side, Action]]]


@dataclass(frozen=True, slots=True)
class Playthrough:
    """One random match: the live state, the event log (creation first) and what happened."""

    match_id: str
    dice_seed: bytes
    live: MatchState
    log: list[Event]
    applied: Counter[str]  # applied actions by name ("Move:<kind>" for moves)
    refused: Counter[str]  # refused candidates by rejection code


def creation(
    edition: Edition,
    units: tuple[Unit, ...],
    terrain: tuple[Terrain, ...] = (),
    options: Options | None = None,
) -> Event:
    """The match's first event (seq 1, by the system) on the default battlefield."""
    body = MatchCreated(
        edition=edition,
        battlefield=Battlefield(),
        terrain=terrain,
        units=units,
        options=options or Options(),
        commitment="test",
    )
    return Event(seq=1, at=0.0, by="system", action_id="create", body=body)


def action_name(action: Action) -> str:
    return f"Move:{action.kind}" if isinstance(action, Move) else type(action).__name__


def roundtrip(event: Event) -> Event:
    """The event as the stream gives it back: encoded, decoded, and equal to what was sent."""
    decoded = decode_event(encode_event(event))
    assert decoded == event
    return decoded


def play(
    created: Event,
    edition: Edition,
    match_id: str,
    candidates: Candidates,
    *,
    seed: int,
    dice_seed: bytes,
    steps: int,
) -> Playthrough:
    """Play ``steps`` rounds: each applies the first candidate that validates (if any)."""
    rng = random.Random(seed)
    first = roundtrip(created)
    live = evolve(MatchState(match_id=match_id, edition=edition, seq=0), first, NoDice())
    log: list[Event] = [first]
    applied: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    for _ in range(steps):
        for side, action in candidates(live, rng):
            why = validate(live, side, action)
            if why is not None:
                refused[why.code] += 1
                continue
            seq = live.seq + 1
            event = roundtrip(Event(seq=seq, at=0.0, by=side, action_id=f"act-{seq}", body=action))
            live = evolve(live, event, SeededDice(dice_seed, match_id, seq))
            log.append(event)
            applied[action_name(action)] += 1
            break
    return Playthrough(match_id, dice_seed, live, log, applied, refused)


def assert_fold_equals_live(run: Playthrough) -> None:
    """The replay check: fold(initial, log) gives the live state, by state_hash and by value, and
    every event after the creation is one applied action."""
    folded = fold(run.match_id, run.log, lambda e: SeededDice(run.dice_seed, run.match_id, e.seq))
    assert state_hash(folded) == state_hash(run.live)
    assert folded == run.live
    assert sum(run.applied.values()) == len(run.log) - 1


# --- helpers for candidate generators ----------------------------------------------------------


def lead(unit: Unit) -> tuple[float, float] | None:
    """The position of the unit's first live model."""
    for m in unit.models.values():
        if m.alive:
            return (m.pos.x, m.pos.y)
    return None


def random_step(rng: random.Random, start: tuple[float, float], shortest: float, longest: float) -> Point:
    """A point in a random direction from ``start``, between ``shortest`` and ``longest`` away."""
    a, r = rng.uniform(0, 2 * math.pi), rng.uniform(shortest, longest)
    return Point(start[0] + r * math.cos(a), start[1] + r * math.sin(a))


def nearest_model(state: MatchState, unit: Unit, target_id: str) -> tuple[float, float] | None:
    """The centre of the target unit's live model nearest to the unit's lead model."""
    start = lead(unit)
    target = state.units.get(target_id)
    if start is None or target is None:
        return None
    return min(
        ((m.pos.x, m.pos.y) for m in target.models.values() if m.alive),
        key=lambda p: math.hypot(p[0] - start[0], p[1] - start[1]),
        default=None,
    )


def toward(start: tuple[float, float] | None, goal: tuple[float, float] | None, stop: float) -> Point | None:
    """The point ``stop`` inches short of ``goal`` on the straight line from ``start`` (None when
    either is unknown or ``start`` is already that close)."""
    if start is None or goal is None:
        return None
    d = math.hypot(goal[0] - start[0], goal[1] - start[1])
    if d <= stop:
        return None
    k = (d - stop) / d
    return Point(start[0] + (goal[0] - start[0]) * k, start[1] + (goal[1] - start[1]) * k)


def shuffled_with_end_phase(
    side: Side, actions: list[Action], rng: random.Random, early: float
) -> list[tuple[Side, Action]]:
    """The actions in random order, EndPhase last, or first with probability ``early``."""
    rng.shuffle(actions)
    if rng.random() < early:
        actions.insert(0, EndPhase())
    else:
        actions.append(EndPhase())
    return [(side, a) for a in actions]


def decisions(state: MatchState) -> list[tuple[Side, Action]] | None:
    """Every answer to the pending decision, or None when nothing is pending."""
    if state.pending is None:
        return None
    pending = state.pending
    return [(pending.side, Decide(decision=pending.id, choice=o)) for o in pending.options]
