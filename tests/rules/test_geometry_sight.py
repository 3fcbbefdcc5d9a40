"""Line of sight, visible parts and obscured vehicles (40k7 Vehicle Weapons and Line of Sight,
Vehicle Facing and Armour Values, Obscured Targets; hh3 Vehicles, Which facing is hit)."""

from __future__ import annotations

import pytest

from hulldown.rules.geometry import (
    OBSCURED_THRESHOLD,
    Base,
    Hull,
    hidden_fraction,
    is_obscured,
    line_of_sight,
    obscured_for_unit,
    segment_blocked,
    visible_part,
)

HULL = Hull(10, 10, 5, 3, 0)
WALL = [(15, 5), (16, 5), (16, 15), (15, 15)]


def test_wall_blocks_line_of_sight() -> None:
    assert not line_of_sight((20, 10), HULL, [WALL])
    assert not line_of_sight((20, 10), Base(10, 10, 32), [WALL])
    assert not line_of_sight((20, 10), (10, 10), [WALL])
    assert visible_part((20, 10), HULL, [WALL]).is_empty


def test_visible_around_the_end_of_the_wall() -> None:
    assert line_of_sight((20, 18), HULL, [WALL])
    assert not visible_part((20, 18), HULL, [WALL]).is_empty
    assert line_of_sight((20, 10), HULL, [])


def test_touching_a_corner_does_not_block() -> None:
    block = [(5, 3), (6, 3), (6, 5), (5, 5)]  # corner (5, 5) on the line y = x
    assert line_of_sight((0, 0), (10, 10), [block])
    assert not segment_blocked((0, 0), (10, 10), [block])
    assert segment_blocked((0, 0), (10, 9.9), [block])
    # Running along a blocker's edge does not block either.
    assert line_of_sight((0, 5), (10, 5), [block])


def test_grazing_line_between_two_corners() -> None:
    # Two blocks meet at (5, 5); the only line from the origin past them is y = x.
    a = [(5, 2), (8, 2), (8, 5), (5, 5)]
    b = [(2, 5), (5, 5), (5, 8), (2, 8)]
    target = [(9, 9), (11, 9), (11, 11), (9, 11)]
    assert visible_part((0, 0), target, [a, b]).area == pytest.approx(0.0, abs=1e-9)
    assert line_of_sight((0, 0), target, [a, b])
    # Overlap the blocks a little and the gap closes.
    b2 = [(2, 4.99), (5.01, 4.99), (5.01, 8), (2, 8)]
    assert not line_of_sight((0, 0), target, [a, b2])


def test_firer_inside_terrain_sees_out_of_it() -> None:
    # The firer stands inside the wall piece: it does not block its own sight.
    assert line_of_sight((15.5, 10), HULL, [WALL])


def test_non_convex_blocker() -> None:
    # A U-shaped ruin opening towards the origin: the target inside the U is visible, behind it not.
    ruin = [(4, 4), (8, 4), (8, 8), (4, 8), (4, 7), (7, 7), (7, 5), (4, 5)]
    assert line_of_sight((0, 6), (6, 6), [ruin])
    assert not line_of_sight((0, 6), (10, 6), [ruin])


def test_visible_part_area() -> None:
    # Origin (10, 0), wall [9, 11] x [4, 5]: the shadow at height y spans 10 +/- y / 4.
    wall = [(9, 4), (11, 4), (11, 5), (9, 5)]
    strip = [(5, 9), (15, 9), (15, 10), (5, 10)]
    assert visible_part((10, 0), strip, [wall]).area == pytest.approx(2 * (5 - 19 / 8), abs=1e-9)


def _front_blocker(fraction: float) -> list[tuple[float, float]]:
    """Blocker [20, 21] x [y_b, 20] hiding the top `fraction` of the front edge of HULL (x = 12.5,
    y in [8.5, 11.5]) from the origin (30, 10): its far face x = 20 is where it bites."""
    y_cut = 11.5 - 3 * fraction
    y_b = 10 + (y_cut - 10) * (30 - 20) / (30 - 12.5)
    return [(20, y_b), (21, y_b), (21, 20), (20, 20)]


def test_hidden_fraction_24_percent_is_not_obscured() -> None:
    blocker = _front_blocker(0.24)
    assert hidden_fraction((30, 10), HULL, "front", [blocker]) == pytest.approx(0.24, abs=1e-6)
    assert not is_obscured((30, 10), HULL, "front", [blocker])


def test_hidden_fraction_26_percent_is_obscured() -> None:
    blocker = _front_blocker(0.26)
    assert hidden_fraction((30, 10), HULL, "front", [blocker]) == pytest.approx(0.26, abs=1e-6)
    assert is_obscured((30, 10), HULL, "front", [blocker])


def test_hidden_fraction_exactly_25_percent_is_obscured() -> None:
    assert OBSCURED_THRESHOLD == 0.25
    blocker = _front_blocker(0.25)
    assert hidden_fraction((30, 10), HULL, "front", [blocker]) == pytest.approx(0.25, abs=1e-9)
    assert is_obscured((30, 10), HULL, "front", [blocker])


def test_hidden_fraction_rotated_hull_blocker_touching_the_edge() -> None:
    # Heading 215; the blocker sits against the front, covering local v in [0.72, 1.5] of the
    # edge (v in [-1.5, 1.5]); the firer is straight ahead: 0.78 / 3 = 26% hidden.
    hull = Hull(10, 10, 5, 3, 215)
    blocker = [hull.to_world(p) for p in [(2.5, 0.72), (3.0, 0.72), (3.0, 4.0), (2.5, 4.0)]]
    origin = hull.to_world((30.0, 0.0))
    assert hidden_fraction(origin, hull, "front", [blocker]) == pytest.approx(0.26, abs=1e-6)
    assert is_obscured(origin, hull, "front", [blocker])
    blocker24 = [hull.to_world(p) for p in [(2.5, 0.78), (3.0, 0.78), (3.0, 4.0), (2.5, 4.0)]]
    assert hidden_fraction(origin, hull, "front", [blocker24]) == pytest.approx(0.24, abs=1e-6)
    assert not is_obscured(origin, hull, "front", [blocker24])


def test_the_target_hull_does_not_hide_its_own_near_side() -> None:
    assert hidden_fraction((30, 10), HULL, "front", [HULL]) == 0.0
    assert hidden_fraction((30, 10), HULL, "rear", [HULL]) == pytest.approx(1.0)
    assert hidden_fraction((30, 10), HULL, "front", [WALL]) == pytest.approx(1.0)  # wall between
    assert hidden_fraction((13, 10), HULL, "front", [WALL]) == 0.0  # firer between hull and wall


def test_obscured_for_a_unit_needs_a_majority() -> None:
    blocker = _front_blocker(0.26)
    hidden, clear = (30, 10), (30, -20)
    assert is_obscured(hidden, HULL, "front", [blocker])
    assert not is_obscured(clear, HULL, "front", [blocker])
    assert obscured_for_unit([hidden, hidden, clear], HULL, "front", [blocker])
    assert not obscured_for_unit([hidden, clear, clear], HULL, "front", [blocker])
    assert not obscured_for_unit([hidden, clear], HULL, "front", [blocker])  # tie: not obscured
    assert not obscured_for_unit([], HULL, "front", [blocker])
