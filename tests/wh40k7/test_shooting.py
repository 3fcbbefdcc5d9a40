"""40k7 shooting by speed, Ordnance, one target, per-weapon sight and cover, facing per firing
model, Blast/Template facing, Jink and Flyers (40k7 Vehicles and Shooting to Obscured Targets)."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Decide, Fire, Shoot
from hulldown.match.state import Mount, Point

from .builders import (
    act,
    flyer,
    infantry,
    krak,
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


def _two_guns(moved: float, keywords: tuple[str, ...] = ("tank",), n: int = 2):
    guns = tuple(krak(f"k{i}") for i in range(n))
    gun = replace(vehicle("g", "a", 10, 24, weapons=guns, keywords=keywords), moved=moved)
    return make_state(gun, rhino("t", "b", 40, 24, 180), phase="shooting")


def _fires(n_full: int, n: int = 2) -> tuple[Fire, ...]:
    return tuple(Fire(f"k{i}", "t", snap=i >= n_full) for i in range(n))


def test_combat_speed_one_weapon_full_bs_others_snap() -> None:
    """40k7 Vehicles and Shooting: Combat Speed - one weapon at full BS, the others Snap Shots."""
    state = _two_guns(5.0)
    rej = rejected(state, "a", Shoot("g", _fires(2)))
    assert rej.code == "too_many_full_bs" and rej.values["allowed"] == 1 and rej.values["full_bs"] == 2
    res = act(state, "a", Shoot("g", _fires(1)), [2, 5])
    assert [r.target for r in res.rolls] == ["3+", "6+"]


def test_cruising_speed_snap_shots_only() -> None:
    """40k7 Vehicles and Shooting: at Cruising Speed a (not Fast) vehicle fires no weapon at full
    BS: a weapon not marked snap is refused as a forced Snap Shot, with the reason (it was "may
    fire 0 weapons at full BS", which named no weapon to mark: the table could not show it)."""
    state = _two_guns(10.0)
    for fires in (_fires(2), _fires(1), (Fire("k0", "t"),)):
        refused = rejected(state, "a", Shoot("g", fires))
        assert (refused.code, refused.values["weapon"]) == ("must_snap", "k0")
        assert refused.values["reason"] == "moved at cruising speed"
    res = act(state, "a", Shoot("g", _fires(0)), [6, 5, 1])
    assert [r.value for r in res.rolls if r.purpose == "snap shot"] == [6, 5]
    assert res.state.units["t"].hp == 3  # 8 + 1 = 9 < 11


def test_snap_shot_hits_only_on_6() -> None:
    """40k7 Snap Shots: BS1, a 6 to hit."""
    state = _two_guns(10.0, n=1)
    res = act(state, "a", Shoot("g", _fires(0, 1)), [5])
    assert res.rolls[0].outcome == "miss"


def test_fast_combat_all_cruising_two() -> None:
    """Fast: Combat Speed all weapons at full BS; Cruising Speed two."""
    act(_two_guns(6.0, ("fast",), 3), "a", Shoot("g", _fires(3, 3)), [1, 1, 1])
    state = _two_guns(12.0, ("fast",), 3)
    assert rejected(state, "a", Shoot("g", _fires(3, 3))).values["allowed"] == 2
    act(state, "a", Shoot("g", _fires(2, 3)), [1, 1, 1])


def test_heavy_always_counts_as_stationary() -> None:
    act(_two_guns(6.0, ("heavy",)), "a", Shoot("g", _fires(2)), [1, 1])


def test_blast_weapon_cannot_snap_shoot() -> None:
    """Blast and Template weapons cannot fire Snap Shots [ext]."""
    cannon = weapon("bc", "Battle cannon", 72, 8, 3, type="ordnance", rules=("large_blast",))
    gun = replace(vehicle("g", "a", 10, 24, weapons=(cannon,)), moved=10.0)
    state = make_state(gun, rhino("t", "b", 40, 24, 180), phase="shooting")
    assert rejected(state, "a", Shoot("g", (Fire("bc", "t", snap=True),))).code == "cannot_snap"


def test_ordnance_forces_the_other_weapons_to_snap() -> None:
    """40k7 Vehicles and Shooting: a vehicle firing Ordnance may only Snap Shoot its other weapons."""
    cannon = weapon("bc", "Battle cannon", 72, 8, 3, type="ordnance", rules=("large_blast",))
    gun = vehicle("g", "a", 10, 24, weapons=(cannon, krak()))
    state = make_state(gun, rhino("t", "b", 40, 24, 180), phase="shooting")
    rej = rejected(state, "a", Shoot("g", (Fire("bc", "t"), Fire("krak", "t"))))
    assert rej.code == "ordnance_others_snap"
    # 40k7 Weapons, Blast: the firer aims the marker first (the proposal: over the nearest model);
    # marker: scatter die 1 (Hit) + 2D6, then krak snap 6 -> 2 hits; pens 2D6-highest (4,2) and 3,
    # damage 1 for the penetrating Ordnance hit.
    paused = act(state, "a", Shoot("g", (Fire("bc", "t"), Fire("krak", "t", snap=True)))).state
    res = take_proposal(paused, "aim_blast", [1, 3, 3, 6, 4, 2, 3, 1])
    pen = [r for r in res.rolls if "armour penetration" in r.purpose]
    assert [r.value for r in pen] == [4, 2, 3]
    assert [r.outcome for r in pen][1:] == ["12: penetrating", "11: glancing"]
    assert res.state.units["t"].hp == 1


def test_ordnance_at_cruising_snap_only_if_not_blast() -> None:
    """40k7 Vehicles and Shooting [decided]: at Cruising Speed Ordnance may Snap Shoot unless
    Blast/Template."""
    plain = weapon("rail", "Ordnance railgun", 72, 10, 1, type="ordnance")
    gun = replace(vehicle("g", "a", 10, 24, weapons=(plain,)), moved=10.0)
    state = make_state(gun, rhino("t", "b", 40, 24, 180), phase="shooting")
    act(state, "a", Shoot("g", (Fire("rail", "t", snap=True),)), [1])


def test_all_weapons_at_one_target() -> None:
    """40k7 Vehicles and Shooting: all of a vehicle's weapons at a single target unit."""
    gun = vehicle("g", "a", 10, 24, weapons=(krak("k1"), krak("k2")))
    state = make_state(gun, rhino("t", "b", 40, 24, 180), rhino("u", "b", 40, 10, 180), phase="shooting")
    rej = rejected(state, "a", Shoot("g", (Fire("k1", "t"), Fire("k2", "u"))))
    assert rej.code == "one_target" and rej.values["targets"] == 2


def test_super_heavy_may_split_fire() -> None:
    gun = vehicle("g", "a", 10, 24, weapons=(krak("k1"), krak("k2")), keywords=("super-heavy",), hp=9)
    state = make_state(gun, rhino("t", "b", 40, 24, 180), rhino("u", "b", 40, 10, 180), phase="shooting")
    act(state, "a", Shoot("g", (Fire("k1", "t"), Fire("k2", "u"))), [1, 1])


def test_split_fire_at_two_skimmers_asks_each_owner_once_about_jink() -> None:
    """40k7 Jink: each targeted skimmer's owner decides once, whatever its id (here "s,1")."""
    gun = vehicle("g", "a", 10, 24, weapons=(krak("k1"), krak("k2")), keywords=("super-heavy",), hp=9)
    skimmers = (speeder("s,1", "b", 40, 24, 180), speeder("s2", "b", 40, 10, 180))
    state = make_state(gun, *skimmers, phase="shooting")
    state = act(state, "a", Shoot("g", (Fire("k1", "s,1"), Fire("k2", "s2")))).state
    asked = []
    while state.pending is not None:
        assert len(asked) < 2, f"asked again: {asked}"
        asked.append(state.pending.context["target"])
        state = act(state, "b", Decide(state.pending.id, "no"), [1, 1] if len(asked) == 2 else []).state
    assert asked == ["s,1", "s2"] and state.units["g"].flag("shot")


def test_out_of_range_reports_the_measured_distance() -> None:
    """Range is measured from the weapon's mount to the closest point of the target hull."""
    gun = vehicle("g", "a", 10, 24, weapons=(weapon("hb", "Heavy bolter", 36, 5, 4, shots=3),))
    state = make_state(gun, rhino("t", "b", 50, 24, 180), phase="shooting")
    rej = rejected(state, "a", Shoot("g", (Fire("hb", "t"),)))
    assert rej.code == "out_of_range" and rej.values == {"distance": 37.75, "range": 36.0, "weapon": "hb"}
    assert "37.8 in away" in rej.message


def test_line_of_sight_blocked_by_terrain() -> None:
    state = make_state(
        vehicle("g", "a", 10, 24, weapons=(krak(),)),
        rhino("t", "b", 40, 24, 180),
        terrain=[ruin("wall", 20, 10, 22, 40)],
        phase="shooting",
    )
    assert rejected(state, "a", Shoot("g", (Fire("krak", "t"),))).code == "no_line_of_sight"


def test_cover_is_worked_out_per_weapon() -> None:
    """40k7 Vehicle Weapons and Line of Sight: cover as if each firing weapon were a separate unit:
    the wall obscures the target's front from the right-hand mount (31% hidden) but not from the
    left-hand one."""
    left = replace(krak("kl"), mount=Mount(kind="hull", arc="front", offset=Point(0.0, 1.5)))
    right = replace(krak("kr"), mount=Mount(kind="hull", arc="front", offset=Point(0.0, -1.5)))
    gun = vehicle("g", "a", 10, 24, weapons=(left, right))
    wall = ruin("wall", 14, 20, 14.5, 22.7, save=4)
    state = make_state(gun, rhino("t", "b", 30, 24, 180), terrain=[wall], phase="shooting")
    res = act(state, "a", Shoot("g", (Fire("kl", "t"), Fire("kr", "t"))), [6, 6, 4, 4, 6, 1])
    covers = [r for r in res.rolls if r.purpose == "cover save"]
    assert len(covers) == 1 and covers[0].outcome == "saved"
    assert res.state.units["t"].hp == 2


def test_facing_per_firing_model() -> None:
    """40k7 Vehicle Facing and Armour Values: firers in different facings resolve separately (front
    AV13, side AV11)."""
    launcher = weapon("ml", "Missile launcher", 48, 8, 3)
    squad = infantry("devs", "a", [(20, 24), (35, 10)], weapons=[(0, launcher), (1, launcher)])
    target = predator("p", "b", 35, 24, 180, weapons=())
    state = make_state(squad, target, phase="shooting")
    res = act(state, "a", Shoot("devs", (Fire("ml", "p"), Fire("ml-1", "p"))), [6, 6, 5, 3])
    pens = [r for r in res.rolls if r.purpose == "armour penetration"]
    assert [r.target for r in pens] == ["S8 vs front AV13", "S8 vs side AV11"]
    assert res.state.units["p"].hp == 1


def test_blast_uses_the_facing_toward_the_firer() -> None:
    """40k7 Vehicle Facing and Armour Values: Blast hits use the facing toward the firer wherever
    the marker lands."""
    frag = weapon("frag", "Frag blast", 48, 8, 3, rules=("blast",))
    gun = vehicle("g", "a", 10, 24, weapons=(frag,))
    state = make_state(gun, predator("p", "b", 40, 24, 180, weapons=()), phase="shooting")
    # 40k7 Weapons, Blast: the firer takes the proposed aim (over the Predator's hull); scatter
    # die 3 (arrow), 2D6 = 2 + 3 = 5 - BS4 = 1", direction 0 deg (+x: behind the target)
    paused = act(state, "a", Shoot("g", (Fire("frag", "p"),))).state
    res = take_proposal(paused, "aim_blast", [3, 2, 3, 1, 1, 5])
    pen = [r for r in res.rolls if r.purpose == "armour penetration"]
    assert pen[0].target == "S8 vs front AV13"


def test_melta_within_half_range_rolls_extra_d6() -> None:
    melta = weapon("mg", "Multi-melta", 24, 8, 1, rules=("melta",))
    gun = vehicle("g", "a", 10, 24, weapons=(melta,))
    state = make_state(gun, rhino("t", "b", 20, 24, 180), phase="shooting")
    res = act(state, "a", Shoot("g", (Fire("mg", "t"),)), [6, 1, 1])
    assert [r.purpose for r in res.rolls][1:3] == ["armour penetration", "armour penetration (+D6)"]


def test_skimmer_target_owner_decides_jink() -> None:
    """40k7 Jink: the target's owner decides before the to-hit rolls; 4+ cover save, then Snap
    Shots only until the end of its next turn."""
    gun = vehicle("g", "a", 10, 24, weapons=(krak(),))
    sk = vehicle("s", "b", 40, 24, 180, keywords=("skimmer", "fast"), armour=(10, 10, 10), hp=2)
    state = make_state(gun, sk, phase="shooting")
    pending = act(state, "a", Shoot("g", (Fire("krak", "s"),))).state
    assert pending.pending is not None and pending.pending.side == "b" and pending.pending.kind == "jink"
    assert rejected_generic(pending, "a", Decide(pending.pending.id, "jink")) == "not_your_decision"
    res = act(pending, "b", Decide(pending.pending.id, "jink"), [6, 3, 4])
    s = res.state.units["s"]
    assert res.state.pending is None
    assert "jink" in s.statuses and "snap_only" in s.statuses and s.hp == 2
    assert [r.purpose for r in res.rolls] == ["to hit", "armour penetration", "cover save"]


def rejected_generic(state, side, action) -> str:  # type: ignore[no-untyped-def]
    from hulldown.match.validate import validate

    rej = validate(state, side, action)
    assert rej is not None
    return rej.code


def test_zooming_flyer_only_snap_shots_unless_skyfire_and_no_blasts() -> None:
    """40k7 Flyers: only Snap Shots can hit a Zooming Flyer unless Skyfire; no Blast/Template."""
    frag = weapon("frag", "Frag blast", 48, 4, 6, rules=("blast",))
    sky = weapon("sky", "Icarus lascannon", 96, 9, 2, rules=("skyfire",))
    gun = vehicle("g", "a", 10, 24, weapons=(krak(), frag, sky))
    state = make_state(gun, flyer("f", "b", 40, 24, 180, armour=(10, 10, 10), hp=3), phase="shooting")
    assert rejected(state, "a", Shoot("g", (Fire("krak", "f"),))).code == "must_snap"
    assert rejected(state, "a", Shoot("g", (Fire("frag", "f"),))).code == "cannot_hit_flyer"
    pending = act(state, "a", Shoot("g", (Fire("sky", "f"),))).state
    assert pending.pending is not None and pending.pending.kind == "jink"  # Flyers have Jink


def test_cannot_shoot_own_units_or_in_wrong_phase() -> None:
    gun = vehicle("g", "a", 10, 24, weapons=(krak(),))
    state = make_state(gun, rhino("own", "a", 30, 24), phase="shooting")
    assert rejected(state, "a", Shoot("g", (Fire("krak", "own"),))).code == "friendly_target"
    assert (
        rejected(replace(state, phase="movement"), "a", Shoot("g", (Fire("krak", "own"),))).code
        == "wrong_phase"
    )


def test_angled_shot_cover_is_one_better_than_the_cover_hiding_the_firers_own_facing() -> None:
    """Seed 001, Obscured Targets: a firer in the Rhino's front zone whose view of the whole front
    is blocked by a wall (4+) shoots the side it can see (hidden only ~7%, not obscured on its
    own); the Rhino still gets a cover save one point better than the wall's: 3+."""
    wall = ruin("wall", 43, 18, 44, 26, save=4, kinds=("blocks_los", "cover"))
    squad = infantry("s", "a", [(60, 30)], weapons=[(0, krak())])
    state = make_state(squad, rhino("t", "b", 40, 24, 0), terrain=[wall], phase="shooting")
    # to hit 4; penetration 4 + 8 = 12 > side AV11; cover 3 on 3+: saved, no Hull Point lost
    res = act(state, "a", Shoot("s", (Fire("krak", "t"),)), [4, 4, 3])
    pen = [r for r in res.rolls if r.purpose == "armour penetration"]
    assert pen[0].target == "S8 vs side AV11"
    cover = [r for r in res.rolls if r.purpose == "cover save"]
    assert [(r.target, r.outcome) for r in cover] == [("3+", "saved")]
    assert res.state.units["t"].hp == 3


def test_lance_firers_count_as_able_to_damage_av14_for_the_obscured_majority() -> None:
    """40k7 Vehicles, Obscured Targets: obscured from the majority of the firing models able to
    damage the vehicle. Two S7 Lance weapons can damage a Land Raider's front AV14 (it counts as
    12, Armour Penetration Rolls): the wall hides over 25% of the front from both of them, not
    from the lascannon, so the front is obscured from 2 of 3 firers and every hit takes the 4+
    cover save."""
    las = weapon("las", "Lascannon", 48, 9, 2)
    lance = weapon("lance", "Lance", 36, 7, 2, rules=("lance",))
    squad = infantry("s", "a", [(20, 24), (20, 30), (20, 31.1)], weapons=[(0, las), (1, lance), (2, lance)])
    raider = vehicle("lr", "b", 40, 24, 180, armour=(14, 14, 14), hp=4, keywords=("tank",))
    wall = ruin("wall", 30, 26.5, 30.5, 29, save=4, kinds=("cover",))
    state = make_state(squad, raider, terrain=[wall], phase="shooting")
    fires = (Fire("las", "lr"), Fire("lance", "lr"), Fire("lance-2", "lr"))
    # hits 6, 6, 6; penetration 6 (15), 6 (13 vs 12), 5 (12 vs 12: glancing); cover 1, 1, 1
    # failed; damage 1 + 1, 1 + 1 (AP2): Crew Shaken twice
    res = act(state, "a", Shoot("s", fires), [6, 6, 6, 6, 6, 5, 1, 1, 1, 1, 1])
    cover = [r for r in res.rolls if r.purpose == "cover save"]
    assert [(r.target, r.outcome) for r in cover] == [("4+", "failed")] * 3
    assert res.state.units["lr"].hp == 1


def test_an_infantry_model_out_of_sight_is_not_told_about_a_mount() -> None:
    """A Tactical Squad's Krak Missile behind a wall was refused with "Krak Missiles cannot see
    Trukk from its mount [40k7 Vehicles, Vehicle Weapons and Line of Sight]": Infantry has no
    mount and that rule is a vehicle's. The refusal names the model that cannot see and the
    Shooting phase's rule (40k7 The Shooting Phase, Choose a Target)."""
    squad = infantry("s", "a", [(10, 24)], weapons=((0, krak()),))
    state = make_state(
        squad, rhino("t", "b", 40, 24, 180), terrain=[ruin("wall", 20, 10, 22, 40)], phase="shooting"
    )
    weapon = next(iter(state.units["s"].weapons))
    rej = rejected(state, "a", Shoot("s", (Fire(weapon, "t"),)))
    assert rej.code == "no_line_of_sight"
    assert rej.rule == "40k7 The Shooting Phase, Choose a Target"
    assert "mount" not in rej.message and "cannot see any model of" in rej.message


def test_hull_points_lost_never_exceed_those_left() -> None:
    """40k7 Vehicles, Hull Points: a vehicle with 1 Hull Point left takes 3 glancing hits. The log
    said "loses 3 Hull Points ... 0 left" - it lost the one it had; the count of hits stays in the
    brackets."""
    gun = vehicle("g", "a", 10, 24, weapons=(weapon("hb", "Heavy bolter", 36, 4, 4, shots=3),))
    target = vehicle("t", "b", 30, 24, 180, armour=(10, 10, 10), hp=1)
    state = make_state(gun, target, phase="shooting")
    res = act(state, "a", Shoot("g", (Fire("hb", "t"),)), [6, 6, 6, 6, 6, 6])
    assert res.state.units["t"].hp == 0
    assert any(
        t.startswith("t loses 1 Hull Point (3 glancing, 0 penetrating): 0 left.") for t in res.texts
    ), res.texts
