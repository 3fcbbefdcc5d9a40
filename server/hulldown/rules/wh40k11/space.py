"""Where 40k11 models are: footprints (17.02 FRAME), distances, Engagement Range, swept moves.

An adapter from state models to the shared geometry package (rules/geometry); no geometry of its
own beyond the choice of footprint and the translation sweep of a hull.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely import unary_union
from shapely.geometry.base import BaseGeometry

from ...match.state import MatchState, Model, Terrain, Unit
from ..geometry import (
    Base,
    Footprint,
    Hull,
    Point,
    Shape,
    as_geometry,
    distance,
    line_of_sight,
    los_blockers,
    overlaps,
    prepare_blockers,
    swept_area,
)
from ..geometry import TerrainPiece as GeoTerrain
from .constants import (
    COVER_KIND,
    COVER_NEEDS_EVERY_MODEL,
    DEFAULT_BASE_MM,
    ENGAGEMENT_RANGE_HORIZONTAL,
    ENGAGEMENT_RANGE_VERTICAL,
    EPS,
    FRAME_SIGHT_ORIGIN_SHORTEST,
    FRAME_SIGHT_STEP,
    GROUND_LEVEL_SEPARATION,
)
from .units import enemies, is_frame, live_models, on_table

# DE-9IM pattern "the interior of a segment meets the interior of a polygon" (geometry.sight).
INTERIORS_MEET = "T********"
FAR_AWAY: Point = (-1.0e9, -1.0e9)


def footprint(unit: Unit, model: Model, at: Point | None = None, heading: float | None = None) -> Footprint:
    """The shape distances are measured to and from.

    40k11 17.02: a FRAME model is measured to and from its closest point, so its hull when it has
    one, even if it also has a base. A model with a base and no FRAME keyword is measured to its
    base. A baseless model is its hull.
    """
    x, y = at if at is not None else (model.pos.x, model.pos.y)
    h = model.heading if heading is None else heading
    if model.hull is not None and (is_frame(unit) or model.base_mm is None):
        return Hull(x, y, model.hull.length, model.hull.width, h)
    return Base(x, y, model.base_mm or DEFAULT_BASE_MM)


@functools.lru_cache(maxsize=4096)
def _whole(*pieces: Footprint) -> BaseGeometry:
    return unary_union([p.polygon() for p in pieces])


def parts(unit: Unit, model: Model, at: Point | None = None, heading: float | None = None) -> list[Footprint]:
    """The shapes whose union is the whole model, ``extent`` (17.02: a FRAME model's hull and its
    base when it has both), each a footprint the shared charge geometry takes; else the footprint."""
    fp = footprint(unit, model, at, heading)
    if isinstance(fp, Hull) and is_frame(unit) and model.base_mm is not None:
        return [fp, Base(fp.cx, fp.cy, model.base_mm)]
    return [fp]


def extent(unit: Unit, model: Model, at: Point | None = None, heading: float | None = None) -> Shape:
    """The whole model, for distances and line of sight.

    40k11 17.02: a FRAME model is measured to and from the closest point on the model, "not
    necessarily from its base": with a hull and a base, the closest of the two (their union),
    so a base sticking out past the hull counts too. Any other model: its ``footprint``.
    """
    first, *rest = parts(unit, model, at, heading)
    return _whole(first, *rest) if rest else first


def outline_points(shape: Shape) -> list[Point]:
    """Points along a shape's outline at most ``FRAME_SIGHT_STEP`` inches apart, plus the corners
    of a hull (17.02 FRAME line of sight, sampled)."""
    ring = as_geometry(shape).exterior
    steps = max(4, math.ceil(ring.length / FRAME_SIGHT_STEP))
    points = [ring.interpolate(k * ring.length / steps) for k in range(steps)]
    out = [(float(p.x), float(p.y)) for p in points]
    if isinstance(shape, Hull):
        out.extend(shape.corners())
    return out


def sees(state: MatchState, unit: Unit, model: Model, target: Unit) -> bool:
    """Can this model see some part of some live model of the target?

    The exact test from the centre of the model to the whole of each target model first (40k11
    core [ext, simplified]: terrain marked ``blocks_los`` blocks, models never do). 17.02 FRAME: a
    FRAME model sees from any part of itself [decided: sampled]: segments from points along its
    outline to points along the outlines of the target models, every ``FRAME_SIGHT_STEP`` inches
    (each segment tested exactly, all of them at once per origin).
    """
    return sees_shapes(state, unit, model, [extent(target, m) for m in live_models(target)])


def sees_shapes(state: MatchState, unit: Unit, model: Model, shapes: Sequence[Shape]) -> bool:
    """Can this model see some part of one of ``shapes`` (``sees``, for any target shapes: the
    table's sight tool asks it of one model, docs/table.md)? 40k11 core Line of sight [ext,
    simplified]; 17.02 FRAME: from any part of the model [decided: sampled]."""
    return sight_from(state, unit, model, shapes) is not None


def sight_from(state: MatchState, unit: Unit, model: Model, shapes: Sequence[Shape]) -> Point | None:
    """The point this model sees some part of one of ``shapes`` from, None if it sees none.

    40k11 core Line of sight [ext, simplified]: the model's centre when its exact test sees (or
    no terrain blocks sight at all). 17.02 FRAME ("measure to and from the closest point on that
    model"): else a point on the outline of the whole model (``extent``) from which a sampled
    segment to a target outline is clear [decided: sampled]; of those, the start of the shortest
    clear segment (``FRAME_SIGHT_ORIGIN_SHORTEST``), so the table's sight tool draws the line the
    rules found (docs/table.md).
    """
    centre: Point = (model.pos.x, model.pos.y)
    blockers = sight_blockers(state)
    if not blockers:
        return centre
    if any(line_of_sight(centre, shape, blockers) for shape in shapes):
        return centre
    if not is_frame(unit) or not shapes:
        return None
    ends = np.array([p for shape in shapes for p in outline_points(shape)], dtype=float)
    origins = np.array(outline_points(extent(unit, model)), dtype=float)
    pairs = np.stack([np.repeat(origins, len(ends), axis=0), np.tile(ends, (len(origins), 1))], axis=1)
    lines = shapely.linestrings(pairs)
    starts = shapely.points(origins)
    blocked = np.zeros((len(origins), len(ends)), dtype=bool)
    # Valid blocker polygons (an origin far away keeps them all); terrain an origin stands in does
    # not block that origin's lines (the geometry package's convention).
    for poly in prepare_blockers(FAR_AWAY, blockers):
        inside = np.asarray(shapely.contains(poly, starts), dtype=bool)
        hit = np.asarray(shapely.relate_pattern(lines, poly, INTERIORS_MEET), dtype=bool)
        blocked |= hit.reshape(len(origins), len(ends)) & ~inside[:, None]
    clear = ~blocked
    if not clear.any():
        return None
    if FRAME_SIGHT_ORIGIN_SHORTEST:
        lengths = np.hypot(*(pairs[:, 1, :] - pairs[:, 0, :]).T).reshape(len(origins), len(ends))
        row = int(np.unravel_index(int(np.argmin(np.where(clear, lengths, np.inf))), clear.shape)[0])
    else:
        row = int(np.argmax(clear.any(axis=1)))
    return (float(origins[row][0]), float(origins[row][1]))


def model_distance(ua: Unit, ma: Model, ub: Unit, mb: Model) -> float:
    """Closest-point distance between two models (17.02 for FRAME models: the whole model)."""
    return distance(extent(ua, ma), extent(ub, mb))


def unit_distance(a: Unit, b: Unit) -> float:
    """Closest distance between any live models of two units."""
    return min(
        (model_distance(a, ma, b, mb) for ma in live_models(a) for mb in live_models(b)),
        default=float("inf"),
    )


def vertical_separation(_a: Model, _b: Model) -> float:
    """Every model stands on the ground in this core [decided]."""
    return GROUND_LEVEL_SEPARATION


def within_engagement(ua: Unit, ma: Model, ub: Unit, mb: Model) -> bool:
    """40k11 core, Engagement Range: within 2" horizontally and 5" vertically."""
    if vertical_separation(ma, mb) > ENGAGEMENT_RANGE_VERTICAL + EPS:
        return False
    return model_distance(ua, ma, ub, mb) <= ENGAGEMENT_RANGE_HORIZONTAL + EPS


def units_engaged(a: Unit, b: Unit) -> bool:
    """Are two enemy units within Engagement Range of each other (any pair of models)?"""
    if a.side == b.side or not on_table(a) or not on_table(b):
        return False
    return any(within_engagement(a, ma, b, mb) for ma in live_models(a) for mb in live_models(b))


def engaged_with(state: MatchState, unit: Unit) -> tuple[str, ...]:
    """Ids of the enemy units this unit is engaged with, sorted."""
    if not on_table(unit):
        return ()
    return tuple(sorted(e.id for e in enemies(state, unit) if units_engaged(unit, e)))


def is_engaged(state: MatchState, unit: Unit) -> bool:
    """40k11 core: a unit is engaged while any of its models is within Engagement Range of an
    enemy model."""
    return bool(engaged_with(state, unit))


def move_sweep(fp: Footprint, waypoints: Sequence[Point], end_heading: float | None) -> BaseGeometry:
    """The area a model covers on its move.

    Bases: the exact sweep of the circle. Hulls [decided]: 40k11 models need not face the way they
    move, so a hull translates along the path keeping its heading (each leg is the convex hull of
    its two end placements) and then rotates about its centre to the final heading (17.02), the
    whole turn swept (``turn_sweep``).
    """
    if isinstance(fp, Base):
        return swept_area(fp, waypoints)
    placements = [fp, *(Hull(p[0], p[1], fp.length, fp.width, fp.heading) for p in waypoints)]
    pieces: list[BaseGeometry] = [fp.polygon()]
    pieces.extend(
        unary_union([a.polygon(), b.polygon()]).convex_hull for a, b in itertools.pairwise(placements)
    )
    last = placements[-1]
    if end_heading is not None:
        pieces.append(turn_sweep(last, end_heading))
    return unary_union(pieces)


def turn_sweep(hull: Hull, heading: float) -> BaseGeometry:
    """The area a hull covers turning about its centre to ``heading`` the shorter way round
    (17.02: "turn it any amount around its central axis").

    ``geometry.swept_area`` takes headings 180 degrees apart as one footprint (a hull looks the
    same turned about), which would let a model turn about through its neighbour; so the turn is
    swept as two halves of at most 90 degrees, each of which it sweeps exactly.
    """
    turn = (heading - hull.heading + 180.0) % 360.0 - 180.0  # [-180, 180)
    mid = hull.heading + turn / 2.0
    halfway = Hull(hull.cx, hull.cy, hull.length, hull.width, mid)
    return unary_union([swept_area(hull, (), mid), swept_area(halfway, (), hull.heading + turn)])


def geo_terrain(pieces: dict[str, Terrain]) -> list[GeoTerrain]:
    return [
        GeoTerrain(
            id=t.id,
            vertices=tuple((p.x, p.y) for p in t.points),
            kinds=t.kinds,
            cover_save=t.cover_save,
            level=t.level,
        )
        for t in pieces.values()
    ]


def sight_blockers(state: MatchState) -> list[BaseGeometry]:
    """Terrain that blocks line of sight ("blocks_los"); models never block it [decided]."""
    return list(los_blockers(geo_terrain(state.terrain)))


def gives_cover(piece: Terrain) -> bool:
    """A terrain piece that gives cover: of kind ``cover`` or with a ``cover_save``
    (docs/match-definition.md, terrain; 40k11 core rules [ext], Benefit of Cover)."""
    return COVER_KIND in piece.kinds or piece.cover_save is not None


def in_cover_terrain(state: MatchState, unit: Unit, model: Model) -> bool:
    """40k11 core rules [ext], Benefit of Cover: the model is within a terrain area that gives
    cover - the whole model (``extent``) overlaps such a piece [decided]."""
    shape = extent(unit, model)
    return any(
        gives_cover(t) and overlaps(shape, [(p.x, p.y) for p in t.points]) for t in state.terrain.values()
    )


def has_cover(state: MatchState, unit: Unit, model: Model, target: Unit) -> bool:
    """40k11 core rules [ext], Benefit of Cover against a ranged attack of ``model`` (of ``unit``)
    at ``target`` [decided, constants.COVER_NEEDS_EVERY_MODEL]: each live model of the target (or
    one, when the constant is False) is within a terrain piece that gives cover, or is hidden
    from the firing model by terrain that blocks line of sight."""

    def covered(m: Model) -> bool:
        return in_cover_terrain(state, target, m) or not sees_shapes(state, unit, model, [extent(target, m)])

    alive = list(live_models(target))
    if not alive:
        return False
    return all(map(covered, alive)) if COVER_NEEDS_EVERY_MODEL else any(map(covered, alive))
