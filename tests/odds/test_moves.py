"""Odds of actions other than shooting (docs/odds.md): a move through dangerous terrain, a Tank
Shock with its Morale check and Death or Glory decision, a Ram that hits both vehicles."""

from __future__ import annotations

import pytest

from hulldown.match.actions import Fight, Move
from hulldown.match.state import Point
from tests.wh40k7.builders import dreadnought, infantry, make_state, rhino, ruin, vehicle, weapon

from .helpers import EPS, d6_probability, odds, unit_odds


def test_dangerous_terrain_fails_on_a_one() -> None:
    """40k7 Vehicles, Dangerous Terrain (difficult terrain for vehicles): a 1 costs a Hull
    Point and immobilises."""
    state = make_state(rhino("r", "a", 10, 24), terrain=[ruin("woods", 14, 20, 16, 28, kinds=("difficult",))])
    answer = odds(state, "a", Move("r", (Point(21, 24),)))
    r = unit_odds(answer, "r")
    assert answer.plays == 6
    assert r.final["2"].p == pytest.approx(1 / 6, abs=EPS)
    assert r.statuses["immobilised"].p == pytest.approx(1 / 6, abs=EPS)
    assert r.no_effect.p == pytest.approx(5 / 6, abs=EPS)


def test_tank_shock_morale_and_death_or_glory() -> None:
    """40k7 Tank Shock: the unit takes a Morale check (2D6 <= Ld 8); passing, its owner (side b)
    decides on Death or Glory; failing, it falls back. Declining Death or Glory the tree is small
    enough to be exact; with the owner's best answer (Melta bombs may be worth it) too, as each
    answer's own exact distribution is joined to the plays that reach the decision - and that
    answer is never worse for side b than declining."""
    bombs = weapon("mb", "Melta bombs", 0, 8, 1, type="melee", rules=("armourbane", "grenade"))
    tank = rhino("t", "a", 10, 24)
    squad = infantry("e", "b", [(18, 24)], ld=8, weapons=[(0, bombs)])
    state = make_state(tank, squad)
    shock = Move("t", (Point(22, 24),), kind="tank_shock")
    passed = d6_probability(lambda a, b: a + b <= 8, 2)
    declined = odds(state, "a", shock, choices={"death_or_glory": "none"})
    # Besides Death or Glory, the models still in the Tank's way at the end are moved aside by
    # their owner (40k7 Tank Shock, docs/decisions.md): the server's proposal answers it.
    assert [(d.kind, d.side) for d in declined.decisions] == [
        ("death_or_glory", "b"),
        ("place_tank_shocked", "b"),
    ]
    decision, aside = declined.decisions
    assert (decision.policy, aside.policy) == ("choice", "proposal")
    assert 0 < aside.raised.p < 1 and aside.chosen == {"proposal": aside.raised}
    assert decision.raised.p == pytest.approx(passed, abs=EPS)
    assert decision.chosen == {"none": decision.raised}
    assert unit_odds(declined, "e").statuses["falling_back"].p == pytest.approx(1 - passed, abs=EPS)
    assert declined.choices == {"death_or_glory": "none"}

    best = odds(state, "a", shock)
    decision = best.decisions[0]
    assert (decision.kind, decision.policy) == ("death_or_glory", "best_answer")
    assert decision.side == "b" and abs(decision.raised.p - passed) <= 4 * decision.raised.se + EPS
    assert set(decision.chosen) <= set(decision.options)
    e, t = unit_odds(best, "e"), unit_odds(best, "t")
    balance = e.expected_lost - t.expected_lost
    declined_balance = unit_odds(declined, "e").expected_lost - unit_odds(declined, "t").expected_lost
    assert balance <= declined_balance + 4 * (e.expected_lost_se + t.expected_lost_se) + EPS


