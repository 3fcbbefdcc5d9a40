"""Adapter from match state (Models, Terrain, Mounts) to the shared geometry package.

# Measuring (docs/rules-notes.md, All editions): distances to and from a vehicle are measured to
# its hull, bases to the edge of the base; hh3 Vehicles, Fire arcs and weapon mounts and Which
# facing is hit (arcs and facings from the corner diagonals).
"""

from __future__ import annotations

from collections.abc import Iterable

from shapely.geometry.base import BaseGeometry

from ...match.state import MatchState, Model, Point, Terrain, Unit, Weapon
from .. import geometry as g
from .core import DEFAULT_BASE_MM, alive_models, is_flyer, units_on_table

# hh3 core, Line of Sight [ext]: terrain and models with the Vehicle type block a line of sight;
# other models never do [decided]; a Flyer does not block line of sight (hh3 Flyers [ext]). The
# firing unit and the target unit never block lines drawn between them (a hull does not hide
# itself; a weapon's mount point lies inside its own hull).
LOS_BLOCKING_KINDS = ("vehicle",)


def footprint(model: Model) -> g.Footprint:
    """The model's hull (vehicles) or base (everything else)."""
    if model.hull is not None:
        return g.Hull(model.pos.x, model.pos.y, model.hull.length, model.hull.width, model.heading)
    return g.Base(model.pos.x, model.pos.y, model.base_mm or DEFAULT_BASE_MM)


def hull(model: Model) -> g.Hull:
    shape = footprint(model)
    assert isinstance(shape, g.Hull), f"model {model.id} has no hull"
    return shape


def at(model: Model, pos: Point, heading: float | None = None) -> g.Footprint:
    """The model's footprint if it stood at ``pos`` (and turned to ``heading``)."""
    if model.hull is not None:
        h = model.heading if heading is None else heading
        return g.Hull(pos.x, pos.y, model.hull.length, model.hull.width, h)
    return g.Base(pos.x, pos.y, model.base_mm or DEFAULT_BASE_MM)


def pivot_sweep(model: Model, heading: float) -> BaseGeometry:
    """The area a hull covers pivoting about its centre to ``heading`` the shorter way round (hh3
    Vehicles, Pivoting is not moving: a pivot turns the vehicle; hh3 Vehicles, Driving through other
    units: never through a vehicle or terrain).

    ``geometry.swept_area`` takes headings 180 degrees apart as one footprint (right for a move,
    which may be driven forwards or in reverse), so a pure turn is swept as two halves of at
    most 90 degrees, each of which it sweeps exactly.
    """
    start = hull(model)
    turn = (heading - start.heading + 180.0) % 360.0 - 180.0  # [-180, 180)
    mid = start.heading + turn / 2.0
    halfway = g.Hull(start.cx, start.cy, start.length, start.width, mid)
    first = g.swept_area(start, (), mid)
    return first.union(g.swept_area(halfway, (), start.heading + turn))


def radius(model: Model) -> float:
    shape = footprint(model)
    return shape.radius if isinstance(shape, g.Base) else 0.0


def unit_footprints(unit: Unit) -> list[g.Footprint]:
    return [footprint(m) for m in alive_models(unit)]


def unit_distance(a: Unit, b: Unit) -> float:
    """Closest distance between any two alive models of the units."""
    return min(
        (g.distance(fa, fb) for fa in unit_footprints(a) for fb in unit_footprints(b)), default=float("inf")
    )


def model_to_unit(model: Model, unit: Unit) -> float:
    fp = footprint(model)
    return min((g.distance(fp, other) for other in unit_footprints(unit)), default=float("inf"))


def terrain_piece(t: Terrain) -> g.TerrainPiece:
    return g.TerrainPiece(
        id=t.id,
        vertices=tuple((p.x, p.y) for p in t.points),
        kinds=t.kinds,
        cover_save=t.cover_save,
        level=t.level,
    )


def terrain_pieces(state: MatchState) -> list[g.TerrainPiece]:
    return [terrain_piece(t) for t in state.terrain.values()]


def blockers(state: MatchState, exclude: Iterable[str] = ()) -> list[g.PolygonLike]:
    """Line-of-sight blockers (hh3 core, Line of Sight [ext]): terrain marked blocks_los and the
    hulls of the vehicles on the table, except those of the units in ``exclude`` (the firer and
    its target)."""
    skip = set(exclude)
    hulls: list[g.PolygonLike] = [
        footprint(m)
        for u in units_on_table(state)
        if u.id not in skip and u.kind in LOS_BLOCKING_KINDS and not is_flyer(u)
        for m in alive_models(u)
    ]
    return [*g.los_blockers(terrain_pieces(state)), *hulls]


def geometry_mount(weapon: Weapon, unit: Unit) -> tuple[g.Mount, g.Mount | None]:
    """The weapon's mount in geometry terms, and for a co-axial weapon its linked weapon's mount."""
    m = weapon.mount
    kind = "turret" if m.kind == "none" else m.kind
    mount = g.Mount(
        kind=kind,
        arc=m.arc,
        side=m.side,
        offset=(m.offset.x, m.offset.y),
        swivel=m.swivel,
        edition="hh3",
    )
    linked: g.Mount | None = None
    if kind == "coaxial":
        other = unit.weapons.get(m.linked or "")
        if other is not None and other.mount.kind not in ("coaxial", "none"):
            linked = geometry_mount(other, unit)[0]
        else:
            linked = g.Mount(kind="turret", edition="hh3")
    return mount, linked


def firing_point(unit: Unit, weapon: Weapon) -> g.Point:
    """Where a weapon fires from: a vehicle weapon's mount point, else the model's base centre."""
    model = unit.models[weapon.model]
    if model.hull is not None:
        return g.mount_position(hull(model), geometry_mount(weapon, unit)[0])
    return (model.pos.x, model.pos.y)


def in_arc(unit: Unit, weapon: Weapon, target: Unit) -> bool:
    """hh3 Vehicles, Fire arcs and weapon mounts: some part of some target model inside the weapon's
    fire arc. Weapons of models without a hull have no arc."""
    model = unit.models[weapon.model]
    if model.hull is None:
        return True
    mount, linked = geometry_mount(weapon, unit)
    h = hull(model)
    return any(g.in_arc(h, mount, fp, linked) for fp in unit_footprints(target))


def sees(state: MatchState, origin: g.Point, target: Unit, viewer: str = "") -> bool:
    """Line of sight from a point to any alive model of the target (to the hull, hh3 Vehicles, Which
    facing is hit), past terrain and vehicles other than the viewer's unit and the target (hh3 core,
    Line of Sight [ext])."""
    blocks = blockers(state, (viewer, target.id))
    return any(g.line_of_sight(origin, fp, blocks) for fp in unit_footprints(target))


def models_near(state: MatchState, shape: g.Shape, reach: float, exclude: Iterable[str] = ()) -> list[Unit]:
    """Units on the table with a model within ``reach`` inches of the shape."""
    skip = set(exclude)
    return [
        u
        for u in units_on_table(state)
        if u.id not in skip and any(g.within(shape, fp, reach) for fp in unit_footprints(u))
    ]


def inside_battlefield(state: MatchState, fp: g.Footprint) -> bool:
    return g.inside_battlefield(fp, state.battlefield.width, state.battlefield.height)
