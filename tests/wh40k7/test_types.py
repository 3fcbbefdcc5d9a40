"""40k7 vehicle types and transports (40k7 Vehicles, the vehicle types; Transports: Effects of
Damage on Passengers)."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Charge, Disembark, Embark, EndPhase, Fire, Move, Shoot
from hulldown.match.context import ApplyContext
from hulldown.match.state import Point
from hulldown.rules.dice import FixedDice
from hulldown.rules.wh40k7.damage import roll_damage
from hulldown.rules.wh40k7.survivors import DECISION_SURVIVORS

from .builders import (
    act,
    dreadnought,
    end_phases,
    infantry,
    krak,
    make_state,
    rejected,
    rhino,
    ruin,
    take_proposal,
    vehicle,
    weapon,
)

R = 25.0 / 25.4 / 2


def _marines(uid: str = "m", n: int = 5, x: float = 26.5, y0: float = 21.9):  # type: ignore[no-untyped-def]
    bolter = weapon("bg", "Boltgun", 24, 4, 5, type="rapid_fire")
    return infantry(uid, "a", [(x, y0 + 1.05 * k) for k in range(n)], weapons=[(k, bolter) for k in range(n)])


# --- Transport -------------------------------------------------------------------------------


def test_embark_within_2_inches_of_an_access_point() -> None:
    """40k7 Transports: every model within 2" of an access point; the unit leaves the table."""
    state = make_state(_marines(x=26.5), rhino("r", "a", 30, 24, 0))  # rear edge x = 27.75
    res = act(state, "a", Embark("m", "r"))
    assert res.state.units["m"].embarked_in == "r" and res.state.units["r"].passengers == ("m",)
    far = make_state(_marines(x=24.0), rhino("r", "a", 30, 24, 0))
    rej = rejected(far, "a", Embark("m", "r"))
    assert rej.code == "too_far_to_embark" and rej.values["distance"] == 3.27


def test_embark_capacity_and_infantry_only() -> None:
    state = make_state(_marines(n=5), rhino("r", "a", 30, 24, 0), rhino("r2", "a", 30, 10, 0))
    small = replace(state.units["r"], profile=replace(state.units["r"].profile, capacity=4))
    state = replace(state, units={**state.units, "r": small})
    rej = rejected(state, "a", Embark("m", "r"))
    assert rej.code == "over_capacity" and rej.values == {"needed": 5, "free": 4}
    assert rejected(state, "a", Embark("r2", "r")).code == "not_infantry"


def _embarked(transport_keywords: tuple[str, ...] = ("tank", "transport")):  # type: ignore[no-untyped-def]
    t = replace(rhino("r", "a", 30, 24, 0, keywords=transport_keywords), passengers=("m",))
    m = replace(_marines(), embarked_in="r")
    return t, m


def test_disembark_only_if_the_transport_moved_6_or_less() -> None:
    t, m = _embarked()
    state = make_state(replace(t, moved=8.0, turn_flags=("moved",)), m)
    positions = {f"m-{k}": Point(26.0, 20.0 + 1.05 * k) for k in range(5)}
    rej = rejected(state, "a", Disembark("m", positions))
    assert rej.code == "transport_too_fast" and rej.values == {"moved": 8.0, "limit": 6.0}
    ok = make_state(replace(t, moved=5.0, turn_flags=("moved",)), m)
    res = act(ok, "a", Disembark("m", positions))
    u = res.state.units["m"]
    assert u.embarked_in is None and u.flag("no_charge") and res.state.units["r"].passengers == ()


def test_disembark_wholly_within_6_inches() -> None:
    t, m = _embarked()
    state = make_state(t, m)
    positions = {f"m-{k}": Point(21.5, 20.0 + 1.05 * k) for k in range(5)}
    assert rejected(state, "a", Disembark("m", positions)).code == "too_far_to_disembark"


def test_no_embark_and_disembark_in_one_turn() -> None:
    state = make_state(_marines(x=26.5), rhino("r", "a", 30, 24, 0))
    state = act(state, "a", Embark("m", "r")).state
    positions = {f"m-{k}": Point(26.0, 20.0 + 1.05 * k) for k in range(5)}
    assert rejected(state, "a", Disembark("m", positions)).code == "embark_disembark_same_turn"


