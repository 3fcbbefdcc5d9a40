"""Movement geometry: path length, the area swept by a moving footprint, collisions, coherency.

Approximation for vehicles (documented in docs/geometry.md): a vehicle pivots about its centre
at each waypoint to face along the next leg, then drives straight along it; at the end it pivots
to its final heading. A hull is symmetric under a half turn, so each pivot takes the smaller turn
to face the leg either forwards or in reverse. Pivots are swept in steps of at most
PIVOT_STEP_DEG (the convex hull of consecutive steps), straight legs exactly (the convex hull of
the hull at both ends of the leg).

# 40k7 Vehicles, "Vehicles and movement" (pivot about the centre); hh3 Vehicles, Pivoting is not
# moving; 40k11 17.02 Frame.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence

import shapely
from shapely import LineString
from shapely.geometry.base import BaseGeometry

from .shapes import (
    AREA_EPS,
    BASE_QUAD_SEGS,
    Base,
    Footprint,
    Hull,
    Point,
    Shape,
    as_geometry,
    distance,
    within,
)

PIVOT_STEP_DEG = 5.0


def path_length(points: Sequence[Point]) -> float:
    """Total length (inches) of the polyline through the points."""
    return sum(
        math.hypot(points[i + 1][0] - points[i][0], points[i + 1][1] - points[i][1])
        for i in range(len(points) - 1)
    )


def _turn_mod_180(frm: float, to: float) -> float:
    """Smallest signed turn (degrees, in (-90, 90]) that makes the hull lie along `to`."""
    d = math.fmod(to - frm, 180.0)
    if d <= -90.0:
        d += 180.0
    elif d > 90.0:
        d -= 180.0
    return d


def _hull_of(*hulls: Hull) -> BaseGeometry:
    """The convex hull of several hulls: built from their corners (no polygon union needed)."""
    return shapely.convex_hull(shapely.multipoints([corner for hull in hulls for corner in hull.corners()]))


def _pivot_sweep(hull: Hull, turn: float) -> list[BaseGeometry]:
    steps = max(1, math.ceil(abs(turn) / PIVOT_STEP_DEG))
    shapes = [hull.rotate(turn * k / steps) for k in range(steps + 1)]
    return [_hull_of(a, b) for a, b in itertools.pairwise(shapes)]


def swept_area(footprint: Footprint, path: Sequence[Point], end_heading: float | None = None) -> BaseGeometry:
    """The area covered by a footprint moving from where it is through the waypoints of `path`
    (positions of its centre; a first waypoint equal to the start is allowed and ignored).

    Bases: the exact sweep of the circle along the polyline (as a polygon). Hulls: see the module
    docstring; `end_heading` (default: the heading after the last leg) is the final pivot.

    The cost is linear in the waypoints (one convex hull of two footprints per leg and pivot
    step, then a single union), and a move's sweep is computed once: validation, application
    and every terrain and collision check of the same move share it (:data:`SWEEP_CACHE`).
    """
    waypoints = tuple((float(p[0]), float(p[1])) for p in path)
    return _swept(footprint, waypoints, end_heading)


SWEEP_CACHE = 1024  # sweeps kept (footprints and geometries are immutable values)


@functools.lru_cache(maxsize=SWEEP_CACHE)
def _swept(footprint: Footprint, path: tuple[Point, ...], end_heading: float | None) -> BaseGeometry:
    if isinstance(footprint, Base):
        pts = [footprint.centre, *path]
        if len(pts) == 1 or path_length(pts) == 0.0:
            return footprint.polygon()
        return LineString(pts).buffer(footprint.radius, quad_segs=BASE_QUAD_SEGS)
    pieces: list[BaseGeometry] = [footprint.polygon()]
    current = footprint
    for target in path:
        dx, dy = target[0] - current.cx, target[1] - current.cy
        if math.hypot(dx, dy) == 0.0:
            continue
        turn = _turn_mod_180(current.heading, math.degrees(math.atan2(dy, dx)))
        if turn != 0.0:
            pieces.extend(_pivot_sweep(current, turn))
            current = current.rotate(turn)
        moved = Hull(target[0], target[1], current.length, current.width, current.heading)
        pieces.append(_hull_of(current, moved))
        current = moved
    if end_heading is not None:
        # The footprint only depends on the heading modulo 180 degrees.
        turn = _turn_mod_180(current.heading, end_heading)
        if turn != 0.0:
            pieces.extend(_pivot_sweep(current, turn))
    return shapely.union_all(pieces) if len(pieces) > 1 else pieces[0]


def path_collisions(swept: BaseGeometry, obstacles: Mapping[str, Shape]) -> list[str]:
    """Ids of the obstacles whose interior overlaps the swept area (touching does not count),
    in the order of `obstacles`.

    # 40k7 Vehicles, Movement (not over friendly models); hh3 Vehicles, Driving through other units
    # (never through vehicles or terrain); 40k11 17.01 (not through other MONSTER/VEHICLE models).
    """
    hits: list[str] = []
    for oid, shape in obstacles.items():
        if float(swept.intersection(as_geometry(shape)).area) > AREA_EPS:
            hits.append(oid)
    return hits


def crossing_in_every_order(
    sweeps: Mapping[str, BaseGeometry],
    starts: Mapping[str, Shape],
    ends: Mapping[str, Shape],
    one_at_a_time: bool = True,
) -> tuple[str, str] | None:
    """Models moved in one action, one at a time in an order of the player's choosing: a model's
    path (its swept area in ``sweeps``) may cross where another stood if that one moved first,
    or where it ends if that one moves later. ``starts`` and ``ends`` hold every model that may
    be in the way (one that does not move: the same shape in both; ``ends`` may leave it out).
    A pair (mover, model in its way) when no order keeps every path clear, else None.
    ``one_at_a_time`` False: the models move together, so a path may cross neither place.

    # 40k7 Vehicles, Movement ("vehicles cannot move over friendly models"); 40k11 17.01 (not
    # through other MONSTER/VEHICLE models); the models of a unit move one at a time [ext].
    """
    first: dict[str, set[str]] = {mid: set() for mid in starts}  # who must move before whom
    for mid, sweep in sweeps.items():
        fellows = {oid: shape for oid, shape in starts.items() if oid != mid}
        finals = {oid: ends.get(oid, shape) for oid, shape in fellows.items()}
        crossed, arrived = path_collisions(sweep, fellows), path_collisions(sweep, finals)
        if not one_at_a_time and (crossed or arrived):
            return mid, (crossed or arrived)[0]
        for oid in crossed:
            first[mid].add(oid)
        for oid in arrived:
            first.setdefault(oid, set()).add(mid)
    waiting = {mid: set(before) for mid, before in first.items()}
    while waiting:
        free = [mid for mid, before in waiting.items() if not before]
        if not free:  # every model left waits for another: no order works
            mid, before = next(iter(waiting.items()))
            return mid, sorted(before)[0]
        for mid in free:
            del waiting[mid]
        for before in waiting.values():
            before.difference_update(free)
    return None


def coherent(footprints: Sequence[Footprint], max_gap: float) -> bool:
    """Unit coherency: every model within `max_gap` inches of another and the whole unit one
    connected group (closest-point distances). One model (or none) is coherent.

    # 40k7 Vehicle Squadrons (4"); used with 2" for infantry units (hh3 Embarking / Disembarking).
    """
    n = len(footprints)
    if n <= 1:
        return True
    seen = {0}
    todo = [0]
    while todo:
        i = todo.pop()
        for j in range(n):
            if j not in seen and within(footprints[i], footprints[j], max_gap):
                seen.add(j)
                todo.append(j)
    return len(seen) == n


def coherency_gap(footprints: Sequence[Footprint]) -> float:
    """The widest gap the models must bridge to form one connected group: the smallest coherency
    distance for which ``geometry.coherent`` holds (the longest edge of a minimum spanning tree
    over closest-point distances), reported by coherency rejections. 0 for one model or none."""
    if len(footprints) <= 1:
        return 0.0
    best = [math.inf] * len(footprints)
    best[0] = 0.0
    done = [False] * len(footprints)
    widest = 0.0
    for _ in footprints:
        i = min((k for k in range(len(footprints)) if not done[k]), key=lambda k: best[k])
        done[i] = True
        widest = max(widest, best[i])
        for j, other in enumerate(footprints):
            if not done[j]:
                best[j] = min(best[j], distance(footprints[i], other))
    return widest
