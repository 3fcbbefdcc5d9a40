"""Adapter between match state (Models, Terrain, Weapons) and the geometry package.

Converts state structs to `geometry` shapes and answers the questions the 40k7 rules ask about
positions: distances between units, weapon origins, line-of-sight blockers, cover providers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import msgspec
from shapely import Polygon
from shapely.geometry.base import BaseGeometry

from ...match.identity_cache import IdentityCache, LastOne
from ...match.state import MatchState, Model, Point, Terrain, Unit, Weapon
from ...match.state import Mount as StateMount
from .. import geometry as g
from ..geometry.movement import coherency_gap as coherency_gap

# A model without a base size is on a 25 mm base [decided].
DEFAULT_BASE_MM = 25.0
# 40k7 cover: intervening models give a 5+ cover save [ext]; a wreck is a scenery piece that
# gives the same 5+ [decided]; terrain without a cover value gives 5+ [decided].
MODEL_COVER_SAVE = 5
WRECK_COVER_SAVE = 5
DEFAULT_TERRAIN_COVER = 5
# 40k7 Vehicles, Obscured Targets: "vehicles are not obscured simply for being inside terrain
# ... the 25% rule takes precedence". A piece the target vehicle touches or stands in still
# hides it where it lies between the firer and the facing: the part of the piece outside the
# target's hull is kept as a hiding piece, the part under the hull is dropped [decided].
TERRAIN_UNDER_HULL_CLIPPED = True
# Base contact tolerance in inches (charge moves place models exactly in contact).
CONTACT_EPS = 0.05
# Slack (inches) of the bounding-circle tests below: a pair is rejected as far only when its
# circles are this much farther apart than the distance asked about, so rounding can never
# reject a pair the exact test would accept.
FAR_SLACK = 1e-6
# Models whose footprints and units' models maps whose bounding circles are kept (by object
# identity: a model that did not change between events is the same object in the next state,
# match/identity_cache.py).
FOOTPRINT_CACHE_SIZE = 16384
UNIT_BOUNDS_CACHE_SIZE = 4096

_footprints: IdentityCache[Model, g.Footprint] = IdentityCache(FOOTPRINT_CACHE_SIZE)


class UnitBounds(msgspec.Struct, frozen=True, gc=False):
    """A circle holding every living model of a unit (centre, radius); ``empty``: no living model.
    Worked out from the models' positions and sizes alone: no footprint is built for it."""

    cx: float
    cy: float
    radius: float
    empty: bool


# Kept per models map, not per unit: a unit's circle depends on its models alone, and the copies
# of a unit whose flags or statuses change (every unit at the start of its side's turn) share it.
_unit_bounds: IdentityCache[dict[str, Model], UnitBounds] = IdentityCache(UNIT_BOUNDS_CACHE_SIZE)


def footprint(model: Model) -> g.Footprint:
    """The model's footprint: hull rectangle, else round base (docs/rules-notes.md, Measuring).
    Built once per model object (footprints are frozen values)."""
    return _footprints.get_or_make(model, _build_footprint)


def _build_footprint(model: Model) -> g.Footprint:
    if model.hull is not None:
        return g.Hull(model.pos.x, model.pos.y, model.hull.length, model.hull.width, model.heading)
    return g.Base(model.pos.x, model.pos.y, model.base_mm or DEFAULT_BASE_MM)


def facing_hull(model: Model) -> g.Hull:
    """The hull whose diagonals give a vehicle's facings; a Walker on a base uses a square of the
    base's size turned to its heading (40k7 Walkers: "a Walker has a facing")."""
    if model.hull is not None:
        return g.Hull(model.pos.x, model.pos.y, model.hull.length, model.hull.width, model.heading)
    size = (model.base_mm or DEFAULT_BASE_MM) / g.MM_PER_INCH
    return g.Hull(model.pos.x, model.pos.y, size, size, model.heading)


def pt(p: Point) -> g.Point:
    return (p.x, p.y)


def geo_mount(mount: StateMount) -> g.Mount:
    """State mount -> geometry mount. Mount kind "none" swivels all round like a turret."""
    offset = (mount.offset.x, mount.offset.y)
    if mount.kind in ("none", "turret", "pintle"):
        return g.Mount("turret" if mount.kind == "none" else mount.kind, offset=offset)
    if mount.kind == "hull":
        arc = mount.arc if mount.arc in ("front", "rear", "left", "right") else "front"
        return g.Mount("hull", arc=arc, offset=offset, swivel=mount.swivel)
    if mount.kind == "sponson":
        side = mount.side or ("left" if mount.arc == "left" else "right")
        return g.Mount("sponson", side=side, offset=offset)
    if mount.kind == "centreline":
        return g.Mount("centreline", offset=offset)
    # Co-axial: resolved with the linked weapon's mount (``weapon_mount``).
    return g.Mount("coaxial", offset=offset)


