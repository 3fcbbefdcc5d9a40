"""hh3 movement (hh3 Vehicles, Movement to Driving through other units): moves, Rush, pivots, no
climbing, driving through units, dangerous terrain."""

from __future__ import annotations

from hulldown.match.actions import Move, Pivot
from hulldown.match.state import MatchState, Point, Unit
from hulldown.rules.hh3.allocation import DECISION_ALLOCATE

from .builders import act, log_text, make, rejection, rolls, rolls_since, squad, take_proposal, tank, wall


def _state(*extra: Unit, terrain: tuple[object, ...] = ()) -> MatchState:
    return make([tank("v", "a", 20, 24, 0, m=10), *extra], terrain=terrain)  # type: ignore[arg-type]


def test_move_up_to_m_and_face_any_direction() -> None:
    """hh3 Vehicles, Movement: up to M (10 in), ending facing any direction."""
    state = act(_state(), "a", Move("v", (Point(30, 24),), heading=135))
    model = state.units["v"].models["v-m"]
    assert (model.pos, model.heading) == (Point(30, 24), 135)
    assert state.units["v"].flag("moved") and state.units["v"].moved == 10


def test_move_beyond_m_rejected_with_numbers() -> None:
    """hh3 Vehicles, Movement: more than M is refused, naming distance and limit."""
    why = rejection(_state(), "a", Move("v", (Point(31, 24),)))
    assert why is not None and why.code == "too_far" and why.values == {"distance": 11.0, "limit": 10.0}


def test_one_move_per_phase() -> None:
    """hh3 core: a unit moves once in the Move sub-phase (and pivoting replaces moving)."""
    state = act(_state(), "a", Move("v", (Point(25, 24),)))
    for action in (Move("v", (Point(27, 24),)), Pivot("v", 90)):
        why = rejection(state, "a", action)
        assert why is not None and why.code == "already_moved"


def test_no_rush_unless_fast_or_rapid() -> None:
    """hh3 Vehicles, No rushing: no Rush unless Fast (Rapid in the published rules: both accepted); a Rapid
    vehicle's Rush adds 6 in to its M (hh3 Vehicle Sub-Types, Rapid): M10 Rushes up to 16 in."""
    why = rejection(_state(), "a", Move("v", (Point(25, 24),), kind="rush"))
    assert why is not None and why.code == "no_rush"
    for keyword in ("fast", "rapid"):
        state = make([tank("v", "a", 20, 24, 0, m=10, keywords=(keyword,))])
        assert rejection(state, "a", Move("v", (Point(36, 24),), kind="rush")) is None
        why = rejection(state, "a", Move("v", (Point(36.5, 24),), kind="rush"))
        assert why is not None and why.code == "too_far" and why.values["limit"] == 16.0
        moved = act(state, "a", Move("v", (Point(36, 24),), kind="rush"))
        assert moved.units["v"].flag("rushed")


def test_pivot_counts_as_stationary() -> None:
    """hh3 Vehicles, Pivoting is not moving: the vehicle counts as Stationary."""
    state = act(_state(), "a", Pivot("v", 90))
    unit = state.units["v"]
    assert unit.models["v-m"].heading == 90 and unit.models["v-m"].pos == Point(20, 24)
    assert not unit.flag("moved") and unit.moved == 0


def test_pivot_must_end_more_than_1in_from_enemies() -> None:
    """hh3 Vehicles, Pivoting is not moving: the pivot must end more than 1 in from any enemy (0.07
    in after turning)."""
    enemy = squad("e", "b", [(20, 27.2)])
    why = rejection(_state(enemy), "a", Pivot("v", 90))
    assert why is not None and why.code == "too_close_to_enemy"
    assert abs(float(why.values["distance"] or 0) - 0.07) < 0.01
    assert rejection(_state(enemy), "a", Pivot("v", 180)) is None


def test_pivot_never_turns_through_another_vehicle_or_impassable_terrain() -> None:
    """hh3 Vehicles, Pivoting is not moving and Driving through other units: the pivot turns the
    hull about its centre, and a vehicle never goes through another vehicle or impassable terrain. A
    5 x 3 in hull 0.1 in beside another one cannot turn about (180 degrees: it ends where it
    started, but its corners sweep through the neighbour), nor turn 30 degrees counter-clockwise
    past a rock 0.2 in off its front left corner (30 degrees clockwise turns away from it); a
    non-vehicle model in the way is no obstacle (hh3 Vehicles, Driving through other units: vehicles
    move through non-vehicles)."""
    neighbour = tank("w", "a", 20, 27.1, 0)
    for heading in (180, 179, 181):
        why = rejection(_state(neighbour), "a", Pivot("v", heading))
        assert why is not None and why.code == "through_vehicle", (heading, why)
    rock = wall("rock", 22.0, 25.7, 22.2, 25.9, "impassable")
    why = rejection(_state(terrain=(rock,)), "a", Pivot("v", 30))
    assert why is not None and why.code == "through_terrain"
    assert rejection(_state(terrain=(rock,)), "a", Pivot("v", -30)) is None
    # A friendly infantry model just off the corner: swept over, not an obstacle.
    friend = squad("f", "a", [(22.3, 26.4)])
    assert rejection(_state(friend), "a", Pivot("v", 30)) is None


