"""The 40k7 Psychic phase for vehicles with Psychic Pilot (seed 001: "Vehicles with the Psychic
Pilot special rule manifest their psychic powers during the Psychic phase, as normal"; the
published 40k7 rules: The Psychic Phase, Special Rules: Psychic Pilot), each with fixed dice.

The power used is Smite as the 40k7 Biomancy discipline gives it: Warp Charge 1, a witchfire of
range 12", S4 AP2 Assault 4.
"""

from __future__ import annotations

import math

from msgspec.structs import replace

from hulldown.match.actions import Decide, EndPhase, Fire, Manifest, Shoot
from hulldown.match.context import ApplyContext
from hulldown.match.state import MatchState, Mount, Unit, Weapon
from hulldown.match.turns import next_phase, replace_unit
from hulldown.rules.dice import SeededDice
from hulldown.rules.phases import PHASES_40K7
from hulldown.rules.wh40k7 import psychic
from hulldown.rules.wh40k7.allocation import DECISION_ALLOCATE
from hulldown.rules.wh40k7.warp import PILOT_LEADERSHIP, mastery_level, pool

from .builders import act, infantry, make_state, rejected, take_proposal, vehicle, weapon


def _smite(wid: str = "smite") -> Weapon:
    return weapon(
        wid, "Smite", 12, 4, 2, type="assault", shots=4, rules=("witchfire:1",), mount=Mount(kind="turret")
    )


def _psyker(uid: str = "pilot", side: str = "a", level: str = "psychic_pilot:2", **kw: object) -> Unit:
    """A tank with Psychic Pilot (Mastery Level 2) knowing Smite, facing +x at (10, 24)."""
    return vehicle(
        uid,
        side,  # type: ignore[arg-type]
        10,
        24,
        0,
        name="Psy-tank",
        keywords=("tank", level),
        weapons=(_smite(),),
        **kw,  # type: ignore[arg-type]
    )


def _marines(keywords: tuple[str, ...] = ()) -> Unit:
    return infantry("m", "b", [(18, 23), (18, 24), (18, 25), (18, 26)], name="Marines", keywords=keywords)


def _in_psychic_phase(*units: Unit, d6: int = 3) -> MatchState:
    """End side a's Movement phase: the Psychic phase begins with the Warp Charge D6."""
    state = make_state(*units)
    res = act(state, "a", EndPhase(), [d6])
    assert res.state.phase == "psychic"
    return res.state


def test_psychic_phase_comes_after_movement_with_a_warp_charge_pool() -> None:
    """40k7 The Psychic Phase, Generating Warp Charge: the player whose turn it is rolls a D6; each
    player takes that many dice and adds the Mastery Levels of its Psykers on the table. A 3:
    side a (one Psychic Pilot, Mastery Level 2) has 5, side b (no Psyker) 3."""
    state = _in_psychic_phase(_psyker(), _marines(), d6=3)
    assert (pool(state, "a"), pool(state, "b")) == (5, 3)
    line = next(e for e in state.log if e.rule == "40k7 The Psychic Phase, Generating Warp Charge")
    assert line.values == {"roll": 3, "pool_a": 5, "pool_b": 3}


def test_psychic_pilot_without_a_level_is_mastery_level_1() -> None:
    """40k7 Special Rules, Psychic Pilot: "if no Mastery Level is shown then that vehicle has a
    Mastery Level of 1"; a 4 on the D6 gives side a 4 + 1."""
    assert mastery_level(_psyker(level="psychic_pilot")) == 1
    state = _in_psychic_phase(_psyker(level="psychic_pilot"), _marines(), d6=4)
    assert pool(state, "a") == 5


def test_without_a_psyker_the_psychic_phase_passes_at_once() -> None:
    """Decided (docs/rules-notes.md, 40k7 Psychic phase): a side with no Psyker goes straight from
    its Movement phase to its Shooting phase - no Warp Charge die is rolled."""
    state = make_state(vehicle("rhino", "a", 10, 24), _marines())
    res = act(state, "a", EndPhase(), [])
    assert res.state.phase == "shooting"
    assert res.texts == ["Movement phase over; shooting phase."]


