"""Weapon fire arcs by mount.

"In arc" means that some part of the target footprint lies inside the arc region (boundary
included). Arc regions are shapely polygons clipped to a square of half-size `extent` inches
around the hull centre, so that a viewer can draw them too.

# 40k7 Vehicles, "Vehicle weapons and line of sight" (hull-mounted weapons swivel 45 degrees,
# turrets 360, sponsons 180 on their side) [seed + ext]; hh3 Vehicles, Fire arcs and weapon mounts.
"""

from __future__ import annotations

import math
from typing import Literal, TypeAlias

import msgspec
import shapely
from shapely import Point as ShapelyPoint
from shapely import Polygon, box, unary_union
from shapely.geometry.base import BaseGeometry

from .shapes import Base, Hull, Point, Shape, as_geometry

MountKind: TypeAlias = Literal["hull", "turret", "pintle", "sponson", "centreline", "coaxial"]
ArcName: TypeAlias = Literal["front", "rear", "left", "right", "side"]
MountSide: TypeAlias = Literal["left", "right"]
ArcEdition: TypeAlias = Literal["40k7", "hh3"]

# 40k7 Vehicles: "assume all hull-mounted weapons can swivel horizontally up to 45º" [seed].
HULL_SWIVEL_DEG = 45.0
DEFAULT_EXTENT = 200.0
# Distance tolerance (inches) for "touches the arc boundary".
ARC_EPS = 1e-9
_ARC_STEP_DEG = 5.0
# Direction of each named facing relative to the heading (degrees, counter-clockwise).
_FACING_DIRECTION: dict[str, float] = {"front": 0.0, "left": 90.0, "rear": 180.0, "right": 270.0}


class Mount(msgspec.Struct, frozen=True, gc=False):
    """Where a weapon sits and how it can point.

    kind: hull | turret | pintle | sponson | centreline | coaxial.
    arc: for hull mounts, the facing it points along (default front); hh3 also allows "side"
        (left or right).
    side: for sponsons, which side of the hull they are on.
    offset: the mount point in hull-local coordinates (forward, left), inches; used as the apex of
        40k7 hull-mount cones and by `mount_position`.
    swivel: 40k7 hull mounts: degrees each side of the pointing direction.
    edition: how a hull mount works: "40k7" a cone of +/- swivel from the mount point, "hh3"
        the firer's own facing zone.
    """

    kind: MountKind
    arc: ArcName | None = None
    side: MountSide | None = None
    offset: Point = (0.0, 0.0)
    swivel: float = HULL_SWIVEL_DEG
    edition: ArcEdition = "40k7"


def mount_position(hull: Hull, mount: Mount) -> Point:
    """Battlefield position of the mount point (40k7 Vehicle Weapons and Line of Sight: sight from
    the mount)."""
    return hull.to_world(mount.offset)


def _extent_box(hull: Hull, extent: float) -> Polygon:
    return box(hull.cx - extent, hull.cy - extent, hull.cx + extent, hull.cy + extent)


def _wedge(apex: Point, start_deg: float, end_deg: float, radius: float) -> Polygon:
    """Counter-clockwise sector from start to end (end > start, span < 360)."""
    span = end_deg - start_deg
    steps = max(1, math.ceil(span / _ARC_STEP_DEG))
    # Circumscribe the arc so the polygon contains the true sector out to `radius`.
    r = radius / math.cos(math.radians(span / steps / 2.0))
    pts = [
        (
            apex[0] + r * math.cos(math.radians(start_deg + span * k / steps)),
            apex[1] + r * math.sin(math.radians(start_deg + span * k / steps)),
        )
        for k in range(steps + 1)
    ]
    return Polygon([apex, *pts])


def _local_rect(hull: Hull, u0: float, u1: float, v0: float, v1: float) -> Polygon:
    return Polygon([hull.to_world((u, v)) for u, v in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))])


def _hull_cone_40k7(hull: Hull, mount: Mount, clip: Polygon, reach: float) -> BaseGeometry:
    # 40k7 Vehicles, "Vehicle weapons and line of sight": hull-mounted weapons swivel 45 degrees.
    arc = mount.arc or "front"
    if arc == "side":
        raise ValueError("40k7 hull mounts point along one facing: front, rear, left or right")
    if mount.swivel >= 180.0:
        return clip
    direction = hull.heading + _FACING_DIRECTION[arc]
    cone = _wedge(mount_position(hull, mount), direction - mount.swivel, direction + mount.swivel, reach)
    return cone.intersection(clip)


def _zone(hull: Hull, facing: str, reach: float) -> Polygon:
    # 40k7 "Vehicle facing and armour values"; hh3 Fire arcs and weapon mounts: corner diagonals.
    half = math.degrees(math.atan2(hull.width / 2.0, hull.length / 2.0))
    h = hull.heading
    spans = {
        "front": (h - half, h + half),
        "left": (h + half, h + 180.0 - half),
        "rear": (h + 180.0 - half, h + 180.0 + half),
        "right": (h + 180.0 + half, h + 360.0 - half),
    }
    start, end = spans[facing]
    return _wedge(hull.centre, start, end, reach)


