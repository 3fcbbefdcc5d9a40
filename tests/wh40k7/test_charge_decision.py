"""40k7 The Assault Phase, Charge: Move Chargers - the charging player places the chargers
(docs/decisions.md): a successful charge pauses on a ``place_chargers`` decision of the charging
side whose proposal is the straight move the server made before players were asked; answers are
checked with the numbers (at most the charge roll, the initial charger in base contact, the
others in base contact where they can, 2" coherency, not within 1" of an enemy unit not charged,
on no other model)."""

from __future__ import annotations

import hashlib
import math
import random

import pytest
from msgspec.structs import replace

from hulldown.match.actions import Charge, Decide, EndPhase, TakebackAnswer, TakebackRequest
from hulldown.match.history import game_hash
from hulldown.match.scenario import CreateMatch
from hulldown.match.scenario_types import Scenario
from hulldown.match.state import MatchState, Options, Point
from hulldown.rules.charging import DECISION_CHARGE, REACH_SLACK

from ..decision_answers import seeded_answered_run
from ..dice.forge import Forge
from .builders import act, dreadnought, infantry, make_state, rejection_of, take_proposal

R = 25.0 / 25.4 / 2  # radius of a 25 mm base (0.492 in)


def around(x: float, y: float, degrees: float) -> Point:
    """A charger's centre touching the model at (x, y), ``degrees`` round it (0 = +x)."""
    d = 2 * R + 1e-4
    return Point(x + d * math.cos(math.radians(degrees)), y + d * math.sin(math.radians(degrees)))


CONTACT_X = 26.0 - 2 * R  # a charger's centre touching a target model at x = 26
CHARGE = Charge("m", "e")
DICE = [3, 3]  # 6" >= the 4.52" gap between m-1, the initial charger, and e-1


def _units() -> tuple:  # type: ignore[type-arg]
    marines = infantry("m", "a", [(20, 23), (20.5, 24), (20, 25)])
    foes = infantry("e", "b", [(26, 23), (26, 24), (26, 25)])
    return marines, foes


def _match(options: Options | None = None, *extra) -> MatchState:  # type: ignore[no-untyped-def]
    state = make_state(*_units(), *extra, phase="assault")
    return state if options is None else replace(state, options=options)


def _paused(*extra) -> MatchState:  # type: ignore[no-untyped-def]
    state = act(_match(None, *extra), "a", CHARGE, DICE).state
    assert state.pending is not None and state.pending.kind == DECISION_CHARGE
    return state


def _refused(state: MatchState, place: dict[str, Point]) -> tuple[str, dict[str, object]]:
    assert state.pending is not None
    why = rejection_of(state, "a", Decide(state.pending.id, "place", place=place))
    assert why is not None, f"{place} was accepted"
    return why.code, dict(why.values)


PROPOSED = {f"m-{k}": Point(CONTACT_X, 23.0 + k) for k in range(3)}


def test_the_charge_pauses_for_the_charging_side_and_not_the_other() -> None:
    state = _paused()
    pending = state.pending
    assert pending is not None and pending.side == "a" and pending.options == ("proposal", "place")
    assert pending.placement is not None and pending.placement.models == ("m-0", "m-1", "m-2")
    assert pending.placement.limits == {"reach": 6.0, "contact": 0.05, "coherency": 2.0, "enemy_gap": 1.0}
    # every charger's area lies within 6" of its start, m-1's at (20.5, 24)
    points = [p for shape in pending.placement.area["m-1"] for ring in shape for p in ring]
    assert points and max(math.hypot(p.x - 20.5, p.y - 24) for p in points) <= 6.0 + REACH_SLACK
    # the units are as before the charge; the dice are in the log
    assert state.units["m"].models["m-1"].pos == Point(20.5, 24)
    why = rejection_of(state, "b", Decide(pending.id, "proposal"))
    assert why is not None and why.code == "not_your_decision"


