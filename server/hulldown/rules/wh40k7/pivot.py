"""Where a pivot may end, and the enemy models it moves out of the way (seed 001, Movement and
Vehicles and Close Combat).

- A vehicle pivots on the spot about its centre. The pivoted hull may not end on another model
  or in impassable terrain, nor off the battlefield ("just like other units, vehicles cannot
  move over friendly models"; 40k7 The Movement Phase [ext]) - except the enemy models in base
  contact with it before the pivot:
- those are moved out of the way and placed back into base contact with the pivoted hull, "or as
  close as possible if there is no room" (seed 001, Vehicles and Close Combat), so a pivot is no
  escape from an ongoing combat. Each goes to the legal spot nearest its old position: first
  the ring of spots touching the hull, then rings CONTACT_RING_STEP further out
  [decided: a deterministic search, no player choice].
"""

from __future__ import annotations

import math

from msgspec.structs import replace
from shapely import Point as ShapelyPoint

from ...match.context import ApplyContext
from ...match.rejection import Rejection, reject
from ...match.state import MatchState, Model, Point, Unit
from ...match.turns import replace_unit
from .. import geometry as g
from . import refs
from .geo import CONTACT_EPS, alive, all_terrain, footprint, in_contact, may_be_within, on_table, unit_bounds
from .types import is_zooming
from .wording import degrees, place, plural

# Spots around the hull are tried every PERIMETER_STEP inches, ring after ring.
PERIMETER_STEP = 0.1
# A re-placed base stands this far off the hull: inside the base-contact tolerance (CONTACT_EPS).
CONTACT_GAP = 0.001
CONTACT_RING_STEP = 0.25
CONTACT_RINGS = 24


def pivoted_hull(model: Model, heading: float) -> g.Footprint:
    return footprint(replace(model, heading=heading % 360))


def contact_enemies(state: MatchState, unit: Unit) -> list[tuple[Unit, Model]]:
    """Enemy models in base contact with the vehicle. An enemy unit whose bounding circle is
    out of contact range of the vehicle's is passed over without looking at its models."""
    out: list[tuple[Unit, Model]] = []
    bounds = unit_bounds(unit)
    hulls: list[Model] | None = None  # the vehicle's models, once an enemy unit is near
    for other in state.units.values():
        if other.side == unit.side or not on_table(other):
            continue
        if not may_be_within(bounds, unit_bounds(other), CONTACT_EPS):
            continue
        if hulls is None:
            hulls = alive(unit)
        out.extend((other, m) for m in alive(other) if any(in_contact(h, m) for h in hulls))
    return out


def validate_pivot_end(state: MatchState, unit: Unit, heading: float) -> Rejection | None:
    """40k7 Vehicles, Movement: the pivoted hull may not end on a model (other than the enemy
    models in base contact, which move aside), in impassable terrain or off the table."""
    movers = {m.id for _, m in contact_enemies(state, unit)}
    flies_over = is_zooming(unit)  # 40k7 Flyers: a Zooming Flyer is above models and terrain
    for model in alive(unit):
        hull = pivoted_hull(model, heading)
        if not g.inside_battlefield(hull, state.battlefield.width, state.battlefield.height):
            return reject(
                "off_table", refs.MOVEMENT, f"{unit.name} cannot pivot: its hull would leave the table"
            )
        for other in state.units.values():
            if flies_over or other.id == unit.id or not on_table(other):
                continue
            for m in alive(other):
                if m.id not in movers and g.overlaps(hull, footprint(m)):
                    return reject(
                        "pivot_blocked",
                        refs.MOVEMENT,
                        f"{unit.name} cannot pivot to {degrees(heading % 360)}: its hull would end on {m.id}",
                        model=m.id,
                    )
        for piece in all_terrain(state):
            if not flies_over and piece.has("impassable") and g.overlaps(hull, piece.polygon()):
                return reject(
                    "impassable",
                    refs.MOVEMENT,
                    f"{unit.name} cannot pivot to {degrees(heading % 360)}: its hull would end in "
                    f"impassable terrain {piece.id}",
                    terrain=piece.id,
                )
    return None


def _ring(hull: g.Footprint, offset: float) -> list[g.Point]:
    ring = hull.polygon().buffer(offset).exterior
    n = max(8, math.ceil(float(ring.length) / PERIMETER_STEP))
    return [
        (float(p.x), float(p.y)) for p in (ring.interpolate(k * float(ring.length) / n) for k in range(n))
    ]


def _spot(
    state: MatchState, hull: g.Footprint, model: Model, taken: list[g.Footprint], radius: float
) -> tuple[g.Point, bool] | None:
    """The legal spot nearest the model's old position: touching the hull if there is room
    (True), else as close as possible (False)."""
    old = (model.pos.x, model.pos.y)
    impassable = [p.polygon() for p in all_terrain(state) if p.has("impassable")]
    for k in range(CONTACT_RINGS + 1):
        spots = sorted(
            _ring(hull, radius + CONTACT_GAP + k * CONTACT_RING_STEP), key=lambda p: math.dist(p, old)
        )
        for x, y in spots:
            base = footprint(replace(model, pos=Point(x, y)))
            if not g.inside_battlefield(base, state.battlefield.width, state.battlefield.height):
                continue
            if any(g.overlaps(base, other) for other in taken):
                continue
            if any(poly.intersects(ShapelyPoint(x, y).buffer(radius)) for poly in impassable):
                continue
            return (x, y), k == 0
    return None


def place_back(
    state: MatchState, ctx: ApplyContext, uid: str, before: list[tuple[Unit, Model]]
) -> MatchState:
    """Seed 001, Vehicles and Close Combat: after the pivot, every enemy model that was in base
    contact and is no longer (or is now under the hull) is placed back into base contact."""
    if not before:
        return state  # nobody was in base contact: nobody to place back
    unit = state.units[uid]
    hulls = [footprint(m) for m in alive(unit)]
    moving = [
        (u, m)
        for u, m in before
        if any(g.overlaps(h, footprint(m)) for h in hulls) or not any(in_contact(h, m) for h in alive(unit))
    ]
    if not moving:
        return state
    moving_ids = {m.id for _, m in moving}
    taken: list[g.Footprint] = [*hulls]
    for other in state.units.values():
        if other.id != uid and on_table(other):
            taken.extend(footprint(m) for m in alive(other) if m.id not in moving_ids)
    moved: list[str] = []
    apart: list[str] = []
    for owner, model in moving:
        radius = footprint(model).reach
        found = _spot(state, hulls[0], model, taken, radius)
        if found is None:
            continue  # no legal spot within the searched rings: the model stays [decided]
        (x, y), touching = found
        new_model = replace(model, pos=Point(x, y))
        current = state.units[owner.id]
        state = replace_unit(state, replace(current, models={**current.models, model.id: new_model}))
        taken.append(footprint(new_model))
        (moved if touching else apart).append(f"{model.id} to {place(x, y)}")
    if moved or apart:
        text = f"{unit.name} pivots: {plural(len(moved) + len(apart), 'enemy model')} moved out of the way"
        text += f" and placed back in base contact ({', '.join(moved)})" if moved else ""
        text += f"; no room in contact, as close as possible: {', '.join(apart)}" if apart else ""
        ctx.log(
            text + ".",
            refs.CLOSE_COMBAT,
            moved=[s.split(" to ")[0] for s in moved],
            as_close_as_possible=[s.split(" to ")[0] for s in apart],
        )
    return state
