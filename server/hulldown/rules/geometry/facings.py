"""Vehicle facings: the two diagonals through the hull corners make four zones.

# 40k7 Vehicles, "Vehicle facing and armour values" (two imaginary lines through the corners);
# hh3 Vehicles, Fire arcs and weapon mounts / Which facing is hit (the same diagonals make front,
# rear, left and right); docs/rules-notes.md, All editions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, TypeAlias

from .shapes import FACINGS, Facing, Footprint, Hull, Point, facing_edge
from .sight import PolygonLike, hidden_length

ArmourFacing: TypeAlias = Literal["front", "side", "rear"]

# Tolerance (inches from the diagonal) within which a point counts as lying on a diagonal.
DIAGONAL_EPS = 1e-6
# A facing counts as visible when more than this length (inches) of its edge can be seen.
VISIBLE_LENGTH_EPS = 1e-9


def _diagonal_offsets(hull: Hull, point: Point) -> tuple[float, float]:
    """Signed distances (inches) of the point from the two diagonals.

    c1 is measured from the rear-right -> front-left diagonal, c2 from the rear-left -> front-right
    diagonal; both positive to the left of the diagonal's direction.
    """
    u, v = hull.to_local(point)
    hl, hw = hull.length / 2.0, hull.width / 2.0
    n = math.hypot(hl, hw)
    c1 = (hl * v - hw * u) / n  # cross((hl, hw), (u, v)) / |d1|
    c2 = (hl * v + hw * u) / n  # cross((hl, -hw), (u, v)) / |d2|
    return c1, c2


def _ordered(facings: set[Facing]) -> tuple[Facing, ...]:
    return tuple(f for f in FACINGS if f in facings)


def facings_of_point(hull: Hull, point: Point, eps: float = DIAGONAL_EPS) -> tuple[Facing, ...]:
    """The facing zone(s) a point is in.

    One facing normally; two when the point lies on a diagonal (within `eps` inches of it); all
    four at the centre. Result in the order front, rear, left, right.
    # 40k7 Vehicles, "Vehicle facing and armour values"; hh3 Vehicles, Which facing is hit.
    """
    c1, c2 = _diagonal_offsets(hull, point)
    on1, on2 = abs(c1) <= eps, abs(c2) <= eps
    if on1 and on2:
        return FACINGS
    # Zones: front c1 < 0 < c2; left c1 > 0, c2 > 0; rear c1 > 0 > c2; right c1 < 0, c2 < 0.
    if on1:
        return _ordered({"front", "left"} if c2 > 0 else {"rear", "right"})
    if on2:
        return _ordered({"front", "right"} if c1 < 0 else {"rear", "left"})
    if c1 < 0 < c2:
        return ("front",)
    if c1 > 0 and c2 > 0:
        return ("left",)
    if c1 > 0 > c2:
        return ("rear",)
    return ("right",)


def facing_of_footprint(hull: Hull, footprint: Footprint, eps: float = DIAGONAL_EPS) -> tuple[Facing, ...]:
    """The facing zone(s) of a firing model.

    A model on a base is located by the centre of its base; a vehicle firer by the centre of its
    hull (callers that know the firing weapon's mount should use `facings_of_point` with
    `mount_position`, 40k7 Vehicle Weapons and Line of Sight).
    # 40k7 Vehicles, "Vehicle facing and armour values"; hh3 Vehicles, Which facing is hit.
    """
    return facings_of_point(hull, footprint.centre, eps)


def armour_facing(facing: Facing) -> ArmourFacing:
    """Left and right are both the side armour. # 40k7 "Vehicle facing and armour values"; hh3 13."""
    if facing in ("left", "right"):
        return "side"
    return "front" if facing == "front" else "rear"


def visible_facings(hull: Hull, point: Point, blockers: Sequence[PolygonLike] = ()) -> tuple[Facing, ...]:
    """The facings whose edge the point can see some part of (a positive length).

    An edge is seen only from the outer side of its own line (the hull hides its far sides) and
    the visible part is what `blockers` leave (exact, see `sight.hidden_length`). Used when the
    firer can see two facings (hh3 Which facing is hit: the owner chooses) or cannot see its own facing
    (40k7 Vehicles, "Obscured targets": shoot the facing it can see, cover one point better).
    """
    seen: list[Facing] = []
    for facing in FACINGS:
        p, q = facing_edge(hull, facing)
        edge_len = math.hypot(q[0] - p[0], q[1] - p[1])
        # The hull corners are listed clockwise, so the outside of each edge is on its left.
        outward = (q[0] - p[0]) * (point[1] - p[1]) - (q[1] - p[1]) * (point[0] - p[0])
        if outward <= VISIBLE_LENGTH_EPS * max(edge_len, 1.0):
            continue
        if edge_len - hidden_length(point, (p, q), blockers) > VISIBLE_LENGTH_EPS:
            seen.append(facing)
    return tuple(seen)
