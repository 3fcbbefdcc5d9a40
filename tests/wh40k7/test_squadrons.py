"""40k7 Vehicles, Vehicle Squadrons: 4" coherency, one target, hits one at a time to the
closest vehicle, abandoning the Immobilised."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Abandon, Decide, Fight, Fire, Move, Shoot
from hulldown.match.state import MatchState, Point, Unit
from hulldown.rules.wh40k7.allocation import DECISION_ALLOCATE
from hulldown.rules.wh40k7.status import flags_with_prefix

from .builders import (
    act,
    dreadnought,
    infantry,
    krak,
    make_state,
    rejected,
    rejection_of,
    rhino,
    speeder,
    vehicle,
    weapon,
)


def _vyper(uid: str, x: float) -> Unit:
    """A Vyper of squadron "sq" (Heavy here, so that it cannot Jink)."""
    return speeder(uid, "b", x, 24, 180, keywords=("fast", "skimmer", "heavy"), squadron="sq")


def test_hits_go_one_at_a_time_to_the_closest_vehicle() -> None:
    """Hits are resolved one at a time against the closest member; once it is destroyed the next
    hit goes to the new closest member. (Heavy skimmers cannot Jink.)"""
    hb = weapon("hb", "Heavy bolter", 36, 5, 4, shots=3)
    gun = vehicle("g", "a", 10, 24, weapons=(hb,), bs=5)
    v1, v2 = _vyper("v1", 40), _vyper("v2", 44)
    state = make_state(gun, v1, v2, phase="shooting")
    # 3 hits (2+); hit 1 on v1: 5 + 5 = 10 glancing; hit 2 on v1: glancing -> wrecked;
    # hit 3 goes to v2: 5 + 6 = 11 penetrating; the wreck of v1 now obscures v2 (5+ cover: 1
    # fails); damage 1 (Shaken)
    res = act(state, "a", Shoot("g", (Fire("hb", "v1"),)), [2, 2, 2, 5, 5, 6, 1, 1])
    s = res.state
    assert s.units["v1"].destroyed and s.units["v1"].wreck
    assert s.units["v2"].hp == 1 and "shaken" in s.units["v2"].statuses
    assert [r.target for r in res.rolls if r.purpose == "cover save"] == ["5+"]
    allocated = [t for t in res.texts if t.startswith("Hit allocated")]
    # 40k7 Vehicles, Measuring Distances: hull to hull (gun front at x 12.25; v1's rear at 38.5,
    # v2's at 42.5).
    assert allocated == [
        "Hit allocated to v1, the closest vehicle of the squadron (26.2 in from the firers)."
    ] * 2 + ["Hit allocated to v2, the closest vehicle of the squadron (30.2 in from the firers)."]


def test_squadron_fires_at_a_single_target_per_phase() -> None:
    a = vehicle("a1", "a", 10, 24, weapons=(krak("k"),), squadron="s")
    b = vehicle("a2", "a", 10, 28.5, weapons=(krak("k"),), squadron="s")
    state = make_state(a, b, rhino("t", "b", 40, 24, 180), rhino("u", "b", 40, 40, 180), phase="shooting")
    state = act(state, "a", Shoot("a1", (Fire("k", "t"),)), [1]).state
    rej = rejected(state, "a", Shoot("a2", (Fire("k", "u"),)))
    assert rej.code == "squadron_one_target" and rej.values["target"] == "t"
    act(state, "a", Shoot("a2", (Fire("k", "t"),)), [1])


def test_coherency_4_inches() -> None:
    a = vehicle("a1", "a", 10, 24, squadron="s")
    b = vehicle("a2", "a", 10, 29.5, squadron="s")  # 2 in between the hulls
    state = make_state(a, b)
    rej = rejected(state, "a", Move("a1", (Point(10, 18),)))
    assert rej.code == "squadron_coherency" and rej.rule == "40k7 Vehicles, Vehicle Squadrons"
    # moving both at once keeps coherency
    act(state, "a", Move("a1", (), positions={"a1-m": Point(20, 24), "a2-m": Point(20, 29.5)}))


def test_a_vehicle_never_moves_over_a_squadron_mate() -> None:
    """40k7 Vehicles, Movement: "just like other units, vehicles cannot move over friendly
    models" - squadron-mates included (a1 drove through a2 and ended on it, both accepted). Moved
    by one action, the squadron's vehicles move one at a time: a column may close up, but two
    may not swap places head-on, nor end on one another; a Skimmer flies over a squadron-mate
    but may not end on it."""
    a = vehicle("a1", "a", 10, 24, squadron="s")
    b = vehicle("a2", "a", 20, 24, squadron="s")
    state = make_state(a, b)
    for end in (20.0, 22.0):
        rej = rejected(state, "a", Move("a1", (Point(end, 24),)))
        assert (rej.code, rej.values["model"]) == ("path_blocked", "a2-m"), end
    swap = {"a1-m": Point(20, 24), "a2-m": Point(10, 24)}
    assert rejected(state, "a", Move("a1", (), positions=swap)).code == "path_blocked"
    onto = {"a1-m": Point(16, 24), "a2-m": Point(16, 24)}
    assert rejected(state, "a", Move("a1", (), positions=onto)).code == "path_blocked"
    column = {"a1-m": Point(17, 24), "a2-m": Point(23, 24)}  # a2 first, then a1 where it stood
    act(state, "a", Move("a1", (), positions=column))
    skimmers = make_state(
        vehicle("s1", "a", 10, 24, squadron="s", keywords=("skimmer",)),
        vehicle("s2", "a", 16, 24, squadron="s", keywords=("skimmer",)),
    )
    act(skimmers, "a", Move("s1", (Point(22, 24),)))  # over s2
    assert rejected(skimmers, "a", Move("s1", (Point(16, 24),))).code == "ends_on_model"
    both = {"s1-m": Point(20, 30), "s2-m": Point(20, 30)}
    assert rejected(skimmers, "a", Move("s1", (), positions=both)).code == "ends_on_model"


def test_abandon_immobilised_member_but_not_a_stunned_one() -> None:
    a = replace(vehicle("a1", "a", 10, 24, squadron="s"), statuses={"immobilised": 0})
    b = replace(vehicle("a2", "a", 10, 28.5, squadron="s"), statuses={"stunned": 2})
    c = vehicle("a3", "a", 10, 33, squadron="s")
    state = make_state(a, b, c)
    rej = rejected(state, "a", Abandon("a3", "a2-m"))
    assert rej.code == "not_immobilised" and "Crew Stunned" in rej.message
    assert rejected(state, "a", Move("a3", (Point(20, 33),))).code == "squadron_coherency"
    state = act(state, "a", Abandon("a3", "a1-m")).state
    assert state.units["a1"].squadron is None


def test_each_vehicle_moved_flat_out_by_the_squadron_must_be_able_to() -> None:
    """40k7 Vehicle Squadrons: vehicles declare Flat Out individually, instead of shooting; moving
    a squadron-mate Flat Out with the same action needs that vehicle not to have shot - and its
    move in the Movement phase does not prevent it."""
    a1 = speeder("a1", "a", 10, 24, squadron="s", weapons=(krak("k"),))
    a2 = speeder("a2", "a", 10, 28, squadron="s", weapons=(krak("k"),))
    both = {"a1-m": Point(20, 24), "a2-m": Point(20, 28)}
    moved = make_state(
        replace(a1, moved=4.0, turn_flags=("moved",)),
        replace(a2, moved=4.0, turn_flags=("moved",)),
        phase="shooting",
    )
    res = act(moved, "a", Move("a1", (), kind="flat_out", positions=both))
    assert all(res.state.units[u].flag("flat_out") for u in ("a1", "a2"))
    state = make_state(a1, a2, rhino("t", "b", 40, 24, 180), phase="shooting")
    state = act(state, "a", Shoot("a2", (Fire("k", "t"),)), [1]).state
    rej = rejected(state, "a", Move("a1", (), kind="flat_out", positions=both))
    assert rej.code == "already_shot" and "a2" in rej.message


def test_equally_close_vehicles_are_the_owners_choice() -> None:
    """40k7 Vehicle Squadrons: hits go to the closest member "exactly like you would resolve
    Wounds", so two members equally far from the firer are the owner's choice (40k7 Allocate
    Wounds, Closest Models: ``allocate_wound`` with the members' ids; proposal the lower id).
    Hit 2 (BS5); b picks v2: penetration 5 + 5 = 10 against AV10, glancing: v2 loses a Hull Point,
    v1 is untouched."""
    hb = weapon("hb", "Heavy bolter", 36, 5, 4)
    gun = vehicle("g", "a", 10, 24, weapons=(hb,), bs=5)
    v1 = speeder("v1", "b", 40, 20, 180, keywords=("fast", "skimmer", "heavy"), squadron="sq")
    v2 = speeder("v2", "b", 40, 28, 180, keywords=("fast", "skimmer", "heavy"), squadron="sq")
    state = make_state(gun, v1, v2, phase="shooting")
    paused = act(state, "a", Shoot("g", (Fire("hb", "v1"),)), [2]).state
    pending = paused.pending
    assert pending is not None and pending.kind == DECISION_ALLOCATE and pending.side == "b"
    assert pending.options == ("v1", "v2") and pending.proposal == "v1"
    why = rejection_of(paused, "b", Decide(pending.id, "g"))
    assert why is not None and why.code == "invalid_choice" and why.values == {"choice": "g"}
    done = act(paused, "b", Decide(pending.id, "v2"), [5]).state
    assert done.pending is None
    assert done.units["v2"].hp == v2.hp - 1 and done.units["v1"].hp == v1.hp
    line = next(e for e in done.log if e.text.startswith("Hit allocated"))
    assert line.values["allocated_to"] == "v2"


def _fight_log(state: MatchState, attacker: str, named: str, dice: list[int]) -> tuple[MatchState, list[str]]:
    """Side a's ``attacker`` fights the squadron member ``named``; the log lines of the fight."""
    res = act(state, "a", Fight(attacker, named), dice, exact=False)
    after = res.state
    while after.pending is not None:  # the squadron's owner takes the proposed allocation
        after = act(
            after, after.pending.side, Decide(after.pending.id, after.pending.proposal), dice, exact=False
        ).state
    return after, [e.text for e in after.log if e.seq > state.seq]


