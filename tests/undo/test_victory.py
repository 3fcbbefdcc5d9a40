"""End of match (docs/architecture.md section 12): concession and the simplest victory conditions -
one side has no units left, or the turn limit - evaluated after every game action."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Concede
from hulldown.match.scenario import CreateMatch
from hulldown.match.state import Options
from hulldown.match.victory import ANNIHILATION, TURN_LIMIT
from tests.scenarios import duel, rhino

from .driver import END, Driver, predator_move


def _with(
    options: Options | None = None, extra_b: bool = False, rhino_destroyed: bool = False
) -> CreateMatch:
    request = duel()
    units = list(request.scenario.units)
    if rhino_destroyed:
        units = [replace(u, destroyed=True, hp=0) if u.id == "rhino-1" else u for u in units]
    if extra_b:
        units.append(rhino("rhino-2", "b", 60, 40, 180))
    return replace(
        request, scenario=replace(request.scenario, units=tuple(units)), options=options or Options()
    )


def test_a_side_with_no_unit_left_loses_after_the_next_action() -> None:
    match = Driver(_with(rhino_destroyed=True))
    assert not match.state.ended  # the check runs after game actions, not at creation
    match.ok("a", predator_move())
    state = match.state
    assert state.ended and state.winner == "a" and state.end_reason == ANNIHILATION
    assert match.log_texts()[-1] == "Side b has no unit left: side a wins."
    assert match.rejected("a", END).code == "match_ended"


def test_turn_limit_ends_the_match_and_more_units_left_wins() -> None:
    match = Driver(_with(Options(turn_limit=1), extra_b=True))
    for side in ("a", "b"):
        for _ in range(3):
            assert not match.state.ended
            match.ok(side, END)  # type: ignore[arg-type]
    state = match.state
    assert state.turn == 2 and state.ended and state.end_reason == TURN_LIMIT
    assert state.winner == "b"
    assert match.log_texts()[-1] == "Turn limit (1) reached, 1 units left to 2: side b wins."


def test_turn_limit_with_equal_units_is_a_draw() -> None:
    match = Driver(_with(Options(turn_limit=1)))
    for side in ("a", "b"):
        for _ in range(3):
            match.ok(side, END)  # type: ignore[arg-type]
    assert match.state.ended and match.state.winner is None and match.state.end_reason == TURN_LIMIT


def test_no_turn_limit_when_zero() -> None:
    match = Driver(_with(Options(turn_limit=0)))
    for _ in range(4):
        for side in ("a", "b"):
            for _ in range(3):
                match.ok(side, END)  # type: ignore[arg-type]
    assert match.state.turn == 5 and not match.state.ended


def test_concession() -> None:
    match = Driver()
    match.ok("a", Concede())
    assert match.state.ended and match.state.winner == "b" and match.state.end_reason == "concession"
