"""40k7 Vehicles, Tanks: Tank Shock, Death or Glory and Ramming."""

from __future__ import annotations

from hulldown.match.actions import Decide, EndPhase, Fire, Move, Shoot
from hulldown.match.state import Point
from hulldown.rules.wh40k7 import refs
from hulldown.rules.wh40k7.aside import DECISION_ASIDE
from hulldown.rules.wh40k7.geo import footprint, unit_distance
from hulldown.rules.wh40k7.ram import ram_strength

from .builders import act, flyer, infantry, krak, make_state, rejected, rhino, take_proposal, vehicle, weapon

R = 25.0 / 25.4 / 2


def test_tank_shock_morale_passed_death_or_glory_declined_models_move_aside() -> None:
    """Tank Shock: the unit reached takes a Morale check; passing, its owner may try Death or
    Glory (a pending decision); models left under the Tank are moved 1" clear."""
    tank = rhino("t", "a", 10, 24)
    squad = infantry("e", "b", [(18, 24), (18, 25.2)], ld=8)
    state = make_state(tank, squad)
    pending = act(state, "a", Move("t", (Point(18, 24),), kind="tank_shock"), [3, 3]).state
    d = pending.pending
    assert d is not None and d.side == "b" and d.kind == "death_or_glory"
    assert "e-0/close_combat" in d.options and "none" in d.options
    aside = act(pending, "b", Decide(d.id, "none")).state
    s = take_proposal(aside, DECISION_ASIDE).state  # their owner moves them aside
    assert s.units["t"].models["t-m"].pos == Point(18, 24) and s.units["t"].flag("tank_shock")
    hull = footprint(s.units["t"].models["t-m"])
    for m in s.units["e"].models.values():
        assert m.alive
        from hulldown.rules import geometry as g

        assert g.distance(hull, footprint(m)) >= 1.0 - 1e-6


def test_tank_shock_morale_failed_unit_falls_back() -> None:
    tank = rhino("t", "a", 10, 24)
    squad = infantry("e", "b", [(18, 24)], ld=7)
    state = make_state(tank, squad)
    # Morale 5 + 5 fails; Falls Back 2 + 2; the model is then moved aside by its owner
    paused = act(state, "a", Move("t", (Point(22, 24),), kind="tank_shock"), [5, 5, 2, 2]).state
    res = take_proposal(paused, DECISION_ASIDE)
    assert "falling_back" in res.state.units["e"].statuses
    assert res.state.units["t"].models["t-m"].pos == Point(22, 24)


def test_death_or_glory_stops_the_tank() -> None:
    """Death or Glory: one automatic hit on the front armour; Immobilised stops the Tank 1" short
    of the hero."""
    bombs = weapon("mb", "Melta bombs", 0, 8, 1, type="melee", rules=("armourbane", "grenade"))
    tank = rhino("t", "a", 10, 24)
    squad = infantry("e", "b", [(18, 24)], weapons=[(0, bombs)])
    state = make_state(tank, squad)
    pending = act(state, "a", Move("t", (Point(22, 24),), kind="tank_shock"), [2, 2]).state
    assert pending.pending is not None
    # penetration 3 + 2 (Armourbane) + 8 = 13 > AV11; damage 4 + 2 (AP1) = 6 Immobilised
    res = act(pending, "b", Decide(pending.pending.id, "e-0/mb"), [3, 2, 4])
    t = res.state.units["t"]
    assert "immobilised" in t.statuses and t.hp == 2
    assert (
        unit_distance(t, res.state.units["e"]) == 1.0
        or abs(unit_distance(t, res.state.units["e"]) - 1.0) < 1e-6
    )


def test_death_or_glory_failing_hero_is_crushed() -> None:
    tank = rhino("t", "a", 10, 24)
    squad = infantry("e", "b", [(18, 24), (18, 30)])
    state = make_state(tank, squad)
    pending = act(state, "a", Move("t", (Point(22, 24),), kind="tank_shock"), [2, 2]).state
    assert pending.pending is not None
    res = act(pending, "b", Decide(pending.pending.id, "e-0/close_combat"), [1])  # 4 + 1 = 5 < 11
    assert not res.state.units["e"].models["e-0"].alive
    assert res.state.units["t"].models["t-m"].pos == Point(22, 24)


def test_tank_shock_stops_1_inch_short_of_friendly_models() -> None:
    tank = rhino("t", "a", 10, 24)
    state = make_state(tank, infantry("f", "a", [(18, 24)]))
    res = act(state, "a", Move("t", (Point(22, 24),), kind="tank_shock"))
    assert abs(unit_distance(res.state.units["t"], res.state.units["f"]) - 1.0) < 1e-6