def test_move_may_not_end_within_1in_of_an_enemy_or_on_a_model() -> None:
    """hh3 Vehicles, Driving through other units: never end on a model or within 1 in of an enemy."""
    enemy = squad("e", "b", [(29.5, 24)])
    why = rejection(_state(enemy), "a", Move("v", (Point(26, 24),)))
    assert why is not None and why.code == "too_close_to_enemy"
    friend = squad("f", "a", [(29.5, 24)])
    why = rejection(_state(friend), "a", Move("v", (Point(28, 24),)))
    assert why is not None and why.code == "ends_on_model"


def test_no_climbing_above_level_0() -> None:
    """hh3 Vehicles, No climbing: a vehicle never goes up to a level above the ground."""
    deck = wall("deck", 24, 20, 26, 28, level=1)
    why = rejection(_state(terrain=(deck,)), "a", Move("v", (Point(29, 24),)))
    assert why is not None and why.code == "no_climbing"


def test_never_through_another_vehicle_or_impassable_terrain() -> None:
    """hh3 Vehicles, Driving through other units: never through another vehicle (friend or foe) or
    terrain."""
    blocker = tank("other", "a", 26, 24, 90, length=3, width=2)
    why = rejection(_state(blocker), "a", Move("v", (Point(30, 24),)))
    assert why is not None and why.code == "through_vehicle"
    rock = wall("rock", 24, 20, 25, 28, "impassable")
    why = rejection(_state(terrain=(rock,)), "a", Move("v", (Point(30, 24),)))
    assert why is not None and why.code == "through_terrain"


def test_driving_through_enemy_infantry_d6_s6_hits() -> None:
    """hh3 Vehicles, Driving through other units [ext]: each enemy unit driven through takes D6 S6
    AP- hits after the move; friendly units driven through take none."""
    enemy = squad("e", "b", [(25, 24), (25, 25.5)], sv=3)
    friend = squad("f", "a", [(26, 22.5)])
    # D6 = 2 hits; hit 1: wound 6 (2+), save 1 (3+) fails -> casualty; hit 2: wound 1 fails.
    state = act(_state(enemy, friend), "a", Move("v", (Point(30, 24),), heading=0), [2, 6])
    moved = state.seq
    state = take_proposal(state, DECISION_ALLOCATE, [1, 1])  # hh3 core, Wound Allocation
    assert rolls_since(state, moved)[0] == ("hits from being driven through", 2)
    alive = [m.id for m in state.units["e"].models.values() if m.alive]
    assert len(alive) == 1
    assert "drives through e" in log_text(state) and "drives through f" not in log_text(state)


def test_dangerous_terrain_costs_1_damage_without_saves() -> None:
    """hh3 Vehicles, Dangerous terrain: a failed test (a 1) = 1 point of Damage, no save or
    mitigation (the 4+ invulnerable save and 5+ mitigation are not rolled); a 2 passes."""
    swamp = wall("swamp", 24, 20, 26, 28, "dangerous")
    for die, hp in ((1, 2), (2, 3)):
        v = tank("v", "a", 20, 24, 0, m=10, inv=4, keywords=("mitigation:5",))
        state = act(make([v], terrain=[swamp]), "a", Move("v", (Point(28, 24),)), [die])
        assert state.units["v"].hp == hp
        assert rolls(state) == [("dangerous terrain", die)]


def test_vehicles_are_never_locked_infantry_next_to_one_may_move() -> None:
    """hh3 Vehicles, Combat: a vehicle never locks nor is locked: both may move away."""
    troops = squad("s", "b", [(23.13, 24)])
    state = _state(troops)
    assert rejection(state, "a", Move("v", (Point(14, 24),))) is None
    from msgspec.structs import replace

    state = replace(state, active="b")
    assert rejection(state, "b", Move("s", (Point(28, 24),))) is None


def test_infantry_rush_is_m_plus_i_and_keeps_coherency() -> None:
    """hh3 core Rush: M + I (7 + 4); units end in coherency (2 in)."""
    troops = squad("s", "a", [(10, 10), (11.5, 10)], m=7, i=4)
    state = make([troops])
    assert rejection(state, "a", Move("s", (Point(21, 10),), kind="rush")) is None
    why = rejection(state, "a", Move("s", (Point(21.5, 10),), kind="rush"))
    assert why is not None and why.code == "too_far"
    apart = Move("s", positions={"s-1": Point(10, 14), "s-2": Point(16, 14)})
    why = rejection(state, "a", apart)
    assert why is not None and why.code == "not_coherent"
