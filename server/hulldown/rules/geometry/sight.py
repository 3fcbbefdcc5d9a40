"""Line of sight, visible parts and obscured (hull down) vehicles.

A point p is *visible* from an origin o when the segment o-p does not pass through the interior
of any blocker: touching a blocker's edge or corner does not block. Blockers whose interior
contains the origin are ignored (terrain the firer stands in does not block its own sight).

Two ways of computing, both from the same definition:
- `visible_part`: the target minus the union of the closed "shadows" of the blockers (each
  blocker edge casts the region behind it, away from the origin). Closed shadows also remove
  the grazing lines that only touch a corner, which have no area.
- `line_of_sight`, `hidden_length`, `hidden_fraction`: exact 1-D work on segments. A segment is
  split at every place where visibility can change (rays from the origin through blocker
  vertices, blocker edges); each piece and each split point is then classified with an exact
  segment/interior predicate. No sampling.

# 40k7 Vehicles, "Vehicles and line of sight" (see the hull, ignoring barrels), "Obscured
# targets" (25% of the facing hidden); hh3 Vehicles, Which facing is hit (line of sight traced to the hull).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TypeAlias

import numpy as np
import numpy.typing as npt
import shapely
from shapely import LineString, Polygon, unary_union
from shapely import Point as ShapelyPoint
from shapely.geometry.base import BaseGeometry

from .shapes import AREA_EPS, EPS, Base, Facing, Hull, Point, Shape, as_geometry, facing_edge

PolygonLike: TypeAlias = BaseGeometry | Sequence[Point] | Hull | Base

# 40k7 Vehicles, "Obscured targets": at least 25% of the facing hidden => obscured (>= 0.25).
OBSCURED_THRESHOLD = 0.25
# Tolerance on the hidden fraction so that an exact 25% is not lost to rounding.
FRACTION_EPS = 1e-9
# 40k7 "Obscured targets", unit of firers: obscured when hidden from the majority. A tie (exactly
# half of the firers) is not a majority, so the vehicle is not obscured [decided].
OBSCURED_ON_TIE = False
# The far edge of a shadow is drawn as an arc in steps of at most this many degrees.
SHADOW_ARC_STEP_DEG = 10.0
# Pattern for "the interior of a segment meets the interior of a polygon" (DE-9IM).
_INTERIORS_MEET = "T********"


def _polygons(geom: BaseGeometry) -> list[Polygon]:
    return [g for g in shapely.get_parts(geom) if isinstance(g, Polygon) and not g.is_empty]


def prepare_blockers(origin: Point, blockers: Iterable[PolygonLike]) -> list[Polygon]:
    """Blockers as valid shapely polygons, minus those whose interior contains the origin.

    # [decided] terrain the firer stands in does not block its own line of sight (40k7/hh3
    # convention); it can still give the target cover as seen by other firers.
    """
    o = ShapelyPoint(origin)
    out: list[Polygon] = []
    for blocker in blockers:
        geom = as_geometry(blocker)
        if not geom.is_valid:
            geom = shapely.make_valid(geom)  # e.g. a self-crossing outline drawn by hand
        for poly in _polygons(geom):
            if poly.area <= AREA_EPS or poly.contains(o):
                continue
            out.append(poly)
    return out


def _relevant(origin: Point, target: BaseGeometry, blockers: Sequence[Polygon]) -> list[Polygon]:
    """The blockers that can cut a segment from the origin to the target: those meeting the
    convex hull of the origin and the target."""
    cone = unary_union([target, ShapelyPoint(origin)]).convex_hull
    return [b for b in blockers if b.intersects(cone)]


def _rings(poly: Polygon) -> list[list[Point]]:
    rings = [poly.exterior, *poly.interiors]
    return [[(float(x), float(y)) for x, y in ring.coords] for ring in rings]


def _edges(blockers: Sequence[Polygon]) -> list[tuple[Point, Point]]:
    edges: list[tuple[Point, Point]] = []
    for poly in blockers:
        for ring in _rings(poly):
            edges.extend((ring[i], ring[i + 1]) for i in range(len(ring) - 1))
    return edges


def _cross(ax: float, ay: float, bx: float, by: float) -> float:
    return ax * by - ay * bx


def _split_params(origin: Point, p: Point, q: Point, edges: Sequence[tuple[Point, Point]]) -> list[float]:
    """Parameters t in [0, 1] along p->q where visibility from origin may change."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    ts = [0.0, 1.0]
    seg_len2 = dx * dx + dy * dy
    if seg_len2 == 0.0:
        return [0.0]
    for a, b in edges:
        # Line from the origin through vertex a (shadow boundary rays).
        rx, ry = a[0] - origin[0], a[1] - origin[1]
        den = _cross(dx, dy, rx, ry)
        if den != 0.0:
            ts.append(_cross(origin[0] - p[0], origin[1] - p[1], rx, ry) / den)
        # The blocker edge a-b itself.
        ex, ey = b[0] - a[0], b[1] - a[1]
        den = _cross(dx, dy, ex, ey)
        if den != 0.0:
            t = _cross(a[0] - p[0], a[1] - p[1], ex, ey) / den
            s = _cross(a[0] - p[0], a[1] - p[1], dx, dy) / den
            if -EPS <= s <= 1.0 + EPS:
                ts.append(t)
        elif _cross(a[0] - p[0], a[1] - p[1], dx, dy) == 0.0:
            # Collinear: the ends of the blocker edge.
            for v in (a, b):
                ts.append(((v[0] - p[0]) * dx + (v[1] - p[1]) * dy) / seg_len2)
    clipped = sorted(min(1.0, max(0.0, t)) for t in ts)
    out: list[float] = []
    for t in clipped:
        if not out or t - out[-1] > 1e-12:
            out.append(t)
    return out


