"""40k7 Vehicles worked examples with fixed dice: Armour Penetration Rolls, Vehicle Damage Table,
Obscured Targets, Vehicles and Close Combat."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Fight, Fire, Shoot
from hulldown.match.state import Mount

from .builders import act, infantry, krak, make_state, predator, rhino, ruin, vehicle


def _lascannon_at_predator_front():
    shooter = predator("pred-a", "a", 10, 24, 0)
    target = predator("pred-b", "b", 40, 24, 180, weapons=())
    return make_state(shooter, target, phase="shooting")


def test_example1_glancing_s9_vs_av13_no_damage_roll() -> None:
    """40k7 Vehicles, Armour Penetration Rolls: die 4 + S9 = 13 = AV13 -> glancing, 2 HP left,
    no damage roll (the fixed dice hold exactly to-hit + penetration)."""
    state = _lascannon_at_predator_front()
    res = act(state, "a", Shoot("pred-a", (Fire("lascannon", "pred-b"),)), [6, 4])
    target = res.state.units["pred-b"]
    assert target.hp == 2
    assert target.statuses == {}
    pen = [r for r in res.rolls if r.purpose == "armour penetration"]
    assert [r.value for r in pen] == [4]
    assert "AV13" in pen[0].target and pen[0].outcome == "13: glancing"
    assert not any(r.purpose == "vehicle damage" for r in res.rolls)


def test_example1_penetrating_then_damage_5_plus_ap2_immobilised() -> None:
    """40k7 Vehicles, Penetrating Hits + Damage table: die 5 -> 14 penetrating, 2 HP left; damage
    die 5 +1 (AP2) = 6 -> Immobilised."""
    state = _lascannon_at_predator_front()
    res = act(state, "a", Shoot("pred-a", (Fire("lascannon", "pred-b"),)), [6, 5, 5])
    target = res.state.units["pred-b"]
    assert target.hp == 2
    assert "immobilised" in target.statuses
    dmg = [r for r in res.rolls if r.purpose == "vehicle damage"]
    assert dmg[0].value == 5 and dmg[0].target == "+1" and dmg[0].outcome == "6: Immobilised"


def test_example2_immobilised_again_loses_another_hull_point() -> None:
    """40k7 Vehicle Damage table: an already Immobilised Rhino (3 HP) takes a penetrating AP3 hit;
    damage 6 -> Immobilised again -> one more HP lost: 1 HP left."""
    shooter = vehicle("dev", "a", 10, 24, weapons=(krak(),))
    target = replace(rhino("rhino", "b", 40, 24, 180), statuses={"immobilised": 0})
    state = make_state(shooter, target, phase="shooting")
    # to hit 6, penetration 4 (8 + 4 = 12 > AV11), damage 6 (AP3: no modifier)
    res = act(state, "a", Shoot("dev", (Fire("krak", "rhino"),)), [6, 4, 6])
    rh = res.state.units["rhino"]
    assert rh.hp == 1 and rh.statuses == {"immobilised": 0}
    assert not rh.destroyed


def test_example3_obscured_rhino_cover_save_discards_penetrating_hit() -> None:
    """40k7 Vehicles, Obscured Targets: the Rhino's front is 50% hidden behind a ruin (4+ cover);
    a penetrating krak missile is saved on a 4: no HP lost, no damage roll."""
    shooter = vehicle("dev", "a", 10, 24, weapons=(krak(),))
    target = rhino("rhino", "b", 30, 24, 180)
    ruins = ruin("ruin", 20, 20, 22, 24, save=4)
    state = make_state(shooter, target, terrain=[ruins], phase="shooting")
    res = act(state, "a", Shoot("dev", (Fire("krak", "rhino"),)), [6, 4, 4])
    rh = res.state.units["rhino"]
    assert rh.hp == 3 and rh.statuses == {}
    cover = [r for r in res.rolls if r.purpose == "cover save"]
    assert cover and cover[0].target == "4+" and cover[0].outcome == "saved"


def test_example3_cover_save_failed_costs_the_hull_point() -> None:
    """Same shot, cover die 3: the hit stands (1 HP lost, damage roll made)."""
    shooter = vehicle("dev", "a", 10, 24, weapons=(krak(),))
    target = rhino("rhino", "b", 30, 24, 180)
    state = make_state(shooter, target, terrain=[ruin("ruin", 20, 20, 22, 24, save=4)], phase="shooting")
    res = act(state, "a", Shoot("dev", (Fire("krak", "rhino"),)), [6, 4, 3, 1])
    rh = res.state.units["rhino"]
    assert rh.hp == 2 and "shaken" in rh.statuses


def test_example3_unobscured_rhino_gets_no_cover_roll() -> None:
    shooter = vehicle("dev", "a", 10, 24, weapons=(krak(),))
    target = rhino("rhino", "b", 30, 24, 180)
    state = make_state(shooter, target, terrain=[ruin("ruin", 20, 30, 22, 34)], phase="shooting")
    res = act(state, "a", Shoot("dev", (Fire("krak", "rhino"),)), [6, 4, 1])
    assert not any(r.purpose == "cover save" for r in res.rolls)
    assert res.state.units["rhino"].hp == 2


def _marine_on_rhino_rear(immobilised: bool):
    rh = rhino("rhino", "b", 30, 24, 0)
    if immobilised:
        rh = replace(rh, statuses={"immobilised": 0})
    radius = 25.0 / 25.4 / 2
    marine = infantry("marines", "a", [(27.75 - radius, 24.0)], ws=4, s=4, a=1)
    return make_state(marine, rh, phase="assault")


def test_example4_ws4_hits_rhino_on_3_plus_rear_av10() -> None:
    """40k7 Vehicles and Close Combat: vehicles are WS1, so WS4 hits on 3+; penetration against
    the rear armour AV10 (S4 + 6 = 10: glancing)."""
    state = _marine_on_rhino_rear(False)
    res = act(state, "a", Fight("marines", "rhino"), [3, 6])
    hit = [r for r in res.rolls if r.purpose == "close combat to hit"]
    assert hit[0].target == "WS4 vs WS1: 3+" and hit[0].outcome == "hit"
    pen = [r for r in res.rolls if r.purpose == "armour penetration"]
    assert "rear AV10" in pen[0].target and pen[0].outcome == "10: glancing"
    assert res.state.units["rhino"].hp == 2


def test_example4_ws4_misses_on_2() -> None:
    state = _marine_on_rhino_rear(False)
    res = act(state, "a", Fight("marines", "rhino"), [2])
    assert res.state.units["rhino"].hp == 3


def test_example4_immobilised_rhino_is_ws0_and_hit_automatically() -> None:
    """An Immobilised non-Walker counts as WS0: every attack hits (no to-hit die is rolled)."""
    state = _marine_on_rhino_rear(True)
    res = act(state, "a", Fight("marines", "rhino"), [6])
    assert not any(r.purpose == "close combat to hit" for r in res.rolls)
    assert any("hit automatically" in t for t in res.texts)
    assert res.state.units["rhino"].hp == 2


def test_foundation_predator_lascannon_rhino_to_hit_then_penetration() -> None:
    """The foundation duel: Predator lascannon at a Rhino's front (AV11): to-hit die, then the
    penetration die; a glancing hit costs 1 HP."""
    shooter = predator("predator-1", "a", 10, 24)
    target = rhino("rhino-1", "b", 40, 24, 180)
    state = make_state(shooter, target, phase="shooting")
    res = act(state, "a", Shoot("predator-1", (Fire("lascannon", "rhino-1"),)), [4, 2])
    assert [r.purpose for r in res.rolls] == ["to hit", "armour penetration"]
    assert res.state.units["rhino-1"].hp == 2


def test_hull_mount_fires_only_in_its_arc() -> None:
    """40k7 Vehicle weapons: hull-mounted weapons swivel 45 degrees."""
    from hulldown.match.actions import Shoot as S

    from .builders import rejected

    shooter = predator(
        "p",
        "a",
        10,
        24,
        90,
        weapons=(
            krak().__class__(
                **{
                    **{f: getattr(krak(), f) for f in krak().__struct_fields__},
                    "mount": Mount(kind="hull", arc="front"),
                }
            ),
        ),
    )
    target = rhino("r", "b", 40, 24, 180)
    state = make_state(shooter, target, phase="shooting")
    rej = rejected(state, "a", S("p", (Fire("krak", "r"),)))
    assert rej.code == "out_of_arc"