def test_tank_shock_restrictions() -> None:
    """Only Tanks; one straight move that goes somewhere; no Flat Out after a Tank Shock."""
    state = make_state(vehicle("v", "a", 10, 24, keywords=("fast",)), rhino("t", "a", 10, 40))
    assert rejected(state, "a", Move("v", (Point(16, 24),), kind="tank_shock")).code == "not_a_tank"
    assert (
        rejected(state, "a", Move("t", (Point(14, 40), Point(16, 42)), kind="tank_shock")).code
        == "not_straight"
    )
    assert rejected(state, "a", Move("t", (Point(10, 40),), kind="tank_shock")).code == "must_move"
    after = act(state, "a", Move("t", (Point(16, 40),), kind="tank_shock")).state
    after = act(after, "a", EndPhase()).state
    assert rejected(after, "a", Move("t", (Point(20, 40),), kind="flat_out")).code == "tank_shocked"


def test_a_walker_is_refused_tank_shock_as_not_a_tank_without_flyers() -> None:
    """40k7 Vehicles, Tanks: Tank Shock and Ramming are for Tanks only. A Walker's refusal says so
    and does not speak of Flyers; a Zooming Flyer Tank is refused under the Flyers' rule."""
    walker = vehicle("w", "a", 10, 24, name="Dreadnought", keywords=("walker",), kind="walker")
    state = make_state(walker, rhino("t", "b", 40, 24))
    for kind, rule in (("tank_shock", refs.TANK_SHOCK), ("ram", refs.RAM)):
        refusal = rejected(state, "a", Move("w", (Point(16, 24),), kind=kind))
        assert refusal.code == "not_a_tank"
        assert refusal.rule == rule
        assert "Flyer" not in refusal.message
        assert "Dreadnought is not a Tank" in refusal.message
    zooming = make_state(vehicle("f", "a", 10, 24, keywords=("flyer", "tank")), rhino("t", "b", 40, 24))
    refusal = rejected(zooming, "a", Move("f", (Point(30, 24),), kind="tank_shock"))
    assert (refusal.code, refusal.rule) == ("not_a_tank", refs.FLYER)
    assert "Zooming Flyer" in refusal.message


def test_ram_strength() -> None:
    """40k7 Ramming: a Land Raider (front 14, Tank) hits with S8; a Trukk's side 10 hits back
    with S5; Heavy adds 2 instead of 1 (not both)."""
    lr = vehicle("lr", "a", 0, 0, armour=(14, 14, 14), keywords=("tank",))
    trukk = vehicle("tr", "b", 0, 0, armour=(10, 10, 10), keywords=("fast", "open-topped"))
    heavy_tank = vehicle("h", "a", 0, 0, armour=(14, 13, 10), keywords=("tank", "heavy"))
    assert ram_strength(lr, "front") == 8
    assert ram_strength(trukk, "side") == 5
    assert ram_strength(heavy_tank, "front") == 9


def test_ram_collision_both_roll_and_rammer_halts_and_snaps() -> None:
    lr = vehicle("lr", "a", 10, 24, armour=(14, 14, 14), keywords=("tank",), weapons=(krak(),))
    trukk = vehicle("tr", "b", 20, 24, 90, armour=(10, 10, 10), keywords=("fast",))
    state = make_state(lr, trukk)
    # S8 on the Trukk's side: 3 -> 11 penetrating, damage 1 (Shaken); S5 on the front AV14: 6 -> none
    res = act(state, "a", Move("lr", (Point(22, 24),), kind="ram"), [3, 1, 6])
    s = res.state
    assert s.units["tr"].hp == 2 and "shaken" in s.units["tr"].statuses
    assert s.units["lr"].hp == 3
    assert s.units["lr"].models["lr-m"].pos.x == 16.0 or abs(s.units["lr"].models["lr-m"].pos.x - 16.0) < 1e-6
    assert s.units["lr"].flag("rammed")
    after = act(s, "a", EndPhase()).state
    assert rejected(after, "a", Shoot("lr", (Fire("krak", "tr"),))).values["reason"] == "rammed"


def test_zooming_flyer_cannot_be_rammed() -> None:
    state = make_state(rhino("t", "a", 10, 24), flyer("f", "b", 20, 24))
    assert rejected(state, "a", Move("t", (Point(22, 24),), kind="ram", target="f")).code == "bad_ram_target"


def test_super_heavy_thunderblitz_kerr_runch() -> None:
    """40k7 Super-heavy Thunderblitz: before the Morale check, 2-5 = D6 S6 AP4 hits."""
    sh = vehicle("sh", "a", 10, 24, hp=9, keywords=("super-heavy", "tank"), length=6, width=4)
    squad = infantry("e", "b", [(20, 24)], sv=None, t=3)
    state = make_state(sh, squad)
    res = act(state, "a", Move("sh", (Point(20, 24),), kind="tank_shock"), [3, 1, 6])
    assert res.state.units["e"].destroyed
    assert res.rolls[0].purpose == "Thunderblitz (Tank Shock)"


