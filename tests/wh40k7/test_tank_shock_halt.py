"""Where a 40k7 Tank Shock or Ram stops short, foreseen without a die (docs/table.md, the drag
preview; client-protocol/SPEC.md 4.2, the check's ``stops_*`` facts).

40k7 Vehicles, Tanks: Tank Shock - the Tank moves straight ahead and stops 1" short of friendly
models, impassable terrain and the board edge, of enemy vehicles, and of enemies locked in
combat ("a Tank Shock cannot be attempted against enemies that are locked in combat":
LOCKED_UNITS_STOP_THE_TANK [decided]); Ramming - a Ram is a Tank Shock that collides with the
first enemy vehicle (a Walker locked in combat is not rammed: the rammer stops 1" short of it).

``tankshock.halt`` is what a check reports; applying the same move ends the Tank exactly there,
and its log names the same reason: one computation (``_events``), never two that could disagree.
A Rhino's hull is 4.5" long: its front is 2.25" ahead of its centre.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hulldown.match.actions import Move
from hulldown.match.state import MatchState, Point
from hulldown.rules.measure import action_facts
from hulldown.rules.wh40k7.tankshock import halt

from .builders import act, infantry, make_state, rhino, ruin, vehicle

# A stop-short case: the state, the declared move, where it stops (in along) and what stops it.
Scenario = Callable[[], tuple[MatchState, Move, float, str]]

R = 25.0 / 25.4 / 2  # a 25 mm base's radius in inches


def _friendly() -> tuple[MatchState, Move, float, str]:
    """A friendly squad's base edge at x = 17.25: the front (12.25) stops at 16.25 -> 4 in."""
    tank = rhino("t", "a", 10, 24)
    friends = infantry("f", "a", [(17.25 + R, 24)], name="Tactical Squad")
    foes = infantry("e", "b", [(24, 40)], name="Boyz")
    return (
        make_state(tank, friends, foes),
        Move("t", (Point(22, 24),), kind="tank_shock"),
        4.0,
        ("Tactical Squad, a friendly unit"),
    )


def _locked() -> tuple[MatchState, Move, float, str]:
    """Boyz locked with the Tank's friends (e-1 in base contact with f-0, off the path); e-0's
    base edge at x = 18 - R."""
    tank = rhino("t", "a", 10, 24)
    locked = infantry("e", "b", [(18, 24), (18, 26.5)], name="Boyz")
    friends = infantry("f", "a", [(18, 26.5 + 2 * R)], name="Tactical Squad")
    move = Move("t", (Point(22, 24),), kind="tank_shock")
    return make_state(tank, locked, friends), move, 18 - R - 1 - 12.25, "Boyz, locked in combat"


def _enemy_vehicle() -> tuple[MatchState, Move, float, str]:
    """A Tank Shock stops 1" short of an enemy vehicle (its rear at x = 17.75)."""
    tank = rhino("t", "a", 10, 24)
    other = rhino("r", "b", 20, 24, name="Razorback")
    move = Move("t", (Point(22, 24),), kind="tank_shock")
    return make_state(tank, other), move, 17.75 - 1 - 12.25, "Razorback, a vehicle"


def _locked_walker_rammed() -> tuple[MatchState, Move, float, str]:
    """A Walker locked in combat is not rammed: the Land Raider stops 1" short of its rear."""
    lr = vehicle("lr", "a", 10, 24, armour=(14, 14, 14), keywords=("tank",), length=4.5)
    walker = vehicle(
        "w", "b", 20, 24, name="Dreadnought", armour=(12, 12, 10), keywords=("walker",), kind="walker"
    )
    friends = infantry("f", "a", [(20, 24 + 1.75 + R)])
    move = Move("lr", (Point(22, 24),), kind="ram")
    return make_state(lr, walker, friends), move, 17.75 - 1 - 12.25, "Dreadnought, a vehicle locked in combat"


def _impassable() -> tuple[MatchState, Move, float, str]:
    """Impassable terrain from x = 18: the front stops at 17 -> 4.75 in."""
    rock = ruin("rock", 18, 20, 20, 28, kinds=("impassable",))
    state = make_state(rhino("t", "a", 10, 24), terrain=[rock])
    return state, Move("t", (Point(22, 24),), kind="tank_shock"), 18 - 1 - 12.25, "impassable terrain"


def _edge() -> tuple[MatchState, Move, float, str]:
    """The table edge at x = 72: the front (62.25) stops at 71 -> 8.75 in of the 10 declared."""
    state = make_state(rhino("t", "a", 60, 24))
    return state, Move("t", (Point(70, 24),), kind="tank_shock"), 72 - 1 - 62.25, "the table edge"


@pytest.mark.parametrize(
    "scenario", [_friendly, _locked, _enemy_vehicle, _locked_walker_rammed, _impassable, _edge]
)
def test_the_halt_a_check_foresees_is_where_the_move_ends(scenario: Scenario) -> None:
    state, move, after, because = scenario()
    found = halt(state, move)
    assert found is not None
    assert found.distance == pytest.approx(after, abs=1e-6)
    assert found.because == because
    start = state.units[move.unit].models[f"{move.unit}-m"].pos
    assert found.point == pytest.approx((start.x + after, start.y), abs=1e-6)
    # The check's facts carry it, rounded to 0.01 in.
    facts = action_facts(state, move)
    assert facts.stops_after == pytest.approx(after, abs=0.01)
    assert facts.stops_at == pytest.approx(found.point, abs=0.01)
    assert facts.stops_because == because
    # Acting ends the Tank there, for the reason the log gives.
    res = act(state, "a", move, [])
    pos = res.state.units[move.unit].models[f"{move.unit}-m"].pos
    assert (pos.x, pos.y) == pytest.approx(found.point, abs=1e-9)
    assert any(f'it stops 1" short of {because}.' in t for t in res.texts), res.texts


def test_nothing_foreseen_when_nothing_stops_the_tank_short_or_the_dice_decide() -> None:
    """No halt: a clear Tank Shock; a Ram into an enemy vehicle (the rammer halts unless the
    rammed vehicle Explodes!: dice); a Tank Shock whose enemy squad may stand for a Death or
    Glory (dice); an ordinary move (no Tank Shock at all)."""
    tank = rhino("t", "a", 10, 24)
    clear = make_state(tank)
    assert halt(clear, Move("t", (Point(22, 24),), kind="tank_shock")) is None
    facts = action_facts(clear, Move("t", (Point(22, 24),), kind="tank_shock"))
    assert (facts.stops_at, facts.stops_after, facts.stops_because) == (None, None, None)
    rammed = make_state(tank, rhino("r", "b", 20, 24))
    assert halt(rammed, Move("t", (Point(22, 24),), kind="ram")) is None
    squad = make_state(tank, infantry("e", "b", [(18, 24)]))
    assert halt(squad, Move("t", (Point(22, 24),), kind="tank_shock")) is None
    friends = make_state(tank, infantry("f", "a", [(17.25 + R, 24)]))
    assert halt(friends, Move("t", (Point(22, 24),))) is None
    assert action_facts(friends, Move("t", (Point(22, 24),))).stops_at is None
