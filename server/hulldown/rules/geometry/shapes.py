"""Footprints on the battlefield: vehicle hulls (oriented rectangles) and round bases.

Conventions (see docs/geometry.md): inches; the battlefield is [0, W] x [0, H]; x right, y up;
headings in degrees, counter-clockwise, 0 = the vehicle's front points along +x. Hull-local
coordinates are (u, v): u forward along the heading, v to the vehicle's left. Base diameters are
in millimetres (25.4 mm = 1 inch).

Pure module: no I/O, no randomness, no clock.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Literal, TypeAlias, TypeGuard, TypeVar, cast

import msgspec
from msgspec.structs import replace
from shapely import Point as ShapelyPoint
from shapely import Polygon
from shapely.geometry.base import BaseGeometry

from ..memo import measure_memo

Point: TypeAlias = tuple[float, float]
Facing: TypeAlias = Literal["front", "rear", "left", "right"]
FACINGS: tuple[Facing, ...] = ("front", "rear", "left", "right")

MM_PER_INCH = 25.4
# Segments per quarter circle when a base is turned into a polygon (a 128-gon: the radial error
# of a 32 mm base is below 1e-4 inch). Distances involving bases are computed exactly anyway.
BASE_QUAD_SEGS = 32
# Length tolerance (inches) for "touching" and "within" comparisons.
EPS = 1e-9
# Area tolerance (square inches): overlaps smaller than this are floating-point noise.
AREA_EPS = 1e-9


def hull_reach(length: float, width: float) -> float:
    """From a hull's centre to a corner, in inches: no part of the hull is farther."""
    return math.hypot(length / 2.0, width / 2.0)


def base_radius(diameter_mm: float) -> float:
    """A round base's radius in inches."""
    return diameter_mm / MM_PER_INCH / 2.0


# Footprints are frozen, hashable values (equal fields: equal footprints). They are msgspec
# Structs rather than frozen dataclasses because one is built for every model that moved or
# turned: a Struct is made about ten times faster. Only numbers inside: no reference cycles, so
# the cyclic collector need not track them (gc=False).
class Hull(msgspec.Struct, frozen=True, gc=False):
    """A vehicle without a base: an oriented rectangle.

    # 40k7 Vehicles, "Vehicles and measuring distances" (measure to the hull); 40k11 17 FRAME;
    # docs/rules-notes.md, All editions, Measuring.
    """

    cx: float
    cy: float
    length: float
    width: float
    heading: float = 0.0

    @property
    def centre(self) -> Point:
        return (self.cx, self.cy)

    def to_world(self, local: Point) -> Point:
        """Hull-local (u forward, v left) to battlefield coordinates."""
        u, v = local
        h = math.radians(self.heading)
        c, s = math.cos(h), math.sin(h)
        return (self.cx + u * c - v * s, self.cy + u * s + v * c)

    def to_local(self, point: Point) -> Point:
        """Battlefield coordinates to hull-local (u forward, v left)."""
        dx, dy = point[0] - self.cx, point[1] - self.cy
        h = math.radians(self.heading)
        c, s = math.cos(h), math.sin(h)
        return (dx * c + dy * s, -dx * s + dy * c)

    def corners(self) -> tuple[Point, Point, Point, Point]:
        """Front-left, front-right, rear-right, rear-left (clockwise)."""
        hl, hw = self.length / 2.0, self.width / 2.0
        return (
            self.to_world((hl, hw)),
            self.to_world((hl, -hw)),
            self.to_world((-hl, -hw)),
            self.to_world((-hl, hw)),
        )

    def polygon(self) -> Polygon:
        return _hull_polygon(self)

    @property
    def reach(self) -> float:
        """Distance from the centre to a corner: no part of the hull is farther."""
        return hull_reach(self.length, self.width)

    def translate(self, dx: float, dy: float) -> Hull:
        return replace(self, cx=self.cx + dx, cy=self.cy + dy)

    def rotate(self, degrees: float, about: Point | None = None) -> Hull:
        """Rotate counter-clockwise about `about` (default: the hull's centre, i.e. a pivot)."""
        cx, cy = _rotate_point(self.centre, degrees, about if about is not None else self.centre)
        return replace(self, cx=cx, cy=cy, heading=normalize_heading(self.heading + degrees))


class Base(msgspec.Struct, frozen=True, gc=False):
    """A model on a round base (diameter in mm)."""

    cx: float
    cy: float
    diameter_mm: float

    @property
    def centre(self) -> Point:
        return (self.cx, self.cy)

    @property
    def radius(self) -> float:
        """Radius in inches."""
        return base_radius(self.diameter_mm)

    def polygon(self) -> Polygon:
        return _base_polygon(self)

    @property
    def reach(self) -> float:
        """Distance from the centre to the edge of the base."""
        return self.radius

    def translate(self, dx: float, dy: float) -> Base:
        return replace(self, cx=self.cx + dx, cy=self.cy + dy)

    def rotate(self, degrees: float, about: Point | None = None) -> Base:
        if about is None:
            return self
        cx, cy = _rotate_point(self.centre, degrees, about)
        return replace(self, cx=cx, cy=cy)


Footprint: TypeAlias = Hull | Base
# Anything the geometry functions accept as a shape: a footprint, a point, a shapely geometry or
# a polygon given as its vertices.
Shape: TypeAlias = Hull | Base | Point | BaseGeometry | Sequence[Point]


def normalize_heading(degrees: float) -> float:
    """Heading in [0, 360)."""
    h = math.fmod(degrees, 360.0)
    if h < 0.0:
        h += 360.0
    return 0.0 if h == 360.0 else h


