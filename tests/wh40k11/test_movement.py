"""40k11 movement: 17.01 (MONSTER/VEHICLE models move through models on normal and Advance moves,
never through other MONSTER/VEHICLE models), the two-step Advance, Fall Back, Engagement Range."""

from __future__ import annotations

from hulldown.match.actions import Charge, EndPhase, Fire, Move, Shoot
from hulldown.match.state import HullSize, MatchState, Model, Point, Profile, Terrain

from .builders import check, infantry, multi_model_unit, state, step, vehicle, weapon


def lane(*extra: object) -> MatchState:
    """A tank (M14) at (10, 24) facing +x; an enemy infantry model on its lane at (17, 24)."""
    tank = vehicle("tank", "a", 10, 24, m=14)
    squad = infantry("squad", "b", [(17, 24)])
    return state(tank, squad, *extra)  # type: ignore[arg-type]


def test_17_01_vehicle_moves_through_enemy_infantry() -> None:
    """40k11 17.01: a VEHICLE on a normal move may drive through enemy models (and past them within
    Engagement Range), ending clear of them."""
    s = lane()
    after = step(s, Move(unit="tank", path=(Point(24, 24),)))
    assert after.units["tank"].models["tank-m"].pos == Point(24, 24)
    assert after.units["tank"].flag("moved")


def test_17_01_vehicle_moves_through_friendly_infantry() -> None:
    """40k11 17.01: friendly models too."""
    tank = vehicle("tank", "a", 10, 24, m=14)
    friends = infantry("friends", "a", [(17, 24), (17, 25.5)])
    after = step(state(tank, friends), Move(unit="tank", path=(Point(24, 24),)))
    assert after.units["tank"].models["tank-m"].pos == Point(24, 24)


def test_17_01_monster_moves_through_infantry_too() -> None:
    """40k11 17.01 applies to MONSTER models as well."""
    beast = vehicle("beast", "a", 10, 24, m=14, keywords=("monster",), base_mm=100)
    s = state(beast, infantry("squad", "b", [(17, 24)]))
    assert check(s, Move(unit="beast", path=(Point(24, 24),))) is None


def test_17_01_never_through_another_vehicle() -> None:
    """40k11 17.01: not through other MONSTER/VEHICLE models, friendly or enemy; the rejection
    names the rule and the model in the way."""
    for side in ("b", "a"):
        blocker = vehicle("wall", side, 17.5, 24, heading=90, length=4, width=2)
        s = state(vehicle("tank", "a", 10, 24, m=14), blocker)
        problem = check(s, Move(unit="tank", path=(Point(24, 24),)))
        assert problem is not None
        assert problem.code == "through_monster_vehicle"
        assert problem.rule == "40k11 17.01 Moving Monsters and Vehicles"
        assert problem.values["obstacle"] == "wall-m"
    # Driving round the friendly vehicle is fine.
    assert check(s, Move(unit="tank", path=(Point(13, 28.5), Point(21, 28.5)))) is None


def _squadron() -> MatchState:
    """One VEHICLE unit of two 4 x 3 hulls facing +x: sq-1 at (18, 24), sq-2 at (24, 24)."""
    hulls = {
        f"sq-{k}": Model(id=f"sq-{k}", pos=Point(x, 24), heading=0, hull=HullSize(4, 3), wounds=10)
        for k, x in ((1, 18), (2, 24))
    }
    squadron = multi_model_unit(
        "sq",
        "a",
        hulls,
        kind="vehicle",
        profile=Profile(m=12, t=10, w=10),
        weapons={},
        keywords=("vehicle", "frame"),
    )
    return state(squadron)


def test_17_01_never_through_a_vehicle_of_its_own_unit() -> None:
    """40k11 17.01 ("excluding other MONSTER/VEHICLE models"), inside one unit too: sq-1 may not
    drive through sq-2 standing still, nor the two swap places head-on (both were accepted). The
    models move one at a time (OWN_UNIT_MODELS_MOVE_ONE_AT_A_TIME), so a column advancing, or
    sq-2 pulling aside first, is a legal move."""
    s = _squadron()
    for positions in ({"sq-1": Point(30, 24)}, {"sq-1": Point(24, 24), "sq-2": Point(18, 24)}):
        problem = check(s, Move(unit="sq", positions=positions))
        assert problem is not None and problem.code == "through_monster_vehicle", positions
        assert problem.rule == "40k11 17.01 Moving Monsters and Vehicles"
        assert (problem.values["model"], problem.values["obstacle"]) == ("sq-1", "sq-2")
    assert check(s, Move(unit="sq", positions={"sq-1": Point(26, 24), "sq-2": Point(32, 24)})) is None
    assert check(s, Move(unit="sq", positions={"sq-1": Point(30, 24), "sq-2": Point(24, 34)})) is None
    # The unit moving as one along a dog-leg: sq-2 moves first, then sq-1 follows: legal.
    assert check(s, Move(unit="sq", path=(Point(18, 28), Point(26, 28)))) is None


