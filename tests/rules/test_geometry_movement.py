"""Movement geometry, coherency and terrain (40k7 Vehicles, Movement to Flat Out, Vehicle
Squadrons; hh3 Vehicles, Movement to Driving through other units; 40k11 17.01)."""

from __future__ import annotations

import math

import pytest

from hulldown.rules.geometry import (
    Base,
    Hull,
    TerrainPiece,
    coherent,
    los_blockers,
    path_collisions,
    path_length,
    path_terrain,
    swept_area,
    terrain_under,
)

HULL = Hull(10, 10, 5, 3, 0)


def test_path_length() -> None:
    assert path_length([(0, 0), (3, 4), (3, 10)]) == pytest.approx(11.0)
    assert path_length([(1, 1)]) == 0.0
    assert path_length([]) == 0.0


def test_straight_drive_sweeps_a_rectangle() -> None:
    swept = swept_area(HULL, [(30, 10)])
    assert swept.area == pytest.approx(25 * 3)
    assert swept.bounds == pytest.approx((7.5, 8.5, 32.5, 11.5))


def test_collision_with_a_model_in_the_path_not_beside_it() -> None:
    swept = swept_area(HULL, [(30, 10)])
    obstacles = {
        "in_path": Base(20, 10, 32),
        "beside": Base(20, 11.5 + 32 / 25.4 / 2 + 0.05, 32),
        "touching": [(15, 11.5), (20, 11.5), (20, 13), (15, 13)],
        "far": Hull(20, 30, 5, 3, 0),
    }
    assert path_collisions(swept, obstacles) == ["in_path"]


def test_pivot_is_part_of_the_swept_area() -> None:
    # Turning from heading 0 to drive up +y: the corners swing through (12, 12), which neither the
    # start position nor the straight leg covers.
    swept = swept_area(HULL, [(10, 30)])
    speck = [(11.95, 11.95), (12.05, 11.95), (12.05, 12.05), (11.95, 12.05)]
    assert path_collisions(swept, {"speck": speck}) == ["speck"]
    assert swept.bounds[3] == pytest.approx(32.5)
    # Reversing needs no pivot: the hull already lies along the leg.
    back = swept_area(HULL, [(0, 10)])
    assert back.area == pytest.approx(15 * 3)


def test_end_heading_pivot() -> None:
    swept = swept_area(HULL, [(30, 10)], end_heading=90)
    # The final pivot at (30, 10) sweeps out to the half-diagonal sqrt(2.5^2 + 1.5^2) = 2.9155.
    assert swept.bounds[3] == pytest.approx(10 + math.hypot(2.5, 1.5), abs=2e-3)
    assert swept.bounds[2] == pytest.approx(30 + math.hypot(2.5, 1.5), abs=2e-3)  # front-right corner


def test_base_sweep() -> None:
    swept = swept_area(Base(0, 0, 25.4), [(10, 0)])
    assert swept.area == pytest.approx(10 + math.pi * 0.25, rel=1e-3)
    assert swept_area(Base(0, 0, 25.4), []).area == pytest.approx(math.pi * 0.25, rel=1e-3)


def test_coherency() -> None:
    line = [Base(0, 0, 25.4), Base(3, 0, 25.4), Base(6, 0, 25.4)]  # 2" gaps
    assert coherent(line, 2.0)
    assert not coherent(line, 1.9)
    pairs = [Base(0, 0, 25.4), Base(2, 0, 25.4), Base(20, 0, 25.4), Base(22, 0, 25.4)]
    assert not coherent(pairs, 2.0)  # each has a neighbour, but two groups
    assert coherent([Base(0, 0, 25.4)], 2.0)
    squadron = [Hull(0, 0, 5, 3, 0), Hull(9, 0, 5, 3, 0), Hull(9, 7, 5, 3, 0)]  # 4" gaps
    assert coherent(squadron, 4.0)
    assert not coherent(squadron, 3.9)


def test_terrain_helpers() -> None:
    wood = TerrainPiece("wood", ((0, 0), (10, 0), (10, 10), (0, 10)), ("difficult", "cover"), cover_save=5)
    ruin = TerrainPiece("ruin", ((20, 0), (25, 0), (25, 5), (20, 5)), ("blocks_los", "cover"), cover_save=4)
    wall = TerrainPiece("wall", ((30, 0), (31, 0), (31, 8), (30, 8)), ("blocks_los", "impassable"))
    terrain = [wood, ruin, wall]
    assert terrain_under(Base(10.6, 5, 25.4), terrain) == []  # touching the wood's edge
    assert terrain_under(Base(10.4, 5, 25.4), terrain) == [wood]
    assert terrain_under(Hull(20, 2, 5, 3, 0), terrain) == [ruin]
    swept = swept_area(Hull(5, 2, 5, 3, 0), [(35, 2)])
    assert [p.id for p in path_terrain(swept, terrain)] == ["wood", "ruin", "wall"]
    assert [p.area for p in los_blockers(terrain)] == [25, 8]
    assert [p.area for p in los_blockers(terrain, exclude_ids=["ruin"])] == [8]
    assert wood.has("difficult") and not wood.has("blocks_los")
