"""The geometry of a proposed move: each moving model's path, length, swept area and end.

A Move gives either ``path`` (waypoints of the unit's first living model; every other model of
the unit moves by the same displacement) or ``positions`` (model id -> end point, straight line;
for squadrons the models may belong to several members of the squadron).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from shapely.geometry.base import BaseGeometry

from ...match.actions import Move
from ...match.state import MatchState, Model, Point, Unit
from .. import geometry as g
from .geo import alive, footprint


@dataclass(frozen=True)
class ModelMove:
    unit: str
    model: Model
    path: tuple[g.Point, ...]  # start point first
    heading: float

    @property
    def length(self) -> float:
        return g.path_length(self.path)

    @property
    def end(self) -> g.Point:
        return self.path[-1]

    def end_model(self) -> Model:
        from msgspec.structs import replace

        return replace(self.model, pos=Point(self.end[0], self.end[1]), heading=self.heading)

    def swept(self) -> BaseGeometry:
        """The area the model sweeps (40k7 Movement: nothing may be moved through); computed once
        per move however many checks ask for it."""
        return self._swept

    @functools.cached_property
    def _swept(self) -> BaseGeometry:
        fp = footprint(self.model)
        return g.swept_area(fp, self.path[1:], self.heading if self.model.hull is not None else None)

    def end_footprint(self) -> g.Footprint:
        return footprint(self.end_model())


def model_moves(state: MatchState, unit: Unit, action: Move) -> list[ModelMove] | str:
    """The moves a Move asks for, or an error text."""
    if action.positions:
        out: list[ModelMove] = []
        for mid, p in action.positions.items():
            owner = _owner(state, unit, mid)
            if owner is None:
                return f"model {mid!r} is not in {unit.name} or its squadron"
            model = owner.models[mid]
            if not model.alive:
                return f"model {mid!r} is a casualty"
            heading = (
                action.heading % 360
                if action.heading is not None and model.hull is not None
                else model.heading
            )
            out.append(ModelMove(owner.id, model, ((model.pos.x, model.pos.y), (p.x, p.y)), heading))
        return out
    if not action.path:
        return "a move needs at least one waypoint (path) or end positions"
    living = alive(unit)
    if not living:
        return f"{unit.name} has no models left"
    lead = living[0]
    pts = [(lead.pos.x, lead.pos.y), *((p.x, p.y) for p in action.path)]
    moves: list[ModelMove] = []
    for m in living:
        dx, dy = m.pos.x - lead.pos.x, m.pos.y - lead.pos.y
        heading = action.heading % 360 if action.heading is not None and m.hull is not None else m.heading
        moves.append(ModelMove(unit.id, m, tuple((x + dx, y + dy) for x, y in pts), heading))
    return moves


def _owner(state: MatchState, unit: Unit, mid: str) -> Unit | None:
    if mid in unit.models:
        return unit
    if unit.squadron is None:
        return None
    for other in state.units.values():
        if other.squadron == unit.squadron and other.side == unit.side and mid in other.models:
            return other
    return None


def truncate(move: ModelMove, limit: float) -> ModelMove:
    """The same move cut short after ``limit`` inches (difficult terrain, Run rolls)."""
    if move.length <= limit + 1e-9:
        return move
    pts = [move.path[0]]
    left = limit
    for a, b in zip(move.path, move.path[1:], strict=False):
        seg = math.hypot(b[0] - a[0], b[1] - a[1])
        if seg >= left:
            t = left / seg if seg else 0.0
            pts.append((a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
            break
        pts.append(b)
        left -= seg
    return ModelMove(move.unit, move.model, tuple(pts), move.heading)