def test_the_proposal_is_the_straight_move_and_auto_decide_plays_it() -> None:
    """The proposal: each model straight across to the nearest Guardsman, into base contact."""
    state = _paused()
    assert state.pending is not None and state.pending.placement is not None
    proposal = state.pending.placement.proposal
    assert all(
        abs(proposal[k].x - p.x) < 1e-9 and abs(proposal[k].y - p.y) < 1e-9 for k, p in PROPOSED.items()
    )
    answered = take_proposal(state, DECISION_CHARGE).state
    auto = act(_match(Options(auto_decide=True)), "a", CHARGE, DICE).state
    assert auto.pending is None and answered.units == auto.units
    assert {k: m.pos for k, m in answered.units["m"].models.items()} == proposal
    assert answered.units["m"].flag("charged_into:e")


def test_illegal_positions_are_refused_with_the_numbers() -> None:
    state = _paused()
    # m-0 from (20, 23) to (20, 16): 7" > the 6" roll
    code, values = _refused(state, {**PROPOSED, "m-0": Point(20, 16)})
    assert code == "charge_too_far" and values == {"model": "m-0", "distance": 7.0, "limit": 6.0}
    # m-0 on m-1 (centres 0.5" apart, bases 0.98" wide)
    code, values = _refused(state, {**PROPOSED, "m-0": Point(CONTACT_X, 23.5)})
    assert code == "overlaps_model" and values == {"model": "m-0"}
    # the initial charger (m-1, closest to the Guardsmen) stops 1" short
    code, values = _refused(state, {**PROPOSED, "m-1": Point(CONTACT_X - 1, 24)})
    assert code == "not_in_contact" and values["model"] == "m-1" and values["limit"] == 0.05
    assert abs(float(values["distance"]) - 1.0) < 1e-3  # type: ignore[arg-type]
    # m-0 stays behind: hypot(5.016, 1) - 0.984 = 4.13" from m-1, more than 2" coherency
    code, values = _refused(state, {"m-1": PROPOSED["m-1"], "m-2": PROPOSED["m-2"]})
    assert code == "not_coherent" and values["limit"] == 2.0
    assert abs(float(values["gap"]) - 4.13) < 2e-3  # type: ignore[arg-type]
    # m-0 1" short of contact, coherent with m-1: but it could have reached base contact
    code, values = _refused(state, {**PROPOSED, "m-0": Point(CONTACT_X - 1, 23)})
    assert code == "contact_possible" and values["model"] == "m-0"
    spot = Point(float(values["x"]), float(values["y"]))  # type: ignore[arg-type]
    accepted = rejection_of(state, "a", Decide(state.pending.id, "place", place={**PROPOSED, "m-0": spot}))  # type: ignore[union-attr]
    assert accepted is None  # the spot the refusal names is legal
    code, values = _refused(state, {**PROPOSED, "ghost": Point(25, 25)})
    assert code == "unknown_model" and values == {"model": "ghost"}


def test_not_within_1_inch_of_an_enemy_unit_not_charged() -> None:
    """40k7 Charge: a charging model may not end within 1" of an enemy unit it does not charge.
    m-2 in contact with e-2, 120 degrees round it at (25.508, 25.852), is 0.36" from the Scout at
    (25.5, 27.2)."""
    scout = infantry("o", "b", [(25.5, 27.2)])
    state = _paused(scout)
    code, values = _refused(state, {**PROPOSED, "m-2": around(26, 25, 120)})
    assert code == "too_close_to_enemy" and values["model"] == "m-2" and values["limit"] == 1.0
    assert abs(float(values["distance"]) - 0.36) < 5e-3  # type: ignore[arg-type]


def test_the_player_places_the_chargers_where_the_rules_allow() -> None:
    """m-0 and m-2 take other spots in base contact: accepted, and the units end there."""
    state = _paused()
    assert state.pending is not None
    place = {
        "m-0": around(26, 23, 215),
        "m-1": PROPOSED["m-1"],
        "m-2": around(26, 25, 145),
    }
    out = act(state, "a", Decide(state.pending.id, "place", place=place)).state
    assert out.pending is None and out.suspended is None
    assert {k: m.pos for k, m in out.units["m"].models.items()} == place
    assert out.units["m"].flag("charged_into:e")


