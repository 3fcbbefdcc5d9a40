"""Random answers to placement decisions (docs/decisions.md), for playthrough tests."""

from __future__ import annotations

import random

from shapely import Point as ShapelyPoint
from shapely import Polygon

from hulldown.match.actions import Decide
from hulldown.match.state import MatchState, Point, Shape
from hulldown.match.validate import validate


def polygon(shape: Shape) -> Polygon:
    return Polygon([(p.x, p.y) for p in shape[0]], [[(p.x, p.y) for p in h] for h in shape[1:]])


def random_answer(state: MatchState, rng: random.Random) -> Decide:
    """The proposal (30%), else a random placement inside each model's area that validates
    (the first of up to 50 tries), else the proposal."""
    pending = state.pending
    assert pending is not None and pending.placement is not None
    if rng.random() < 0.3:
        return Decide(pending.id, "proposal")
    for _ in range(50):
        place: dict[str, Point] = {}
        for mid in pending.placement.models:
            shapes = pending.placement.area[mid]
            if not shapes:
                continue
            poly = polygon(rng.choice(shapes))
            x0, y0, x1, y1 = poly.bounds
            for _ in range(200):
                p = ShapelyPoint(rng.uniform(x0, x1), rng.uniform(y0, y1))
                if poly.contains(p):
                    place[mid] = Point(round(p.x, 3), round(p.y, 3))
                    break
        answer = Decide(pending.id, "place", place=place)
        if validate(state, pending.side, answer) is None:
            return answer
    return Decide(pending.id, "proposal")
