"""Footprints, distances, overlaps, battlefield bounds (rules core geometry)."""

from __future__ import annotations

import math

import pytest

from hulldown.rules.geometry import (
    Base,
    Hull,
    distance,
    facing_edge,
    inside_battlefield,
    overlaps,
    rotate,
    translate,
    within,
)

R32 = 32 / 25.4 / 2  # 0.6299212598... inch


def test_hull_corners_axis_aligned() -> None:
    h = Hull(10, 10, 5, 3, 0)
    assert h.corners() == ((12.5, 11.5), (12.5, 8.5), (7.5, 8.5), (7.5, 11.5))
    assert h.centre == (10, 10)
    assert h.polygon().area == pytest.approx(15.0)


def test_hull_corners_rotated_90() -> None:
    fl, fr, rr, rl = Hull(10, 10, 5, 3, 90).corners()
    assert fl == pytest.approx((8.5, 12.5))
    assert fr == pytest.approx((11.5, 12.5))
    assert rr == pytest.approx((11.5, 7.5))
    assert rl == pytest.approx((8.5, 7.5))


def test_facing_edges() -> None:
    h = Hull(10, 10, 5, 3, 0)
    assert facing_edge(h, "front") == ((12.5, 11.5), (12.5, 8.5))
    assert facing_edge(h, "right") == ((12.5, 8.5), (7.5, 8.5))
    assert facing_edge(h, "rear") == ((7.5, 8.5), (7.5, 11.5))
    assert facing_edge(h, "left") == ((7.5, 11.5), (12.5, 11.5))


def test_translate_and_rotate_return_new_shapes() -> None:
    h = Hull(10, 10, 5, 3, 0)
    moved = translate(h, 2, -1)
    assert moved == Hull(12, 9, 5, 3, 0)
    assert h == Hull(10, 10, 5, 3, 0)
    pivoted = rotate(h, 30)
    assert (pivoted.cx, pivoted.cy, pivoted.heading) == (10, 10, 30)
    swung = rotate(h, 90, about=(0, 0))
    assert (swung.cx, swung.cy) == pytest.approx((-10, 10))
    assert swung.heading == 90
    assert rotate(h, -30).heading == 330
    b = Base(1, 0, 32)
    assert translate(b, 1, 1) == Base(2, 1, 32)
    rb = rotate(b, 90, about=(0, 0))
    assert (rb.cx, rb.cy) == pytest.approx((0, 1))


def test_base_radius_and_polygon() -> None:
    b = Base(0, 0, 32)
    assert b.radius == pytest.approx(0.6299212598)
    assert b.polygon().area == pytest.approx(math.pi * R32**2, rel=1e-3)


def test_distance_hull_to_base_front() -> None:
    # 5" x 3" hull at (10, 10) facing +x: front edge at x = 12.5; 32 mm base centred at (20, 10).
    h = Hull(10, 10, 5, 3, 0)
    assert distance(h, Base(20, 10, 32)) == pytest.approx(7.5 - R32, abs=1e-9)
    assert distance(Base(20, 10, 32), h) == pytest.approx(6.8700787402, abs=1e-9)


def test_distance_hull_corner_to_base() -> None:
    # Closest point is the front-left corner (12.5, 11.5): centre offset (3, 4) -> 5".
    h = Hull(10, 10, 5, 3, 0)
    assert distance(h, Base(15.5, 15.5, 32)) == pytest.approx(5 - R32, abs=1e-9)


def test_distance_rotated_hull_to_base() -> None:
    # Heading 90: the right side is at x = 11.5.
    h = Hull(10, 10, 5, 3, 90)
    assert distance(h, Base(20, 10, 32)) == pytest.approx(8.5 - R32, abs=1e-9)


def test_distance_touching_and_overlapping_is_zero() -> None:
    h = Hull(10, 10, 5, 3, 0)
    assert distance(h, Base(12.5 + R32, 10, 32)) == pytest.approx(0.0, abs=1e-12)
    assert distance(h, Base(12, 10, 32)) == 0.0
    assert distance(h, Hull(14, 10, 5, 3, 0)) == 0.0


def test_distance_base_to_base_point_and_polygon() -> None:
    assert distance(Base(0, 0, 32), Base(3, 0, 32)) == pytest.approx(3 - 2 * R32)
    assert distance(Base(0, 0, 25.4), (3, 4)) == pytest.approx(4.5)
    square = [(5, -1), (6, -1), (6, 1), (5, 1)]
    assert distance(Hull(0, 0, 4, 2, 0), square) == pytest.approx(3.0)
    assert distance((0, 0), (3, 4)) == pytest.approx(5.0)


def test_within() -> None:
    h = Hull(10, 10, 5, 3, 0)
    b = Base(20, 10, 32)
    assert within(h, b, 6.88)
    assert not within(h, b, 6.86)
    assert within(h, Base(12.5 + R32 + 1, 10, 32), 1.0)


def test_overlaps_touching_does_not_count() -> None:
    assert not overlaps(Base(0, 0, 25.4), Base(1, 0, 25.4))
    assert overlaps(Base(0, 0, 25.4), Base(0.99, 0, 25.4))
    h = Hull(10, 10, 5, 3, 0)
    assert not overlaps(h, Hull(15, 10, 5, 3, 0))
    assert overlaps(h, Hull(14.9, 10, 5, 3, 0))
    assert not overlaps(h, Base(13, 10, 25.4))
    assert overlaps(h, Base(12.9, 10, 25.4))


def test_inside_battlefield() -> None:
    assert inside_battlefield(Hull(2.5, 10, 5, 3, 0), 72, 48)
    assert not inside_battlefield(Hull(2.4, 10, 5, 3, 0), 72, 48)
    assert inside_battlefield(Hull(1.5, 10, 5, 3, 90), 72, 48)
    assert not inside_battlefield(Hull(70, 47, 5, 3, 90), 72, 48)
    assert inside_battlefield(Base(0.5, 47.5, 25.4), 72, 48)
    assert not inside_battlefield(Base(0.49, 20, 25.4), 72, 48)


def test_within_agrees_with_distance_near_and_beyond_the_reach_cut() -> None:
    """``within`` answers far pairs from the centres alone; it must agree with ``distance``."""
    hull = Hull(10.0, 10.0, 5.0, 3.0, 30.0)
    for dx in [x * 0.25 for x in range(0, 60)]:
        for other in (Hull(10.0 + dx, 12.0, 4.0, 2.0, 75.0), Base(10.0 + dx, 12.0, 32.0)):
            for d in (0.05, 1.0, 2.0):
                assert within(hull, other, d) == (distance(hull, other) <= d + 1e-9), (dx, other, d)


def test_footprint_polygons_are_built_once_per_footprint() -> None:
    hull = Hull(1.0, 2.0, 5.0, 3.0, 10.0)
    assert hull.polygon() is Hull(1.0, 2.0, 5.0, 3.0, 10.0).polygon()
    assert hull.polygon() is not hull.translate(0.5, 0.0).polygon()
