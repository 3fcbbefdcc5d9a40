"""Facings: the diagonals through the hull corners (40k7 "Vehicle facing and armour values"; hh3 12-13)."""

from __future__ import annotations

import pytest

from hulldown.rules.geometry import (
    FACINGS,
    Base,
    Hull,
    armour_facing,
    facing_of_footprint,
    facings_of_point,
    visible_facings,
)


def test_axis_aligned_zones() -> None:
    h = Hull(10, 10, 5, 3, 0)
    assert facings_of_point(h, (20, 10)) == ("front",)
    assert facings_of_point(h, (20, 15.9)) == ("front",)  # below the diagonal y - 10 = 0.6 (x - 10)
    assert facings_of_point(h, (20, 16.1)) == ("left",)
    assert facings_of_point(h, (10, 20)) == ("left",)
    assert facings_of_point(h, (0, 10)) == ("rear",)
    assert facings_of_point(h, (10, 0)) == ("right",)
    assert facings_of_point(h, (0, 4.1)) == ("rear",)
    assert facings_of_point(h, (0, 3.9)) == ("right",)


@pytest.mark.parametrize(
    ("heading", "front", "left", "rear", "right"),
    [
        # 10" from the centre (10, 10) along the heading / its left / back / right.
        (30, (18.660254, 15.0), (5.0, 18.660254), (1.339746, 5.0), (15.0, 1.339746)),
        (90, (10.0, 20.0), (0.0, 10.0), (10.0, 0.0), (20.0, 10.0)),
        (215, (1.808480, 4.264236), (15.735764, 1.808480), (18.191520, 15.735764), (4.264236, 18.191520)),
    ],
)
def test_rotated_zones(
    heading: float,
    front: tuple[float, float],
    left: tuple[float, float],
    rear: tuple[float, float],
    right: tuple[float, float],
) -> None:
    h = Hull(10, 10, 5, 3, heading)
    assert facings_of_point(h, front) == ("front",)
    assert facings_of_point(h, left) == ("left",)
    assert facings_of_point(h, rear) == ("rear",)
    assert facings_of_point(h, right) == ("right",)


def test_rotated_30_near_the_diagonal() -> None:
    # Diagonal through the front-left corner: direction 30 + atan2(1.5, 2.5) = 60.9638 degrees.
    h = Hull(10, 10, 5, 3, 30)
    assert facings_of_point(h, h.to_world((5.0, 3.0))) == ("front", "left")
    # cos/sin(60.963757 deg) = 0.4853628, 0.8743129: on the diagonal to within 1e-6".
    assert facings_of_point(h, (14.853628, 18.743129)) == ("front", "left")
    assert len(facings_of_point(h, (14.853628, 18.743129), eps=1e-9)) == 1
    assert facings_of_point(h, (10 + 10 * 0.50, 10 + 10 * 0.866025)) == ("front",)  # 60 degrees
    assert facings_of_point(h, (10 + 10 * 0.469472, 10 + 10 * 0.882948)) == ("left",)  # 62 degrees


def test_point_on_a_diagonal_reports_both_facings() -> None:
    h = Hull(10, 10, 5, 3, 0)
    assert facings_of_point(h, (15, 13)) == ("front", "left")  # through (12.5, 11.5)
    assert facings_of_point(h, (15, 7)) == ("front", "right")
    assert facings_of_point(h, (5, 7)) == ("rear", "right")
    assert facings_of_point(h, (5, 13)) == ("rear", "left")
    assert facings_of_point(h, (15, 13.0000005)) == ("front", "left")  # within eps
    assert facings_of_point(h, (15, 13.001)) == ("left",)
    assert facings_of_point(h, (15, 12.999)) == ("front",)


def test_rotated_215_diagonal_and_centre() -> None:
    h = Hull(10, 10, 5, 3, 215)
    on_diagonal = h.to_world((5.0, -3.0))  # through the front-right corner
    assert facings_of_point(h, on_diagonal) == ("front", "right")
    assert facings_of_point(h, (10, 10)) == FACINGS


def test_facing_of_footprint_uses_base_centre() -> None:
    h = Hull(10, 10, 5, 3, 0)
    # The base reaches across the diagonal but its centre is in the front zone.
    assert facing_of_footprint(h, Base(20, 15.5, 60)) == ("front",)
    assert facing_of_footprint(h, Base(20, 16.5, 60)) == ("left",)
    assert facing_of_footprint(h, Hull(10, 30, 5, 3, 0)) == ("left",)


def test_armour_facing() -> None:
    assert armour_facing("front") == "front"
    assert armour_facing("left") == "side"
    assert armour_facing("right") == "side"
    assert armour_facing("rear") == "rear"


def test_visible_facings_open_ground() -> None:
    h = Hull(10, 10, 5, 3, 0)
    assert visible_facings(h, (20, 20)) == ("front", "left")
    assert visible_facings(h, (20, 10)) == ("front",)
    assert visible_facings(h, (20, 11.5)) == ("front",)  # on the line of the left side: edge-on
    assert visible_facings(h, (0, 0)) == ("rear", "right")


def test_visible_facings_with_a_blocker() -> None:
    h = Hull(10, 10, 5, 3, 0)
    # Hides every line from (20, 20) to the left side; the lower part of the front stays visible.
    wall = [(9, 13), (15, 13), (15, 14), (9, 14)]
    assert visible_facings(h, (20, 20), [wall]) == ("front",)
    # A wall over the front too: nothing seen.
    big = [(9, 13), (30, 13), (30, 14), (9, 14)]
    assert visible_facings(h, (20, 20), [big]) == ()