def test_every_phase_after_movement_leads_where_the_full_order_leads() -> None:
    """40k7 The Psychic Phase comes after the Movement phase: the order without it differs only
    there, so the end of any other phase - with or without a Psyker - leads to the phase the full
    turn order gives, and only the end of the Movement phase asks about Psykers."""
    for units in ((vehicle("rhino", "a", 10, 24), _marines()), (_psyker(), _marines())):
        for phase in (*PHASES_40K7, "setup"):
            state = replace(make_state(*units), phase=phase)
            order = psychic.phase_order(state)
            if phase == "movement" and units[0].id == "rhino":
                assert order == psychic.PHASES_WITHOUT_PSYCHIC
                continue
            assert next_phase(state, order) == next_phase(state, PHASES_40K7), phase


def test_a_passed_psychic_test_can_be_denied() -> None:
    """40k7 Take Psychic Test: two dice expended, a 4 harnesses one point (Smite costs 1): passed.
    Deny the Witch: side b expends 2 of its 3 points; a 6 nullifies the one harnessed point: the
    power does not manifest and no Marine is hit."""
    state = _in_psychic_phase(_psyker(), _marines(), d6=3)
    res = act(state, "a", Manifest("pilot", "smite", "m", 2), [4, 2])
    pending = res.state.pending
    assert pending is not None and pending.kind == psychic.DECISION_DENY and pending.side == "b"
    assert pending.options == ("0", "1", "2", "3")
    assert pool(res.state, "a") == 3
    line = next(e for e in res.state.log if e.rule == "40k7 The Psychic Phase, Take Psychic Test")
    assert (line.values["harnessed"], line.values["passed"], line.values["sixes"]) == (1, True, 0)
    denied = act(res.state, "b", Decide(pending.id, "2"), [6, 5])
    assert denied.state.pending is None
    assert pool(denied.state, "b") == 1
    deny = next(
        e for e in denied.state.log if e.rule == "40k7 The Psychic Phase, Deny the Witch" and e.values
    )
    assert (deny.values["need"], deny.values["nullified"], deny.values["denied"]) == (6, 1, True)
    assert all(m.alive for m in denied.state.units["m"].models.values())


def test_an_undenied_witchfire_is_a_shooting_attack() -> None:
    """40k7 Witchfire: a psychic shooting attack with the power's profile. Side b does not try to
    Deny; Smite's 4 shots at BS4 hit on 3+ (3, 3, 1, 1: two hits), S4 against T4 wounds on 4+
    (4, 4), AP2 beats the Marines' 3+ armour: two Marines are removed; half the unit lost, it
    takes its Morale check at once (3 + 3 on Leadership 8: passed). The Marines stand equally
    close to the Psy-tank: side b chooses the model for each wound (40k7 Closest Models) and takes
    the proposal twice."""
    state = _in_psychic_phase(_psyker(), _marines(), d6=3)
    res = act(state, "a", Manifest("pilot", "smite", "m", 1), [5])
    assert res.state.pending is not None
    paused = act(res.state, "b", Decide(res.state.pending.id, "0"), [3, 3, 1, 1, 4, 4])
    again = take_proposal(paused.state, DECISION_ALLOCATE)
    done = take_proposal(again.state, DECISION_ALLOCATE, [3, 3])
    alive = [m for m in done.state.units["m"].models.values() if m.alive]
    assert len(alive) == 2
    assert any(e.text.startswith("Psy-tank manifests Smite") for e in done.state.log)
    assert done.state.phase == "psychic"  # 4 Warp Charge points left: the phase goes on


def test_a_failed_psychic_test_does_nothing_and_asks_no_denial() -> None:
    """40k7 Take Psychic Test: no 4+ among the dice - the test fails, the power does not manifest
    and the opponent is not asked to Deny the Witch."""
    state = _in_psychic_phase(_psyker(), _marines(), d6=3)
    res = act(state, "a", Manifest("pilot", "smite", "m", 2), [3, 1])
    assert res.state.pending is None
    assert pool(res.state, "a") == 3 and pool(res.state, "b") == 3


