"""hh3 transports (hh3 Transport sub-type): who can get in, embarking, disembarking, emergency
disembarkation with unplaceable models."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Charge, Disembark, Embark, Fire, Move, Pivot, Shoot
from hulldown.match.state import MatchState, Point, Unit, UnitKind
from hulldown.rules import geometry as g
from hulldown.rules.hh3 import geom
from hulldown.rules.hh3.core import CONTACT
from hulldown.rules.hh3.emergency import DECISION_EMERGENCY

from .builders import (
    act,
    charge,
    log_text,
    make,
    rejection,
    squad,
    take_proposal,
    tank,
    transport,
    wall,
    weapon,
)

# The transport at (30, 24) facing +x, 5 x 3: left side y = 25.5, right side y = 22.5,
# rear x = 27.5, front x = 32.5. Access points left, right and rear.
LEFT_SPOTS = [(27.6 + 1.3 * k, 26.6) for k in range(4)]


def _rhino(**kw: object) -> Unit:
    return transport("rhino", "a", 30, 24, 0, **kw)  # type: ignore[arg-type]


def _embark(unit: Unit, carrier: Unit | None = None) -> MatchState:
    return make([carrier or _rhino(), unit])


def test_only_infantry_or_paragon_may_embark() -> None:
    """hh3 Transport sub-type, Who can get in: only Infantry or Paragon units embark."""
    assert (
        rejection(_embark(squad("p", "a", LEFT_SPOTS[:1], kind="paragon")), "a", Embark("p", "rhino")) is None
    )
    kinds: tuple[UnitKind, ...] = ("monster", "walker")
    for kind in kinds:
        why = rejection(_embark(squad("x", "a", LEFT_SPOTS[:1], kind=kind)), "a", Embark("x", "rhino"))
        assert why is not None and why.code == "cannot_embark"
    tank_unit = tank("t2", "a", 30, 30, 0)
    why = rejection(_embark(tank_unit), "a", Embark("t2", "rhino"))
    assert why is not None and why.code == "cannot_embark"


def test_only_the_same_faction_may_embark() -> None:
    """hh3 Transport sub-type, Who can get in: only models with the transport's Faction."""
    why = rejection(_embark(squad("s", "a", LEFT_SPOTS[:2], faction="mechanicum")), "a", Embark("s", "rhino"))
    assert why is not None and why.code == "wrong_faction"
    assert why.values == {"unit_faction": "mechanicum", "transport_faction": "legiones-astartes"}


def test_one_unit_at_a_time() -> None:
    """hh3 Transport sub-type, Who can get in: a transport carries one unit at a time."""
    aboard = squad("first", "a", [(30, 24)], embarked_in="rhino")
    state = make([_rhino(passengers=("first",)), aboard, squad("s", "a", LEFT_SPOTS[:2])])
    why = rejection(state, "a", Embark("s", "rhino"))
    assert why is not None and why.code == "transport_occupied"


def test_not_a_transport_and_light_transport_refuse() -> None:
    """hh3 Transport sub-type, Who can get in: only the Transport sub-type carries units; a Light
    Transport takes no Bulky models."""
    plain = tank("rhino", "a", 30, 24, 0, access=("left",), capacity=10)
    why = rejection(_embark(squad("s", "a", LEFT_SPOTS[:1]), plain), "a", Embark("s", "rhino"))
    assert why is not None and why.code == "not_a_transport"
    light = _rhino(keywords=("light_transport",))
    why = rejection(_embark(squad("s", "a", LEFT_SPOTS[:1], bulky=2), light), "a", Embark("s", "rhino"))
    assert why is not None and why.code == "light_transport"


def test_bulky_capacity_limits() -> None:
    """hh3 Transport sub-type, Who can get in: Bulky (X) counts X: 4 x Bulky(3) = 12 fits capacity
    12, 3 x Bulky(4) too, 4 x Bulky(4) = 16 does not; 10 ordinary models fit capacity 10, 11 do
    not."""
    spots = LEFT_SPOTS + [(x, 21.4) for x, _ in LEFT_SPOTS] + [(26.6, 23.0), (26.6, 24.6), (26.6, 26.2)]
    cases = [(12, 4, 3, True), (12, 3, 4, True), (12, 4, 4, False), (10, 10, 1, True), (10, 11, 1, False)]
    for capacity, count, bulky, fits in cases:
        state = _embark(squad("s", "a", spots[:count], bulky=bulky), _rhino(capacity=capacity))
        why = rejection(state, "a", Embark("s", "rhino"))
        assert (why is None) == fits, (capacity, count, bulky, why)
        if not fits:
            assert why is not None and why.code == "over_capacity"