def test_a_squadron_fights_on_while_a_member_stands_whichever_member_is_named() -> None:
    """40k7 Vehicle Squadrons: a squadron struck in close combat takes the hits "first against
    squadron models in base contact, then against models further away, once the closest model is
    destroyed". A charging Dreadnought touches both Rhinos: its Hammer of Wrath wrecks v1 (1 HP)
    at Initiative 10 and its 3 attacks (2 + 1 for the charge) at Initiative 4 go on into v2 -
    whether the fight names v1 (the attacks were lost once v1 was wrecked) or v2 (the Hammer of
    Wrath was lost: the charge was declared at v1)."""
    v1 = rhino("v1", "b", 40, 20, 0, squadron="sq", hp=1)
    v2 = rhino("v2", "b", 40, 25.5, 0, squadron="sq")
    dread = replace(dreadnought("d", "a", 43.5, 22.75, 0), turn_flags=("charged", "charged_into:v1"))
    state = make_state(v1, v2, dread, phase="assault")
    outcomes = set()
    for named in ("v1", "v2"):
        after, texts = _fight_log(state, "d", named, [4] * 12)
        assert any("Hammer of Wrath, 1 automatic hit" in t for t in texts), named
        assert any("3 attacks at Initiative 4" in t for t in texts), named
        outcomes.add((after.units["v1"].destroyed, after.units["v2"].hp))
    assert outcomes == {(True, 0)}