def test_17_01_no_permission_for_infantry() -> None:
    """40k11 17.01 [decided baseline]: other models move through no models, not even friendly ones."""
    squad = infantry("squad", "a", [(10, 24)])
    friends = infantry("friends", "a", [(13, 24)])
    s = state(squad, friends)
    problem = check(s, Move(unit="squad", path=(Point(16, 24),)))
    assert problem is not None and problem.code == "move_through_model"
    assert "only MONSTER/VEHICLE" in problem.message
    # Going round is fine.
    assert check(s, Move(unit="squad", path=(Point(11, 25.4), Point(15, 25.4)))) is None


def test_17_01_infantry_never_through_a_model_of_its_own_unit() -> None:
    """40k11 17.01 [decided baseline, OWN_UNIT_OTHERS_MOVE_THROUGH_EACH_OTHER]: a model that is not
    a MONSTER/VEHICLE moves through no model of its own unit either. squad-1 (32 mm) at (10, 24)
    may not walk through squad-2 at (13, 24) standing still to (16, 24), nor may the two swap
    places head-on (both were accepted: only MONSTER/VEHICLE models of one unit were checked
    against each other). The models move one at a time, so the unit advancing in line, or
    squad-2 stepping aside first, is legal."""
    s = state(infantry("squad", "a", [(10, 24), (13, 24)]))
    for positions in (
        {"squad-1": Point(16, 24)},
        {"squad-1": Point(13, 24), "squad-2": Point(10, 24)},
    ):
        problem = check(s, Move(unit="squad", positions=positions))
        assert problem is not None and problem.code == "move_through_model", positions
        assert problem.rule == "40k11 17.01 Moving Monsters and Vehicles"
        assert problem.values["model"] in ("squad-1", "squad-2")
        assert "of its own unit" in problem.message
    assert (
        check(s, Move(unit="squad", positions={"squad-1": Point(16, 24), "squad-2": Point(13, 30)})) is None
    )
    assert check(s, Move(unit="squad", path=(Point(14, 24),))) is None
    assert check(s, Move(unit="squad", path=(Point(10, 26), Point(13, 26)))) is None


def test_17_01_fall_back_gives_no_permission() -> None:
    """40k11 17.01 [decided]: a Fall Back move may not go through models, even for a VEHICLE."""
    tank = vehicle("tank", "a", 10, 24)
    enemy = infantry("enemy", "b", [(14, 24)])  # 0.37" from the front of the hull: engaged
    friends = infantry("friends", "a", [(5, 24)])  # right behind the tank
    s = state(tank, enemy, friends)
    problem = check(s, Move(unit="tank", kind="fall_back", path=(Point(4, 24),)))
    assert problem is not None and problem.code == "move_through_model"
    assert "fall back move gives no permission" in problem.message
    after = step(s, Move(unit="tank", kind="fall_back", path=(Point(10, 33),)))
    assert after.units["tank"].flag("fell_back")
    # 40k11 core [ext]: a unit that Fell Back cannot shoot (or charge) this turn.
    after = step(after, EndPhase())
    problem = check(after, Shoot(unit="tank", fire=(Fire(weapon="x", target="enemy"),)))
    assert problem is not None and problem.code == "fell_back"


def test_engaged_unit_may_only_fall_back() -> None:
    """40k11 core, Engagement Range: an engaged unit cannot make a normal move or Advance."""
    tank = vehicle("tank", "a", 10, 24)
    enemy = infantry("enemy", "b", [(14, 24)])
    s = state(tank, enemy)
    for action in (Move(unit="tank", path=(Point(10, 30),)), Move(unit="tank", kind="advance")):
        problem = check(s, action)
        assert problem is not None and problem.code == "engaged_must_fall_back"


