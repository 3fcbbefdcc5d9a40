"""40k7 close combat against vehicles (40k7 Vehicles and Close Combat), charges and Overwatch."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Charge, Decide, EndPhase, Fight
from hulldown.match.state import Options
from hulldown.rules.wh40k7.geo import unit_distance

from .builders import act, charge, dreadnought, flyer, infantry, make_state, rejected, rhino, vehicle, weapon

R = 25.0 / 25.4 / 2  # radius of a 25 mm base


def _fist_marines_on_rhino_rear(n: int = 2):  # type: ignore[no-untyped-def]
    fist = weapon("fist", "Power fist", 0, 8, 2, type="melee")
    pos = [(27.75 - R, 24.0 + k * 1.1) for k in range(n)]
    squad = infantry("m", "a", pos, weapons=[(k, fist) for k in range(n)])
    return make_state(squad, rhino("r", "b", 30, 24, 0), phase="assault")


def test_glancing_counts_1_penetrating_2_and_a_losing_vehicle_does_nothing() -> None:
    """40k7 Vehicles and Close Combat: each glancing hit counts 1 wound, each penetrating hit 2; a
    vehicle that loses does nothing (no Morale check, no sweeping)."""
    fist = weapon("fist", "Power fist", 0, 8, 2, type="melee")
    squad = infantry("m", "a", [(27.75 - R, 24.0), (27.75 - R, 25.1)], weapons=[(0, fist), (1, fist)], i=1)
    state = make_state(squad, rhino("r", "b", 30, 24, 0), phase="assault")
    # to hit 3, 3 (3+ vs WS1); penetration 2 (10 glancing), 3 (11 penetrating); damage 1 (+1 AP2)
    res = act(state, "a", Fight("m", "r", "fist"), [3, 3, 2, 3, 1])
    assert any(t == "Assault result: m 3, Rhino 0." for t in res.texts)
    assert any("vehicle and loses the combat: nothing happens" in t for t in res.texts)
    assert res.state.units["r"].hp == 1


def test_vehicles_cannot_charge_but_walkers_can() -> None:
    """40k7 Vehicles and Close Combat: vehicles cannot charge (Walkers and Chariots can)."""
    tank = rhino("t", "a", 10, 24)
    walker = dreadnought("w", "a", 10, 10)
    chariot = vehicle("c", "a", 10, 40, keywords=("chariot",), ws=4, s=5, i=4, a=2)
    enemy = infantry("e", "b", [(16, 24), (16, 10), (16, 40)])
    state = make_state(tank, walker, chariot, enemy, phase="assault")
    assert rejected(state, "a", Charge("t", "e")).code == "vehicle_cannot_charge"
    assert validate_ok(state, "a", Charge("w", "e"))
    assert validate_ok(state, "a", Charge("c", "e"))


def validate_ok(state, side, action) -> bool:  # type: ignore[no-untyped-def]
    from hulldown.match.validate import validate

    return validate(state, side, action) is None


def test_charging_a_tank_no_overwatch_then_contact() -> None:
    """Vehicles do not fire Overwatch (40k7 Vehicles and Close Combat); a successful 2D6 charge ends
    in contact."""
    squad = infantry("m", "a", [(20, 24)])
    state = make_state(squad, rhino("r", "b", 30, 24, 0), phase="assault")
    res = charge(state, "a", Charge("m", "r"), [4, 4])
    assert res.state.pending is None
    assert unit_distance(res.state.units["m"], res.state.units["r"]) < 0.01


def test_failed_charge_does_not_move() -> None:
    squad = infantry("m", "a", [(20, 24)])
    state = make_state(squad, rhino("r", "b", 30, 24, 0), phase="assault")
    res = act(state, "a", Charge("m", "r"), [2, 3])
    assert res.state.units["m"].models["m-0"].pos == state.units["m"].models["m-0"].pos
    assert rejected(res.state, "a", Charge("m", "r")).code == "cannot_charge"


def test_charge_longer_than_12_rejected() -> None:
    state = make_state(infantry("m", "a", [(10, 24)]), rhino("r", "b", 30, 24, 0), phase="assault")
    rej = rejected(state, "a", Charge("m", "r"))
    assert rej.code == "too_far_to_charge" and rej.values["distance"] == 17.26


def test_walker_may_fire_overwatch_owner_decides() -> None:
    """40k7 Walkers may fire Overwatch: the charged unit's owner decides (pending decision)."""
    gun = weapon("hb", "Heavy bolter", 36, 5, 4, shots=3)
    walker = dreadnought("w", "b", 30, 24, 180, weapons=(gun,))
    state = make_state(infantry("m", "a", [(22, 24)], t=4, sv=3), walker, phase="assault")
    pending = act(state, "a", Charge("m", "w")).state
    assert pending.pending is not None and pending.pending.side == "b" and pending.pending.kind == "overwatch"
    # Overwatch: 3 snap shots (6, 1, 1): one hit, wound 2 fails; then the charge roll 4 + 3 >= 6.26
    res = charge(pending, "b", Decide(pending.pending.id, "overwatch"), [6, 1, 1, 2, 4, 3])
    assert res.rolls[0].target == "6+"
    assert res.state.units["w"].flag("overwatched")
    assert unit_distance(res.state.units["m"], res.state.units["w"]) < 0.01