def weapon_mount(unit: Unit, weapon: Weapon) -> tuple[g.Mount, g.Mount | None]:
    """The weapon's mount as the 40k7 rules shoot it, and for a co-axial weapon the mount of the
    weapon it is linked to (40k7 Vehicles, Vehicle Weapons and Line of Sight: it fires in that
    weapon's arc). A co-axial weapon linked to no weapon of its unit turns like a turret
    [decided]. Shooting, the table's measurements and the viewer's arcs all resolve mounts here."""
    mount = geo_mount(weapon.mount)
    if mount.kind != "coaxial":
        return mount, None
    linked = unit.weapons.get(weapon.mount.linked) if weapon.mount.linked is not None else None
    if linked is None:
        return g.Mount("turret", offset=mount.offset), None
    return mount, geo_mount(linked.mount)


def alive(unit: Unit) -> list[Model]:
    return [m for m in unit.models.values() if m.alive]


def on_table(unit: Unit) -> bool:
    """On the battlefield: not destroyed (wrecks are terrain), not embarked, not in reserves."""
    return not unit.destroyed and unit.embarked_in is None and "reserves" not in unit.statuses


def lead_model(unit: Unit) -> Model:
    models = alive(unit)
    return models[0] if models else next(iter(unit.models.values()))


def model_distance(a: Model, b: Model) -> float:
    return g.distance(footprint(a), footprint(b))


def model_reach(model: Model) -> float:
    """How far the model's footprint reaches from its position: a hull's corner, a base's edge
    (equal to its footprint's ``reach``, without building the footprint)."""
    if model.hull is not None:
        return g.hull_reach(model.hull.length, model.hull.width)
    return g.base_radius(model.base_mm or DEFAULT_BASE_MM)


def unit_bounds(unit: Unit) -> UnitBounds:
    """The circle holding the unit's living models, once per models map object."""
    return _unit_bounds.get_or_make(unit.models, _build_unit_bounds)


def turned_in_place(before: Unit, models: dict[str, Model]) -> None:
    """``models``: ``before``'s models turned to new headings, none moved (a pivot about the
    centre): their circle is ``before``'s, which reads positions and sizes alone."""
    _unit_bounds.put(models, unit_bounds(before))


def _build_unit_bounds(unit_models: dict[str, Model]) -> UnitBounds:
    models = [m for m in unit_models.values() if m.alive]
    if len(models) == 1:  # a vehicle, most often: the circle is its own
        only = models[0]
        return UnitBounds(only.pos.x, only.pos.y, model_reach(only), False)
    if not models:
        return UnitBounds(0.0, 0.0, 0.0, True)
    cx = sum([m.pos.x for m in models]) / len(models)
    cy = sum([m.pos.y for m in models]) / len(models)
    radius = max([math.hypot(m.pos.x - cx, m.pos.y - cy) + model_reach(m) for m in models])
    return UnitBounds(cx, cy, radius, False)


def may_be_within(a: UnitBounds, b: UnitBounds, d: float) -> bool:
    """False when no part of the two units can be within ``d`` inches: their bounding circles
    are farther apart than that (every model lies inside its unit's circle). Cheap, exact."""
    if a.empty or b.empty:
        return False
    return math.hypot(a.cx - b.cx, a.cy - b.cy) - a.radius - b.radius <= d + FAR_SLACK


def units_within(a: Unit, b: Unit, d: float) -> bool:
    """Some living models of the two units are within ``d`` inches (hull or base edges)."""
    return may_be_within(unit_bounds(a), unit_bounds(b), d) and _models_within(a, b, d)


def _models_within(a: Unit, b: Unit, d: float) -> bool:
    """Some living models of the two units are within ``d`` inches, footprint by footprint."""
    theirs = [footprint(m) for m in alive(b)]
    return any(g.within(footprint(m), fb, d) for m in alive(a) for fb in theirs)


def unit_distance(a: Unit, b: Unit) -> float:
    """Closest distance between any living models of two units (hull or base edges)."""
    best = math.inf
    for ma in alive(a):
        fa = footprint(ma)
        for mb in alive(b):
            best = min(best, g.distance(fa, footprint(mb)))
    return best


def point_to_unit(p: g.Point, unit: Unit) -> float:
    return min((g.distance(p, footprint(m)) for m in alive(unit)), default=math.inf)


def in_contact(a: Model, b: Model) -> bool:
    fa, fb = footprint(a), footprint(b)
    if math.hypot(fa.cx - fb.cx, fa.cy - fb.cy) - fa.reach - fb.reach > CONTACT_EPS + FAR_SLACK:
        return False  # too far apart for any contact: no polygon needed
    return g.distance(fa, fb) <= CONTACT_EPS


def units_in_contact(a: Unit, b: Unit) -> bool:
    return units_within(a, b, CONTACT_EPS)


# The answer for the last units map asked about (match/identity_cache.py): the states of a phase
# that moved nobody share their map. One entry keeps no older state's units alive.
_contact_pairs: LastOne[dict[str, Unit], dict[str, tuple[tuple[str, str], ...]]] = LastOne()


