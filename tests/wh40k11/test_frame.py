"""40k11 17.02 FRAME: measure to and from the closest point of the model (its hull, not its base);
a baseless FRAME model rotates any amount about its centre."""

from __future__ import annotations

import math

from hulldown.match.actions import Fire, Move, Pivot, Shoot
from hulldown.match.rejection import Rejection
from hulldown.match.state import Point, Terrain
from hulldown.rules.geometry import Hull
from hulldown.rules.wh40k11.shooting import plan_shoot
from hulldown.rules.wh40k11.space import engaged_with, footprint, model_distance

from .builders import check, infantry, state, step, vehicle, weapon


def walker(keywords: tuple[str, ...]) -> object:
    """A 10" x 4" hull on a 60 mm base (radius 1.18") at (10, 24), facing +x."""
    return vehicle(
        "walker",
        "a",
        10,
        24,
        length=10,
        width=4,
        base_mm=60,
        keywords=keywords,
        weapons=(weapon("gun", "walker-m", rng=12),),
    )


def test_17_02_range_measured_from_the_hull() -> None:
    """40k11 17.02: a FRAME model with a hull and a base measures range from the hull (front at
    x = 15: 9.37" to the target, in range 12") where a model without FRAME measures from its base
    (13.19": out of range, and the rejection says so)."""
    target = infantry("target", "b", [(25, 24)])
    shoot = Shoot(unit="walker", fire=(Fire(weapon="gun", target="target"),))
    framed = state(walker(("vehicle", "frame")), target, phase="shooting")  # type: ignore[arg-type]
    u, t = framed.units["walker"], framed.units["target"]
    assert math.isclose(
        model_distance(u, u.models["walker-m"], t, t.models["target-1"]), 25 - 0.63 - 15, abs_tol=0.01
    )
    assert check(framed, shoot) is None
    plain = state(walker(("vehicle",)), target, phase="shooting")  # type: ignore[arg-type]
    problem = check(plain, shoot)
    assert problem is not None and problem.code == "out_of_range"
    assert problem.message == "target is 13.2 in away, gun range 12 in"
    assert problem.values == {"distance": 13.19, "range": 12.0}


def test_17_02_engagement_measured_from_the_hull() -> None:
    """40k11 17.02 with Engagement Range: an enemy 0.87" from the hull (4.69" from the base) is
    engaged with the FRAME model, not with the same model without FRAME."""
    enemy = infantry("enemy", "b", [(16.5, 24)])
    framed = state(walker(("vehicle", "frame")), enemy)  # type: ignore[arg-type]
    plain = state(walker(("vehicle",)), enemy)  # type: ignore[arg-type]
    assert engaged_with(framed, framed.units["walker"]) == ("enemy",)
    assert engaged_with(plain, plain.units["walker"]) == ()


def test_baseless_model_is_its_hull() -> None:
    """40k11 17.02 Frame: a baseless model is measured to its hull, turned with it: a
    10" x 4" hull facing +y at (10, 24) covers x 8..12, y 19..29."""
    tank = vehicle("tank", "a", 10, 24, heading=90, length=10, width=4)
    fp = footprint(tank, tank.models["tank-m"])
    assert isinstance(fp, Hull)
    xs = [x for x, _ in fp.corners()]
    ys = [y for _, y in fp.corners()]
    assert (round(min(xs), 6), round(max(xs), 6), round(min(ys), 6), round(max(ys), 6)) == (8, 12, 19, 29)


def test_17_02_baseless_frame_rotates_about_its_centre() -> None:
    """40k11 17.02: a baseless FRAME model turns any amount about its centre: its position stays,
    its heading changes; the turn is swept, so it cannot turn through another VEHICLE (17.01)."""
    s = state(vehicle("tank", "a", 10, 24, length=10, width=4), infantry("far", "b", [(60, 40)]))
    after = step(s, Pivot(unit="tank", heading=135))
    model = after.units["tank"].models["tank-m"]
    assert (model.pos, model.heading) == (Point(10, 24), 135.0)
    blocked = state(vehicle("tank", "a", 10, 24, length=10, width=4), vehicle("other", "a", 10, 29.5))
    problem = check(blocked, Pivot(unit="tank", heading=90))
    assert problem is not None and problem.code == "through_monster_vehicle"


