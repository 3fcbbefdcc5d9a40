"""Fire arcs by mount (40k7 "Vehicle weapons and line of sight"; hh3 Vehicles, Fire arcs and weapon
mounts)."""

from __future__ import annotations

import math

import pytest
from shapely import Polygon

from hulldown.rules.geometry import (
    Base,
    Hull,
    Mount,
    arc_geometry,
    arc_polygon,
    arc_polygons,
    in_arc,
    mount_position,
)

HULL = Hull(10, 10, 5, 3, 0)


def polar(origin: tuple[float, float], deg: float, dist: float) -> tuple[float, float]:
    return (origin[0] + dist * math.cos(math.radians(deg)), origin[1] + dist * math.sin(math.radians(deg)))


def test_mount_position() -> None:
    assert mount_position(HULL, Mount("hull", offset=(2.5, 0))) == (12.5, 10)
    assert mount_position(Hull(10, 10, 5, 3, 90), Mount("hull", offset=(2.5, 1))) == pytest.approx((9, 12.5))


def test_40k7_hull_mount_swivels_45_degrees() -> None:
    mount = Mount("hull", arc="front", offset=(2.5, 0.0))
    apex = (12.5, 10.0)
    assert in_arc(HULL, mount, polar(apex, 44, 10))
    assert not in_arc(HULL, mount, polar(apex, 46, 10))
    assert in_arc(HULL, mount, polar(apex, -44, 10))
    assert not in_arc(HULL, mount, polar(apex, -46, 10))
    assert in_arc(HULL, mount, polar(apex, 45, 10))  # the boundary counts
    assert not in_arc(HULL, mount, (0, 10))


def test_40k7_hull_mount_rotated_and_other_facings() -> None:
    hull = Hull(10, 10, 5, 3, 90)
    mount = Mount("hull", offset=(2.5, 0.0))  # default arc: front
    apex = mount_position(hull, mount)  # (10, 12.5)
    assert in_arc(hull, mount, polar(apex, 90 + 44, 10))
    assert not in_arc(hull, mount, polar(apex, 90 + 46, 10))
    rear = Mount("hull", arc="rear", offset=(-2.5, 0.0))
    assert in_arc(HULL, rear, polar((7.5, 10), 180 + 44, 10))
    assert not in_arc(HULL, rear, polar((7.5, 10), 180 + 46, 10))
    wide = Mount("hull", arc="left", offset=(0.0, 1.5), swivel=60)
    assert in_arc(HULL, wide, polar((10, 11.5), 90 + 59, 10))
    assert not in_arc(HULL, wide, polar((10, 11.5), 90 + 61, 10))


def test_40k7_hull_mount_any_part_of_the_target() -> None:
    mount = Mount("hull", offset=(2.5, 0.0))
    apex = (12.5, 10.0)
    # A 20 mm base 30" away spans +/- 0.752 degrees: centre at 45.5 -> partly in; at 46 -> out.
    assert in_arc(HULL, mount, Base(*polar(apex, 45.5, 30), 20))
    assert not in_arc(HULL, mount, Base(*polar(apex, 46, 30), 20))
    # A hull target straddling the edge of the cone.
    assert in_arc(HULL, mount, Hull(*polar(apex, 50, 10), 5, 3, 0))


def test_hh3_hull_mount_uses_the_facing_zone() -> None:
    # Zone half-angle atan2(1.5, 2.5) = 30.96 degrees around the heading, from the hull centre.
    front = Mount("hull", arc="front", edition="hh3")
    assert in_arc(HULL, front, polar((10, 10), 30, 20))
    assert not in_arc(HULL, front, polar((10, 10), 32, 20))
    side = Mount("hull", arc="side", edition="hh3")
    assert in_arc(HULL, side, (10, 30))
    assert in_arc(HULL, side, (10, -10))
    assert not in_arc(HULL, side, (30, 10))
    assert not in_arc(HULL, side, (-10, 10))
    rear = Mount("hull", arc="rear", edition="hh3")
    assert in_arc(HULL, rear, (-10, 10))
    assert not in_arc(HULL, rear, (30, 10))
    # Partly in the zone is enough: a base whose centre is just over the diagonal.
    assert in_arc(HULL, front, Base(*polar((10, 10), 32, 20), 40))