def test_cannot_end_within_engagement_range() -> None:
    """40k11 core [ext]: a normal move may not end within Engagement Range (2") of an enemy model."""
    s = lane()
    problem = check(s, Move(unit="tank", path=(Point(20, 24),)))  # rear of hull at 17: on the model
    assert problem is not None and problem.code == "end_on_model"
    problem = check(s, Move(unit="tank", path=(Point(22, 24),)))  # rear at 19: 1.37" from the model
    assert problem is not None and problem.code == "ends_in_engagement"
    assert "1.37 in" in problem.message


def test_infantry_may_not_pass_within_engagement_range() -> None:
    """40k11 core [ext]: non-MONSTER/VEHICLE models may not pass within Engagement Range."""
    squad = infantry("squad", "a", [(10, 20)], m=12)
    enemy = infantry("enemy", "b", [(16, 22.5)])
    problem = check(state(squad, enemy), Move(unit="squad", path=(Point(21, 20),)))
    assert problem is not None and problem.code == "passes_engagement"


def test_advance_is_two_steps() -> None:
    """40k11 core, Advance [decided two-step]: the declaration rolls the D6 and records it; the move
    is then validated against M + roll; the unit cannot shoot or charge afterwards."""
    tank = vehicle("tank", "a", 10, 24, m=10, weapons=(weapon("gun", "tank-m"),))
    squad = infantry("squad", "b", [(17, 24)])
    s = state(tank, squad)
    problem = check(s, Move(unit="tank", kind="advance", path=(Point(24, 24),)))
    assert problem is not None and problem.code == "advance_not_declared"
    problem = check(s, Move(unit="tank", kind="advance", advance_roll=6))
    assert problem is not None and problem.code == "advance_roll_supplied"
    s = step(s, Move(unit="tank", kind="advance"), [3])
    assert s.units["tank"].flag("advanced") and "advance_roll=3" in s.units["tank"].turn_flags
    problem = check(s, Move(unit="tank", kind="advance", path=(Point(24, 24),)))  # 14 > 10 + 3
    assert problem is not None and problem.code == "too_far"
    assert problem.values == {"distance": 14.0, "limit": 13.0}
    again = check(s, Move(unit="tank", kind="advance"))
    assert again is not None and again.code == "already_advanced"
    s = step(s, Move(unit="tank", kind="advance", path=(Point(23, 24),)))  # 13", through the squad
    assert s.units["tank"].models["tank-m"].pos == Point(23, 24)
    s = step(s, EndPhase())  # movement -> shooting
    problem = check(s, Shoot(unit="tank", fire=(Fire(weapon="gun", target="squad"),)))
    assert problem is not None and problem.code == "advanced"
    s = step(s, EndPhase())
    problem = check(s, Charge(unit="tank", target="squad"))
    assert problem is not None and problem.code == "advanced"


def test_advance_declaration_state_resets_next_turn() -> None:
    """The Advance flags are per turn: they are gone when the owner's next player turn starts."""
    s = state(infantry("squad", "a", [(10, 10)]), infantry("foe", "b", [(60, 40)]))
    s = step(s, Move(unit="squad", kind="advance"), [5])
    for _ in range(4 + 5):  # the rest of a's turn and all of b's
        s = step(s, EndPhase())
    assert s.active == "a" and s.phase == "command"
    assert s.units["squad"].turn_flags == ()


def test_impassable_terrain() -> None:
    """40k11 core [ext]: models may not cross impassable terrain."""
    wall = Terrain(
        id="wall", points=(Point(14, 20), Point(15, 20), Point(15, 28), Point(14, 28)), kinds=("impassable",)
    )
    s = state(infantry("squad", "a", [(10, 24)]), terrain=(wall,))
    problem = check(s, Move(unit="squad", path=(Point(16, 24),)))
    assert problem is not None and problem.code == "impassable"
    assert check(s, Move(unit="squad", path=(Point(13.3, 24),))) is None


def test_battlefield_edge() -> None:
    """40k11 core [ext]: no model may end off the battlefield (the whole base must be on it)."""
    s = state(infantry("squad", "a", [(10, 45)]))
    assert check(s, Move(unit="squad", path=(Point(10, 47.3),))) is None
    problem = check(s, Move(unit="squad", path=(Point(10, 47.5),)))
    assert problem is not None and problem.code == "off_table"