def test_an_empty_pool_ends_the_psychic_phase() -> None:
    """40k7 Generating Warp Charge: "if, after resolving a psychic action ... the player whose turn
    it is has 0 Warp Charge points remaining, the Psychic phase ends". A 1 on the D6: side a has
    1 + 2 = 3 points and expends all three on a failed test: the Shooting phase begins."""
    state = _in_psychic_phase(_psyker(), _marines(), d6=1)
    res = act(state, "a", Manifest("pilot", "smite", "m", 3), [1, 2, 3])
    assert res.state.phase == "shooting"
    assert pool(res.state, "b") == 0  # the pools are lost with the phase


def test_two_sixes_bring_perils_of_the_warp_a_glancing_hit_for_a_vehicle() -> None:
    """40k7 Perils of the Warp: two or more 6s, whether or not the test passed. A 4 on the table,
    Psychic Backlash: "1 Wound/glancing hit with no saves of any kind" - for a vehicle a glancing
    hit, one Hull Point. The power still manifests unless denied."""
    state = _in_psychic_phase(_psyker(), _marines(), d6=3)
    res = act(state, "a", Manifest("pilot", "smite", "m", 2), [6, 6, 4])
    assert res.state.units["pilot"].hp == 2
    assert res.state.pending is not None and res.state.pending.kind == psychic.DECISION_DENY
    perils = next(e for e in res.state.log if e.rule == "40k7 The Psychic Phase, Perils of the Warp")
    assert perils.values == {"result": 4, "name": "Psychic Backlash"}


def test_dragged_into_the_warp_destroys_the_vehicle_on_a_failed_leadership_test() -> None:
    """40k7 Perils of the Warp, 1 Dragged into the Warp: a Leadership test on the Psychic Pilot's
    Leadership 10 (40k7 Special Rules, Psychic Pilot); 6 + 5 = 11 fails: the vehicle is removed
    as a casualty (every Hull Point lost: destroyed). Its power was passed: side b may still deny."""
    assert PILOT_LEADERSHIP == 10
    state = _in_psychic_phase(_psyker(), _marines(), d6=3)
    res = act(state, "a", Manifest("pilot", "smite", "m", 2), [6, 6, 1, 6, 5], exact=False)
    assert res.state.units["pilot"].destroyed
    assert res.state.pending is not None


def test_dragged_into_the_warp_passed_is_a_glancing_hit() -> None:
    """40k7 Perils of the Warp, 1 Dragged into the Warp, Leadership test passed (5 + 5 = 10 on
    Leadership 10): the vehicle suffers a glancing hit."""
    state = _in_psychic_phase(_psyker(), _marines(), d6=3)
    res = act(state, "a", Manifest("pilot", "smite", "m", 2), [6, 6, 1, 5, 5])
    assert res.state.units["pilot"].hp == 2 and not res.state.units["pilot"].destroyed


def test_power_drain_costs_both_players_warp_charge() -> None:
    """40k7 Perils of the Warp, 3 Power Drain: a glancing hit, then a D3 (a 4 on the die: 2) -
    both players lose that many Warp Charge points. Side a had 5 - 3 expended = 2, side b 3."""
    state = _in_psychic_phase(_psyker(), _marines(), d6=3)
    res = act(state, "a", Manifest("pilot", "smite", "m", 3), [6, 6, 1, 3, 4])
    assert res.state.units["pilot"].hp == 2
    assert (pool(res.state, "a"), pool(res.state, "b")) == (0, 1)
    # The two 6s harnessed two points: the test passed and side b, with a point left, may deny.
    assert res.state.pending is not None


def test_mental_purge_loses_the_power_for_the_battle() -> None:
    """40k7 Perils of the Warp, 2 Mental Purge: a glancing hit and a randomly chosen power known to
    the Psyker is lost for the rest of the battle (one power: no die needed to choose)."""
    state = _in_psychic_phase(_psyker(), _marines(), d6=3)
    res = act(state, "a", Manifest("pilot", "smite", "m", 2), [6, 6, 2])
    assert res.state.units["pilot"].weapons["smite"].destroyed
    assert res.state.units["pilot"].hp == 2