def contact_pairs(units: dict[str, Unit], side: str) -> tuple[tuple[str, str], ...]:
    """Pairs (unit of ``side``, enemy unit) on the table in base contact, in unit order."""
    per_side = _contact_pairs.get(units)
    if per_side is None:
        per_side = _contact_pairs.put(units, {})
    found = per_side.get(side)
    if found is None:
        found = per_side[side] = _pairs_in_contact(units, side)
    return found


def _pairs_in_contact(units: dict[str, Unit], side: str) -> tuple[tuple[str, str], ...]:
    """40k7 Close Combat, base contact: each pair's bounding circles first (most pairs are far
    apart, and that test builds no footprint), then its models."""
    placed = [(u, unit_bounds(u)) for u in units.values() if on_table(u)]
    return tuple(
        (u.id, e.id)
        for u, u_circle in placed
        if u.side == side
        for e, e_circle in placed
        if e.side != side
        and may_be_within(u_circle, e_circle, CONTACT_EPS)
        and _models_within(u, e, CONTACT_EPS)
    )


def terrain_piece(t: Terrain) -> g.TerrainPiece:
    return g.TerrainPiece(t.id, tuple(pt(p) for p in t.points), t.kinds, t.cover_save, t.level)


def wreck_piece(unit: Unit) -> g.TerrainPiece | None:
    """40k7 Vehicles, Wrecked Vehicles: the wreck stays as a piece of difficult terrain."""
    if not (unit.destroyed and unit.wreck):
        return None
    model = lead_model(unit)
    shape = footprint(model)
    poly = shape.polygon()
    verts = tuple((float(x), float(y)) for x, y in list(poly.exterior.coords)[:-1])
    return g.TerrainPiece(f"wreck:{unit.id}", verts, ("difficult", "blocks_los", "cover"), WRECK_COVER_SAVE)


def all_terrain(state: MatchState) -> list[g.TerrainPiece]:
    """Terrain pieces plus wrecks."""
    pieces = [terrain_piece(t) for t in state.terrain.values()]
    for unit in state.units.values():
        piece = wreck_piece(unit)
        if piece is not None:
            pieces.append(piece)
    return pieces


def vehicle_hulls(state: MatchState, exclude: Iterable[str] = ()) -> list[tuple[str, g.Hull]]:
    """Hulls of vehicles on the table (living models), minus the excluded unit ids."""
    skip = set(exclude)
    out: list[tuple[str, g.Hull]] = []
    for unit in state.units.values():
        if unit.id in skip or not on_table(unit):
            continue
        for m in alive(unit):
            if m.hull is not None:
                out.append((unit.id, facing_hull(m)))
    return out


def los_blockers(state: MatchState, exclude: Iterable[str] = ()) -> list[BaseGeometry]:
    """What blocks line of sight: terrain that blocks it, wrecks, and vehicle hulls other than the
    excluded units (firer, its squadron, the target). Infantry never blocks sight (it gives cover)."""
    skip = set(exclude)
    blockers: list[BaseGeometry] = [
        p.polygon()
        for p in all_terrain(state)
        if p.has("blocks_los") and p.id.removeprefix("wreck:") not in skip
    ]
    blockers.extend(h.polygon() for _, h in vehicle_hulls(state, skip))
    return blockers


@dataclass(frozen=True)
class CoverPiece:
    """Something that can hide part of a target, with the cover save it grants."""

    id: str
    shape: BaseGeometry
    save: int


def cover_pieces(
    state: MatchState, exclude_units: Iterable[str], target_shape: BaseGeometry | None
) -> list[CoverPiece]:
    """Terrain (blocks_los or cover), wrecks and models that may obscure a target.

    Terrain that overlaps the target (``target_shape``) is clipped to the part outside it
    (TERRAIN_UNDER_HULL_CLIPPED: 40k7 Vehicles, Obscured Targets - being inside terrain alone
    does not obscure, but the 25% rule takes precedence); for Infantry the caller handles area
    terrain.
    """
    skip = set(exclude_units)
    out: list[CoverPiece] = []
    for piece in all_terrain(state):
        if piece.id.removeprefix("wreck:") in skip:
            continue
        if not (piece.has("blocks_los") or piece.has("cover")):
            continue
        poly: BaseGeometry = piece.polygon()
        if target_shape is not None and float(poly.intersection(target_shape).area) > g.AREA_EPS:
            if not TERRAIN_UNDER_HULL_CLIPPED:
                continue
            poly = poly.difference(target_shape)
            if poly.is_empty or float(poly.area) <= g.AREA_EPS:
                continue
        out.append(CoverPiece(piece.id, poly, piece.cover_save or DEFAULT_TERRAIN_COVER))
    for unit in state.units.values():
        if unit.id in skip or not on_table(unit):
            continue
        for m in alive(unit):
            out.append(CoverPiece(f"model:{m.id}", footprint(m).polygon(), MODEL_COVER_SAVE))
    return out


def polygon_of(model: Model) -> Polygon:
    return footprint(model).polygon()


def direction(a: g.Point, b: g.Point) -> tuple[float, float]:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy)
    return (dx / n, dy / n) if n > 0 else (0.0, 0.0)
