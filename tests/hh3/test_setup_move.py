"""hh3 core, Charge Procedure, Make Set-up Move: before any Volley Attacks a charge that is not
Disordered moves the chargers towards the charged unit by the Initiative + Movement table; the
charge roll (2D6, the highest counts) is then compared with the gap left."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from hulldown.match.actions import Charge
from hulldown.match.state import MatchState
from hulldown.rules.hh3 import geom
from hulldown.rules.hh3.core import CONTACT
from hulldown.rules.hh3.setupmove import setup_distance_for

from .builders import act, charge, log_text, make, rolls, squad

# 32 mm bases: 1.26 in across, so centres 1.26 in apart touch.
BASES = 32.0 / 25.4


def _state(gap: float, i: int = 4, m: float = 7.0, suppressed: bool = False) -> MatchState:
    """A one-model squad (I4, M7: set-up move 3 in) ``gap`` inches from an unarmed squad."""
    chargers = squad("s", "a", [(10, 24)], i=i, m=m)
    if suppressed:
        chargers = replace(chargers, statuses={"suppressed": 0})
    target = squad("t", "b", [(10 + BASES + gap, 24)])
    return make([chargers, target], phase="assault")


@pytest.mark.parametrize(
    ("total", "move"),
    [
        (2, 1.0),
        (6, 1.0),
        (7, 2.0),
        (9, 2.0),
        (10, 3.0),
        (11, 3.0),
        (12, 4.0),
        (13, 4.0),
        (14, 5.0),
        (19, 5.0),
        (20, 6.0),
        (25, 6.0),
    ],
)
def test_setup_distance_table(total: int, move: float) -> None:
    """hh3 core, Charge Procedure, Make Set-up Move: I + M 1-6: 1 in, 7-9: 2, 10-11: 3, 12-13: 4,
    14-19: 5, 20 or more: 6."""
    assert setup_distance_for(total) == move


def test_a_charge_from_8_5in_succeeds_after_the_setup_move() -> None:
    """hh3 core, Charge Procedure, Make Set-up Move, then Make Charge Move. Worked example: the
    marine (I4 + M7 = 11: 3 in) stands 8.5 in from the target; the set-up move leaves 5.5 in; the
    charge roll 2 and 6 counts 6 >= 5.5: the charge succeeds (before the set-up move no roll of
    the highest of 2D6 could cover 8.5 in)."""
    state = charge(_state(8.5), "a", Charge("s", "t"), [2, 6])
    assert [p for p, _ in rolls(state, state.seq - 1)] == ["charge roll", "charge roll"]
    unit = state.units["s"]
    assert unit.flag("charge_ok")
    assert geom.unit_distance(unit, state.units["t"]) <= CONTACT
    text = log_text(state)
    assert (
        "s makes its Set-up Move (3 in for Initiative + Movement 11): t was 8.5 in away, now 5.5 in." in text
    )
    assert "Charge roll 6 in against the 5.5 in left" in text


def test_a_charge_from_8_5in_fails_when_the_roll_is_short_of_the_gap_left() -> None:
    """hh3 core, Charge Procedure, Make Charge Move: after the 3 in set-up move 5.5 in are left; the
    charge roll 5 and 3 counts 5 < 5.5: the charge fails and the marine stays where its set-up
    move put it. Cool check 3 + 3 = 6 <= Cool 8: passed."""
    state = act(_state(8.5), "a", Charge("s", "t"), [5, 3, 3, 3])
    unit = state.units["s"]
    assert not unit.flag("charge_ok") and unit.statuses == {}
    assert unit.models["s-1"].pos.x == pytest.approx(13.0)
    assert geom.unit_distance(unit, state.units["t"]) == pytest.approx(5.5)
    assert "t is still 5.5 in away, the charge fails" in log_text(state)


def test_a_setup_move_into_base_contact_completes_the_charge_without_a_roll() -> None:
    """hh3 core, Charge Procedure, Make Set-up Move: a charging model in base contact after the
    set-up move completes the charge - no Volley Attacks, no charge roll (no dice at all)."""
    state = act(_state(2.5), "a", Charge("s", "t"))
    assert rolls(state) == []
    unit = state.units["s"]
    assert unit.flag("charge_ok")
    assert geom.unit_distance(unit, state.units["t"]) <= CONTACT
    assert "reached t in its Set-up Move: the charge succeeds" in log_text(state)


def test_a_faster_unit_moves_further() -> None:
    """hh3 core, Charge Procedure, Make Set-up Move: I5 + M8 = 13 moves 4 in; from 9.5 in the gap
    left is 5.5 in and a roll of 6 covers it."""
    state = charge(_state(9.5, i=5, m=8.0), "a", Charge("s", "t"), [6, 1])
    assert state.units["s"].flag("charge_ok")
    assert "(4 in for Initiative + Movement 13): t was 9.5 in away, now 5.5 in." in log_text(state)


def test_a_disordered_charge_makes_no_setup_move() -> None:
    """hh3 core, Charge Procedure, Disordered Charge: the charging unit makes no set-up move, so
    from 8.5 in even a 6 falls short. Cool check 3 + 3 = 6 <= 8: passed."""
    state = act(_state(8.5, suppressed=True), "a", Charge("s", "t"), [6, 6, 3, 3])
    assert not state.units["s"].flag("charge_ok")
    assert state.units["s"].models["s-1"].pos.x == 10
    assert "charges Disordered: no Set-up Move." in log_text(state)
