"""The answer lists the decisions an action raises in the middle of its dice (docs/odds.md,
Decisions; docs/decisions.md): kind, the deciding side, the rule, the chance the action raises
it - against closed forms - and the policy that answered it (the server's proposal)."""

from __future__ import annotations

import pytest

from hulldown.match.actions import Challenge, Charge, Decide, Fire, Shoot
from hulldown.match.state import Unit
from hulldown.odds import OddsAnswer
from hulldown.odds.answer import DecisionOdds
from hulldown.rules.hh3.emergency import DECISION_EMERGENCY
from hulldown.rules.wh40k7.geo import unit_distance
from hulldown.rules.wh40k7.survivors import DECISION_SURVIVORS
from tests.hh3.builders import act as act_hh3
from tests.hh3.test_allocation_decision import SHOOT as PISTOL_SHOT
from tests.hh3.test_allocation_decision import scene as allocation_scene
from tests.hh3.test_challenges import _combat as challenge_combat
from tests.hh3.test_emergency_decision import SHOT as HH3_SHOT
from tests.hh3.test_emergency_decision import SHOT_DICE as HH3_SHOT_DICE
from tests.hh3.test_emergency_decision import _match as hh3_transport_match
from tests.wh40k7.builders import infantry, make_state, predator, rhino
from tests.wh40k7.test_aim_decision import BLAST, _blast_match
from tests.wh40k7.test_survivors_decision import SHOT as WRECK_SHOT
from tests.wh40k7.test_survivors_decision import _wreck_match
from tests.wh40k11 import builders as b11

from .helpers import EPS, d6_probability, hit_chance_40k7, odds, unit_odds


def _only(answer: OddsAnswer, kind: str) -> DecisionOdds:
    found = [d for d in answer.decisions if d.kind == kind]
    assert len(found) == 1, [d.kind for d in answer.decisions]
    return found[0]


def test_a_shot_that_can_destroy_a_transport_lists_place_survivors() -> None:
    """40k7 Vehicles, Transports: Effects of Damage on Passengers. A Krak missile (S8, BS4) at a
    1-Hull-Point Rhino's rear (AV10): a hit (2/3) that glances or penetrates (D6 + 8 >= 10: 5/6)
    destroys it, and the passengers' owner (side b) places the survivors: raised 2/3 x 5/6."""
    answer = odds(_wreck_match(), "a", WRECK_SHOT)
    d = _only(answer, DECISION_SURVIVORS)
    destroyed = hit_chance_40k7(4) * d6_probability(lambda x: x + 8 >= 10)
    assert d.side == "b"
    assert d.rule == "40k7 Vehicles, Transports: Effects of Damage on Passengers"
    assert d.policy == "proposal"
    assert d.raised.p == pytest.approx(destroyed, abs=EPS) and d.raised.se == 0.0
    assert d.raised.p == pytest.approx(unit_odds(answer, "r").destroyed.p, abs=EPS)
    assert d.options == ("proposal", "place")
    assert d.chosen == {"proposal": d.raised}
    assert "Rhino" in d.prompt and "\u27e6" not in d.prompt


def test_a_shot_that_can_destroy_an_hh3_transport_lists_the_emergency_disembarkation() -> None:
    """hh3 Transport sub-type, Emergency Disembarkation. A lascannon (S9, BS4: 3+) at a
    1-Hull-Point Rhino's front (AV11): only a penetrating hit (D6 + 9 > 11) takes its last Hull
    Point; the passengers' owner (side b) places them: raised 4/6 x 4/6."""
    answer = odds(hh3_transport_match(), "a", HH3_SHOT)
    d = _only(answer, DECISION_EMERGENCY)
    destroyed = d6_probability(lambda x: x >= 3) * d6_probability(lambda x: x + 9 > 11)
    assert (d.side, d.policy) == ("b", "proposal")
    assert d.rule == "hh3 Transport sub-type, Emergency Disembarkation"
    assert d.raised.p == pytest.approx(destroyed, abs=EPS)
    assert d.raised.p == pytest.approx(unit_odds(answer, "rhino").destroyed.p, abs=EPS)
    assert d.chosen == {"proposal": d.raised}