def test_deny_the_witch_modifiers_for_a_psychic_target() -> None:
    """40k7 Deny the Witch modifiers: +1 for a target with Psychic Pilot, +1 for a Mastery Level
    higher than the manifesting Psyker's, +1 for Adamantium Will: each die nullifies on 3+."""
    enemy = vehicle("seer", "b", 20, 24, 180, keywords=("skimmer", "psychic_pilot:3", "adamantium_will"))
    state = _in_psychic_phase(_psyker(level="psychic_pilot:1"), enemy, d6=2)
    action = Manifest("pilot", "smite", "seer", 1)
    assert psychic.deny_target(state, action) == 3
    res = act(state, "a", action, [4])
    assert res.state.pending is not None
    assert pool(res.state, "b") == 5  # 2 + Mastery Level 3
    denied = act(res.state, "b", Decide(res.state.pending.id, "1"), [3])
    deny = next(
        e for e in denied.state.log if e.rule == "40k7 The Psychic Phase, Deny the Witch" and e.values
    )
    assert deny.values["denied"] is True


def test_manifesting_is_checked_against_the_rules() -> None:
    """40k7 Manifesting Psychic Powers: only in the Psychic phase, only by a Psyker, with 1 to the
    pool's dice, each power once per phase; a witchfire power is never fired in the Shooting phase."""
    state = _in_psychic_phase(_psyker(), _marines(), d6=3)
    assert rejected(state, "a", Manifest("pilot", "smite", "m", 6)).code == "not_enough_warp_charge"
    assert rejected(state, "a", Manifest("pilot", "smite", "m", 0)).code == "not_enough_warp_charge"
    assert rejected(state, "a", Manifest("pilot", "lance", "m", 1)).code == "unknown_power"
    once = act(state, "a", Manifest("pilot", "smite", "m", 1), [1]).state
    assert rejected(once, "a", Manifest("pilot", "smite", "m", 1)).code == "power_already_attempted"
    shooting = replace(state, phase="shooting")
    assert rejected(shooting, "a", Manifest("pilot", "smite", "m", 1)).code == "wrong_phase"
    assert rejected(shooting, "a", Shoot("pilot", (Fire("smite", "m"),))).code == "psychic_power"
    plain = make_state(vehicle("rhino", "a", 10, 24, weapons=(_smite(),)), _marines(), phase="psychic")
    assert rejected(plain, "a", Manifest("rhino", "smite", "m", 1)).code == "not_a_psyker"


def test_a_vehicle_that_moved_at_cruising_speed_manifests_witchfire_as_snap_shots() -> None:
    """40k7 Witchfire: "Psykers can make Snap Shots in the Psychic phase with witchfire powers in
    the same way as with other shooting weapons"; a vehicle at Cruising Speed may only make Snap
    Shots (40k7 Vehicles and Shooting)."""
    fast = replace(_psyker(), moved=9.0, turn_flags=("moved",))
    state = _in_psychic_phase(fast, _marines(), d6=3)
    refused = rejected(state, "a", Manifest("pilot", "smite", "m", 1))
    assert (refused.code, refused.values["reason"]) == ("must_snap", "moved at cruising speed")
    res = act(state, "a", Manifest("pilot", "smite", "m", 1, snap=True), [4])
    assert res.state.pending is not None


def test_the_other_editions_have_no_manifest() -> None:
    """hh3 and 40k11 have no Psychic phase here: manifest is unsupported."""
    from hulldown.match.editions import rules_for

    for edition in ("hh3", "40k11"):
        state = replace(make_state(_psyker(), _marines()), edition=edition)  # type: ignore[arg-type]
        rej = rules_for(edition).validate(state, "a", Manifest("pilot", "smite", "m", 1))
        assert rej is not None and rej.code == "unsupported_action"


def test_psychic_test_and_perils_frequencies_match_the_exact_odds() -> None:
    """40k7 Take Psychic Test over seeded dice (the match's HMAC dice, 4,000 attempts): three
    dice at Warp Charge 2 pass when two or more show 4+ - P = 4/8; Perils of the Warp when two
    or more show 6 - P = (3 * 5 + 1) / 216. Tolerance: 5 standard errors."""

    state = _in_psychic_phase(_psyker(), _marines(), d6=6)
    power = state.units["pilot"].weapons["smite"]
    state = _with_power(state, replace(power, rules=("witchfire:2",)))
    n = 4_000
    passed = perils = 0
    for i in range(n):
        ctx = ApplyContext(i, SeededDice(b"hulldown-40k7-psychic", "stats-psychic", i), 0)
        new = psychic.apply_manifest(state, "a", Manifest("pilot", "smite", "m", 3), ctx, lambda s, c: s)
        passed += new.pending is not None
        perils += any(e.rule == "40k7 The Psychic Phase, Perils of the Warp" for e in ctx.entries)
    for seen, p in ((passed, 4 / 8), (perils, 16 / 216)):
        assert abs(seen / n - p) <= 5 * math.sqrt(p * (1 - p) / n), (seen / n, p)