def test_sponson_half_table() -> None:
    left = Mount("sponson", side="left")
    right = Mount("sponson", side="right")
    for point in [(10, 10.1), (40, 11), (-20, 11), (10, 40)]:  # beside, ahead, behind, abeam
        assert in_arc(HULL, left, point)
        assert not in_arc(HULL, right, point)
    for point in [(10, 9.9), (40, 9), (-20, 9)]:
        assert in_arc(HULL, right, point)
        assert not in_arc(HULL, left, point)
    turned = Hull(10, 10, 5, 3, 90)  # left is now -x
    assert in_arc(turned, left, (0, 10))
    assert not in_arc(turned, left, (20, 10))
    assert in_arc(turned, right, (20, 30))


def test_centreline_strip() -> None:
    cl = Mount("centreline")
    assert in_arc(HULL, cl, (30, 10))
    assert in_arc(HULL, cl, (30, 11.5))  # strip edges included
    assert in_arc(HULL, cl, (30, 8.5))
    assert not in_arc(HULL, cl, (30, 11.6))
    assert not in_arc(HULL, cl, (30, 8.4))
    assert not in_arc(HULL, cl, (0, 10))  # behind
    r25 = 25 / 25.4 / 2  # 0.492
    assert in_arc(HULL, cl, Base(30, 11.5 + r25 - 0.01, 25))
    assert not in_arc(HULL, cl, Base(30, 11.5 + r25 + 0.01, 25))
    turned = Hull(10, 10, 5, 3, 90)
    assert in_arc(turned, cl, (11.4, 40))
    assert not in_arc(turned, cl, (11.6, 40))


def test_turret_and_pintle_fire_all_round() -> None:
    for mount in (Mount("turret"), Mount("pintle")):
        for deg in range(0, 360, 30):
            assert in_arc(HULL, mount, polar((10, 10), deg, 25))
        assert in_arc(HULL, mount, (500, 500))  # beyond the default drawing extent


def test_coaxial_follows_the_linked_weapon() -> None:
    coax = Mount("coaxial")
    hull_gun = Mount("hull", offset=(2.5, 0.0))
    turret = Mount("turret")
    assert in_arc(HULL, coax, (30, 10), linked=hull_gun)
    assert not in_arc(HULL, coax, (0, 10), linked=hull_gun)
    assert in_arc(HULL, coax, (0, 10), linked=turret)
    with pytest.raises(ValueError):
        in_arc(HULL, coax, (30, 10))


def test_arc_polygons_for_drawing() -> None:
    ring = arc_polygon(HULL, Mount("turret"), extent=50)
    assert sorted(ring) == [(-40.0, -40.0), (-40.0, 60.0), (60.0, -40.0), (60.0, 60.0)]
    sponson = Polygon(arc_polygon(HULL, Mount("sponson", side="left"), extent=50))
    assert sponson.area == pytest.approx(100 * 50)
    strip = Polygon(arc_polygon(HULL, Mount("centreline"), extent=50))
    assert strip.area == pytest.approx(3 * (60 - 12.5))
    cone = arc_geometry(HULL, Mount("hull", offset=(2.5, 0)), extent=50)
    # 90-degree cone from (12.5, 10) clipped at x = 60: a triangle of height 47.5.
    assert cone.area == pytest.approx(47.5**2)
    parts = arc_polygons(HULL, Mount("hull", arc="side", edition="hh3"), extent=50)
    assert len(parts) == 2
    bowtie = arc_polygon(HULL, Mount("hull", arc="side", edition="hh3"), extent=50)
    assert bowtie.count((10.0, 10.0)) == 2  # both parts meet at the hull centre