def test_17_02_turning_about_sweeps_the_whole_turn() -> None:
    """40k11 17.02 + 17.01: turning a baseless FRAME model is a rotation about its centre, so
    turning it about (180 degrees, or just short of or past it) sweeps its corners through the
    VEHICLE beside it although the hull ends on its own footprint; on a move it translates, then
    turns, so the same holds at the end of a move. The clear side takes the same turn freely."""
    blocked = state(vehicle("tank", "a", 10, 24, length=10, width=4), vehicle("other", "a", 10, 29.5))
    for heading in (179.0, 180.0, 181.0):
        problem = check(blocked, Pivot(unit="tank", heading=heading))
        assert problem is not None and problem.code == "through_monster_vehicle", (heading, problem)
    problem = check(blocked, Move(unit="tank", path=(Point(12, 24),), heading=180))
    assert problem is not None and problem.code == "through_monster_vehicle"
    clear = state(vehicle("tank", "a", 10, 24, length=10, width=4), vehicle("other", "a", 10, 32))
    after = step(clear, Pivot(unit="tank", heading=180))
    assert after.units["tank"].models["tank-m"].heading == 180.0


def test_17_02_rotation_at_the_end_of_a_move() -> None:
    """40k11 17.02 [decided]: on a move the hull translates, then turns about its centre to the
    final heading."""
    s = state(vehicle("tank", "a", 10, 24, length=10, width=4), infantry("far", "b", [(60, 40)]))
    after = step(s, Move(unit="tank", path=(Point(18, 24),), heading=270))
    model = after.units["tank"].models["tank-m"]
    assert (model.pos, model.heading) == (Point(18, 24), 270.0)


def test_plan_uses_the_hull_for_close_quarters_engagement() -> None:
    """17.02 + 17.03: B is engaged with the FRAME walker through its hull, so its [CLOSE-QUARTERS]
    pistol shoots the walker without the -1."""
    b = infantry("B", "b", [(16.5, 24)], weapons=(weapon("pistol", "B-1", rules=("close_quarters",)),))
    s = state(walker(("vehicle", "frame")), b, phase="shooting", active="b")  # type: ignore[arg-type]
    plans = plan_shoot(s, Shoot(unit="B", fire=(Fire(weapon="pistol", target="walker"),)))
    assert not isinstance(plans, Rejection), plans
    assert [p.modifier for p in plans] == [0]


def narrow_walker(keywords: tuple[str, ...]) -> object:
    """A 10" x 2" hull on a 60 mm base (radius 1.18") at (10, 24), facing +x: the base sticks out
    0.18" past each long side of the hull."""
    return vehicle(
        "walker",
        "a",
        10,
        24,
        length=10,
        width=2,
        base_mm=60,
        keywords=keywords,
        weapons=(weapon("claw-gun", "walker-m", rng=2),),
    )


def test_17_02_frame_measures_from_a_base_that_sticks_out_past_the_hull() -> None:
    """40k11 17.02 ("the closest point on that model, so not necessarily from its base"): the
    whole model counts, its base included where it is closer. An enemy base edge 2.12" from the
    hull is 1.94" from the base: within Engagement Range (2") and in range of a 2" weapon."""
    enemy = infantry("enemy", "b", [(10, 27.75)])
    framed = state(narrow_walker(("vehicle", "frame")), enemy)  # type: ignore[arg-type]
    u, e = framed.units["walker"], framed.units["enemy"]
    assert math.isclose(model_distance(u, u.models["walker-m"], e, e.models["enemy-1"]), 1.94, abs_tol=0.01)
    assert engaged_with(framed, u) == ("enemy",)
    far = state(narrow_walker(("vehicle", "frame")), infantry("enemy", "b", [(10, 27.95)]))  # type: ignore[arg-type]
    assert engaged_with(far, far.units["walker"]) == ()


def test_17_02_frame_line_of_sight_from_any_part_of_the_model() -> None:
    """40k11 17.02 (position in relation to anything else): a FRAME model sees from any part of
    itself. A wall hides the target from the centre of the tank's hull but not from its front
    left corner, so the FRAME tank may shoot; the same tank without FRAME (seeing from its centre)
    cannot."""
    wall = Terrain(
        id="wall",
        points=(Point(16, 20), Point(17, 20), Point(17, 25.5), Point(16, 25.5)),
        kinds=("blocks_los",),
    )
    target = infantry("target", "b", [(30, 24)])
    shoot = Shoot(unit="tank", fire=(Fire(weapon="gun", target="target"),))

    def tank(keywords: tuple[str, ...]) -> object:
        return vehicle(
            "tank", "a", 10, 24, length=10, width=4, keywords=keywords, weapons=(weapon("gun", "tank-m"),)
        )

    framed = state(tank(("vehicle", "frame")), target, phase="shooting", terrain=[wall])  # type: ignore[arg-type]
    assert check(framed, shoot) is None
    plain = state(tank(("vehicle",)), target, phase="shooting", terrain=[wall])  # type: ignore[arg-type]
    problem = check(plain, shoot)
    assert problem is not None and problem.code == "no_line_of_sight"