def test_an_allocation_asked_for_several_wounds_counts_each_play_once() -> None:
    """hh3 core, Wound Allocation: two pistol shots (BS4: 3+, S4 vs T4: 4+, a wound 1/3 each) at
    three unwounded 2-Wound models; the owner (side b) allocates each wound while more than one
    model may take it, and the proposal is the closest, t-1. The action raises it when either
    shot wounds: 1 - (2/3)^2 = 5/9 - a play asked twice counts once, in ``raised`` and in
    ``chosen``."""
    answer = odds(allocation_scene(), "a", PISTOL_SHOT, max_plays=20_000)
    d = _only(answer, "allocate_wound")
    assert (d.side, d.policy) == ("b", "proposal")
    assert d.rule.startswith("hh3 core, Wound Allocation")
    assert d.raised.p == pytest.approx(1 - (2 / 3) ** 2, abs=EPS)
    assert d.options == ("t-1", "t-2", "t-3")
    assert d.chosen == {"t-1": d.raised}


def test_a_challenge_lists_its_acceptance_and_the_advantaged_sides_choice() -> None:
    """hh3 core, Challenge Sub-Phase: the challenged unit's owner (side b) accepts - asked before
    any die, in every play, the proposal the Sergeant t-2 - and, when both models stand after
    the round, the player whose model has the Challenge Advantage chooses Glory or another round:
    listed once per deciding side, their chances summing to at most 1 (one round is fought)."""
    answer = odds(challenge_combat(), "a", Challenge("s", "s-2", "t"), expect="sampled")
    accept = _only(answer, "accept_challenge")
    assert (accept.side, accept.policy, accept.raised.p, accept.raised.se) == ("b", "proposal", 1.0, 0.0)
    assert accept.options == ("decline", "t-2") and accept.chosen == {"t-2": accept.raised}
    again = {d.side: d for d in answer.decisions if d.kind == "continue_challenge"}
    assert set(again) == {"a", "b"}
    for d in again.values():
        assert d.policy == "proposal" and d.chosen == {"glory": d.raised}
        assert 0 < d.raised.p < 1 and d.raised.se > 0
    assert again["a"].raised.p + again["b"].raised.p <= 1 + EPS


def test_a_charge_lists_place_chargers_with_the_reach_probability() -> None:
    """40k7 The Assault Phase, Charge (Move Chargers): the charger's owner places the charging
    models once the 2D6 charge roll reaches - P(2D6 >= distance), the answer's own ``reaches``."""
    charger: Unit = infantry("charger", "a", [(10, 24)])
    target: Unit = infantry("target", "b", [(17.5, 24)])
    state = make_state(charger, target, phase="assault")
    need = unit_distance(state.units["charger"], state.units["target"])
    answer = odds(state, "a", Charge("charger", "target"))
    d = _only(answer, "place_chargers")
    reaches = unit_odds(answer, "charger").reaches
    assert reaches is not None
    assert (d.side, d.policy) == ("a", "proposal")
    assert d.rule.startswith("40k7 The Assault Phase, Charge")
    assert d.raised.p == pytest.approx(reaches.p, abs=EPS)
    assert d.raised.p == pytest.approx(d6_probability(lambda a, b: a + b >= need - 1e-9, 2), abs=EPS)
    assert [x.kind for x in answer.decisions] == ["place_chargers"]


def test_a_40k7_blast_always_asks_its_aim() -> None:
    """40k7 Weapons, Blast: the firer aims the marker before it scatters, in every play. The
    blast's tree is too large to walk within the default bound, so the answer is sampled; a
    decision raised in every sample has p 1 and standard error 0."""
    answer = odds(_blast_match(), "a", BLAST, expect="sampled")
    d = _only(answer, "aim_blast")
    assert (d.side, d.policy) == ("a", "proposal")
    assert d.rule.startswith("40k7 Weapons, Blast")
    assert d.raised.p == 1.0 and d.raised.se == 0.0
    assert d.chosen == {"proposal": d.raised}