def test_embark_needs_every_model_within_2in_of_an_access_facing() -> None:
    """hh3 Transport sub-type, Embarking / Disembarking: all models within 2 in of a facing with an
    access point; the front has none, so standing next to it does not count."""
    near_front = squad("s", "a", [(35, 24)])  # 1.87 in from the front, 2.29 in from the sides
    why = rejection(_embark(near_front, _rhino(access=("left", "right"))), "a", Embark("s", "rhino"))
    assert why is not None and why.code == "too_far_from_access"
    far = squad("s", "a", [(28, 26.6), (28, 28.7)])  # the second model is 2.57 in away
    why = rejection(_embark(far), "a", Embark("s", "rhino"))
    assert why is not None and why.code == "too_far_from_access"
    assert why.values["model"] == "s-2" and abs(float(why.values["distance"] or 0) - 2.57) < 0.01


def test_embark_within_2in_at_the_start_of_the_move_sub_phase() -> None:
    """hh3 Transport sub-type, Embarking / Disembarking: "all models in the unit must start or end
    the sub-phase within 2\" of a facing of the transport with an access point" (hh3 Transports,
    Embarking [ext]: a unit may embark on a transport "after it has been activated and moved").
    Worked example: two marines stand 1.1 in from the Rhino's left access side; the Rhino drives
    8 in forward first, leaving them more than 6 in from any access facing. They began the Move
    sub-phase within 2 in, so they may still embark; a squad that began 3 in away may not."""
    near = squad("s", "a", LEFT_SPOTS[:2])
    state = act(make([_rhino(), near]), "a", Move("rhino", (Point(38, 24),)))
    assert rejection(state, "a", Embark("s", "rhino")) is None
    state = act(state, "a", Embark("s", "rhino"))
    assert state.units["s"].embarked_in == "rhino" and state.units["rhino"].passengers == ("s",)
    far = squad("s", "a", [(28, 28.5), (29.3, 28.5)])  # 2.37 in from the left side
    state = act(make([_rhino(), far]), "a", Move("rhino", (Point(30, 25.5),)))  # now 0.87 in away
    assert rejection(state, "a", Embark("s", "rhino")) is None  # the end: within 2 in now
    state = act(make([_rhino(), far]), "a", Move("rhino", (Point(38, 24),)))
    why = rejection(state, "a", Embark("s", "rhino"))
    assert why is not None and why.code == "too_far_from_access"


def test_embark_at_the_start_after_a_pivot_but_not_after_moving_away() -> None:
    """hh3 Transport sub-type, Embarking / Disembarking: a pivot turns the access facings away, but
    the marines began the sub-phase within 2 in of the left side, so they may embark. A squad that
    moved embarks from where its move ended [decided: its move was its activation]: having walked
    6 in away, it is refused even though it began next to the Rhino."""
    state = act(make([_rhino(access=("left",)), squad("s", "a", LEFT_SPOTS[:2])]), "a", Pivot("rhino", 180))
    assert rejection(state, "a", Embark("s", "rhino")) is None
    walked = act(make([_rhino(), squad("s", "a", LEFT_SPOTS[:2])]), "a", Move("s", (Point(27.6, 32.6),)))
    why = rejection(walked, "a", Embark("s", "rhino"))
    assert why is not None and why.code == "too_far_from_access"


def test_a_unit_locked_in_combat_cannot_embark() -> None:
    """hh3 Transport sub-type, Embarking / Disembarking with hh3 core, Locked in Combat: embarking
    is the unit's move, and a unit locked in combat (base contact with enemy infantry) cannot
    move, so it cannot climb into its transport to leave the fight; once it is free it may."""
    troops = squad("s", "a", LEFT_SPOTS[:2])
    foe = squad("foe", "b", [(27.6, 26.6 + 1.26)])  # base to base with s-1
    why = rejection(make([_rhino(), troops, foe]), "a", Embark("s", "rhino"))
    assert why is not None and why.code == "locked_in_combat"
    assert rejection(make([_rhino(), troops]), "a", Embark("s", "rhino")) is None


