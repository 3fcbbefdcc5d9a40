"""hh3 core, Charge Procedure step 5, Make Charge Move - the charging player places the chargers
(docs/decisions.md): a successful charge roll pauses on a ``place_chargers`` decision of the
charging side whose proposal is the straight move the server made before players were asked;
answers are checked with the numbers (at most the charge roll, the initial charger in base
contact, the others in base contact where they can, 2" coherency, touching no enemy unit that
is not charged, on no other model)."""

from __future__ import annotations

import hashlib
import math
import random

from hulldown.match.actions import Charge, Decide
from hulldown.match.state import MatchState, Options, Point, Unit
from hulldown.rules.charging import DECISION_CHARGE
from hulldown.rules.hh3.core import CONTACT

from ..decision_answers import seeded_answered_run
from .builders import act, make, rejection, squad, take_proposal

D = 32.0 / 25.4  # a 32 mm base is 1.26" across: centres of touching bases are D apart
CONTACT_X = 25.0 - D  # a charger touching a Legionary at x = 25
CHARGE = Charge("s", "e")
DICE = [5, 2]  # 2D6, the highest counts: 5" >= the 3.24" from s-2 (the initial charger) to e-2


def around(x: float, y: float, degrees: float) -> Point:
    """A charger's centre touching the model at (x, y), ``degrees`` round it (0 = +x)."""
    d = D + 1e-4
    return Point(x + d * math.cos(math.radians(degrees)), y + d * math.sin(math.radians(degrees)))


def _units(*extra: Unit) -> list[Unit]:
    # The chargers start 3" further back: their Set-up Move (I4 + M7 = 11: 3"; hh3 core, Charge
    # Procedure) takes them straight to x = 20 (s-2 to 20.5) before the charge roll.
    return [
        squad("s", "a", [(17, 22.7), (17.5, 24), (17, 25.3)]),
        squad("e", "b", [(25, 22.7), (25, 24), (25, 25.3)]),
        *extra,
    ]


def _paused(*extra: Unit) -> MatchState:
    state = act(make(_units(*extra), phase="assault"), "a", CHARGE, DICE)
    assert state.pending is not None and state.pending.kind == DECISION_CHARGE
    return state


def _near(place: dict[str, Point], want: dict[str, Point]) -> bool:
    return place.keys() == want.keys() and all(
        abs(place[k].x - p.x) < 1e-5 and abs(place[k].y - p.y) < 1e-9 for k, p in want.items()
    )


PROPOSED = {"s-1": Point(CONTACT_X, 22.7), "s-2": Point(CONTACT_X, 24), "s-3": Point(CONTACT_X, 25.3)}


def _refused(state: MatchState, place: dict[str, Point]) -> tuple[str, dict[str, object]]:
    assert state.pending is not None
    why = rejection(state, "a", Decide(state.pending.id, "place", place=place))
    assert why is not None, f"{place} was accepted"
    return why.code, dict(why.values)


def test_the_charge_pauses_for_the_charging_side_and_not_the_other() -> None:
    state = _paused()
    pending = state.pending
    assert pending is not None and pending.side == "a" and pending.rule == "hh3 core, Charge Sub-Phase"
    assert pending.placement is not None and pending.placement.models == ("s-1", "s-2", "s-3")
    assert pending.placement.limits == {
        "reach": 5.0,
        "contact": CONTACT,
        "coherency": 2.0,
        "enemy_gap": CONTACT,
    }
    assert state.units["s"].models["s-2"].pos == Point(17.5, 24)  # as before the charge
    why = rejection(state, "b", Decide(pending.id, "proposal"))
    assert why is not None and why.code == "not_your_decision"