def test_walker_hit_on_front_armour_with_its_ws_and_fights_back() -> None:
    """40k7 Walkers: close combat hits on the front armour; the Walker strikes back like Infantry."""
    walker = dreadnought("w", "b", 30, 24, 180, a=1)
    fist = weapon("fist", "Power fist", 0, 8, 2, type="melee")
    squad = infantry("m", "a", [(31.25 + R, 24)], weapons=[(0, fist)], i=4)
    state = make_state(squad, walker, phase="assault")
    # Initiative 4: marine to hit 4 (WS4 vs WS4: 4+), walker to hit 4; then pen vs front AV12: 4 -> 12
    # glancing; walker wounds: 6, save 1 (S6 vs T4 2+, AP- 3+ save).
    res = act(state, "a", Fight("m", "w", "fist"), [4, 4, 4, 6, 1])
    pen = [r for r in res.rolls if r.purpose == "armour penetration"]
    assert pen[0].target == "S8 vs front AV12"
    assert res.state.units["m"].destroyed
    assert any(t.startswith("Assault result: m 1, w 1.") for t in res.texts)


def test_enemy_in_contact_may_attack_vehicle_again_in_vehicle_owners_turn() -> None:
    """40k7 Vehicles and Close Combat: models still in base contact may attack the vehicle again in
    its owner's Assault phase - their owner decides."""
    state = _fist_marines_on_rhino_rear(1)
    state = replace(state, active="b")
    pending = act(state, "b", EndPhase()).state
    assert (
        pending.pending is not None
        and pending.pending.side == "a"
        and pending.pending.kind == "attack_vehicle"
    )
    res = act(pending, "a", Decide(pending.pending.id, "attack"), [1])
    assert res.state.pending is None and res.state.active == "a" and res.state.phase == "movement"


def test_fight_needs_base_contact() -> None:
    state = make_state(infantry("m", "a", [(20, 24)]), rhino("r", "b", 30, 24, 0), phase="assault")
    rej = rejected(state, "a", Fight("m", "r"))
    assert rej.code == "not_in_contact" and rej.values["distance"] == 7.26


def test_vehicle_is_never_locked_in_combat() -> None:
    """40k7 Vehicles and Close Combat: vehicles are never locked in combat: the Rhino may drive away."""
    from hulldown.match.actions import Move
    from hulldown.match.state import Point

    state = _fist_marines_on_rhino_rear(1)
    state = replace(state, active="b", phase="movement")
    act(state, "b", Move("r", (Point(38, 24),)))


def test_cannot_charge_zooming_flyer() -> None:
    state = make_state(infantry("m", "a", [(20, 24)]), flyer("f", "b", 25, 24), phase="assault")
    assert rejected(state, "a", Charge("m", "f")).code == "cannot_charge_flyer"