def _aboard(**kw: object) -> MatchState:
    troops = squad("s", "a", [(30, 24)] * 4, embarked_in="rhino", gun=weapon("g", strength=4, ap=5, rng=24))
    enemy = tank("e", "b", 45, 24, 180, armour=(14, 14, 14))
    return make([_rhino(passengers=("s",), **kw), troops, enemy])


# In contact with the Rhino's left side (y = 25.5 + 0.63 + 0.01), base to base along it.
ALL_LEFT = {f"s-{k + 1}": Point(27.6 + 1.3 * k, 26.14) for k in range(4)}
# Impassable terrain over the front end of the left side, from x = 30.9 (clear of the hull).
LEFT_FRONT_BLOCK = wall("block", 30.9, 25.55, 36, 30, "impassable")


def test_disembark_in_contact_with_an_access_facing_and_lost_models() -> None:
    """hh3 Transport sub-type, Embarking / Disembarking: place models in contact with a facing with
    an access point; a model that cannot be placed is a casualty; the unit then counts as having
    moved. Worked example: the only access point is on the left side, and impassable terrain
    covers that side from x = 30.9: s-1 to s-3 stand base to base from its rear end and there is
    no room left in contact with it for s-4, which is removed as a casualty."""
    positions = {k: v for k, v in ALL_LEFT.items() if k != "s-4"}
    state = make([*_aboard(access=("left",)).units.values()], terrain=[LEFT_FRONT_BLOCK])
    state = act(state, "a", Disembark("s", positions))
    unit = state.units["s"]
    assert unit.embarked_in is None and state.units["rhino"].passengers == ()
    assert [m.alive for m in unit.models.values()] == [True, True, True, False]
    assert unit.flag("moved") and unit.flag("disembarked")
    assert "s-4 could not be placed" in log_text(state)


def test_disembark_a_model_left_out_that_could_be_placed_is_refused() -> None:
    """hh3 Transport sub-type, Embarking / Disembarking [seed]: the unit disembarks in its
    entirety and only a model that "cannot be placed" is a casualty, so the player may not leave
    out a model that could still be set down. Worked example (no dice are rolled): s-1 to s-3 are
    placed base to base along the Rhino's left side from its rear end; s-4 is left out although
    the left side has room for it at x = 31.5 (in contact, in coherency, clear of every model):
    refused with ``model_placeable`` and an example position; placing all four is accepted."""
    positions = {k: v for k, v in ALL_LEFT.items() if k != "s-4"}
    why = rejection(_aboard(), "a", Disembark("s", positions))
    assert why is not None and why.code == "model_placeable"
    assert why.values["model"] == "s-4"
    spot = Point(float(why.values["x"] or 0), float(why.values["y"] or 0))
    hull = geom.hull(_aboard().units["rhino"].models["rhino-m"])
    assert g.distance(geom.at(_aboard().units["s"].models["s-4"], spot), hull) <= CONTACT
    assert rejection(_aboard(), "a", Disembark("s", ALL_LEFT)) is None


def test_disembark_rejections() -> None:
    """hh3 Transport sub-type, Embarking / Disembarking: not in contact with an access facing;
    within 1 in of an enemy; not in coherency."""
    state = _aboard()
    front = Disembark("s", {"s-1": Point(33.14, 24)})
    why = rejection(state, "a", front)
    assert why is not None and why.code == "not_at_access_point"
    enemy = squad("e2", "b", [(30, 28.2)])
    close = make([*state.units.values(), enemy])
    why = rejection(close, "a", Disembark("s", {"s-1": Point(30, 26.14)}))
    assert why is not None and why.code == "too_close_to_enemy"
    spread = Disembark("s", {"s-1": Point(28, 26.14), "s-2": Point(28, 21.86)})
    why = rejection(state, "a", spread)
    assert why is not None and why.code == "not_coherent"


def test_never_embark_and_disembark_in_one_movement_phase() -> None:
    """hh3 Transport sub-type, Embarking / Disembarking: a unit cannot embark and disembark in the
    same Movement phase."""
    state = act(_embark(squad("s", "a", LEFT_SPOTS[:2])), "a", Embark("s", "rhino"))
    why = rejection(state, "a", Disembark("s", {"s-1": Point(28, 26.14)}))
    assert why is not None and why.code == "embark_and_disembark"
    out = act(_aboard(), "a", Disembark("s", ALL_LEFT))
    why = rejection(out, "a", Embark("s", "rhino"))
    assert why is not None and why.code == "embark_and_disembark"