def _with_power(state: MatchState, power: Weapon) -> MatchState:
    unit = state.units["pilot"]
    return replace_unit(state, replace(unit, weapons={**unit.weapons, power.id: power}))


def test_deny_the_witch_modifiers_count_every_vehicle_of_a_target_squadron() -> None:
    """40k7 Deny the Witch: the modifiers apply when "the target unit contains one or more models
    with" Psychic Pilot, a higher Mastery Level, Adamantium Will; a vehicle squadron is a single
    unit (40k7 Vehicles, Vehicle Squadrons). Smite is aimed at the plain tank of side b's
    squadron, whose other tank has Psychic Pilot (Mastery Level 3) and Adamantium Will: each Deny
    the Witch die nullifies on 3+ (6 - 3). Side b expends 1 point: a 3 nullifies the one
    harnessed point and the power is denied."""
    plain = vehicle("tank1", "b", 20, 24, 180, squadron="sq")
    seer = vehicle(
        "tank2", "b", 20, 30, 180, squadron="sq", keywords=("tank", "psychic_pilot:3", "adamantium_will")
    )
    state = _in_psychic_phase(_psyker(level="psychic_pilot:1"), plain, seer, d6=2)
    action = Manifest("pilot", "smite", "tank1", 1)
    assert psychic.deny_target(state, action) == 3
    res = act(state, "a", action, [4])
    assert res.state.pending is not None
    denied = act(res.state, "b", Decide(res.state.pending.id, "1"), [3])
    deny = next(
        e for e in denied.state.log if e.rule == "40k7 The Psychic Phase, Deny the Witch" and e.values
    )
    assert (deny.values["need"], deny.values["denied"]) == (3, True)


def test_a_squadron_attempts_each_psychic_power_once_per_phase() -> None:
    """40k7 Manifesting Psychic Powers: "no unit can attempt to manifest the same psychic power
    more than once per Psychic phase"; a vehicle squadron is a single unit (40k7 Vehicles, Vehicle
    Squadrons). Two Psy-tanks of one squadron both know Smite: once the first has attempted it
    (a 1: failed), the second may not attempt Smite in the same phase."""
    first = _psyker("pilot", squadron="psy")
    second = vehicle(
        "pilot2",
        "a",
        10,
        30,
        name="Psy-tank 2",
        keywords=("tank", "psychic_pilot:2"),
        weapons=(_smite(),),
        squadron="psy",
    )
    state = _in_psychic_phase(first, second, _marines(), d6=3)
    once = act(state, "a", Manifest("pilot", "smite", "m", 1), [1]).state
    refused = rejected(once, "a", Manifest("pilot2", "smite", "m", 1))
    assert refused.code == "power_already_attempted"


def test_each_psychic_pilot_of_a_squadron_adds_its_mastery_level_to_the_pool() -> None:
    """40k7 Generating Warp Charge, decided (EACH_PILOT_GENERATES_WARP_CHARGE): a squadron of a
    Mastery Level 2 and a Mastery Level 1 Psychic Pilot adds 2 + 1; a 3 on the D6 gives side a 6.
    Counted once as a unit at its highest level it would be 5."""
    first = _psyker("p1", squadron="sq")
    second = replace(
        _psyker("p2", level="psychic_pilot", squadron="sq"),
        models={
            mid: replace(m, pos=replace(m.pos, y=30.0))
            for mid, m in _psyker("p2", squadron="sq").models.items()
        },
    )
    state = _in_psychic_phase(first, second, _marines(), d6=3)
    assert (pool(state, "a"), pool(state, "b")) == (6, 3)