def test_walker_wins_forces_morale_and_sweeps() -> None:
    """A vehicle that wins forces a Morale check at -difference (40k7 Vehicles and Close Combat); a
    Walker may make a Sweeping Advance (D6 + I each; the loser is destroyed if caught)."""
    walker = dreadnought("w", "b", 30, 24, 180, ws=5)
    squad = infantry("m", "a", [(31.25 + R, 24), (31.25 + R, 25.1)], i=3, ld=8)
    # Both Marines touch the hull: equally close, side a would choose (40k7 Closest Models);
    # auto_decide takes the proposal, m-0.
    state = replace(make_state(squad, walker, phase="assault"), options=Options(auto_decide=True))
    # I4 walker: to hit 3, 1 (3+); wound 2 (2+); save 2 (3+) fails -> 1 casualty.
    # I3 marine: to hit 1 (4+) misses. Result 1-0: Morale at Ld 8 - 1: 6 + 5 fails.
    # Sweeping Advance: walker 4 + I4 = 8 >= marines 1 + I3 = 4 -> destroyed.
    res = act(state, "a", Fight("m", "w"), [3, 1, 2, 2, 1, 6, 5, 4, 1])
    morale = [r for r in res.rolls if r.purpose == "Morale check"]
    assert morale[0].target == "2D6 <= 7"
    assert res.state.units["m"].destroyed


def test_fight_only_with_a_working_close_combat_weapon_of_the_unit() -> None:
    """40k7 The Assault Phase, Fight: models attack with close combat weapons; a ranged weapon
    (a lascannon's S9 AP2), a destroyed weapon or another unit's weapon is refused."""
    fist = weapon("fist", "Power fist", 0, 8, 2, type="melee")
    las = weapon("las", "Lascannon", 48, 9, 2)
    squad = infantry("m", "a", [(27.75 - R, 24.0)], weapons=[(0, fist), (0, las)])
    broken = replace(squad, weapons={**squad.weapons, "fist": replace(squad.weapons["fist"], destroyed=True)})
    state = make_state(squad, rhino("r", "b", 30, 24, 0), phase="assault")
    rej = rejected(state, "a", Fight("m", "r", "las"))
    assert rej.code == "not_melee" and rej.values["weapon"] == "las"
    assert "Lascannon" in rej.message
    assert rejected(state, "a", Fight("m", "r", "sword")).code == "unknown_weapon"
    state = make_state(broken, rhino("r", "b", 30, 24, 0), phase="assault")
    assert rejected(state, "a", Fight("m", "r", "fist")).code == "unknown_weapon"


def test_a_vehicle_does_not_start_a_fight() -> None:
    """40k7 Vehicles and Close Combat: vehicles (not Walkers or Chariots) make no close combat attacks, so a
    Rhino cannot start a Fight with the Infantry in contact with it: whether that Infantry
    attacks it again is its own owner's choice (the attack_vehicle decision)."""
    squad = infantry("m", "b", [(27.75 - R, 24.0)])
    state = make_state(squad, rhino("r", "a", 30, 24, 0), phase="assault")
    rej = rejected(state, "a", Fight("r", "m"))
    assert rej.code == "cannot_fight" and rej.values == {"unit": "r"}


def test_wall_of_death_ignores_cover() -> None:
    """40k7 Special Rules, Template Weapon: Template weapons have the Ignores Cover and Wall of
    Death special rules. A Dreadnought's heavy flamer fires Wall of Death at a Marine charging out
    of a low wall (4+ cover, not blocking sight; no armour save): D3 1 -> 1 hit, wound 6 (S5 vs T4): no cover save - the
    Marine is slain and the charge goes no further. It used to roll its 4+ cover save."""
    from .builders import ruin

    flamer = weapon("fl", "Heavy flamer", 8, 5, 4, type="assault", rules=("template",))
    walker = dreadnought("w", "b", 30, 24, 180, weapons=(flamer,))
    marine = infantry("m", "a", [(22, 24)], t=4, sv=None)
    state = make_state(
        marine, walker, terrain=[ruin("ruin", 21, 23, 23, 25, save=4, kinds=("cover",))], phase="assault"
    )
    pending = act(state, "a", Charge("m", "w")).state
    assert pending.pending is not None and pending.pending.kind == "overwatch"
    res = act(pending, "b", Decide(pending.pending.id, "overwatch"), [1, 6])
    assert "cover save" not in [r.purpose for r in res.rolls]
    assert res.state.units["m"].destroyed