def test_open_topped_assault_vehicle_lets_passengers_charge_and_fire() -> None:
    """Open-topped: counts as an Assault Vehicle; passengers may fire."""
    t, m = _embarked(("transport", "open-topped"))
    enemy = rhino("e", "b", 45, 24, 180)
    state = make_state(t, m, enemy)
    positions = {f"m-{k}": Point(26.0, 20.0 + 1.05 * k) for k in range(5)}
    res = act(state, "a", Disembark("m", positions))
    assert not res.state.units["m"].flag("no_charge")
    state2 = replace(make_state(t, m, enemy), phase="shooting")
    act(state2, "a", Shoot("m", (Fire("bg", "e"),)), [1])
    closed_t, closed_m = _embarked()
    state3 = make_state(closed_t, closed_m, enemy, phase="shooting")
    assert rejected(state3, "a", Shoot("m", (Fire("bg", "e"),))).code == "cannot_fire_embarked"


def test_open_topped_adds_1_to_damage_rolls() -> None:
    state = make_state(vehicle("o", "b", 30, 24, keywords=("open-topped",)))
    ctx = ApplyContext(1, FixedDice([5]), 0)
    assert roll_damage(ctx, state, "o", 2) == "explodes"  # 5 + 1 (AP2) + 1 (Open-topped)


def test_passengers_take_leadership_test_at_end_of_phase() -> None:
    """Shaken/Stunned/Weapon Destroyed/Immobilised: passengers test Leadership at the end of the
    phase; failing, they fire Snap Shots only in their next Shooting phase."""
    t, m = _embarked()
    t = replace(t, side="b", passengers=("m",))
    m = replace(m, side="b")
    gun = vehicle("g", "a", 10, 24, weapons=(krak(),))
    state = make_state(gun, t, m, phase="shooting")
    state = act(state, "a", Shoot("g", (Fire("krak", "r"),)), [6, 4, 1]).state  # penetrating, Shaken
    assert "passenger_test:m:r" in state.phase_flags
    res = act(state, "a", EndPhase(), [6, 5])  # 11 > Ld8: fails
    # their next Shooting phase is in side b's coming player turn (player turn 2)
    assert res.state.units["m"].statuses["snap_only"] == 2


def test_passengers_whose_ids_hold_a_colon_still_take_the_leadership_test() -> None:
    """40k7 Transports, Effects of Damage on Passengers, with the ids "m:1" (passengers) and "r:1"
    (transport): the end-of-phase Leadership test still finds them."""
    t = replace(rhino("r:1", "b", 30, 24, 0), passengers=("m:1",))
    m = replace(_marines("m:1"), side="b", embarked_in="r:1")
    gun = vehicle("g", "a", 10, 24, weapons=(krak(),))
    state = make_state(gun, t, m, phase="shooting")
    state = act(state, "a", Shoot("g", (Fire("krak", "r:1"),)), [6, 4, 1]).state  # penetrating, Shaken
    res = act(state, "a", EndPhase(), [6, 5])  # 11 > Ld8: fails
    assert res.state.units["m:1"].statuses["snap_only"] == 2


def test_passengers_failing_in_their_own_movement_phase_snap_only_in_that_turns_shooting() -> None:
    """40k7 Transports, Effects of Damage on Passengers: the transport is Immobilised by a failed
    dangerous terrain test in its own Movement phase; the passengers fail their Leadership test
    at the end of the phase: Snap Shots only in their next Shooting phase - this turn's - and
    not in the following turn's too."""
    t, m = _embarked()
    woods = ruin("woods", 34, 20, 36, 28, kinds=("difficult",))
    state = act(make_state(t, m, terrain=[woods]), "a", Move("r", (Point(41, 24),)), [1]).state
    assert "immobilised" in state.units["r"].statuses and "passenger_test:m:r" in state.phase_flags
    state = act(state, "a", EndPhase(), [6, 5]).state  # 11 > Ld8: fails
    assert state.phase == "shooting" and state.units["m"].statuses["snap_only"] == state.player_turn
    state = end_phases(state, 2)  # the Shooting and Assault phases of this turn end: it is over
    assert state.active == "b" and "snap_only" not in state.units["m"].statuses