def test_random_answers_fold_back_to_the_live_state() -> None:
    """Seeded dice, random legal answers: folding the events from the start gives the live state."""
    paused = 0
    for i in range(10):
        seed = hashlib.sha256(f"charge-{i}".encode()).digest()
        run = seeded_answered_run(_match(), "a", CHARGE, seed, {DECISION_CHARGE}, random.Random(i))
        if run.asked is not None:
            paused += 1
            assert run.live.pending is None and run.live.units["m"].flag("charged_into:e")
    assert paused >= 3


def test_a_granted_takeback_restores_the_state_before_the_charge() -> None:
    """The charge revealed dice: the charging side asks for a takeback; granted, the state is the
    one before the charge (docs/decisions.md)."""
    create = CreateMatch(edition="40k7", scenario=Scenario(units=_units()), options=Options())
    forge = Forge("charge-history", hashlib.sha256(b"charge").digest(), create)
    while forge.timeline.state.phase != "assault":
        forge.act("a", EndPhase())
    before = forge.timeline.state
    forge.act("a", CHARGE)
    pending = forge.timeline.state.pending
    assert pending is not None and pending.kind == DECISION_CHARGE, "this seed's charge roll fails"
    forge.act("a", TakebackRequest(to_seq=before.seq))
    forge.act("b", TakebackAnswer(grant=True))
    restored = forge.timeline.state
    assert restored.pending is None and restored.suspended is None
    assert game_hash(restored) == game_hash(before)


def test_a_walker_charges_the_same_way() -> None:
    """40k7 Walkers charge like Infantry: the Dreadnought (a 2.5" square hull, front edge at
    x = 21.25) rolls 3 + 3 = 6 >= the 4.26" to the Guardsman at (26, 24). Its player may slide it
    into base contact half an inch to the side; stopping 1" short is refused (it is the initial
    charger)."""
    walker = dreadnought("w", "a", 20, 24, 0)
    guard = infantry("g", "b", [(26, 24)])
    state = act(make_state(walker, guard, phase="assault"), "a", Charge("w", "g"), DICE).state
    pending = state.pending
    assert pending is not None and pending.kind == DECISION_CHARGE and pending.placement is not None
    x = 26 - R - 1.25  # the hull's front edge touching the Guardsman's base
    proposal = pending.placement.proposal["w-m"]
    assert abs(proposal.x - x) < 1e-9 and proposal.y == 24
    code, values = _refused(state, {"w-m": Point(x - 1, 24)})
    assert code == "not_in_contact" and values["model"] == "w-m"
    aside = Point(x - 0.001, 24.5)
    out = act(state, "a", Decide(pending.id, "place", place={"w-m": aside})).state
    assert out.units["w"].models["w-m"].pos == aside and out.units["w"].flag("charged_into:g")


@pytest.mark.parametrize("dice", [[2, 3], [3, 4], [5, 6], [6, 6]])
def test_the_spot_a_contact_refusal_names_is_legal_whatever_the_roll(dice: list[int]) -> None:
    """m-2 left 1" short of e-2 is refused on every roll from 5" to 12": a spot in base contact
    was within its reach (on no Guardsman's base: the rings round the three Guardsmen cross
    their neighbours' bases), and placing m-2 there is accepted."""
    state = act(_match(), "a", CHARGE, dice).state
    assert state.pending is not None and state.pending.placement is not None
    proposal = state.pending.placement.proposal
    code, values = _refused(state, {**proposal, "m-2": Point(CONTACT_X - 1, 25)})
    assert code == "contact_possible" and values["model"] == "m-2"
    spot = Point(float(values["x"]), float(values["y"]))  # type: ignore[arg-type]
    assert (
        rejection_of(state, "a", Decide(state.pending.id, "place", place={**proposal, "m-2": spot})) is None
    )