def test_ram_can_damage_both_vehicles() -> None:
    """40k7 Ramming: the rammed vehicle takes a hit of the rammer's ramming Strength and the
    rammer one back; both are reported."""
    lr = vehicle("lr", "a", 10, 24, armour=(14, 14, 14), keywords=("tank",), name="Land Raider")
    trukk = vehicle("tr", "b", 20, 24, 90, armour=(10, 10, 10), keywords=("fast",), name="Trukk")
    answer = odds(make_state(lr, trukk), "a", Move("lr", (Point(22, 24),), kind="ram"), max_plays=5000)
    tr, rammer = unit_odds(answer, "tr"), unit_odds(answer, "lr")
    # A Land Raider (front AV14, Tank) rams with S8: against the Trukk's side AV10, D6 + 8 is no
    # effect on a 1, glancing on a 2, penetrating on 3+.
    assert tr.glancing is not None and tr.penetrating is not None
    assert tr.glancing.p == pytest.approx(1 / 6, abs=EPS)
    assert tr.penetrating.p == pytest.approx(4 / 6, abs=EPS)
    # The Trukk's front hits back with S5 (40k7 Ramming: Armour Value 10 - 5) against AV14: never.
    assert rammer.no_effect.p == pytest.approx(1.0, abs=EPS)
    assert answer.summary[0].startswith("Land Raider (ramming), front AV14: destroyed 0%")
    assert answer.summary[1].startswith("Land Raider rams -> Trukk, side AV10: destroyed")


def test_a_fight_against_a_vehicle() -> None:
    """40k7 Vehicles and close combat: one Power fist attack (S8 AP2) against a Rhino's rear
    armour (AV10), hitting on 3+ (40k7 Vehicles and Close Combat): D6 + 8
    is no effect on a 1, glancing on a 2, penetrating on 3+."""
    fist = weapon("fist", "Power fist", 0, 8, 2, type="melee")
    radius = 25.0 / 25.4 / 2
    squad = infantry("m", "a", [(27.75 - radius, 24.0)], weapons=[(0, fist)], i=1)
    state = make_state(squad, rhino("r", "b", 30, 24, 0), phase="assault")
    answer = odds(state, "a", Fight("m", "r", "fist"), max_plays=20_000)
    r = unit_odds(answer, "r")
    assert r.glancing is not None and r.penetrating is not None
    assert r.glancing.p == pytest.approx(4 / 6 * 1 / 6, abs=EPS)
    assert r.penetrating.p == pytest.approx(4 / 6 * 4 / 6, abs=EPS)
    assert answer.summary[0].startswith("Power fist -> Rhino, rear AV10: destroyed")


def test_a_smash_attack_rerolls_its_armour_penetration() -> None:
    """40k7 Special Rules, Smash: a Walker with Smash (the keyword ``smash``, as a Super-heavy Walker
    has it) makes a single Smash Attack (S6 doubled to S10) at a
    Land Raider's rear (AV14), hitting on 3+, re-rolls a penetration roll that did nothing
    (penetration.SMASH_REROLL_RESULTS): D6 + 10 is nothing on 1-3, glancing on 4, penetrating on
    5-6, so glancing 1/6 + 3/6 x 1/6 = 1/4 and penetrating 2/6 + 3/6 x 2/6 = 1/2 of the hits."""
    walker = dreadnought("w", "a", 26.5, 24, 0, keywords=("walker", "smash"))
    raider = vehicle("t", "b", 30, 24, 0, name="Land Raider", armour=(14, 14, 14), hp=4)
    state = make_state(walker, raider, phase="assault")
    answer = odds(state, "a", Fight("w", "t", smash=True), max_plays=20_000)
    r = unit_odds(answer, "t")
    assert r.glancing is not None and r.penetrating is not None
    assert r.glancing.p == pytest.approx(4 / 6 * 1 / 4, abs=EPS)
    assert r.penetrating.p == pytest.approx(4 / 6 * 1 / 2, abs=EPS)
