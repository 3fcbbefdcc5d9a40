"""Legal areas of a placement decision, as polygons a client can draw (docs/decisions.md).

A placement rule says where a model may stand ("in contact with the hull", "within 3 inches",
"not within 1 inch of an enemy", "not in impassable terrain"). For a round base of radius ``r``
these become an area of legal *centres*: the band around the vehicle's hull where the base
touches it (or reaches within the distance), less every keep-out zone grown by the base's radius,
inside the battlefield shrunk by it. The area is what a player sees; the answer is still checked
model by model (the bases of one answer must also not overlap one another, which no static
area can show).
"""

from __future__ import annotations

from collections.abc import Iterable

from shapely import Polygon, box, unary_union
from shapely.geometry.base import BaseGeometry

from ..match.state import Point, Ring, Shape

# Vertices of the rounded corners of a grown polygon (shapely's quad_segs): 4 per quarter circle
# keeps a drawn area within 0.04 inch of the true arc for a 2-inch radius and its JSON short.
AREA_QUAD_SEGS = 4
# Decimal places of an area's coordinates (a thousandth of an inch).
AREA_DECIMALS = 3


def centre_band(shape: BaseGeometry, radius: float, reach: float) -> BaseGeometry:
    """Centres of bases of ``radius`` that do not overlap ``shape`` and come within ``reach`` of it."""
    outer = shape.buffer(radius + reach, quad_segs=AREA_QUAD_SEGS)
    return outer.difference(shape.buffer(radius, quad_segs=AREA_QUAD_SEGS))


def legal_centres(
    allowed: BaseGeometry,
    radius: float,
    keep_out: Iterable[tuple[BaseGeometry, float]],
    width: float,
    height: float,
) -> BaseGeometry:
    """``allowed`` less each ``(shape, gap)`` grown by ``gap + radius``, inside the battlefield."""
    zones = [shape.buffer(gap + radius, quad_segs=AREA_QUAD_SEGS) for shape, gap in keep_out]
    table = box(radius, radius, width - radius, height - radius) if width > 2 * radius else Polygon()
    area = allowed.intersection(table)
    return area.difference(unary_union(zones)) if zones else area


def shapes(area: BaseGeometry) -> tuple[Shape, ...]:
    """Every polygon of ``area``: its exterior ring then its holes, as battlefield points."""
    out: list[Shape] = []
    for poly in getattr(area, "geoms", [area]):
        if not isinstance(poly, Polygon) or poly.is_empty:
            continue
        out.append(tuple(_ring(r.coords) for r in (poly.exterior, *poly.interiors)))
    return tuple(out)


def _ring(coords: Iterable[tuple[float, ...]]) -> Ring:
    points = list(coords)[:-1]
    return tuple(Point(round(p[0], AREA_DECIMALS), round(p[1], AREA_DECIMALS)) for p in points)