def test_each_model_strikes_with_the_weapon_it_carries() -> None:
    """40k7 The Assault Phase, Fight Sub-phase: a model attacks with a close combat weapon it
    carries; the others in the unit do not borrow it. Three Ork Boyz (WS4 S3 A1) in base contact
    with a Rhino's rear (AV10); only the Nob (b-0) carries a power klaw (S8 AP2). To hit 3, 3, 3
    (WS4 vs WS1: 3+): the klaw's hit 2 + 8 = 10 glancing; the two Boyz' plain hits 6 + 3 = 9 and
    6 + 3 = 9: no effect. The Rhino loses one Hull Point; assault result 1 - 0."""
    klaw = weapon("klaw", "Power klaw", 0, 8, 2, type="melee")
    pos = [(27.75 - R, 24.0 + k * 1.1) for k in range(3)]
    boyz = infantry("b", "a", pos, s=3, weapons=[(0, klaw)])
    state = make_state(boyz, rhino("r", "b", 30, 24, 0), phase="assault")
    res = act(state, "a", Fight("b", "r", "klaw"), [3, 3, 3, 2, 6, 6])
    pen = [r.target for r in res.rolls if r.purpose == "armour penetration"]
    assert pen == ["S8 vs rear AV10", "S3 vs rear AV10", "S3 vs rear AV10"]
    assert res.state.units["r"].hp == 2
    assert "Assault result: b 1, Rhino 0." in res.texts
    # No weapon named: the same - the Nob his klaw, the Boyz their bare hands.
    res = act(state, "a", Fight("b", "r"), [3, 3, 3, 2, 6, 6])
    assert [r.target for r in res.rolls if r.purpose == "armour penetration"] == pen


def test_walker_gains_a_bonus_attack_for_each_melee_weapon_after_the_first() -> None:
    """40k7 Walkers, Walkers and Assaults: "If a Walker is armed with two or more Melee weapons, it
    gains +1 bonus Attack for each additional weapon after the first"; a destroyed one no longer
    counts. A Dreadnought (WS4 A2) with two Dreadnought close combat weapons in base contact with
    a Rhino's rear makes 2 + 1 = 3 attacks: to hit 1, 1, 1 (3+ against WS1) - all miss. With one
    of the two destroyed (Weapon Destroyed) it makes 2; Crew Stunned as well, 2 + 1 - 1 = 2."""
    dccw = weapon("dccw", "Dreadnought close combat weapon", 0, 10, 2, type="melee")
    dread = dreadnought("d", "a", 27.75 - 1.25 - 0.001, 24, 0, weapons=(dccw, replace(dccw, id="dccw2")))
    state = make_state(dread, rhino("r", "b", 30, 24, 0), phase="assault")
    res = act(state, "a", Fight("d", "r"), [1, 1, 1])
    strikes = [
        e.values
        for e in res.state.log
        if e.rule == "40k7 The Assault Phase, Roll To Hit (Weapon Skill table)"
    ]
    assert [(v["attacks"], v["hits"]) for v in strikes] == [(3, 0)]
    broken = replace(
        dread, weapons={**dread.weapons, "dccw2": replace(dread.weapons["dccw2"], destroyed=True)}
    )
    res = act(make_state(broken, rhino("r", "b", 30, 24, 0), phase="assault"), "a", Fight("d", "r"), [1, 1])
    assert [r.purpose for r in res.rolls] == ["close combat to hit"] * 2
    stunned = replace(dread, statuses={"stunned": 3})
    res = act(make_state(stunned, rhino("r", "b", 30, 24, 0), phase="assault"), "a", Fight("d", "r"), [1, 1])
    assert [r.purpose for r in res.rolls] == ["close combat to hit"] * 2