def _blocked_mask(
    origin: Point, points: Sequence[Point], blockers: Sequence[Polygon]
) -> npt.NDArray[np.bool_]:
    """For each point: does the segment origin->point cross a blocker's interior? (exact)"""
    if not points:
        return np.zeros(0, dtype=bool)
    coords = np.array([[origin, pt] for pt in points], dtype=float)
    lines = shapely.linestrings(coords)
    degenerate = np.array([pt[0] == origin[0] and pt[1] == origin[1] for pt in points])
    mask = np.zeros(len(points), dtype=bool)
    for poly in blockers:
        hit = shapely.relate_pattern(lines, poly, _INTERIORS_MEET)
        mask |= np.asarray(hit, dtype=bool)
    mask &= ~degenerate
    return mask


def segment_blocked(origin: Point, point: Point, blockers: Iterable[PolygonLike]) -> bool:
    """Exact test: does the segment origin->point pass through the interior of a blocker?"""
    prepared = prepare_blockers(origin, blockers)
    return bool(_blocked_mask(origin, [point], prepared)[0])


def _pieces(
    origin: Point, p: Point, q: Point, blockers: Sequence[Polygon], edges: Sequence[tuple[Point, Point]]
) -> tuple[list[float], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Split points of p->q, whether each split point is blocked, whether each piece is blocked."""
    ts = _split_params(origin, p, q, edges)

    def at(t: float) -> Point:
        return (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))

    mids = [at((ts[i] + ts[i + 1]) / 2.0) for i in range(len(ts) - 1)]
    split_mask = _blocked_mask(origin, [at(t) for t in ts], blockers)
    piece_mask = _blocked_mask(origin, mids, blockers)
    return ts, split_mask, piece_mask


def hidden_length(origin: Point, segment: tuple[Point, Point], blockers: Iterable[PolygonLike]) -> float:
    """Length (inches) of the segment hidden from the origin by the blockers (exact)."""
    p, q = segment
    total = math.hypot(q[0] - p[0], q[1] - p[1])
    if total == 0.0:
        return 0.0
    prepared = _relevant(origin, LineString([p, q]), prepare_blockers(origin, blockers))
    if not prepared:
        return 0.0
    ts, _, piece_mask = _pieces(origin, p, q, prepared, _edges(prepared))
    hidden = sum(ts[i + 1] - ts[i] for i in range(len(ts) - 1) if piece_mask[i])
    return hidden * total


def hidden_fraction(origin: Point, hull: Hull, facing: Facing, blockers: Iterable[PolygonLike]) -> float:
    """Fraction of the LENGTH of the facing's edge hidden from the origin.

    The facing is measured as the side of the hull that carries it, as seen from the firer; a
    point of the edge is hidden when the segment origin->point crosses a blocker's interior.
    Do not pass the target hull itself as a blocker unless you mean it (its own near side does
    not hide itself either way, its far sides do).
    # 40k7 Vehicles, "Obscured targets" (at least 25% of the facing hidden from the firer).
    """
    p, q = facing_edge(hull, facing)
    length = math.hypot(q[0] - p[0], q[1] - p[1])
    if length == 0.0:
        return 0.0
    return min(1.0, max(0.0, hidden_length(origin, (p, q), blockers) / length))


def is_obscured(origin: Point, hull: Hull, facing: Facing, blockers: Iterable[PolygonLike]) -> bool:
    """At least 25% of the facing hidden from the origin.

    # 40k7 Vehicles, "Obscured targets" ("at least 25%" => fraction >= OBSCURED_THRESHOLD).
    """
    return hidden_fraction(origin, hull, facing, blockers) >= OBSCURED_THRESHOLD - FRACTION_EPS


def obscured_for_unit(
    origins: Sequence[Point], hull: Hull, facing: Facing, blockers: Iterable[PolygonLike]
) -> bool:
    """Obscured from the majority of the origins (firing models that can damage the vehicle and
    fire at this facing). A tie is decided by OBSCURED_ON_TIE (not obscured); no origins: False.

    # 40k7 Vehicles, "Obscured targets" (majority of the firing models; per facing).
    """
    if not origins:
        return False
    blockers = list(blockers)
    hidden = sum(1 for o in origins if is_obscured(o, hull, facing, blockers))
    if 2 * hidden == len(origins):
        return OBSCURED_ON_TIE
    return 2 * hidden > len(origins)


def _reach(origin: Point, geoms: Iterable[BaseGeometry]) -> float:
    far = 0.0
    for g in geoms:
        minx, miny, maxx, maxy = g.bounds
        for x in (minx, maxx):
            for y in (miny, maxy):
                far = max(far, math.hypot(x - origin[0], y - origin[1]))
    return 2.0 * far + 10.0


def shadow(origin: Point, blocker: Polygon, reach: float) -> BaseGeometry:
    """The closed region hidden by one blocker: the blocker plus, for each of its edges, the part
    of the cone from the origin through that edge beyond the edge, out to `reach` inches.

    Works for non-convex blockers and blockers with holes (every ring edge casts a shadow).
    """
    parts: list[BaseGeometry] = [blocker]
    ox, oy = origin
    for ring in _rings(blocker):
        for i in range(len(ring) - 1):
            a, b = ring[i], ring[i + 1]
            ax, ay, bx, by = a[0] - ox, a[1] - oy, b[0] - ox, b[1] - oy
            if abs(_cross(ax, ay, bx, by)) <= 1e-15 * max(1.0, ax * ax + ay * ay + bx * bx + by * by):
                continue  # the edge is seen edge-on: no area behind it
            ang_a, ang_b = math.atan2(ay, ax), math.atan2(by, bx)
            sweep = math.atan2(math.sin(ang_a - ang_b), math.cos(ang_a - ang_b))  # b -> a
            steps = max(1, math.ceil(abs(math.degrees(sweep)) / SHADOW_ARC_STEP_DEG))
            far = [
                (
                    ox + reach * math.cos(ang_b + sweep * k / steps),
                    oy + reach * math.sin(ang_b + sweep * k / steps),
                )
                for k in range(steps + 1)
            ]
            parts.append(Polygon([a, b, *far]))
    return unary_union(parts)


def visible_part(origin: Point, target: Shape, blockers: Iterable[PolygonLike]) -> BaseGeometry:
    """The part of the target that the origin can see: target minus the blockers' closed shadows.

    Lines of sight that only graze a corner have no area and are not part of the result (use
    `line_of_sight` for the exact yes/no).
    """
    tgt = as_geometry(target)
    prepared = prepare_blockers(origin, blockers)
    if not prepared:
        return tgt
    reach = _reach(origin, [tgt, *prepared])
    shadows = unary_union([shadow(origin, b, reach) for b in prepared])
    return tgt.difference(shadows)


def _target_segments(geom: BaseGeometry) -> list[tuple[Point, Point]]:
    segs: list[tuple[Point, Point]] = []
    for part in shapely.get_parts(geom):
        lines = [part.exterior, *part.interiors] if isinstance(part, Polygon) else [part]
        for line in lines:
            coords = [(float(x), float(y)) for x, y in line.coords]
            segs.extend((coords[i], coords[i + 1]) for i in range(len(coords) - 1))
    return segs


def line_of_sight(origin: Point, target: Shape, blockers: Iterable[PolygonLike]) -> bool:
    """True when at least one straight segment from the origin to some point of the target does
    not pass through the interior of any blocker (touching an edge or corner does not block).

    Exact: if the visible area is empty, every edge of the target is split where visibility can
    change and the split points and pieces are tested one by one, so a single grazing line past
    a corner still counts. A target that contains the origin is always in sight.
    # 40k7 Vehicles, "Vehicles and line of sight"; hh3 Vehicles, Which facing is hit (to the hull).
    """
    tgt = as_geometry(target)
    prepared = _relevant(origin, tgt, prepare_blockers(origin, blockers))
    if not prepared:
        return True
    if isinstance(tgt, ShapelyPoint):
        return not bool(_blocked_mask(origin, [(float(tgt.x), float(tgt.y))], prepared)[0])
    if tgt.covers(ShapelyPoint(origin)):
        return True
    rep = tgt.representative_point()
    if not bool(_blocked_mask(origin, [(float(rep.x), float(rep.y))], prepared)[0]):
        return True
    visible = visible_part(origin, tgt, prepared)
    if not visible.is_empty:
        if tgt.area > 0.0 and visible.area > AREA_EPS:
            return True
        if tgt.area == 0.0 and visible.length > EPS:
            return True
    edges = _edges(prepared)
    for p, q in _target_segments(tgt):
        _, split_mask, piece_mask = _pieces(origin, p, q, prepared, edges)
        if not split_mask.all() or not piece_mask.all():
            return True
    return False