def test_death_or_glory_hits_the_tank_shocking_member_of_a_squadron() -> None:
    """40k7 Tanks, Death or Glory: the hero's attack hits the Tank that Tank Shocked it, even in
    a squadron whose other member is closer to the hero's unit (no squadron allocation)."""
    bombs = weapon("mb", "Melta bombs", 0, 8, 1, type="melee", rules=("armourbane", "grenade"))
    shocker = rhino("ta", "a", 10, 24, squadron="sq")
    mate = rhino("tb", "a", 10, 30, squadron="sq")
    squad = infantry("e", "b", [(18, 24), (15.5, 30)], weapons=[(0, bombs)])
    pending = act(
        make_state(shocker, mate, squad), "a", Move("ta", (Point(22, 24),), kind="tank_shock"), [2, 2]
    )
    decision = pending.state.pending
    assert decision is not None
    # penetration 3 + 2 (Armourbane) + 8 = 13 > AV11; damage 4 + 2 (AP1) = 6: Immobilised
    res = act(pending.state, "b", Decide(decision.id, "e-0/mb"), [3, 2, 4])
    ta, tb = res.state.units["ta"], res.state.units["tb"]
    assert ta.hp == 2 and "immobilised" in ta.statuses
    assert tb.hp == 3 and not tb.statuses
    assert abs(unit_distance(ta, res.state.units["e"]) - 1.0) < 1e-6  # stopped 1" short
    assert res.state.units["e"].models["e-0"].alive


def test_ram_hits_the_rammed_member_of_a_squadron() -> None:
    """40k7 Tanks, Ramming: the rammed vehicle takes the hit, not the closest member of its
    squadron; the rammer takes the hit back on its own front."""
    lr = vehicle("lr", "a", 10, 24, armour=(14, 14, 14), keywords=("tank",), squadron="ours")
    lr_mate = vehicle("lr2", "a", 10, 29, armour=(14, 14, 14), keywords=("tank",), squadron="ours")
    rammed = vehicle("tr", "b", 20, 24, 90, armour=(10, 10, 10), keywords=("fast",), squadron="theirs")
    # 2" from the rammer's hull centre at the moment of impact, the rammed Trukk 2.25"
    closer = vehicle("tr2", "b", 16, 27.75, 0, armour=(10, 10, 10), keywords=("fast",), squadron="theirs")
    state = make_state(lr, lr_mate, rammed, closer)
    # S8 on the Trukk's side: 3 -> 11 penetrating, damage 1 (Shaken); S5 on the front AV14: 6 -> none
    res = act(state, "a", Move("lr", (Point(22, 24),), kind="ram"), [3, 1, 6])
    s = res.state
    assert s.units["tr"].hp == 2 and "shaken" in s.units["tr"].statuses
    assert s.units["tr2"].hp == 3 and not s.units["tr2"].statuses
    assert s.units["lr"].hp == 3 and s.units["lr2"].hp == 3


def test_death_or_glory_crew_stunned_does_not_stop_a_super_heavy() -> None:
    """40k7 Super-heavy Vehicles ignore Crew Stunned, so a Stunned result from Death or Glory
    does not stop the Super-heavy's Tank Shock (Tanks: only a Stunned, Immobilised, Wrecked or
    Explodes! result stops the Tank): it loses the Hull Point and crushes the hero."""
    bombs = weapon("mb", "Melta bombs", 0, 8, 1, type="melee", rules=("armourbane", "grenade"))
    sh = vehicle(
        "bb", "a", 10, 24, keywords=("super-heavy", "tank"), armour=(14, 13, 12), hp=9, length=7, width=4.5
    )
    squad = infantry("e", "b", [(20, 24)], weapons=[(0, bombs)])
    # Thunderblitz 1 (nothing), Morale check 2 + 2: passed
    pending = act(make_state(sh, squad), "a", Move("bb", (Point(22, 24),), kind="tank_shock"), [1, 2, 2])
    decision = pending.state.pending
    assert decision is not None
    # penetration 6 + 6 (Armourbane) + 8 = 20 > AV14; damage 2 + 2 (AP1) = 4: Crew Stunned, ignored
    res = act(pending.state, "b", Decide(decision.id, "e-0/mb"), [6, 6, 2])
    bb = res.state.units["bb"]
    assert bb.hp == 8 and not bb.statuses
    assert bb.models["bb-m"].pos == Point(22, 24)
    assert not res.state.units["e"].models["e-0"].alive