def test_embarked_units_do_not_shoot_disembarked_units_do() -> None:
    """hh3 Transport sub-type, Who can get in and Embarking / Disembarking: aboard, the unit cannot
    shoot; after disembarking it may."""
    state = replace(_aboard(), phase="shooting")
    why = rejection(state, "a", Shoot("s", (Fire("s-1-gun", "e"),)))
    assert why is not None and why.code == "embarked"
    out = act(_aboard(), "a", Disembark("s", ALL_LEFT))
    out = replace(out, phase="shooting")
    assert rejection(out, "a", Shoot("s", (Fire("s-1-gun", "e"),))) is None


def test_charge_after_disembarking_is_disordered_unless_assault_vehicle() -> None:
    """hh3 Transport sub-type, Embarking / Disembarking: after disembarking the unit may charge,
    Disordered unless the transport has the Assault Vehicle rule."""
    for keywords, disordered in (((), True), (("assault_vehicle",), False)):
        out = act(_aboard(keywords=keywords), "a", Disembark("s", ALL_LEFT))
        target = squad("foe", "b", [(28, 32)])
        state = replace(make([*out.units.values(), target]), phase="assault")
        state = charge(state, "a", Charge("s", "foe"), [6, 6])
        assert state.units["s"].flag("disordered") == disordered


def test_emergency_disembarkation_with_unplaceable_models() -> None:
    """hh3 Transport sub-type, Emergency Disembarkation: impassable terrain on three sides leaves
    room for only a few models in contact with the hull; the others are casualties; coherency is
    not needed; then the Cool check (2D6 = 7 vs Cool 8: passed, no Pinned)."""
    rhino = transport("rhino", "b", 10, 10, 0, hp=1, passengers=("s",))
    troops = squad("s", "b", [(10, 10)] * 10, embarked_in="rhino", cool=8)
    walls = [
        wall("south", 4, 4, 16, 8.49, "impassable"),
        wall("east", 12.51, 8.49, 16, 14, "impassable"),
        wall("west", 4, 8.49, 7.49, 14, "impassable"),
    ]
    shooter = tank("v", "a", 10, 30, 270, weapons=[weapon("las", strength=9, damage=1)])
    state = make([shooter, rhino, troops], terrain=walls, phase="shooting")
    # hit 6; penetration 6 (15 > side 11); the owner places (the proposal); Cool 3 + 4 = 7
    state = act(state, "a", Shoot("v", (Fire("las", "rhino"),)), [6, 6])
    state = take_proposal(state, DECISION_EMERGENCY, [3, 4])
    unit = state.units["s"]
    placed = [m for m in unit.models.values() if m.alive]
    assert 0 < len(placed) < 10
    assert unit.statuses == {}
    hull = geom.hull(rhino.models["rhino-m"])
    for m in placed:
        fp = geom.footprint(m)
        assert g.distance(fp, hull) <= CONTACT
        assert not any(g.overlaps(fp, geom.terrain_piece(w).polygon()) for w in walls)
    assert f"{len(placed)} placed, {10 - len(placed)} lost" in log_text(state)


def test_emergency_disembarkation_none_placeable_destroys_the_unit() -> None:
    """hh3 Transport sub-type, Emergency Disembarkation: every model that cannot be placed is a
    casualty (no Cool check then)."""
    rhino = transport("rhino", "b", 10, 10, 0, hp=1, passengers=("s",))
    troops = squad("s", "b", [(10, 10)] * 5, embarked_in="rhino")
    box = [
        wall("south", 4, 4, 16, 8.49, "impassable"),
        wall("north", 4, 11.51, 16, 16, "impassable"),
        wall("east", 12.51, 8.49, 16, 11.51, "impassable"),
        wall("west", 4, 8.49, 7.49, 11.51, "impassable"),
    ]
    shooter = tank("v", "a", 10, 30, 270, weapons=[weapon("las", strength=9, rules=("barrage",))])
    state = make([shooter, rhino, troops], terrain=box, phase="shooting")
    state = act(state, "a", Shoot("v", (Fire("las", "rhino"),)), [6, 6])
    assert state.pending is not None and state.pending.placement is not None
    assert state.pending.placement.proposal == {} and state.pending.placement.area["s-1"] == ()
    state = take_proposal(state, DECISION_EMERGENCY)
    assert state.units["s"].destroyed and state.units["rhino"].destroyed
