"""40k11 core rules [ext], Pile In and Consolidate: the server's automatic 3" moves inside
``Fight`` (docs/rules-notes.md, 40k11 Charge and Fight). 32 mm bases: radius 0.63", so a model
centred 1.26" from another is in base contact."""

from __future__ import annotations

import pytest

from hulldown.match.actions import Fight
from hulldown.match.state import MatchState, Unit
from hulldown.rules.wh40k11.allocation import DECISION_ALLOCATE
from hulldown.rules.wh40k11.constants import BASE_CONTACT, PILE_IN_CONTACT_GAP
from hulldown.rules.wh40k11.space import model_distance

from .builders import infantry, rolls, state, step, take_proposal

DIAMETER = 32 / 25.4  # two 32 mm bases touching, centre to centre (1.26")


def scene(gap: float, *extra: Unit) -> MatchState:
    """squad-1 in base contact with foe-1 at (20, 24); squad-2 straight below foe-1 with ``gap``
    inches between the bases."""
    squad = infantry("squad", "a", [(20 - DIAMETER, 24), (20, 24 - DIAMETER - gap)])
    foe = infantry("foe", "b", [(20, 24)], w=3)
    return state(squad, foe, *extra, phase="fight")


def texts(s: MatchState) -> list[str]:
    return [e.text for e in s.log]


def test_pile_in_brings_a_model_into_base_contact_and_it_fights() -> None:
    """40k11 core rules, Pile In: squad-2 is 2.5" from foe-1 (outside Engagement Range, 2"), so it
    could not fight; it piles in 2.49" straight up into base contact and then fights. Two hit rolls
    (one per model, A1 unarmed), both 1s: nothing else is rolled."""
    s = step(scene(2.5), Fight(unit="squad", target="foe"), [1, 1])
    assert [r for r in rolls(s) if r[0] == "hit"] == [("hit", 1, "miss"), ("hit", 1, "miss")]
    squad, foe = s.units["squad"], s.units["foe"]
    moved = squad.models["squad-2"]
    assert moved.pos.x == pytest.approx(20)
    assert moved.pos.y == pytest.approx(24 - DIAMETER - PILE_IN_CONTACT_GAP, abs=1e-4)
    assert model_distance(squad, moved, foe, foe.models["foe-1"]) <= BASE_CONTACT
    # squad-1 was already in base contact: it does not move.
    assert (squad.models["squad-1"].pos.x, squad.models["squad-1"].pos.y) == (20 - DIAMETER, 24)
    assert "squad pile in: 1 model move up to 3 in toward foe." in texts(s)
    assert "squad fights foe with 2 models." in texts(s)


def test_a_model_too_far_moves_3_in_closer_but_does_not_fight_then_consolidates() -> None:
    """40k11 core rules, Pile In: squad-2 is 5.5" away; it moves 3" closer (2.5" left, outside
    Engagement Range), so only squad-1 fights (one hit roll). 40k11 core rules, Consolidate: after
    the attacks it moves on into base contact (2.49")."""
    s = step(scene(5.5), Fight(unit="squad", target="foe"), [1])
    assert [r for r in rolls(s) if r[0] == "hit"] == [("hit", 1, "miss")]
    log = texts(s)
    assert log.index("squad pile in: 1 model move up to 3 in toward foe.") < log.index(
        "squad fights foe with 1 model."
    )
    assert log[-1] == "squad consolidate: 1 model move up to 3 in toward foe."
    moved = s.units["squad"].models["squad-2"]
    assert moved.pos.y == pytest.approx(24 - DIAMETER - PILE_IN_CONTACT_GAP, abs=1e-4)


def test_consolidate_moves_survivors_toward_the_closest_enemy_model_left() -> None:
    """40k11 core rules, Consolidate: squad-1 destroys foe-1 (hit 6, wound 6, save 1; the owner
    takes the proposal, foe-1); it then moves 2.99" toward foe-2, the closest enemy model still
    alive (3" between the bases), ending in base contact with it."""
    squad = infantry("squad", "a", [(20 - DIAMETER, 24)])
    foe = infantry("foe", "b", [(20, 24), (20 - DIAMETER + 3 + DIAMETER, 24)])
    s = step(state(squad, foe, phase="fight"), Fight(unit="squad", target="foe"), [6, 6, 1])
    s = take_proposal(s, DECISION_ALLOCATE)
    assert not s.units["foe"].models["foe-1"].alive
    moved = s.units["squad"].models["squad-1"]
    assert moved.pos.x == pytest.approx(20 - DIAMETER + 3 - PILE_IN_CONTACT_GAP, abs=1e-4)
    assert moved.pos.y == pytest.approx(24)
    assert "squad consolidate: 1 model move up to 3 in toward foe." in texts(s)


def test_a_model_blocked_by_another_model_stops_short() -> None:
    """40k11 core rules, Pile In [decided]: squad-2 (2.5" from foe-1) would pile into base contact,
    but a friendly model stands in its way at (20, 21.9); it moves no model through another, so it
    stops short, touching the blocker (about 0.4" on), still 2.1" from foe-1 - outside Engagement
    Range, so it does not fight (one hit roll)."""
    blocker = infantry("wall", "a", [(20, 21.9)])
    s = step(scene(2.5, blocker), Fight(unit="squad", target="foe"), [1])
    assert [r for r in rolls(s) if r[0] == "hit"] == [("hit", 1, "miss")]
    squad, wall = s.units["squad"], s.units["wall"]
    moved = squad.models["squad-2"]
    start_y = 24 - DIAMETER - 2.5
    assert moved.pos.x == pytest.approx(20)
    assert start_y + 0.38 < moved.pos.y <= 21.9 - DIAMETER + 1e-9
    assert model_distance(squad, moved, wall, wall.models["wall-1"]) >= 0.0
    assert "squad pile in: 1 model move up to 3 in toward foe." in texts(s)
    assert "squad fights foe with 1 model." in texts(s)


def test_pile_in_never_ends_within_engagement_range_of_an_enemy_unit_not_in_the_fight() -> None:
    """40k11 core rules, Pile In [decided]: another enemy unit (other-1, 1.8" to the right of
    squad-2's line at y 22.2) is not in the fight; squad-2 stops just outside 2" of it, about
    0.83" on (y 21.07), which is within Engagement Range of foe-1 (1.67"): it fights."""
    other = infantry("other", "b", [(20 + DIAMETER + 1.8, 22.2)])
    s = step(scene(2.5, other), Fight(unit="squad", target="foe"), [1, 1])
    squad, o = s.units["squad"], s.units["other"]
    moved = squad.models["squad-2"]
    assert moved.pos.y == pytest.approx(21.07, abs=0.02)
    assert 2.0 < model_distance(squad, moved, o, o.models["other-1"]) < 2.02
    assert "squad fights foe with 2 models." in texts(s)
