"""The table's ruler, sight tool and check facts measure a 40k11 FRAME model as the rules do
(40k11 17.02 Frame: "measure to and from the closest point on that model (so not necessarily from
its base, if it has one)"): the whole model, hull and base (``space.extent``), and sight from any
part of it (``space.sees``). They measured the hull alone and drew sight from the centre, so the
ruler said 2.37" where the rules found the two units engaged (1.4", within 2").

The layout, worked by hand: a FRAME vehicle, hull 4 x 2" at (20, 24) heading 0 on a 100 mm base
(radius 1.97": the base sticks out 0.97" past each long side of the hull); an infantry model on a
32 mm base (radius 0.63") at (20, 28). Hull to base: 28 - 0.63 - 25 = 2.37"; base to base:
28 - 0.63 - 24 - 1.97 = 1.40". A second infantry model at (16, 34) behind a wall (x 18-30,
y 27-28) that hides it from the vehicle's centre but not from the left edge of its base.
"""

from __future__ import annotations

from shapely.geometry import Point as ShapelyPoint

from hulldown.match.actions import Charge, Fire, Shoot
from hulldown.match.state import MatchState, Point, Terrain
from hulldown.match.validate import validate
from hulldown.rules import measure
from hulldown.rules.geometry import as_geometry, distance, line_of_sight
from hulldown.rules.wh40k11 import space
from tests.wh40k11.builders import infantry, state, vehicle, weapon

WALL = Terrain(
    id="wall", points=(Point(18, 27), Point(30, 27), Point(30, 28), Point(18, 28)), kinds=("blocks_los",)
)


def _frame_state(phase: str = "shooting") -> MatchState:
    tank = vehicle(
        "tank",
        "a",
        20,
        24,
        length=4.0,
        width=2.0,
        base_mm=100.0,
        weapons=(weapon("gun", "tank-m", rng=12),),
    )
    near = infantry("near", "b", [(20, 28)])
    hidden = infantry("hidden", "b", [(16, 34)])
    return state(tank, near, hidden, phase=phase, terrain=(WALL,))


def _located(s: MatchState, model_id: str) -> measure.Located:
    found = measure.find_model(s, model_id)
    assert found is not None
    return found


def test_ruler_measures_a_frame_model_to_its_base_where_it_sticks_out() -> None:
    """40k11 17.02: the ruler reads 1.4" (base to base), not 2.37" (hull to base); the rules
    measure the same and find the two units engaged (Engagement Range 2")."""
    s = _frame_state()
    tank, near = _located(s, "tank-m"), _located(s, "near-1")
    assert measure.ruler(s, tank, near) == 1.4
    assert measure.ruler(s, near, tank) == 1.4
    assert round(space.model_distance(tank.unit, tank.model, near.unit, near.model), 2) == 1.4
    assert space.is_engaged(s, tank.unit)


def test_sight_tool_sees_from_any_part_of_a_frame_model() -> None:
    """40k11 17.02: the wall hides the model at (16, 34) from the vehicle's centre but not from
    the left edge of its base, so the rules let the vehicle see it (``space.sees``); the sight
    tool says so too, and its distance is the rules' (to the base)."""
    s = _frame_state()
    tank, hidden = _located(s, "tank-m"), _located(s, "hidden-1")
    assert space.sees(s, tank.unit, tank.model, hidden.unit)
    seen = measure.sight(s, tank, hidden)
    assert seen.visible is True
    assert seen.distance == round(space.model_distance(tank.unit, tank.model, hidden.unit, hidden.model), 2)


def test_check_facts_of_a_frame_shot_agree_with_validation() -> None:
    """40k11 17.02 and Shooting: the facts a check reports for a shot are the rules' - the range
    to the base and sight from any part of the model; a charge's target distance likewise."""
    s = _frame_state()
    shot = Shoot(unit="tank", fire=(Fire(weapon="gun", target="hidden"),))
    assert validate(s, "a", shot) is None  # the rules accept the shot: in range and seen
    facts = measure.action_facts(s, shot)
    (gun,) = facts.weapons
    tank, hidden = _located(s, "tank-m"), _located(s, "hidden-1")
    assert gun.distance == round(space.model_distance(tank.unit, tank.model, hidden.unit, hidden.model), 2)
    assert gun.visible is True
    charge = measure.action_facts(_frame_state("charge"), Charge(unit="near", target="tank"))
    assert charge.target_distance == 1.4


def test_sight_tool_origin_is_the_point_the_rules_found_sight_from() -> None:
    """40k11 17.02 with core Line of sight: the vehicle sees the model at (16, 34) only from the
    left of its base, so the sight tool's ``origin`` is that point, not the centre (20, 24) the
    wall hides it from: an exact line of sight from the reported origin to the target is clear,
    and the origin lies on the outline of the whole model (hull and base). The model in the open
    is seen from the centre, which stays the origin (docs/table.md, Line of sight)."""
    s = _frame_state()
    tank, hidden, near = _located(s, "tank-m"), _located(s, "hidden-1"), _located(s, "near-1")
    blockers = space.sight_blockers(s)
    target = space.extent(hidden.unit, hidden.model)
    assert not line_of_sight((20.0, 24.0), target, blockers)
    seen = measure.sight(s, tank, hidden)
    assert seen.visible is True
    assert seen.origin != (20.0, 24.0)
    assert line_of_sight(seen.origin, target, blockers)
    whole = space.extent(tank.unit, tank.model)
    assert distance(seen.origin, whole) == 0.0
    assert as_geometry(whole).exterior.distance(ShapelyPoint(seen.origin)) <= 0.01
    assert measure.sight(s, tank, near).origin == (20.0, 24.0)