def test_passengers_test_after_the_combats_fought_at_the_end_of_the_assault_phase() -> None:
    """40k7 Transports, Effects of Damage on Passengers: "at the end of a phase in which a vehicle
    sustains" Crew Shaken - also when the damage comes from a combat fought as the Assault phase
    ends (a Walker transport locked with Infantry)."""
    walker = dreadnought("w", "a", 30, 24, keywords=("walker", "transport"), capacity=5)
    walker = replace(walker, passengers=("m",))
    marines = replace(_marines(), embarked_in="w")
    fist = weapon("fist", "Power fist", 0, 8, 2, type="melee")
    enemy = infantry("e", "b", [(31.25 + R, 24)], i=1, weapons=[(0, fist)])
    state = make_state(walker, marines, enemy, phase="assault")
    # Initiative 4: the Walker misses twice (1, 1 on 4+). Initiative 1: the fist hits (4 on 4+);
    # penetration 5 + 8 = 13 > front AV12; damage 1 + 1 (AP2) = 2: Crew Shaken; the passengers'
    # Leadership test 6 + 5 = 11 > Ld8 fails
    res = act(state, "a", EndPhase(), [1, 1, 4, 5, 1, 6, 5])
    assert "shaken" in res.state.units["w"].statuses and res.state.units["w"].hp == 2
    assert "snap_only" in res.state.units["m"].statuses


def test_wrecked_transport_passengers_disembark_within_3_and_test_pinning() -> None:
    t, m = _embarked()
    t = replace(t, side="b", hp=1)
    m = replace(m, side="b")
    gun = vehicle("g", "a", 10, 24, weapons=(krak(),))
    state = make_state(gun, t, m, phase="shooting")
    # hit 6; rear armour AV10: 8 + 3 = 11 penetrating -> 0 HP; damage 3 (Shaken); Wrecked;
    # passengers placed within 3" by their owner (the proposal); Pinning test 3 + 3 passes
    paused = act(state, "a", Shoot("g", (Fire("krak", "r"),)), [6, 3, 3]).state
    res = take_proposal(paused, DECISION_SURVIVORS, [3, 3])
    s = res.state
    assert s.units["r"].wreck and s.units["m"].embarked_in is None
    from hulldown.rules import geometry as g
    from hulldown.rules.wh40k7.geo import footprint

    hull = footprint(s.units["r"].models["r-m"])
    for model in s.units["m"].models.values():
        assert model.alive and g.distance(hull, footprint(model)) + R <= 3.0 + 1e-6
    assert [r.purpose for r in res.rolls][-2:] == ["Pinning test", "Pinning test"]


def test_passengers_of_a_transport_shaken_then_wrecked_still_take_the_leadership_test() -> None:
    """40k7 Transports, Effects of Damage on Passengers: the effect reaches the passengers "even if
    they disembark" - here forced out of the wreck by the same shot that Shook the crew: at the
    end of the phase they still test Leadership (6 + 5 = 11 > Ld8: Snap Shots only)."""
    t, m = _embarked()
    gun = vehicle("g", "a", 10, 24, weapons=(krak(),))
    state = make_state(gun, replace(t, side="b", hp=1), replace(m, side="b"), phase="shooting")
    # hit 6; rear AV10: 8 + 3 = 11 penetrating -> 0 HP; damage 3 (Shaken); Wrecked; placed by
    # their owner (the proposal); Pinning 3 + 3
    state = act(state, "a", Shoot("g", (Fire("krak", "r"),)), [6, 3, 3]).state
    state = take_proposal(state, DECISION_SURVIVORS, [3, 3]).state
    assert state.units["r"].wreck and state.units["m"].embarked_in is None
    res = act(state, "a", EndPhase(), [6, 5])
    assert res.state.units["m"].statuses["snap_only"] == 2


def test_exploding_transport_hits_each_passenger() -> None:
    """Explodes!: one S4 AP- hit per embarked model, survivors placed where the vehicle was,
    then a Pinning test."""
    t, m = _embarked()
    t = replace(t, side="b")
    m = replace(replace(m, side="b"), models={k: v for k, v in list(m.models.items())[:2]})
    gun = vehicle("g", "a", 10, 24, weapons=(weapon("las", "AP1 gun", 48, 9, 1),))
    state = make_state(gun, t, m, phase="shooting")
    # hit 6, pen 6, damage 5 + 2 = 7 Explodes!; radius 1; placed by their owner (the proposal);
    # 2 hits: wound 4, 4; Randomly Allocated (40k7 Transports, Effects of Damage on Passengers):
    # a 1 (faces 1-3 of the D6) picks m-0, save 1 fails; m-1 is the only one left (no die); save 6; pinning 1 1
    paused = act(state, "a", Shoot("g", (Fire("las", "r"),)), [6, 6, 5, 1]).state
    res = take_proposal(paused, DECISION_SURVIVORS, [4, 4, 1, 1, 6, 1, 1])
    s = res.state
    assert s.units["r"].destroyed and not s.units["r"].wreck
    alive = [mm for mm in s.units["m"].models.values() if mm.alive]
    assert len(alive) == 1 and s.units["m"].embarked_in is None