def test_a_shot_raising_no_decision_lists_none() -> None:
    """40k7 Shooting at a Rhino without passengers, not a skimmer: nothing is asked of anyone."""
    state = make_state(predator("p", "a", 10, 24), rhino("r", "b", 30, 24, 180), phase="shooting")
    answer = odds(state, "a", Shoot("p", (Fire("lascannon", "r"),)))
    assert unit_odds(answer, "r").destroyed.p > 0
    assert answer.decisions == []


def test_the_odds_of_answering_a_paused_decision_are_the_whole_actions_from_its_dice_so_far() -> None:
    """docs/odds.md, Decisions: the odds of a ``decide`` answering a decision the match paused on
    in the middle of an action play that action again from its start, with the dice it drew and
    the answers given (as the reducer resumes it). hh3 Transport sub-type, Emergency
    Disembarkation: the lascannon already took the Rhino's last Hull Point (hit 5, penetration
    3), so it is destroyed in every play; its passengers are then placed and take the Cool check,
    2D6 against Cool 8: Pinned on 9 or more, 10/36. (The answer said nothing happens: the decide
    was applied to the state with nothing resumed.)"""
    paused = hh3_transport_match()
    paused = act_hh3(paused, "a", HH3_SHOT, HH3_SHOT_DICE)
    assert paused.suspended is not None and paused.pending is not None
    decide = Decide(paused.pending.id, "proposal")
    answer = odds(paused, "b", decide)
    assert answer.action == {"type": "decide", "decision": paused.pending.id, "choice": "proposal"}
    assert unit_odds(answer, "rhino").destroyed.p == pytest.approx(1.0, abs=EPS)
    pinned = d6_probability(lambda a, b: a + b > 8, 2)
    assert unit_odds(answer, "s").statuses["pinned"].p == pytest.approx(pinned, abs=EPS)
    assert answer.plays == 36  # only the Cool check's dice are walked


def test_the_odds_of_allocating_a_paused_wound_follow_the_allocation() -> None:
    """40k11 (core, Allocate Attack [ext]; docs/decisions.md): a D2 wound the save failed, paused
    on its allocation among three W3 models; allocating it to inf-2 leaves 7 wounds in the unit,
    certainly, and no die is walked."""
    gun = b11.weapon("gun", "tank-a-m", rng=36, s=6, ap=2, d=2, shots=1)
    target = b11.infantry("inf", "b", [(40, 24), (40, 25.5), (40, 27)], t=4, sv=4, w=3)
    start = b11.state(b11.vehicle("tank-a", "a", 20, 24, weapons=(gun,), bs=3), target, phase="shooting")
    paused = b11.step(start, Shoot("tank-a", (Fire("gun", "inf"),)), [6, 6, 1])  # hit, wound, save 1
    assert paused.pending is not None and paused.suspended is not None
    answer = odds(paused, "b", Decide(paused.pending.id, "inf-2"))
    assert answer.plays == 1
    assert {k: p.p for k, p in unit_odds(answer, "inf").final.items()} == {"7": 1.0}


def test_no_play_draws_the_legal_areas_of_a_placement(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/odds.md, Decisions: a placement taken in the middle of an action (hh3 Emergency
    Disembarkation, 40k7 passengers of a wreck) is answered with the proposal in every play, and
    its legal areas - costly polygons for a player to see - are never drawn for it (they were, in
    every play: 62% of the 40k7 answer's CPU). A match pausing on the decision still shows them."""

    def drawn(*args: object) -> object:
        raise AssertionError("legal areas drawn in a play")

    with monkeypatch.context() as patched:
        patched.setattr("hulldown.rules.hh3.emergency.legal_areas", drawn)
        patched.setattr("hulldown.rules.wh40k7.survivors._areas", drawn)
        assert _only(odds(hh3_transport_match(), "a", HH3_SHOT), DECISION_EMERGENCY).raised.p > 0
        assert _only(odds(_wreck_match(), "a", WRECK_SHOT), DECISION_SURVIVORS).raised.p > 0
    paused = act_hh3(hh3_transport_match(), "a", HH3_SHOT, HH3_SHOT_DICE)
    assert paused.pending is not None and paused.pending.placement is not None
    assert paused.pending.placement.area and all(paused.pending.placement.area.values())
