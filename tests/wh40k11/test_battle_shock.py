"""40k11 core rules, Battle-shock: the Command phase tests of Below Half-strength units, the
Battle-shocked status and its effects (docs/rules-notes.md, 40k11, Battle-shock), fixed dice."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import EndPhase, Move
from hulldown.match.state import MatchState, Point, Side, Unit
from hulldown.match.turns import end_player_turn
from hulldown.missions.control import control
from hulldown.missions.model import ObjectiveMarker
from hulldown.rules.phases import PHASES_40K11

from .builders import infantry, rolls, state, step, vehicle


def _lose(unit: Unit, *mids: str) -> Unit:
    """The unit with these models dead (they stay in ``unit.models``, alive False)."""
    models = dict(unit.models)
    for mid in mids:
        models[mid] = replace(models[mid], alive=False, wounds=0)
    return replace(unit, models=models)


def boyz(dead: int, side: Side = "a", x: float = 10.0) -> Unit:
    """Ten Boyz (Ld 7+), ``dead`` of them dead."""
    unit = infantry("boyz", side, [(x + 2 * i, 10.0) for i in range(10)], ld=7)
    unit = replace(unit, name="Boyz")
    return _lose(unit, *[f"boyz-{i}" for i in range(1, dead + 1)])


def command(*units: Unit) -> MatchState:
    return replace(state(*units, phase="command"), player_turn=3)


def test_below_half_strength_fails_and_is_battle_shocked() -> None:
    """40k11 core rules, Battle-shock: 6 of 10 dead (4 left, fewer than half): 2D6 = 2 + 3 = 5
    against Ld 7+ fails; the unit is Battle-shocked until its player's next Command phase."""
    after = step(command(boyz(6)), EndPhase(), [2, 3])
    assert after.phase == "movement"
    assert after.units["boyz"].statuses == {"battle_shocked": 4}  # ends with player turn 4
    assert [(p, v) for p, v, _ in rolls(after)] == [("battle-shock test", 2), ("battle-shock test", 3)]
    texts = [e.text for e in after.log]
    assert "Boyz: Battle-shock test 2D6 = 5 against Ld 7+: failed, Battle-shocked." in texts


def test_below_half_strength_passes() -> None:
    """40k11 core rules, Battle-shock: 2D6 = 3 + 4 = 7 against Ld 7+ passes: no status."""
    after = step(command(boyz(6)), EndPhase(), [3, 4])
    assert "battle_shocked" not in after.units["boyz"].statuses
    assert "Boyz: Battle-shock test 2D6 = 7 against Ld 7+: passed." in [e.text for e in after.log]


def test_at_or_above_half_strength_takes_no_test() -> None:
    """40k11 core rules, Battle-shock: 5 of 10 left is not Below Half-strength (no dice used);
    a one-model unit tests only below half its starting Wounds (6 of 12 left: no test; 5: test);
    the other side's units do not test in this player's Command phase."""
    tank = vehicle("tank", "a", 40, 30, w=12)
    tank = replace(tank, models={k: replace(m, wounds=6) for k, m in tank.models.items()})
    enemy = boyz(9, side="b", x=10.0)
    after = step(command(boyz(5), tank, replace(enemy, id="orks")), EndPhase(), [])
    assert all("battle_shocked" not in u.statuses for u in after.units.values())
    hurt = replace(tank, models={k: replace(m, wounds=5) for k, m in tank.models.items()})
    after = step(command(hurt), EndPhase(), [6, 6])
    assert "battle_shocked" not in after.units["tank"].statuses
    assert [p for p, _, _ in rolls(after)] == ["battle-shock test", "battle-shock test"]


def test_status_clears_at_the_next_command_phase() -> None:
    """40k11 core rules, Battle-shock: "until the start of your next Command phase" - it lasts
    through the opponent's player turn and is gone when its player's next Command phase begins,
    before that phase's tests."""
    after = step(command(boyz(6)), EndPhase(), [1, 1])
    assert "battle_shocked" in after.units["boyz"].statuses
    own_end = end_player_turn(replace(after, phase="fight"), PHASES_40K11)  # player turn 4, side b
    assert own_end.active == "b" and "battle_shocked" in own_end.units["boyz"].statuses
    back = end_player_turn(replace(own_end, phase="fight"), PHASES_40K11)  # player turn 5, side a
    assert back.active == "a" and back.phase == "command"
    assert "battle_shocked" not in back.units["boyz"].statuses
    # Still Below Half-strength: a new test as the phase ends (passed: 5 + 5).
    again = step(back, EndPhase(), [5, 5])
    assert "battle_shocked" not in again.units["boyz"].statuses


def test_battle_shocked_unit_has_objective_control_0() -> None:
    """40k11 core rules, Battle-shock and Objective Control: after a failed test the unit's
    models count 0, so the enemy's lone model holds the marker."""
    marker = ObjectiveMarker("o1", (14, 12), 3)
    mine = boyz(6)  # boyz-7 .. boyz-10 alive at x 22 .. 28: move them next to the marker
    mine = replace(
        mine,
        models={
            k: replace(m, pos=Point(12 + (int(k.split("-")[1]) - 7) * 1.5, 10))
            for k, m in mine.models.items()
        },
    )
    theirs = infantry("guard", "b", [(16, 14)])
    s = command(mine, theirs)
    assert control(s, (marker,))["o1"].holder == "a"
    after = step(s, EndPhase(), [1, 2])
    assert control(after, (marker,))["o1"].holder == "b"


def test_battle_shocked_unit_falling_back_takes_desperate_escape_tests() -> None:
    """40k11 core rules, Battle-shock, Desperate Escape: a Battle-shocked unit that Falls Back
    rolls one D6 per model before moving; each 1-2 destroys that model, which does not move."""
    squad = infantry("squad", "a", [(10, 24), (10, 26), (10, 28)])
    squad = replace(squad, statuses={"battle_shocked": 2})
    enemy = infantry("enemy", "b", [(12.5, 24)])
    s = state(squad, enemy)
    after = step(s, Move(unit="squad", kind="fall_back", path=(Point(4, 24),)), [1, 3, 6])
    models = after.units["squad"].models
    assert not models["squad-1"].alive and models["squad-1"].pos == Point(10, 24)
    assert models["squad-2"].alive and models["squad-2"].pos == Point(4, 26)
    assert models["squad-3"].alive
    assert [(p, o) for p, _, o in rolls(after)] == [
        ("desperate escape test", "destroyed"),
        ("desperate escape test", "escapes"),
        ("desperate escape test", "escapes"),
    ]
    # Not Battle-shocked: no test.
    calm = step(
        state(replace(squad, statuses={}), enemy), Move(unit="squad", kind="fall_back", path=(Point(4, 24),))
    )
    assert all(m.alive for m in calm.units["squad"].models.values())