# --- Walker, Heavy, Chariot, Skimmer, Flyer, Super-heavy -------------------------------------


def test_walker_fires_all_weapons_after_moving_and_can_run() -> None:
    """40k7 Walkers: fire all weapons after moving; Run D6" in the Shooting phase."""
    state = make_state(
        replace(dreadnought("w", "a", 10, 24, weapons=(krak("k1"), krak("k2"))), moved=6.0),
        rhino("t", "b", 40, 24, 180),
        phase="shooting",
    )
    act(state, "a", Shoot("w", (Fire("k1", "t"), Fire("k2", "t"))), [1, 1])
    res = act(state, "a", Move("w", (Point(16, 24),), kind="run"), [3])
    assert res.state.units["w"].models["w-m"].pos == Point(13, 24)
    assert rejected(res.state, "a", Shoot("w", (Fire("k1", "t"),))).code == "ran"


def test_chariot_can_charge_and_is_hit_on_front_armour() -> None:
    chariot = vehicle("c", "b", 30, 24, 180, keywords=("chariot",), ws=4, s=5, i=1, a=1, armour=(11, 10, 10))
    squad = infantry("m", "a", [(32.25 + R, 24)], i=4)
    state = make_state(squad, chariot, phase="assault")
    from hulldown.match.actions import Fight

    res = act(
        state, "a", Fight("m", "c"), [4, 6, 1]
    )  # marine hits (4+ vs WS4), pen 6 -> 10 vs front 11: none; chariot misses
    pen = [r for r in res.rolls if r.purpose == "armour penetration"]
    assert pen[0].target == "S4 vs front AV11"


def test_heavy_cannot_flat_out_and_moves_6() -> None:
    state = make_state(vehicle("h", "a", 10, 24, keywords=("tank", "heavy")))
    assert rejected(state, "a", Move("h", (Point(17, 24),))).values["limit"] == 6.0


def test_super_heavy_catastrophic_damage_at_zero_hp() -> None:
    """40k7 Super-heavy: 0 HP = Catastrophic Damage (an Apocalyptic Mega-blast)."""
    sh = replace(vehicle("sh", "b", 30, 24, 180, keywords=("super-heavy", "tank"), hp=1, length=6, width=4))
    gun = vehicle("g", "a", 10, 24, weapons=(krak(),))
    near = infantry("near", "a", [(30, 28)], sv=None, t=3)
    state = make_state(gun, sh, near, phase="shooting")
    # hit 6, pen 3 -> 11 glancing -> 0 HP; catastrophic 1 (Explosion), scatter 1 (Hit) + 2D6;
    # the infantry 2" from the centre is under the 5" ring: S4 vs T3 wound 6, no save
    res = act(state, "a", Shoot("g", (Fire("krak", "sh"),)), [6, 3, 1, 1, 2, 2, 6])
    assert res.state.units["sh"].destroyed and not res.state.units["sh"].wreck
    assert res.state.units["near"].destroyed


def test_fast_vehicle_flat_out_12() -> None:
    state = make_state(vehicle("f", "a", 10, 24, keywords=("fast",)), phase="shooting")
    act(state, "a", Move("f", (Point(22, 24),), kind="flat_out"))


def test_disembarked_unit_cannot_charge_from_a_closed_transport() -> None:
    t, m = _embarked()
    enemy = infantry("e", "b", [(20, 14)])
    state = make_state(t, m, enemy)
    positions = {f"m-{k}": Point(26.0, 20.0 + 1.05 * k) for k in range(5)}
    state = act(state, "a", Disembark("m", positions)).state
    state = end_phases(state, 2)
    assert rejected(state, "a", Charge("m", "e")).code == "cannot_charge"