def _hull_zone_hh3(hull: Hull, mount: Mount, clip: Polygon, reach: float) -> BaseGeometry:
    # hh3 Fire arcs and weapon mounts: Hull (Front/Rear/Left/Right/Side) - the firer's own facing
    # zone; Side = both.
    arc = mount.arc or "front"
    names = ("left", "right") if arc == "side" else (arc,)
    return unary_union([_zone(hull, n, reach) for n in names]).intersection(clip)


def _sponson_side(mount: Mount) -> MountSide:
    if mount.side is not None:
        return mount.side
    if mount.arc == "left" or mount.arc == "right":
        return mount.arc
    raise ValueError("a sponson mount needs side='left' or side='right'")


def arc_geometry(
    hull: Hull, mount: Mount, extent: float = DEFAULT_EXTENT, linked: Mount | None = None
) -> BaseGeometry:
    """The arc of a mount as a shapely geometry, clipped to the square of half-size `extent`
    around the hull centre. The vehicle's own hull lies inside most arcs; that is harmless."""
    clip = _extent_box(hull, extent)
    reach = 3.0 * extent
    kind = mount.kind
    if kind in ("turret", "pintle"):
        # 40k7 "Turrets" 360 degrees [ext]; hh3 Fire arcs and weapon mounts, Turret and Pintle: any arc.
        return clip
    if kind == "coaxial":
        # hh3 Fire arcs and weapon mounts, Co-axial: the linked weapon's arc (and target).
        if linked is None or linked.kind == "coaxial":
            raise ValueError("a co-axial mount needs the (non co-axial) mount it is linked to")
        return arc_geometry(hull, linked, extent)
    if kind == "hull":
        if mount.edition == "hh3":
            return _hull_zone_hh3(hull, mount, clip, reach)
        return _hull_cone_40k7(hull, mount, clip, reach)
    if kind == "sponson":
        # hh3 Fire arcs and weapon mounts, Sponson: its own side's half of the table, split along
        # the centre line, front and rear included; 40k7 sponsons (180 degrees on their side) use
        # the same test.
        if _sponson_side(mount) == "left":
            half = _local_rect(hull, -reach, reach, 0.0, reach)
        else:
            half = _local_rect(hull, -reach, reach, -reach, 0.0)
        return half.intersection(clip)
    if kind == "centreline":
        # hh3 Fire arcs and weapon mounts, Centreline: the strip between the lines of the hull
        # sides, projected forward from the front of the hull.
        strip = _local_rect(hull, hull.length / 2.0, reach, -hull.width / 2.0, hull.width / 2.0)
        return strip.intersection(clip)
    raise ValueError(f"unknown mount kind {kind!r}")


def _ring(poly: Polygon) -> list[Point]:
    coords = [(float(x), float(y)) for x, y in poly.exterior.coords]
    return coords[:-1]


def arc_polygons(
    hull: Hull, mount: Mount, extent: float = DEFAULT_EXTENT, linked: Mount | None = None
) -> list[list[Point]]:
    """The arc as a list of polygons (each a list of vertices, not closed), for drawing."""
    geom = arc_geometry(hull, mount, extent, linked)
    return [_ring(p) for p in shapely.get_parts(geom) if isinstance(p, Polygon) and not p.is_empty]


def arc_polygon(
    hull: Hull, mount: Mount, extent: float = DEFAULT_EXTENT, linked: Mount | None = None
) -> list[Point]:
    """The arc as one list of vertices, for drawing.

    An arc made of several parts (hh3 Hull (Side): the left and right zones, which meet at the
    hull centre) is returned as one ring that passes through the hull centre between the parts;
    it fills correctly with either fill rule. Use `arc_polygons` for the separate parts.
    """
    parts = arc_polygons(hull, mount, extent, linked)
    if len(parts) == 1:
        return parts[0]
    out: list[Point] = []
    for ring in parts:
        i = min(range(len(ring)), key=lambda k: math.hypot(ring[k][0] - hull.cx, ring[k][1] - hull.cy))
        out.extend(ring[i:] + ring[:i])
    return out


def in_arc(hull: Hull, mount: Mount, target: Shape, linked: Mount | None = None) -> bool:
    """Can a weapon on this mount fire at the target? True when some part of the target (a
    footprint, point or polygon) is inside the arc, its boundary included.

    # 40k7 Vehicles, "Vehicle weapons and line of sight"; hh3 Vehicles, Shooting; Fire arcs.
    """
    geom = as_geometry(target)
    minx, miny, maxx, maxy = geom.bounds
    far = max(math.hypot(x - hull.cx, y - hull.cy) for x in (minx, maxx) for y in (miny, maxy))
    arc = arc_geometry(hull, mount, max(DEFAULT_EXTENT, far + 10.0), linked)
    if isinstance(target, Base):
        # Exact circle: the arc comes within one radius of the centre.
        return float(arc.distance(ShapelyPoint(target.cx, target.cy))) <= target.radius + ARC_EPS
    return float(arc.distance(geom)) <= ARC_EPS
