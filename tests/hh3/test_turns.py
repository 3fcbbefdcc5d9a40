"""hh3 turn sequence (hh3 core, The Turn): Start, Movement, Shooting, Assault, End (with its
Statuses sub-phase), then the other player's turn; actions only in their phase."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Abandon, Action, Charge, Embark, EndPhase, Fire, Move, Shoot
from hulldown.match.state import Point

from .builders import act, make, rejection, rolls, squad, tank, transport, weapon


def test_phase_order_and_turns() -> None:
    """hh3 core: the five phases in order; after side b's End phase, turn 2 begins with a."""
    state = make([tank("v", "a", 20, 24), tank("e", "b", 50, 24)], phase="start")
    seen = []
    for _ in range(10):
        seen.append((state.active, state.phase))
        state = act(state, state.active, EndPhase())
    phases = ["start", "movement", "shooting", "assault", "end"]
    assert seen == [("a", p) for p in phases] + [("b", p) for p in phases]
    assert (state.turn, state.active, state.phase) == (2, "a", "start")


def test_repair_tests_only_when_the_end_phase_ends() -> None:
    """hh3 Vehicles, Repair Test: Repair Tests belong to the Statuses sub-phase of the End phase: ending the
    Assault phase rolls nothing; ending the End phase rolls the test."""
    v = replace(tank("v", "a", 20, 24), statuses={"stunned": 0})
    state = make([v, tank("e", "b", 50, 24)], phase="assault")
    state = act(state, "a", EndPhase())
    assert state.phase == "end" and rolls(state) == []
    state = act(state, "a", EndPhase(), [2])
    assert rolls(state) == [("Repair Test (v)", 2)]


def test_actions_outside_their_phase_are_refused() -> None:
    """hh3 core: moves, embarking in the Movement phase; shooting in the Shooting phase; charges
    in the Assault phase."""
    gun = weapon("gun", strength=9)
    units = [
        tank("v", "a", 20, 24, weapons=[gun]),
        transport("rhino", "a", 20, 34),
        squad("s", "a", [(20, 36.2)]),
        tank("e", "b", 40, 24, 180),
    ]
    cases: dict[str, list[Action]] = {
        "shooting": [Move("v", (Point(22, 24),)), Embark("s", "rhino"), Charge("s", "e")],
        "movement": [Shoot("v", (Fire("gun", "e"),))],
        "assault": [Shoot("v", (Fire("gun", "e"),)), Move("v", (Point(22, 24),))],
    }
    for phase, actions in cases.items():
        state = make(units, phase=phase)
        for action in actions:
            why = rejection(state, "a", action)
            assert why is not None and why.code == "wrong_phase", (phase, action, why)


def test_only_the_active_side_acts_and_abandon_is_not_hh3() -> None:
    """hh3 core: the active player acts; hh3 has no squadrons to abandon a vehicle from."""
    state = make([tank("v", "a", 20, 24), tank("e", "b", 50, 24)])
    why = rejection(state, "b", Move("e", (Point(48, 24),)))
    assert why is not None and why.code == "not_your_turn"
    why = rejection(state, "a", Abandon("v", "v-m"))
    assert why is not None and why.code == "unsupported_action"
