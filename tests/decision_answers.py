"""Random answers to placement and aiming decisions (docs/decisions.md), for playthrough tests,
and :func:`seeded_answered_run`: one action on seeded dice, answered at random, folded again."""

from __future__ import annotations

import math
import random
from collections.abc import Collection
from dataclasses import dataclass

from shapely import Point as ShapelyPoint
from shapely import Polygon, unary_union

from hulldown.match.actions import Action, Decide
from hulldown.match.events import Event
from hulldown.match.reducer import evolve, fold, state_hash
from hulldown.match.state import Decision, MatchState, Point, Shape, Side
from hulldown.match.validate import validate
from hulldown.rules.charging import DECISION_CHARGE
from hulldown.rules.dice import SeededDice


def polygon(shape: Shape) -> Polygon:
    return Polygon([(p.x, p.y) for p in shape[0]], [[(p.x, p.y) for p in h] for h in shape[1:]])


def random_point(shapes: tuple[Shape, ...], rng: random.Random) -> Point | None:
    """A random point inside one of ``shapes`` (None after 200 misses)."""
    poly = polygon(rng.choice(shapes))
    x0, y0, x1, y1 = poly.bounds
    for _ in range(200):
        p = ShapelyPoint(rng.uniform(x0, x1), rng.uniform(y0, y1))
        if poly.contains(p):
            return Point(round(p.x, 3), round(p.y, 3))
    return None


def random_aim(state: MatchState, rng: random.Random) -> Decide:
    """40k7 Weapons, Blast / Template: the proposal (30%), else a random hole inside the blast's
    area, or a random direction inside the template's legal directions, that validates (the
    first of up to 50 tries), else the proposal."""
    pending = state.pending
    assert pending is not None and pending.aim is not None
    aim = pending.aim
    if rng.random() < 0.3 or not aim.area:
        return Decide(pending.id, "proposal")
    for _ in range(50):
        if aim.shape == "blast":
            point = random_point(aim.area, rng)
            if point is None:
                continue
        else:
            lo, hi = rng.choice(aim.directions)
            a = math.radians(rng.uniform(lo, hi))
            reach = aim.limits["length"] / 2
            point = Point(
                round(aim.origin.x + reach * math.cos(a), 3), round(aim.origin.y + reach * math.sin(a), 3)
            )
        answer = Decide(pending.id, "aim", aim=point)
        if validate(state, pending.side, answer) is None:
            return answer
    return Decide(pending.id, "proposal")


# A charging model is nudged at most this far from where the proposal puts it.
CHARGE_NUDGE = 0.75
CHARGE_TRIES = 12


def random_charge(state: MatchState, rng: random.Random) -> Decide:
    """``place_chargers`` (docs/decisions.md): the proposal with one model nudged to a random
    point of its area within CHARGE_NUDGE of its proposed spot, the first of CHARGE_TRIES that
    validates (the move must still keep base contact where possible), else the proposal."""
    pending = state.pending
    assert pending is not None and pending.placement is not None
    placement = pending.placement
    for _ in range(CHARGE_TRIES):
        mid = rng.choice(placement.models)
        near = ShapelyPoint(placement.proposal[mid].x, placement.proposal[mid].y).buffer(CHARGE_NUDGE)
        area = near.intersection(unary_union([polygon(s) for s in placement.area[mid]]))
        if area.is_empty:
            continue
        x0, y0, x1, y1 = area.bounds
        p = ShapelyPoint(rng.uniform(x0, x1), rng.uniform(y0, y1))
        if not area.contains(p):
            continue
        place = {**placement.proposal, mid: Point(round(p.x, 3), round(p.y, 3))}
        answer = Decide(pending.id, "place", place=place)
        if validate(state, pending.side, answer) is None:
            return answer
    return Decide(pending.id, "proposal")


def random_answer(state: MatchState, rng: random.Random) -> Decide:
    """The proposal (30%), else a random placement inside each model's area that validates
    (the first of up to 50 tries), else the proposal. An aiming decision: ``random_aim``."""
    pending = state.pending
    assert pending is not None
    if pending.aim is not None:
        return random_aim(state, rng)
    assert pending.placement is not None
    if rng.random() < 0.3:
        return Decide(pending.id, "proposal")
    if pending.kind == DECISION_CHARGE:
        return random_charge(state, rng)
    for _ in range(50):
        place: dict[str, Point] = {}
        for mid in pending.placement.models:
            shapes = pending.placement.area[mid]
            if not shapes:
                continue
            point = random_point(shapes, rng)
            if point is not None:
                place[mid] = point
        answer = Decide(pending.id, "place", place=place)
        if validate(state, pending.side, answer) is None:
            return answer
    return Decide(pending.id, "proposal")


@dataclass(frozen=True)
class AnsweredRun:
    """What :func:`seeded_answered_run` played: the live state at its end, the decision it answered
    (None when the action did not pause on one of the kinds asked) and the answer given."""

    live: MatchState
    asked: Decision | None
    answer: Decide | None


def seeded_answered_run(
    start: MatchState, side: Side, action: Action, seed: bytes, kinds: Collection[str], rng: random.Random
) -> AnsweredRun:
    """``side`` takes ``action`` on dice seeded by ``seed``; if it pauses on a decision of one of
    ``kinds``, the deciding side answers it at random (``random_answer``), an answer validation must
    accept. Then folding the events again from ``start`` must give the live state (by state_hash)."""
    event = Event(seq=start.seq + 1, at=0.0, by=side, action_id="action", body=action)
    live = evolve(start, event, SeededDice(seed, "m", event.seq))
    log = [event]
    asked, answer = live.pending, None
    if asked is not None and asked.kind in kinds:
        answer = random_answer(live, rng)
        assert validate(live, asked.side, answer) is None
        event = Event(seq=live.seq + 1, at=0.0, by=asked.side, action_id="answer", body=answer)
        live = evolve(live, event, SeededDice(seed, "m", event.seq))
        log.append(event)
    else:
        asked = None
    folded = fold("m", log, lambda e: SeededDice(seed, "m", e.seq), start=start)
    assert state_hash(folded) == state_hash(live)
    return AnsweredRun(live, asked, answer)
