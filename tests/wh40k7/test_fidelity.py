"""Rules fidelity (40k7, seed 001 and the published 7th edition rules): the audited readings,
each with fixed dice."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Charge, EndPhase, Fight, Fire, Move, Pivot, Shoot
from hulldown.match.state import Mount, Options, Point
from hulldown.match.validate import validate
from hulldown.rules import geometry as g
from hulldown.rules.wh40k7.blasts import models_under_circle, models_under_shape, template_polygon
from hulldown.rules.wh40k7.geo import CONTACT_EPS, footprint, model_distance
from hulldown.rules.wh40k7.survivors import DECISION_SURVIVORS

from .builders import (
    act,
    charge,
    dreadnought,
    end_phases,
    flyer,
    infantry,
    krak,
    lascannon,
    make_state,
    predator,
    rejected,
    rhino,
    ruin,
    speeder,
    take_proposal,
    vehicle,
    weapon,
)


def _bolter(wid: str = "bolter"):
    return weapon(wid, "Boltgun", 24, 4, 5, type="assault")


# --- 1. Obscured, for a unit: the majority counts every firing model, hit or miss ---------------


def _marines_and_rhino(weapons):
    """Three Marines 20" in front of a Rhino whose front is half hidden (behind a ruin) from the
    two at y 23 and 24 and wholly seen from the one at y 33."""
    marines = infantry("m", "a", [(10, 23), (10, 24), (10, 33)], weapons=weapons)
    target = rhino("rhino", "b", 30, 24, 180)
    return make_state(marines, target, terrain=[ruin("ruin", 20, 20, 22, 24, save=4)], phase="shooting")


def test_obscured_majority_counts_firers_that_missed() -> None:
    """40k7 Vehicles, Obscured Targets (seed 001): "obscured only if it is 25% hidden from the
    majority of the firing models that are able to damage the vehicle". Two of the three krak
    missiles miss; the one that hits is fired from the clear view, but the Rhino is hidden from
    two of the three firing models: it is obscured and takes its 4+ cover save (saved on a 4)."""
    state = _marines_and_rhino([(0, krak()), (1, krak()), (2, krak())])
    fire = (Fire("krak", "rhino"), Fire("krak-1", "rhino"), Fire("krak-2", "rhino"))
    # to hit 1, 1 (the two hidden models miss), 6 (the clear one hits); penetration 4 (8 + 4 =
    # 12 > AV11); cover save 4: saved - no Hull Point lost, no damage roll.
    res = act(state, "a", Shoot("m", fire), [1, 1, 6, 4, 4])
    assert res.state.units["rhino"].hp == 3
    line = next(e for e in res.state.log if e.seq == res.state.seq and "obscured" in e.text)
    assert line.values["firers_counted"] == 3
    assert line.values["firers_hidden_from"] == 2
    assert line.values["firer_positions"] == ["(10.0, 23.0)", "(10.0, 24.0)", "(10.0, 33.0)"]
    assert line.values["saved"] is True


def test_obscured_majority_leaves_out_firers_unable_to_damage() -> None:
    """Same position; the two hidden Marines carry boltguns (S4: 4 + 6 = 10 < AV11, they cannot
    damage the Rhino), so only the clear krak missile counts: not obscured, no cover save."""
    state = _marines_and_rhino([(0, _bolter()), (1, _bolter("bolter-1")), (2, krak())])
    fire = (Fire("bolter", "rhino"), Fire("bolter-1", "rhino"), Fire("krak", "rhino"))
    # to hit: 1 shot each (Assault 1 boltguns): 1, 1, 6; penetration 4 -> 12 penetrating; damage 1.
    res = act(state, "a", Shoot("m", fire), [1, 1, 6, 4, 1])
    assert res.state.units["rhino"].hp == 2
    assert not any(r.purpose == "cover save" for r in res.rolls)


# --- 2. Terrain the vehicle stands in still hides it --------------------------------------------


def test_terrain_overlapping_the_hull_still_obscures_when_it_hides_25_percent() -> None:
    """40k7 Vehicles, Obscured Targets: "not obscured simply for being inside terrain ... the 25%
    rule takes precedence". The ruin under the Rhino's nose runs 1.75" out in front of its front
    and hides half of it (y 22.25-24 of 22.25-25.75) from the lascannon: obscured, 4+ save."""
    shooter = vehicle("dev", "a", 10, 24, weapons=(krak(),))
    target = rhino("rhino", "b", 30, 24, 180)
    overlap = ruin("ruin", 26, 20, 28.5, 24, save=4)
    state = make_state(shooter, target, terrain=[overlap], phase="shooting")
    res = act(state, "a", Shoot("dev", (Fire("krak", "rhino"),)), [6, 4, 4])
    assert res.state.units["rhino"].hp == 3
    cover = [r for r in res.rolls if r.purpose == "cover save"]
    assert [(r.target, r.outcome) for r in cover] == [("4+", "saved")]


def test_terrain_wholly_under_the_hull_does_not_obscure() -> None:
    """The same rule's other half: a crater wholly under the Rhino hides nothing in front of its
    facing (the part under the hull is dropped, TERRAIN_UNDER_HULL_CLIPPED): no cover save."""
    shooter = vehicle("dev", "a", 10, 24, weapons=(krak(),))
    target = rhino("rhino", "b", 30, 24, 180)
    crater = ruin("crater", 28.5, 23, 31.5, 25, save=4, kinds=("difficult", "cover"))
    state = make_state(shooter, target, terrain=[crater], phase="shooting")
    res = act(state, "a", Shoot("dev", (Fire("krak", "rhino"),)), [6, 4, 1])
    assert res.state.units["rhino"].hp == 2
    assert not any(r.purpose == "cover save" for r in res.rolls)


# --- 3. Distances involving a vehicle are measured to and from its hull -------------------------


def test_squadron_allocation_measures_from_the_firers_hull() -> None:
    """40k7 Vehicles, Measuring Distances ("for distances involving a vehicle, measure to and from
    their hull") with Vehicle Squadrons ("the model in the squadron closest to the firing unit").
    The firer is a 10" long hull along the y axis. From its hull v2 is nearer (11.45" from the
    corner at (11.75, 29) to v2's at (21.5, 35)) than v1 (11.75"); from its centre point v1 would
    be (13.5" against 15.9"). The hit goes to v2."""
    hb = weapon("hb", "Heavy bolter", 36, 5, 4)
    gun = vehicle("g", "a", 10, 24, 90, length=10, width=3.5, weapons=(hb,))
    v1 = speeder("v1", "b", 25, 24, 180, keywords=("fast", "skimmer", "heavy"), squadron="sq")
    v2 = speeder("v2", "b", 23, 36, 180, keywords=("fast", "skimmer", "heavy"), squadron="sq")
    state = make_state(gun, v1, v2, phase="shooting")
    # to hit 6; penetration 5: 5 + 5 = 10 = AV10, glancing (no damage roll).
    res = act(state, "a", Shoot("g", (Fire("hb", "v1"),)), [6, 5])
    assert res.state.units["v2"].hp == 1 and res.state.units["v1"].hp == 2
    line = next(e for e in res.state.log if e.text.startswith("Hit allocated"))
    assert line.values["allocated_to"] == "v2"
    assert line.values["members"] == ["v1", "v2"]
    d1, d2 = line.values["distances"]  # type: ignore[misc]
    assert abs(d1 - 11.75) < 1e-6 and abs(d2 - (9.75**2 + 6**2) ** 0.5) < 1e-6


def test_weapon_range_is_measured_from_the_muzzle() -> None:
    """Seed 001, Measuring Distances: "ranges are measured from the muzzle of the firing weapon".
    The Rhino's hull is 48.5" from the lascannon's mount: out of range (48") with no barrel, in
    range with a 1" barrel (Mount.barrel)."""
    target = rhino("rhino", "b", 10 + 2.25 + 48.5 + 2.25, 24, 180)
    bare = vehicle("dev", "a", 10, 24, weapons=(lascannon(),))
    rej = rejected(
        make_state(bare, target, phase="shooting"), "a", Shoot("dev", (Fire("lascannon", "rhino"),))
    )
    assert rej.code == "out_of_range" and abs(rej.values["distance"] - 48.5 - 2.25) < 1e-6
    barrelled = vehicle("dev", "a", 10, 24, weapons=(lascannon(mount=Mount(kind="turret", barrel=3.0)),))
    state = make_state(barrelled, target, phase="shooting")
    res = act(state, "a", Shoot("dev", (Fire("lascannon", "rhino"),)), [1])
    shot = next(e for e in res.state.log if e.seq == res.state.seq and "fires" in e.text)
    assert abs(shot.values["distance"] - 47.75) < 1e-6


# --- 8. A firer exactly on a corner line ---------------------------------------------------------


def test_firer_on_a_corner_line_is_logged_with_both_facings_and_the_reason() -> None:
    """40k7 Vehicles, Vehicle Facing and Armour Values: the firer stands on the diagonal through
    the target's front-right corner ((30, 24) + 8 x (-2.25, 1.75) = (12, 38)): it is in both the
    front (AV13) and the side (AV11) facings; the front, the higher, is used
    (DIAGONAL_FAVOURS_DEFENDER) and the log says so. Lascannon 4 + 9 = 13 = AV13: glancing."""
    shooter = vehicle("dev", "a", 12, 38, weapons=(lascannon(),))
    target = vehicle("pred", "b", 30, 24, 180, armour=(13, 11, 10))
    state = make_state(shooter, target, phase="shooting")
    res = act(state, "a", Shoot("dev", (Fire("lascannon", "pred"),)), [6, 4])
    assert res.state.units["pred"].hp == 2
    corner = next(e for e in res.state.log if "corner line" in e.text)
    assert sorted(corner.values["zones"]) == ["front", "right"]  # type: ignore[arg-type]
    assert corner.values["facing"] == "front"
    assert "front (AV13)" in corner.text and "right (AV11)" in corner.text
    assert "higher Armour Value" in corner.text
    pen = next(e for e in res.state.log if e.values.get("armour") == "front")
    assert pen.values["facing_reason"] == "corner line: higher Armour Value"


# --- 4. Forced out of a destroyed transport in the enemy's turn: no charge next turn ------------


def _wreck_transport_in_enemy_turn(keywords: tuple[str, ...]):  # type: ignore[no-untyped-def]
    """Side a's krak missile wrecks side b's 1 HP transport (rear AV10: 8 + 2 = 10 glancing, 0 HP:
    Wrecked, no damage roll); the Marines inside are placed within 3" and pass their Pinning
    test (3 + 3); then play goes on to side b's Assault phase."""
    marines = infantry("m", "b", [(30, 22 + 1.05 * k) for k in range(3)], weapons=[(0, _bolter())])
    transport = replace(rhino("r", "b", 30, 24, 0, keywords=keywords), hp=1, passengers=("m",))
    marines = replace(marines, embarked_in="r")
    gun = vehicle("g", "a", 20, 24, weapons=(krak(),))
    state = make_state(gun, transport, marines, phase="shooting")
    state = act(state, "a", Shoot("g", (Fire("krak", "r"),)), [6, 2]).state
    state = take_proposal(state, DECISION_SURVIVORS, [3, 3]).state  # their owner places them
    assert state.units["r"].wreck and state.units["m"].embarked_in is None
    while not (state.active == "b" and state.phase == "assault"):
        state = end_phases(state, 1)
    return state


def test_forced_out_in_the_enemy_turn_cannot_charge_in_its_next_assault_phase() -> None:
    """40k7 Vehicles, Transports (published rules; Assault Vehicles): a unit forced out of a
    transport destroyed in the enemy's turn cannot charge in its own next Assault phase. The
    per-turn flag of the disembarkation is cleared when side b's turn starts; the status
    ``forced_out`` is not, and lasts to the end of that turn."""
    state = _wreck_transport_in_enemy_turn(("tank", "transport"))
    rej = rejected(state, "b", Charge("m", "g"))
    assert rej.code == "cannot_charge" and rej.values["reason"] == "forced_out"
    assert rej.rule == "40k7 Vehicles, Transports"
    state = end_phases(state, 1)  # side b's turn ends: the status expires
    assert "forced_out" not in state.units["m"].statuses


def test_forced_out_of_an_assault_vehicle_may_charge_next_turn() -> None:
    """The same with an Open-topped transport (an Assault Vehicle): the charge is allowed."""
    state = _wreck_transport_in_enemy_turn(("tank", "transport", "open-topped"))
    assert "forced_out" not in state.units["m"].statuses
    assert validate(state, "b", Charge("m", "g")) is None


# --- 5. Morale from any casualties ------------------------------------------------------------


def test_casualties_from_an_explosion_force_a_morale_check_at_the_end_of_the_phase() -> None:
    """40k7 Morale, Morale Checks: a unit that loses 25% or more of its models in one phase tests
    at the end of that phase, whatever killed them - here the explosion of a Rhino it stood
    beside, not the target of the shot. AP1 lascannon: hit 6, penetration 6, damage 5 + 2 = 7
    Explodes!; radius 1" (D6 = 1) reaches the two Marines at y 26.5; wounds 4 (wound), 1; the
    armour save 1 fails: 1 of 4 models lost. At the end of the Shooting phase: Morale check 1 + 2
    = 3 <= Ld8, passed."""
    gun = vehicle("g", "a", 10, 24, weapons=(weapon("las", "AP1 gun", 48, 9, 1),))
    target = rhino("r", "b", 40, 24, 180)
    squad = infantry("s", "b", [(39, 26.5), (40.1, 26.5), (39, 29), (40.1, 29)])
    state = make_state(gun, target, squad, phase="shooting")
    res = act(state, "a", Shoot("g", (Fire("las", "r"),)), [6, 6, 5, 1, 4, 1, 1])
    assert res.state.units["r"].destroyed
    assert sum(m.alive for m in res.state.units["s"].models.values()) == 3
    assert not any("Morale" in t for t in res.texts)
    end = act(res.state, "a", EndPhase(), [1, 2])
    assert any("passes its Morale check after losing 1 of 4 models this phase" in t for t in end.texts)
    assert [r.purpose for r in end.rolls] == ["Morale check", "Morale check"]


# --- 6. Chariots lock in combat, sweep, fire Overwatch; Walkers' Overwatch ignores arcs -------------

R = 25.0 / 25.4 / 2  # a 25 mm base's radius in inches


def _chariot(**kw):  # type: ignore[no-untyped-def]
    """A Chariot (an Exalted Reaper-like rider on its vehicle): WS5 S5 I4 A2, AV 11/10/10."""
    defaults = {"keywords": ("chariot",), "ws": 5, "s": 5, "i": 4, "a": 2, "armour": (11, 10, 10)}
    return vehicle("c", "b", 30, 24, 180, **{**defaults, **kw})  # type: ignore[arg-type]


def test_chariot_in_base_contact_is_locked_in_combat() -> None:
    """Seed 001, Vehicles and Close Combat: models in base contact with a vehicle are not locked
    "(not including Walkers or Chariots)": a Chariot in base contact with Marines is locked - it
    cannot shoot, and other units cannot shoot it."""
    chariot = _chariot(weapons=(krak("gun"),))
    squad = infantry("m", "a", [(32.25 + R, 24)])
    others = infantry("o", "a", [(10, 30)], weapons=[(0, krak())])
    state = make_state(squad, others, chariot, phase="shooting")
    assert rejected(state, "a", Shoot("o", (Fire("krak", "c"),))).code == "target_locked"
    state = replace(state, active="b")
    assert rejected(state, "b", Shoot("c", (Fire("gun", "o"),))).code == "locked_in_combat"


def test_chariot_failing_dangerous_terrain_suffers_a_glancing_hit() -> None:
    """40k7 Chariots (published rules): a failed Dangerous Terrain test is a glancing hit - one
    Hull Point lost and no Immobilised result."""
    chariot = replace(_chariot(), side="a")
    state = make_state(chariot, terrain=[ruin("woods", 24, 20, 26, 28, kinds=("difficult",))])
    res = act(state, "a", Move("c", (Point(20, 24),)), [1])
    c = res.state.units["c"]
    assert c.hp == 2 and "immobilised" not in c.statuses
    assert any("glancing hit" in t for t in res.texts)


def test_chariot_that_wins_a_combat_makes_a_sweeping_advance() -> None:
    """40k7 Chariots (published rules): a Chariot may Sweep. I4 Chariot: to hit 3, 1 (WS5 vs WS4:
    3+); wound 3 (S5 vs T4: 3+); save 2 fails - 1 casualty. I3 Marine: to hit 1 (4+) misses.
    Result 1-0: Morale at Ld 8 - 1: 6 + 5 fails; Sweeping Advance 4 + I4 = 8 >= 1 + I3 = 4: the
    Marines are destroyed."""
    squad = infantry("m", "a", [(32.25 + R, 24), (32.25 + R, 25.1)], i=3, ld=8)
    # Both Marines touch the hull: equally close (40k7 Closest Models); auto_decide takes m-0.
    state = replace(make_state(squad, _chariot(), phase="assault"), options=Options(auto_decide=True))
    res = act(state, "a", Fight("m", "c"), [3, 1, 3, 2, 1, 6, 5, 4, 1])
    assert [r.purpose for r in res.rolls][-2:] == ["Sweeping Advance (winner)", "Sweeping Advance (loser)"]
    assert res.state.units["m"].destroyed


def test_chariot_rider_may_fire_overwatch() -> None:
    """40k7 Chariots (published rules): the rider may fire Overwatch - the charged Chariot's owner
    is asked."""
    chariot = _chariot(weapons=(weapon("hb", "Heavy bolter", 36, 5, 4, shots=3),))
    state = make_state(infantry("m", "a", [(20, 24)]), chariot, phase="assault")
    pending = act(state, "a", Charge("m", "c")).state.pending
    assert pending is not None and pending.kind == "overwatch" and pending.side == "b"


def _walker_facing_away(statuses: dict[str, int]):  # type: ignore[no-untyped-def]
    hull_gun = weapon("hb", "Heavy bolter", 36, 5, 4, shots=3, mount=Mount(kind="hull", arc="front"))
    walker = replace(dreadnought("w", "b", 30, 24, 0, weapons=(hull_gun,)), statuses=statuses)
    return make_state(infantry("m", "a", [(22, 24)]), walker, phase="assault")


def test_walker_overwatch_ignores_its_arcs() -> None:
    """40k7 Walkers (published rules): firing Overwatch a Walker ignores its fire arcs. The
    Dreadnought faces away (heading 0) and its only gun is hull-mounted to the front; the
    Marines charge its rear: Overwatch is still offered."""
    pending = act(_walker_facing_away({}), "a", Charge("m", "w")).state.pending
    assert pending is not None and pending.kind == "overwatch"


def test_immobilised_walker_overwatch_keeps_its_arcs() -> None:
    """... unless it is Immobilised: no weapon in arc, no Overwatch; the charge is rolled at once
    (6 + 6 = 12 >= the 6.26" gap)."""
    res = charge(_walker_facing_away({"immobilised": 0}), "a", Charge("m", "w"), [6, 6])
    assert res.state.pending is None and res.state.units["m"].flag("charged")


# --- 7. Pivots ---------------------------------------------------------------------------------


def test_pivot_may_not_end_with_the_hull_on_a_model() -> None:
    """40k7 Vehicles, Movement: "vehicles cannot move over friendly models" - a Rhino (4.5" x 3.5")
    pivoting from 0 to 90 degrees would put its hull (now y 21.75-26.25) on the friendly Marine
    whose base reaches down to y 26.11."""
    state = make_state(rhino("r", "a", 30, 24, 0), infantry("m", "a", [(30, 26.6)]))
    rej = rejected(state, "a", Pivot("r", 90))
    assert rej.code == "pivot_blocked" and rej.values["model"] == "m-0"


def test_pivot_may_not_end_in_impassable_terrain() -> None:
    """40k7 Vehicles, Movement: no vehicle ends in impassable terrain - the pivoted hull would."""
    cliff = ruin("cliff", 29, 26, 31, 27, kinds=("impassable",))
    rej = rejected(make_state(rhino("r", "a", 30, 24, 0), terrain=[cliff]), "a", Pivot("r", 90))
    assert rej.code == "impassable" and rej.values["terrain"] == "cliff"


def test_pivot_puts_enemy_models_in_base_contact_back_into_contact() -> None:
    """Seed 001, Vehicles and Close Combat: "if the vehicle pivots on the spot ... move these models
    out of the way as you shift the vehicle and then place them back into base contact". One
    Marine touches the Rhino's rear (x 27.75) - after a pivot to 90 degrees the rear is gone from
    there; the other touches its left side at (31.5, 25.75 + r) - the pivoted hull (y up to
    26.25) would be on it. Both end in base contact with the pivoted hull, on no other model."""
    marines = infantry("e", "b", [(27.75 - R - 0.001, 24), (31.5, 25.75 + R + 0.001)])
    state = make_state(rhino("r", "a", 30, 24, 0), marines)
    assert validate(state, "a", Pivot("r", 90)) is None
    res = act(state, "a", Pivot("r", 90))
    hull = res.state.units["r"].models["r-m"]
    assert hull.heading == 90
    for model in res.state.units["e"].models.values():
        assert model_distance(hull, model) <= CONTACT_EPS
        assert not g.overlaps(footprint(hull), footprint(model))
    a, b = res.state.units["e"].models.values()
    assert model_distance(a, b) >= 0.0 and not g.overlaps(footprint(a), footprint(b))
    line = next(e for e in res.state.log if e.seq == res.state.seq and "out of the way" in e.text)
    assert sorted(line.values["moved"]) == ["e-0", "e-1"]  # type: ignore[arg-type]


# --- 21. Every number the rules used is in the line's values ----------------------------------


def test_log_values_carry_snap_to_hit_facing_and_the_hidden_shares() -> None:
    """40k7 Vehicles, Obscured Targets (worked example 3's position): the shot line carries the
    to-hit target, snap or not and the distance; the penetration line the facing and why, the
    Armour Value compared; the cover line the firers counted and each one's hidden share."""
    shooter = vehicle("dev", "a", 10, 24, weapons=(krak(),))
    target = rhino("rhino", "b", 30, 24, 180)
    state = make_state(shooter, target, terrain=[ruin("ruin", 20, 20, 22, 24, save=4)], phase="shooting")
    res = act(state, "a", Shoot("dev", (Fire("krak", "rhino"),)), [6, 4, 4])
    lines = [e for e in res.state.log if e.seq == res.state.seq]
    shot, pen, cover = lines[0], lines[1], lines[2]
    assert shot.values["to_hit"] == 3 and shot.values["snap"] is False and shot.values["bs"] == 4
    assert abs(shot.values["distance"] - (27.75 - 10)) < 1e-6  # type: ignore[operator]  # from the turret
    assert pen.values["facing"] == "front" and pen.values["facing_reason"] == "zone"
    assert pen.values["armour_value"] == 11 and pen.values["compared_with"] == [11]
    assert pen.values["totals"] == [12] and pen.values["results"] == ["penetrating"]
    assert cover.values["firers_counted"] == 1 and cover.values["firers_hidden_from"] == 1
    (share,) = cover.values["hidden_shares"]  # type: ignore[misc]
    assert 0.25 <= share <= 1.0
    assert cover.values["save"] == 4 and cover.values["roll"] == 4 and cover.values["hiding"] == ["ruin"]


# --- 22. Wording a player reads -----------------------------------------------------------------


def test_penetration_line_reads_as_results_not_arithmetic_and_counts_nouns() -> None:
    """A krak missile (S8) at AV11 rolls 1: total 9, no effect. The line says "1 shot", "1 hit",
    and "9 (no effect); 0 glancing, 0 penetrating" - not "9 - 0 glancing"."""
    state = make_state(
        vehicle("dev", "a", 10, 24, weapons=(krak(),)), rhino("r", "b", 30, 24, 180), phase="shooting"
    )
    res = act(state, "a", Shoot("dev", (Fire("krak", "r"),)), [6, 1])
    assert res.texts[0].startswith("dev's Krak missile fires 1 shot at Rhino (17.8 in): 1 hit on 3+.")
    assert res.texts[1] == "1 hit on Rhino's front armour (AV11): 9 (no effect); 0 glancing, 0 penetrating."


def test_lance_says_which_armour_value_it_compared_with() -> None:
    """40k7 Lance: an Armour Value above 12 counts as 12 - the line and the die say so: AV14
    counted as AV12 (a Land Raider's front; bright lance S8 + 4 = 12: glancing)."""
    lance = weapon("bl", "Bright lance", 36, 8, 2, rules=("lance",))
    raider = vehicle("lr", "b", 30, 24, 180, armour=(14, 14, 14), hp=4)
    state = make_state(vehicle("dev", "a", 10, 24, weapons=(lance,)), raider, phase="shooting")
    res = act(state, "a", Shoot("dev", (Fire("bl", "lr"),)), [6, 4])
    assert "(AV14, counted as AV12 (Lance))" in res.texts[1] and "12 (glancing)" in res.texts[1]
    (die,) = [r for r in res.rolls if r.purpose == "armour penetration"]
    assert die.target == "S8 vs front AV12 (Lance: AV14 counts as 12)" and die.outcome == "12: glancing"
    assert res.state.units["lr"].hp == 3


def test_every_die_of_a_two_dice_penetration_roll_carries_the_outcome() -> None:
    """40k7 Ordnance: 2D6 pick the highest for armour penetration - both dice carry the roll's
    result (S8 battle cannon at AV11: 2 and 5, highest 5: 13 penetrating)."""
    cannon = weapon("bc", "Battle cannon", 72, 8, 3, type="ordnance")
    state = make_state(
        vehicle("lr", "a", 10, 24, weapons=(cannon,)), rhino("r", "b", 30, 24, 180), phase="shooting"
    )
    # to hit 6, penetration 2 and 5, damage 1 (Shaken)
    res = act(state, "a", Shoot("lr", (Fire("bc", "r"),)), [6, 2, 5, 1])
    dice = [r for r in res.rolls if r.purpose.startswith("armour penetration")]
    assert [(d.value, d.outcome) for d in dice] == [(2, "13: penetrating"), (5, "13: penetrating")]


def test_a_to_wound_roll_with_no_success_has_its_own_line_and_rule() -> None:
    """40k7 The Shooting Phase, Roll To Wound: a boltgun hit (S4 vs T4, 4+) rolls 3 - the line says
    the unit suffers no wounds and cites the rule (not a bare "dice rolled" line)."""
    state = make_state(
        infantry("m", "a", [(10, 24)], weapons=[(0, _bolter())]),
        infantry("e", "b", [(20, 24)]),
        phase="shooting",
    )
    res = act(state, "a", Shoot("m", (Fire("bolter", "e"),)), [6, 3])
    last = [e for e in res.state.log if e.seq == res.state.seq][-1]
    assert (
        last.text == "e suffers no wounds from 1 hit."
        and last.rule == "40k7 The Shooting Phase, Roll To Wound"
    )
    assert [r.purpose for r in last.rolls] == ["to wound"]


# --- 9. Seed rules with no code yet ---------------------------------------------------------------


def test_vehicle_obscured_in_the_open_by_a_special_rule_has_a_5_plus_cover_save() -> None:
    """Seed 001, Obscured Targets: "If a special rule or a piece of wargear makes a vehicle obscured
    even if in the open, this is a 5+ cover save". A Rhino in the open with the keyword
    ``obscured``: the penetrating krak missile (8 + 4 = 12 > AV11) is saved on a 5."""
    target = replace(rhino("r", "b", 30, 24, 180), keywords=("tank", "transport", "obscured"))
    state = make_state(vehicle("dev", "a", 10, 24, weapons=(krak(),)), target, phase="shooting")
    res = act(state, "a", Shoot("dev", (Fire("krak", "r"),)), [6, 4, 5])
    assert res.state.units["r"].hp == 3
    assert [(r.target, r.outcome) for r in res.rolls if r.purpose == "cover save"] == [("5+", "saved")]


def test_codex_value_and_better_terrain_cover_win_over_the_open_5_plus() -> None:
    """... "unless specified otherwise in the codex": ``obscured_4`` is a 4+; and behind the 4+ ruin
    of worked example 3 the better save counts (4+, not 5+). A 3 fails both."""
    target = replace(rhino("r", "b", 30, 24, 180), keywords=("tank", "obscured_4"))
    state = make_state(vehicle("dev", "a", 10, 24, weapons=(krak(),)), target, phase="shooting")
    res = act(state, "a", Shoot("dev", (Fire("krak", "r"),)), [6, 4, 3, 1])
    assert [r.target for r in res.rolls if r.purpose == "cover save"] == ["4+"]
    plain = replace(rhino("r", "b", 30, 24, 180), keywords=("tank", "obscured"))
    state = make_state(
        vehicle("dev", "a", 10, 24, weapons=(krak(),)),
        plain,
        terrain=[ruin("ruin", 20, 20, 22, 24, save=4)],
        phase="shooting",
    )
    res = act(state, "a", Shoot("dev", (Fire("krak", "r"),)), [6, 4, 3, 1])
    assert [r.target for r in res.rolls if r.purpose == "cover save"] == ["4+"]


def _knight(uid: str = "k", side: str = "b", x: float = 30, y: float = 24, heading: float = 180, **kw):  # type: ignore[no-untyped-def]
    """A Super-heavy Walker (an Imperial Knight-like war engine): WS4 S10 I4 A1, AV 13/12/12,
    6 Hull Points, a 4" x 4" hull."""
    defaults = {
        "keywords": ("walker", "super-heavy"),
        "kind": "walker",
        "ws": 4,
        "s": 10,
        "i": 4,
        "a": 1,
        "armour": (13, 12, 12),
        "hp": 6,
        "length": 4.0,
        "width": 4.0,
    }
    return vehicle(uid, side, x, y, heading, **{**defaults, **kw})  # type: ignore[arg-type]


def test_super_heavy_walker_moves_12_inches() -> None:
    """40k7 Vehicles, Super-heavy Walkers: "can move 12" in the Movement phase" (a Walker 6")."""
    state = make_state(_knight(side="a", x=10, heading=0))
    assert validate(state, "a", Move("k", (Point(22, 24),))) is None
    rej = rejected(state, "a", Move("k", (Point(22.5, 24),)))
    assert rej.code == "too_far"


def test_super_heavy_walker_doubles_the_highest_difficult_terrain_die() -> None:
    """40k7 Super-heavy Walkers: through difficult terrain the highest die is doubled (3D6 with
    Move Through Cover): 2, 4, 3 -> 8" at most; the 12" move is cut short at 8"."""
    woods = ruin("woods", 14, 20, 16, 28, kinds=("difficult",))
    state = make_state(_knight(side="a", x=10, heading=0), terrain=[woods])
    res = act(state, "a", Move("k", (Point(22, 24),)), [2, 4, 3])
    assert abs(res.state.units["k"].models["k-m"].pos.x - 18) < 1e-6
    assert [r.target for r in res.rolls] == ["3D6 pick highest, doubled"] * 3


def test_super_heavy_walker_cannot_fire_overwatch() -> None:
    """40k7 Super-heavy Walkers: "cannot fire Overwatch" - no decision is offered; the charge is
    rolled at once (6 + 6)."""
    knight = _knight(weapons=(weapon("hb", "Heavy stubber", 36, 4, 6, shots=3),))
    state = make_state(infantry("m", "a", [(20, 24)]), knight, phase="assault")
    res = charge(state, "a", Charge("m", "k"), [6, 6])
    assert res.state.pending is None and res.state.units["m"].flag("charged")


def test_stomp_kerr_runch_hits_each_model_under_the_marker() -> None:
    """40k7 Super-heavy Walkers, Stomp: at Initiative 1 the Knight makes D3 Stomps (D6 1 -> 1); the
    marker touches its front on the line to the nearest engaged Marine (m-0) and covers m-0 and
    m-1 only; Stomp table 3: Kerr-runch, a S6 AP4 hit on each (no cover, FAQ): wounds 2, 2 (2+),
    armour saves 1, 1 fail - 2 casualties. Before that: the Knight's attack 1 misses (4+), the four
    engaged Marines' attacks 1, 1, 1, 1 miss. Assault result Knight 2 - Marines 0: Morale at
    Ld 8 - 2, a double 1 passes."""
    marines = infantry("m", "a", [(27.507, 23.0), (27.507, 24.05), (27.507, 25.6), (27.507, 21.2)])
    state = make_state(marines, _knight(), phase="assault")
    res = act(state, "a", Fight("m", "k"), [1, 1, 1, 1, 1, 1, 3, 2, 2, 1, 1, 1, 1])
    left = {mid for mid, m in res.state.units["m"].models.items() if m.alive}
    assert left == {"m-2", "m-3"}
    # Wound allocation from the marker's centre: m-0 (nearest), then m-1; the values say so.
    casualties = next(e for e in res.state.log if e.rule == "40k7 The Shooting Phase, Remove Casualties")
    assert casualties.values["allocated"] == ["m-0", "m-1"]
    d0, d1 = casualties.values["distances"]  # type: ignore[misc]
    assert d0 < d1
    table = [r for r in res.rolls if r.purpose == "Stomp table"]
    assert [(r.value, r.outcome) for r in table] == [(3, "Kerr-runch")]
    assert "Assault result: m 0, k 2." in res.texts
    assert not any(r.purpose == "cover save" for r in res.rolls)
    strikes = [
        e for e in res.state.log if e.rule == "40k7 The Assault Phase, Roll To Hit (Weapon Skill table)"
    ]
    assert [(e.values["attacks"], e.values["to_hit"], e.values["hits"]) for e in strikes] == [
        (4, 4, 0),
        (1, 4, 0),
    ]


def test_stomp_overrun_removes_the_models_without_saves_and_counts_for_the_combat() -> None:
    """Stomp table 6 against Infantry: Overrun - each model under the marker is removed, no save
    of any kind (FAQ: not even invulnerable); each counts as one Wound for the assault result
    [decided]. The Marines have a 4+ invulnerable save: it is never rolled."""
    marines = replace(
        infantry("m", "a", [(27.507, 23.0), (27.507, 24.05), (27.507, 25.6), (27.507, 21.2)], inv=4),
        keywords=("fearless",),
    )
    state = make_state(marines, _knight(), phase="assault")
    res = act(state, "a", Fight("m", "k"), [1, 1, 1, 1, 1, 1, 6])
    left = {mid for mid, m in res.state.units["m"].models.items() if m.alive}
    assert left == {"m-2", "m-3"}
    assert not any("save" in r.purpose for r in res.rolls)
    assert "Assault result: m 0, k 2." in res.texts


def test_stomp_kerr_smash_gives_a_vehicle_a_penetrating_hit_and_super_heavies_are_not_stomped() -> None:
    """Stomp table 2-5 against a vehicle: Kerr-smash, one vehicle under the marker suffers a
    penetrating hit (1 Hull Point and a damage roll: 2, Crew Shaken). A Dreadnought fights the
    Knight; a second Knight under the marker is a Super-heavy and is not stomped (no table roll)."""
    dread = dreadnought("d", "a", 28.0 - 1.25 - 0.001, 24.0, 0, a=1)
    other = _knight("k2", side="a", x=26.0, y=27.3, heading=0)
    state = make_state(dread, other, _knight(), phase="assault")
    # Dreadnought I4 and Knight I4 strike together: dread to hit 1 (miss), knight to hit 1 (miss);
    # D3 = 1 Stomp; Stomp table 4: Kerr-smash on the Dreadnought; damage 2: Crew Shaken.
    res = act(state, "a", Fight("d", "k"), [1, 1, 1, 4, 2])
    assert res.state.units["d"].hp == 2 and "shaken" in res.state.units["d"].statuses
    assert [r.purpose for r in res.rolls].count("Stomp table") == 1
    assert res.state.units["k2"].hp == 6
    marker = next(e for e in res.state.log if e.text.startswith("Stomp 1"))
    cx, cy = marker.values["centre"]  # type: ignore[misc]
    assert g.distance((cx, cy), footprint(res.state.units["k2"].models["k2-m"])) <= 1.5  # k2 is under it
    assert marker.values["stomped"] == ["d"]


def test_super_heavy_flyer_losing_its_last_hull_point_suffers_catastrophic_damage() -> None:
    """40k7 Vehicles, Super-heavy Flyers: "Do not use the Crash and Burn! rules for Super-heavy
    Flyers" - at 0 Hull Points it suffers Catastrophic Damage. A 1 HP Thunderhawk-like flyer
    (AV12) takes a Skyfire lascannon hit: 9 + 4 = 13 penetrating, 0 HP; damage 1 (ignored, a
    Super-heavy); then the Catastrophic Damage table (1: Explosion) and its scatter."""
    las = weapon("las", "Lascannon", 48, 9, 2, rules=("skyfire",))
    hawk = vehicle("t", "b", 40, 24, 180, keywords=("flyer", "super-heavy"), armour=(12, 12, 12), hp=1)
    state = make_state(vehicle("g", "a", 10, 24, weapons=(las,)), hawk, phase="shooting")
    res = act(state, "a", Shoot("g", (Fire("las", "t"),)), [6, 4, 1, 1] + [1] * 40, exact=False)
    assert res.state.units["t"].destroyed
    assert any("Catastrophic Damage" in t for t in res.texts)
    assert not any("Crash and Burn" in t for t in res.texts)
    assert not any(r.purpose.startswith("Crash and Burn") for r in res.rolls)


def test_super_heavy_flyer_cannot_jink() -> None:
    """40k7 Super-heavy Flyers, FAQ: "Can Super-heavy Flyers Jink? No." - no Jink decision is
    offered when one is shot at (the shot resolves at once: a snap shot 1 misses)."""
    las = weapon("las", "Lascannon", 48, 9, 2)
    hawk = vehicle("t", "b", 40, 24, 180, keywords=("flyer", "super-heavy"), armour=(12, 12, 12), hp=6)
    state = make_state(vehicle("g", "a", 10, 24, weapons=(las,)), hawk, phase="shooting")
    res = act(state, "a", Shoot("g", (Fire("las", "t", snap=True),)), [1])
    assert res.state.pending is None


# Hover mode for Flyers (40k7 Vehicles, Flyers: Hover).


def _stormtalon(**kw):  # type: ignore[no-untyped-def]
    """A Flyer with the Hover type (a Stormtalon-like gunship): AV 11/11/11."""
    return vehicle("f", "a", 20, 24, 0, **{"keywords": ("flyer", "hover"), "armour": (11, 11, 11), **kw})  # type: ignore[arg-type]


def test_flyer_in_hover_mode_moves_as_a_fast_skimmer() -> None:
    """40k7 Flyers, Hover: a Flyer with Hover declares Hover mode at the start of its Movement phase
    and is then a Fast Skimmer - a 10" move (a Zooming Flyer must move at least 18") is legal, and
    it need not move at all to end the phase."""
    state = make_state(_stormtalon(), infantry("e", "b", [(60, 10)]))
    assert rejected(state, "a", Move("f", (Point(30, 24),))).code.startswith("flyer")
    res = act(state, "a", Move("f", flight="hover"))
    assert "hovering" in res.state.units["f"].statuses
    assert res.texts == ["f Hovers: a Fast Skimmer until its next turn."]
    assert validate(res.state, "a", Move("f", (Point(30, 24),))) is None
    assert validate(res.state, "a", EndPhase()) is None  # a hovering Flyer need not move
    assert validate(state, "a", EndPhase()) is not None  # a Zooming one must


def test_hovering_flyer_can_be_charged_and_shot_at_full_bs() -> None:
    """A hovering Flyer is no Zooming Flyer: it may be charged and shot without Snap Shots."""
    flyer = replace(_stormtalon(), statuses={"hovering": 2})
    state = make_state(
        flyer, infantry("m", "b", [(30, 24)], weapons=[(0, krak())]), phase="shooting", active="b"
    )
    assert validate(state, "b", Shoot("m", (Fire("krak", "f"),))) is None
    zooming = make_state(
        _stormtalon(), infantry("m", "b", [(30, 24)], weapons=[(0, krak())]), phase="shooting", active="b"
    )
    assert rejected(zooming, "b", Shoot("m", (Fire("krak", "f"),))).code == "must_snap"
    charging = replace(state, phase="assault")
    assert validate(charging, "b", Charge("m", "f")) is None
    assert rejected(replace(zooming, phase="assault"), "b", Charge("m", "f")).code == "cannot_charge_flyer"


def test_flight_mode_only_for_hover_flyers_before_they_move_and_it_lapses_next_turn() -> None:
    """Only a Flyer with the Hover type chooses a mode (no_hover_mode), once, before moving
    (already_moved); Hover mode lasts until the start of its next turn: then it Zooms again."""
    plain = make_state(vehicle("z", "a", 20, 24, keywords=("flyer",)))
    assert rejected(plain, "a", Move("z", flight="hover")).code == "no_hover_mode"
    state = act(make_state(_stormtalon()), "a", Move("f", flight="hover")).state
    assert rejected(state, "a", Move("f", (Point(25, 24),), flight="zoom")).code == "already_moved"
    state = end_phases(state, 3)  # side b's turn: still hovering
    assert "hovering" in state.units["f"].statuses
    state = end_phases(state, 3)  # side a's next turn begins: the mode has lapsed
    assert state.active == "a" and "hovering" not in state.units["f"].statuses


def test_zooming_flyer_pivots_over_models() -> None:
    """40k7 Flyers: a Zooming Flyer is above the battlefield - its pivot may end over a model."""
    flyer = vehicle("f", "a", 30, 24, 0, keywords=("flyer",))
    state = make_state(flyer, infantry("m", "a", [(30, 26.6)]))
    assert validate(state, "a", Pivot("f", 45)) is None


# --- Blast and Template weapons never hit a Zooming Flyer --------------------------------------


def test_a_template_or_blast_aimed_at_another_unit_does_not_hit_a_zooming_flyer() -> None:
    """40k7 Vehicles, Flyers: "Blast and Template weapons cannot hit Zooming Flyers" - not when
    aimed at it (refused: cannot_hit_flyer), nor when the template aimed at infantry covers the
    Flyer passing over them (it took a penetrating hit and lost a Hull Point)."""
    flamer = weapon("fl", "Heavy flamer", 8, 5, 4, type="assault", rules=("template",))
    gun = vehicle("g", "a", 10, 24, weapons=(flamer,), bs=4)
    zoomer = flyer("f", "b", 15, 25.6, 0, armour=(10, 10, 10), hp=2, length=2, width=2)
    state = make_state(gun, infantry("i", "b", [(17.5, 24)]), zoomer, phase="shooting")
    assert rejected(state, "a", Shoot("g", (Fire("fl", "f"),))).code == "cannot_hit_flyer"
    template = template_polygon((10.0, 24.0), (17.5, 24.0), flamer.range)
    assert g.distance(template, footprint(zoomer.models["f-m"])) <= g.EPS  # the Flyer is under it
    after = act(state, "a", Shoot("g", (Fire("fl", "i"),)), [6] * 10, exact=False).state
    assert after.units["f"].hp == 2 and not after.units["f"].destroyed
    assert "f" not in models_under_shape(state, template, {"g"})
    assert "f" not in models_under_circle(state, (15.0, 25.6), 1.5)
    assert "i" in models_under_circle(state, (17.5, 24.0), 1.5)


# --- Cover against templates, blasts and explosions ------------------------------------------


def _flamer():
    return weapon("fl", "Heavy flamer", 8, 5, 4, type="assault", rules=("template",))


def test_a_template_ignores_the_jink_cover_save() -> None:
    """40k7 Special Rules, Template Weapon: "Template weapons have the Ignores Cover, Wall of
    Death and No Escape special rules"; Jink gives a cover save (40k7 Special Rules, Jink), so a
    Jinking Skimmer under a template takes no save. It used to roll its 4+ against the flame.
    Penetration 6: S5 + 6 = 11 > AV10, penetrating; damage 1 (+0, AP4): Crew Shaken."""
    burner = infantry("m", "a", [(10, 24)], weapons=[(0, _flamer())])
    jinked = replace(speeder("s", "b", 15, 24, 180), statuses={"jink": 2, "snap_only": 2})
    state = make_state(burner, jinked, phase="shooting")
    paused = act(state, "a", Shoot("m", (Fire("fl", "s"),))).state
    res = take_proposal(paused, "aim_template", [6, 1])
    assert "cover save" not in [r.purpose for r in res.rolls]
    assert res.state.units["s"].hp == 1 and "shaken" in res.state.units["s"].statuses


def test_a_template_ignores_the_cover_of_an_obscured_vehicle() -> None:
    """40k7 Special Rules, Template Weapon (Ignores Cover) against 40k7 Vehicles, Obscured
    Targets: the Rhino behind a ruin (4+) is obscured from the flamer's bearer, but takes no
    cover save against the template's glancing hit. Penetration 6: S5 + 6 = 11 = AV11."""
    burner = infantry("m", "a", [(20, 22)], weapons=[(0, _flamer())])
    state = make_state(
        burner,
        rhino("rhino", "b", 26, 24, 180),
        terrain=[ruin("ruin", 22, 20.5, 23, 23.5, save=4)],
        phase="shooting",
    )
    paused = act(state, "a", Shoot("m", (Fire("fl", "rhino"),))).state
    res = take_proposal(paused, "aim_template", [6])
    assert [r.purpose for r in res.rolls] == ["armour penetration"]
    assert res.state.units["rhino"].hp == 2


def test_a_blast_off_the_hull_hits_at_full_strength_on_the_firers_facing() -> None:
    """40k7 Vehicles, Vehicle Facing and Armour Values (seed 001): a blast hits the vehicle once
    if any part of the marker ends over it, "resolved against the Armour Value facing the firer,
    regardless of the position of the marker" - no half Strength when the hole is off the hull
    (an older edition's rule). The marker scatters 3" (2D6 3 + 4 - BS4) straight behind the
    Predator: its hole (43, 24) is off the hull (x 37.75-42.25), its edge over it. Penetration
    5: S8 + 5 = 13 = front AV13, glancing (half Strength, 4 + 5 = 9, would do nothing)."""
    frag = weapon("frag", "Frag blast", 48, 8, 3, rules=("blast",))
    gun = vehicle("g", "a", 10, 24, weapons=(frag,))
    state = make_state(gun, predator("p", "b", 40, 24, 180, weapons=()), phase="shooting")
    paused = act(state, "a", Shoot("g", (Fire("frag", "p"),))).state
    res = take_proposal(paused, "aim_blast", [3, 3, 4, 1, 1, 5])
    line = next(e for e in res.state.log if "lands at" in e.text)
    assert line.values["lands"] == [43.0, 24.0]
    pen = [r for r in res.rolls if r.purpose == "armour penetration"]
    assert [r.target for r in pen] == ["S8 vs front AV13"] and pen[0].outcome == "13: glancing"
    assert res.state.units["p"].hp == 2


def test_a_jinking_squadron_mate_takes_no_cover_save_against_an_explosion() -> None:
    """docs/rules-notes.md, 40k7, Being shot: the hits of an explosion allow no cover save
    (destruction.EXPLOSION_COVER [decided]) - Jink's 4+ included: Jink's save is against shooting
    attacks, and the explosion's hits have no firer (40k7 Vehicle Damage Table, Explodes!: "nearby
    units suffer a Strength 4 AP- hit"). Two Jinking Land Speeders of one squadron: the lascannon
    hits the closer one (to hit 6), penetrates (9 + 6 > 10), its Jink save fails (1), damage 6 +1
    (AP2) = 7: Explodes!, radius 6". Its squadron-mate 1.5" away takes one S4 hit: 4 + 6 = 10,
    glancing, and no cover save is rolled for it."""
    gun = vehicle("g", "a", 10, 24, weapons=(lascannon(),))
    jink = {"jink": 2, "snap_only": 2}
    s1 = replace(speeder("s1", "b", 30, 24, 180, squadron="sq"), statuses=jink)
    s2 = replace(speeder("s2", "b", 31.5, 27.5, 180, squadron="sq"), statuses=jink)
    state = make_state(gun, s1, s2, phase="shooting")
    res = act(state, "a", Shoot("g", (Fire("lascannon", "s1"),)), [6, 6, 1, 6, 6, 6])
    assert res.state.units["s1"].destroyed and not res.state.units["s1"].wreck
    assert [r.purpose for r in res.rolls].count("cover save") == 1  # s1's, against the lascannon
    assert res.state.units["s2"].hp == 1