def test_death_or_glory_choice_with_a_slash_in_the_model_id() -> None:
    """The reducer is total (docs/architecture.md section 3): a Death or Glory option
    "<model>/<weapon>" is resolved even when the scenario's model id itself contains a "/"."""
    tank = rhino("t", "a", 10, 24)
    squad = infantry("e/1", "b", [(18, 24), (18, 30)])
    pending = act(make_state(tank, squad), "a", Move("t", (Point(22, 24),), kind="tank_shock"), [2, 2]).state
    assert pending.pending is not None and "e/1-0/close_combat" in pending.pending.options
    res = act(pending, "b", Decide(pending.pending.id, "e/1-0/close_combat"), [1])  # 4 + 1 = 5 < 11
    assert not res.state.units["e/1"].models["e/1-0"].alive


def test_tank_shock_stops_short_of_an_enemy_unit_locked_in_combat() -> None:
    """40k7 Vehicles, Tanks: Tank Shock - "a Tank Shock cannot be attempted against enemies that
    are locked in combat". The enemy squad e is locked with the Tank's friends f (e-1 in base
    contact with f-0, both off the Tank's path); e-0 stands in the path. The Rhino (front at
    x = 12.25) does not Tank Shock e - no Morale check is rolled - and stops 1" short of e-0
    (its base edge at x = 18 - R): its centre ends at 18 - R - 1 - 2.25."""
    tank = rhino("t", "a", 10, 24)
    locked = infantry("e", "b", [(18, 24), (18, 26.5)], ld=7)
    friends = infantry("f", "a", [(18, 26.5 + 2 * R)])
    state = make_state(tank, locked, friends)
    res = act(state, "a", Move("t", (Point(22, 24),), kind="tank_shock"), [])
    pos = res.state.units["t"].models["t-m"].pos
    assert abs(pos.x - (18 - R - 1 - 2.25)) < 1e-6 and pos.y == 24
    assert not any(r.purpose.startswith("Morale") for r in res.rolls)
    assert "falling_back" not in res.state.units["e"].statuses
    assert all(m.alive for m in res.state.units["e"].models.values())


def test_ram_stops_short_of_a_walker_locked_in_combat() -> None:
    """40k7 Vehicles, Tanks: Ramming is a Tank Shock, and "a Tank Shock cannot be attempted
    against enemies that are locked in combat" (LOCKED_UNITS_STOP_THE_TANK: a Ram likewise). The
    enemy Walker w (hull x 17.75-22.25 about its centre at 20) is locked with the rammer's friends
    f (in base contact with its side, off the rammer's path). The Land Raider (front at x = 12.25)
    rolls no ram dice and stops 1" short of the Walker's rear: its centre ends at 17.75 - 1 - 2.25.
    It had rammed the Walker, a vehicle locked in combat."""
    lr = vehicle("lr", "a", 10, 24, armour=(14, 14, 14), keywords=("tank",), weapons=(krak(),))
    walker = vehicle(
        "w", "b", 20, 24, armour=(12, 12, 10), keywords=("walker",), kind="walker", ws=4, s=6, a=2
    )
    friends = infantry("f", "a", [(20, 24 + 1.75 + R)])
    state = make_state(lr, walker, friends)
    res = act(state, "a", Move("lr", (Point(22, 24),), kind="ram"), [])
    pos = res.state.units["lr"].models["lr-m"].pos
    assert abs(pos.x - (17.75 - 1 - 2.25)) < 1e-6 and pos.y == 24
    assert not res.rolls
    assert res.state.units["w"].hp == 3 and res.state.units["lr"].hp == 3  # no collision


def test_a_tank_shock_cut_short_by_a_friendly_unit_says_why() -> None:
    """40k7 Vehicles, Tanks: Tank Shock - the Tank stops 1" short of friendly models. A Rhino
    declared a 12" Tank Shock at an enemy squad with its own squad 5" ahead: the log said only
    "Rhino ends its Tank Shock after 4.0 in." - as if the move had been declared that short. It
    names what stopped it."""
    tank = rhino("t", "a", 10, 24)
    friends = infantry("f", "a", [(17.25 + R, 24)], name="Tactical Squad")
    foes = infantry("e", "b", [(24, 24)], name="Boyz")
    state = make_state(tank, friends, foes)
    res = act(state, "a", Move("t", (Point(22, 24),), kind="tank_shock"), [])
    assert abs(res.state.units["t"].models["t-m"].pos.x - 14.0) < 1e-6
    assert any(
        'ends its Tank Shock after 4.0 in of the 12.0 in declared: it stops 1" short of Tactical Squad, a friendly unit.'
        in t
        for t in res.texts
    ), res.texts