def _rotate_point(p: Point, degrees: float, about: Point) -> Point:
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    dx, dy = p[0] - about[0], p[1] - about[1]
    return (about[0] + dx * c - dy * s, about[1] + dx * s + dy * c)


FootprintT = TypeVar("FootprintT", Hull, Base)


def translate(shape: FootprintT, dx: float, dy: float) -> FootprintT:
    """A copy of the footprint moved by (dx, dy)."""
    return shape.translate(dx, dy)


def rotate(shape: FootprintT, degrees: float, about: Point | None = None) -> FootprintT:
    """A copy rotated counter-clockwise by `degrees` about `about` (default: its own centre)."""
    return shape.rotate(degrees, about)


def facing_edge(hull: Hull, facing: Facing) -> tuple[Point, Point]:
    """The hull side that carries a facing, as a segment (p, q).

    # 40k7 Vehicles, "Vehicle facing and armour values"; hh3 Which facing is hit: the facing is the side of
    # the hull between the two diagonals.
    """
    fl, fr, rr, rl = hull.corners()
    edges: dict[Facing, tuple[Point, Point]] = {
        "front": (fl, fr),
        "right": (fr, rr),
        "rear": (rr, rl),
        "left": (rl, fl),
    }
    return edges[facing]


def is_point(shape: object) -> TypeGuard[Point]:
    """True for an (x, y) pair of numbers."""
    return (
        isinstance(shape, tuple)
        and len(shape) == 2
        and isinstance(shape[0], int | float)
        and isinstance(shape[1], int | float)
    )


def as_geometry(shape: Shape) -> BaseGeometry:
    """Any accepted shape as a shapely geometry (bases become polygons)."""
    if isinstance(shape, Hull | Base):
        return shape.polygon()
    if isinstance(shape, BaseGeometry):
        return shape
    if is_point(shape):
        return ShapelyPoint(float(shape[0]), float(shape[1]))
    vertices = cast(Sequence[Point], shape)
    return Polygon([(float(x), float(y)) for x, y in vertices])


# Kept for the length of one odds answer (rules/memo.py): squadron allocation and explosions
# measure the same hulls again in every play of the dice.
@measure_memo
def distance(a: Shape, b: Shape) -> float:
    """Closest-point distance in inches; 0 when touching or overlapping.

    Distances to and from a vehicle are measured to its hull, bases to the edge of the base.
    # 40k7 Vehicles, "Vehicles and measuring distances"; 40k11 17.02 Frame (closest point).
    Bases are treated as exact circles (centre distance minus radius), not as polygons.
    """
    if isinstance(a, Base) and isinstance(b, Base):
        gap = math.hypot(a.cx - b.cx, a.cy - b.cy) - a.radius - b.radius
        return max(0.0, gap)
    if isinstance(b, Base):
        a, b = b, a
    if isinstance(a, Base):
        d = ShapelyPoint(a.cx, a.cy).distance(as_geometry(b))
        return max(0.0, float(d) - a.radius)
    return float(as_geometry(a).distance(as_geometry(b)))


def within(a: Shape, b: Shape, d: float) -> bool:
    """True when the closest-point distance is at most `d` inches (with EPS tolerance).

    Two footprints whose centres are farther apart than their reaches plus `d` cannot be within
    `d`: that cheap test answers most calls without building a polygon."""
    if (
        isinstance(a, Hull | Base)
        and isinstance(b, Hull | Base)
        and math.hypot(a.cx - b.cx, a.cy - b.cy) - a.reach - b.reach > d + EPS
    ):
        return False
    return distance(a, b) <= d + EPS


# Footprints are frozen values and shapely geometries immutable: the polygon of a footprint is
# built once and shared (a model that did not move keeps its footprint between events).
@functools.lru_cache(maxsize=8192)
def _hull_polygon(hull: Hull) -> Polygon:
    return Polygon(hull.corners())


@functools.lru_cache(maxsize=8192)
def _base_polygon(base: Base) -> Polygon:
    return ShapelyPoint(base.cx, base.cy).buffer(base.radius, quad_segs=BASE_QUAD_SEGS)


def polygon_cache_sizes() -> dict[str, int]:
    """How many hull and base polygons are cached (for the server's metrics)."""
    return {
        "hull_polygons": _hull_polygon.cache_info().currsize,
        "base_polygons": _base_polygon.cache_info().currsize,
    }


def overlaps(a: Shape, b: Shape) -> bool:
    """True when the interiors overlap; touching does not count.

    Bases are exact circles: a base overlaps a polygon when the polygon comes closer to its
    centre than its radius.
    """
    if isinstance(a, Base) and isinstance(b, Base):
        return math.hypot(a.cx - b.cx, a.cy - b.cy) < a.radius + b.radius - EPS
    if isinstance(b, Base):
        a, b = b, a
    if isinstance(a, Base):
        other = as_geometry(b)
        if other.area <= AREA_EPS:
            return False
        return float(ShapelyPoint(a.cx, a.cy).distance(other)) < a.radius - EPS
    ga, gb = as_geometry(a), as_geometry(b)
    return float(ga.intersection(gb).area) > AREA_EPS


def inside_battlefield(footprint: Footprint, width: float, height: float) -> bool:
    """True when the whole footprint is on the battlefield [0, width] x [0, height] (edges allowed)."""
    if isinstance(footprint, Base):
        r = footprint.radius
        return (
            footprint.cx - r >= -EPS
            and footprint.cy - r >= -EPS
            and footprint.cx + r <= width + EPS
            and footprint.cy + r <= height + EPS
        )
    return all(-EPS <= x <= width + EPS and -EPS <= y <= height + EPS for x, y in footprint.corners())