def test_the_proposal_is_the_straight_move_and_auto_decide_plays_it() -> None:
    state = _paused()
    assert state.pending is not None and state.pending.placement is not None
    proposal = dict(state.pending.placement.proposal)
    assert _near(proposal, PROPOSED)  # straight across, stopping a millionth of an inch short
    answered = take_proposal(state, DECISION_CHARGE)
    auto = act(make(_units(), phase="assault", options=Options(auto_decide=True)), "a", CHARGE, DICE)
    assert auto.pending is None and answered.units == auto.units
    assert {k: m.pos for k, m in answered.units["s"].models.items()} == proposal
    assert answered.units["s"].flag("charge_ok")


def test_illegal_positions_are_refused_with_the_numbers() -> None:
    state = _paused()
    # s-1 from (20, 22.7) to (20, 16.7): 6" > the 5" roll
    code, values = _refused(state, {**PROPOSED, "s-1": Point(20, 16.7)})
    assert code == "charge_too_far" and values == {"model": "s-1", "distance": 6.0, "limit": 5.0}
    # s-1 on s-2
    code, values = _refused(state, {**PROPOSED, "s-1": Point(CONTACT_X, 23.5)})
    assert code == "overlaps_model" and values == {"model": "s-1"}
    # the initial charger s-2 stops 1" short of e-2
    code, values = _refused(state, {**PROPOSED, "s-2": Point(CONTACT_X - 1, 24)})
    assert code == "not_in_contact" and values["model"] == "s-2" and values["limit"] == CONTACT
    # s-1 left behind: hypot(3.74, 1.3) - 1.26 = 2.70" from s-2, more than 2" coherency
    code, values = _refused(state, {"s-2": PROPOSED["s-2"], "s-3": PROPOSED["s-3"]})
    assert code == "not_coherent" and values["limit"] == 2.0
    assert abs(float(values["gap"]) - 2.699) < 2e-3  # type: ignore[arg-type]
    # s-3 half an inch short of e-3, coherent: it could have reached base contact
    code, values = _refused(state, {**PROPOSED, "s-3": Point(CONTACT_X - 0.5, 25.3)})
    assert code == "contact_possible" and values["model"] == "s-3"
    spot = Point(float(values["x"]), float(values["y"]))  # type: ignore[arg-type]
    assert state.pending is not None
    ok = rejection(state, "a", Decide(state.pending.id, "place", place={**PROPOSED, "s-3": spot}))
    assert ok is None  # the spot the refusal names is legal


def test_touching_an_enemy_unit_not_charged_is_refused() -> None:
    """s-3 in contact with e-3, 120 degrees round it, would touch (0.01") a model of unit o."""
    spot = around(25, 25.3, 120)
    other = squad("o", "b", [(spot.x, spot.y + D + 0.01)])
    state = _paused(other)
    code, values = _refused(state, {**PROPOSED, "s-3": spot})
    assert code == "too_close_to_enemy" and values["model"] == "s-3" and values["limit"] == CONTACT
    assert abs(float(values["distance"]) - 0.01) < 2e-3  # type: ignore[arg-type]


def test_the_player_places_the_chargers_where_the_rules_allow() -> None:
    state = _paused()
    assert state.pending is not None
    place = {"s-1": around(25, 22.7, 215), "s-2": PROPOSED["s-2"], "s-3": around(25, 25.3, 145)}
    out = act(state, "a", Decide(state.pending.id, "place", place=place))
    assert out.pending is None and out.suspended is None
    assert {k: m.pos for k, m in out.units["s"].models.items()} == place
    assert out.units["s"].flag("charge_ok")


def test_random_answers_fold_back_to_the_live_state() -> None:
    """Seeded dice, random legal answers: folding the events from the start gives the live state."""
    paused = 0
    for i in range(10):
        seed = hashlib.sha256(f"hh3-charge-{i}".encode()).digest()
        run = seeded_answered_run(
            make(_units(), phase="assault"), "a", CHARGE, seed, {DECISION_CHARGE}, random.Random(i)
        )
        if run.asked is not None:
            paused += 1
            assert run.live.pending is None and run.live.units["s"].flag("charge_ok")
    assert paused >= 3
