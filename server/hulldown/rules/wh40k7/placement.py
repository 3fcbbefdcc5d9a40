"""Placing models: emergency disembarkation, survivors of an explosion, models pushed aside by a
Tank Shock. Deterministic searches (no dice, no player choice) [decided]: candidate positions
are tried in a fixed order - rings around (or a grid inside) the hull - and the first legal spot
is taken. A spot is legal when the base is on the battlefield, overlaps no other model, is not
in impassable terrain and is more than 1" from every enemy model.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ...match.state import MatchState, Model, Point, Side
from .. import geometry as g
from ..memo import geometry_memo
from .geo import DEFAULT_BASE_MM, alive, footprint, on_table

ENEMY_GAP = 1.0  # 40k7: models may not end within 1" of the enemy (except in assault)
RING_STEP = 0.5
ANGLE_STEPS = 48


def base_radius(model: Model) -> float:
    return (model.base_mm or DEFAULT_BASE_MM) / g.MM_PER_INCH / 2.0


def _obstacles(
    state: MatchState, side: Side, ignore_units: Iterable[str]
) -> tuple[list[g.Footprint], list[g.Footprint], list[list[g.Point]]]:
    skip = set(ignore_units)
    friends: list[g.Footprint] = []
    enemies: list[g.Footprint] = []
    for unit in state.units.values():
        if unit.id in skip or not on_table(unit):
            continue
        target = friends if unit.side == side else enemies
        target.extend(footprint(m) for m in alive(unit))
    impassable = [[(p.x, p.y) for p in t.points] for t in state.terrain.values() if "impassable" in t.kinds]
    return friends, enemies, impassable


class Placer:
    """Finds legal spots for bases one model at a time, remembering those already placed."""

    def __init__(self, state: MatchState, side: Side, ignore_units: Iterable[str]) -> None:
        self.width = state.battlefield.width
        self.height = state.battlefield.height
        self.friends, self.enemies, self.impassable = _obstacles(state, side, ignore_units)
        self.placed: list[g.Footprint] = []

    def legal(self, base: g.Base) -> bool:
        if not g.inside_battlefield(base, self.width, self.height):
            return False
        if any(g.overlaps(base, other) for other in (*self.friends, *self.placed)):
            return False
        if any(g.overlaps(base, other) for other in self.enemies):
            return False
        if any(g.distance(base, e) < ENEMY_GAP - g.EPS for e in self.enemies):
            return False
        return not any(g.overlaps(base, poly) for poly in self.impassable)

    def take(self, candidates: Iterable[g.Point], diameter_mm: float) -> g.Point | None:
        for c in candidates:
            base = g.Base(c[0], c[1], diameter_mm)
            if self.legal(base):
                self.placed.append(base)
                return c
        return None


@geometry_memo
def ring_candidates(hull: g.Footprint, radius: float, max_gap: float) -> list[g.Point]:
    """Centres of bases of ``radius`` around the footprint, nearest ring first, each base wholly
    within ``max_gap`` inches of it (centre at most ``max_gap - radius`` away)."""
    out: list[g.Point] = []
    shape = hull.polygon()
    d = radius + 0.01
    while d <= max_gap - radius + 1e-9:
        ring = shape.buffer(d, quad_segs=8).exterior
        length = float(ring.length)
        steps = max(ANGLE_STEPS, int(length / (2 * radius + 0.05)))
        for k in range(steps):
            p = ring.interpolate(length * k / steps)
            out.append((float(p.x), float(p.y)))
        d += RING_STEP
    return out


def grid_candidates(hull: g.Footprint, radius: float) -> list[g.Point]:
    """Points inside the footprint where a base fits (for "placed where the vehicle was")."""
    minx, miny, maxx, maxy = hull.polygon().bounds
    step = 2 * radius + 0.05
    out: list[g.Point] = []
    y = miny + radius
    while y <= maxy - radius + 1e-9:
        x = minx + radius
        while x <= maxx - radius + 1e-9:
            out.append((x, y))
            x += step
        y += step
    cx, cy = (minx + maxx) / 2, (miny + maxy) / 2
    out.sort(key=lambda p: (math.hypot(p[0] - cx, p[1] - cy), p))
    return out


def place_models(
    state: MatchState,
    side: Side,
    models: list[Model],
    hull: g.Footprint,
    max_gap: float,
    inside_first: bool,
    ignore_units: Iterable[str],
) -> dict[str, Point | None]:
    """A spot for each model (None: it cannot be placed and is a casualty)."""
    placer = Placer(state, side, ignore_units)
    out: dict[str, Point | None] = {}
    for m in models:
        r = base_radius(m)
        cands = (grid_candidates(hull, r) if inside_first else []) + ring_candidates(hull, r, max_gap)
        spot = placer.take(cands, m.base_mm or DEFAULT_BASE_MM)
        out[m.id] = Point(spot[0], spot[1]) if spot is not None else None
    return out