def test_the_ws_a_squadron_is_hit_with_is_that_of_the_member_in_base_contact() -> None:
    """40k7 Vehicles and Close Combat: vehicles are WS1, an Immobilised one WS0. An infantry model
    touches only v2 (mobile) of a squadron whose v1 is Immobilised and out of reach: its attack
    needs 3+ whichever member the fight names (naming v1 made it hit automatically)."""
    v1 = replace(rhino("v1", "b", 40, 10, 0, squadron="sq"), statuses={"immobilised": 0})
    v2 = rhino("v2", "b", 40, 14.5, 0, squadron="sq")
    foot = infantry("a", "a", [(40, 16.25 + 25 / 25.4 / 2)], ws=4, s=4, a=1)
    state = make_state(v1, v2, foot, phase="assault")
    for named in ("v1", "v2"):
        _, texts = _fight_log(state, "a", named, [6, 1])
        assert any("WS4 vs WS1 hits on 3+" in t for t in texts), (named, texts)


def test_weapons_at_two_vehicles_of_one_squadron_fire_at_one_target() -> None:
    """40k7 Vehicles, Vehicle Squadrons: a squadron is a single unit, so naming two of its vehicles
    names one target (not one_target); the hits go to the closest vehicle, as for one name."""
    hb1 = weapon("hb1", "Heavy bolter", 36, 5, 4)
    hb2 = weapon("hb2", "Heavy bolter", 36, 5, 4)
    gun = vehicle("g", "a", 10, 24, weapons=(hb1, hb2), bs=5)
    state = make_state(gun, _vyper("v1", 40), _vyper("v2", 44), phase="shooting")
    # hb1 hits (2), hb2 hits (2); each hit on v1, the closest: 5 + 5 = 10 glancing, twice -> wrecked
    res = act(state, "a", Shoot("g", (Fire("hb1", "v1"), Fire("hb2", "v2"))), [2, 2, 5, 5])
    s = res.state
    assert s.units["v1"].destroyed and s.units["v2"].hp == 2
    assert flags_with_prefix(s.units["g"], "shot_at:") == ["v1"]


def test_squadron_mates_may_name_different_vehicles_of_the_target_squadron() -> None:
    """40k7 Vehicles, Vehicle Squadrons: the squadron's single target is the enemy squadron, whichever
    of its vehicles a later member names."""
    a = vehicle("a1", "a", 10, 24, weapons=(krak("k"),), squadron="s")
    b = vehicle("a2", "a", 10, 28.5, weapons=(krak("k"),), squadron="s")
    state = make_state(a, b, _vyper("v1", 40), _vyper("v2", 44), phase="shooting")
    state = act(state, "a", Shoot("a1", (Fire("k", "v1"),)), [1]).state
    after = act(state, "a", Shoot("a2", (Fire("k", "v2"),)), [1]).state
    assert after.units["a2"].flag("shot")
