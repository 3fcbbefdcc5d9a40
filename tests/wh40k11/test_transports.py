"""40k11 core rules, Transports: Embark, Disembark and Destroyed Transport, worked with fixed dice
(docs/rules-notes.md, 40k11 Transports).

The Trukk: a 6 x 4 in hull centred at (20, 20), heading 0 (its hull spans x 17-23, y 18-22),
TRANSPORT, capacity 12. The boyz: 32 mm bases (radius 0.63 in), 1 wound each.
"""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Charge, Decide, Disembark, Embark, Fire, Move, Shoot
from hulldown.match.state import Answer, MatchState, Point, Unit
from hulldown.rules.wh40k11.allocation import DECISION_ALLOCATE
from hulldown.rules.wh40k11.destroyed import DECISION_EMERGENCY, check_placement

from .builders import check, infantry, state, step, take_proposal, vehicle, weapon

BOYZ_X = (18.0, 19.5, 21.0, 22.5, 24.0)


def trukk(capacity: int = 12, w: int = 12) -> Unit:
    t = vehicle("trukk", "a", 20.0, 20.0, keywords=("vehicle", "frame", "transport"), w=w, t=8, sv=None)
    return replace(t, profile=replace(t.profile, capacity=capacity))


def boyz(y: float = 28.0, n: int = 5) -> Unit:
    return infantry("boyz", "a", [(x, y) for x in BOYZ_X[:n]])


def aboard(transport: Unit, unit: Unit) -> tuple[Unit, Unit]:
    return replace(transport, passengers=(unit.id,)), replace(unit, embarked_in=transport.id)


def move_to(y: float) -> Move:
    return Move(unit="boyz", kind="normal", path=(Point(BOYZ_X[0], y),))


def near_the_trukk() -> MatchState:
    """The boyz end a 4 in Normal move at y = 24: 2 - 0.63 = 1.37 in from the hull's edge."""
    return step(state(trukk(), boyz()), move_to(24.0))


def test_embark_at_the_end_of_a_normal_move_within_3_inches() -> None:
    """40k11 core rules, Transports, Embark: every model ended its Normal move within 3" of the
    friendly TRANSPORT: the unit embarks and is removed from the battlefield."""
    s = step(near_the_trukk(), Embark(unit="boyz", transport="trukk"))
    assert s.units["boyz"].embarked_in == "trukk"
    assert s.units["trukk"].passengers == ("boyz",)
    assert "boyz embarks within trukk (5/12 places)." in [e.text for e in s.log]


def test_embark_refused_too_far_with_the_distance() -> None:
    """40k11 core rules, Transports, Embark: the boyz end at y = 26, 4 - 0.63 = 3.37 in from the
    hull's edge (y = 22): too far."""
    s = step(state(trukk(), boyz()), move_to(26.0))
    r = check(s, Embark(unit="boyz", transport="trukk"))
    assert (
        r is not None and r.code == "too_far_to_embark" and r.rule == "40k11 core rules, Transports: Embark"
    )
    assert r.values["distance"] == 3.37 and r.values["limit"] == 3.0


def test_embark_refused_without_a_move_this_phase() -> None:
    """40k11 core rules, Transports, Embark: a unit embarks when its move ends within 3"."""
    r = check(state(trukk(), boyz(y=24.0)), Embark(unit="boyz", transport="trukk"))
    assert r is not None and r.code == "not_moved"


def test_embark_refused_over_capacity() -> None:
    """40k11 core rules, Transports: 5 boyz need 5 places, the transport has 4."""
    s = step(state(trukk(capacity=4), boyz()), move_to(24.0))
    r = check(s, Embark(unit="boyz", transport="trukk"))
    assert (
        r is not None and r.code == "over_capacity" and "boyz needs 5 places, trukk has 4 free" in r.message
    )


def test_embark_refused_after_disembarking_this_phase() -> None:
    """40k11 core rules, Transports: a unit that disembarked this phase cannot embark again."""
    t, b = aboard(trukk(), boyz(n=3))
    s = step(state(t, b), Disembark(unit="boyz", positions=_beside(3)))
    s = step(s, move_to(24.5))
    r = check(s, Embark(unit="boyz", transport="trukk"))
    assert r is not None and r.code == "disembarked_this_phase"


def _beside(n: int, y: float = 23.0) -> dict[str, Point]:
    """Set up 0.37 in off the hull's edge (y = 22): the far side of a base 1.63 in, within 3"."""
    return {f"boyz-{i + 1}": Point(BOYZ_X[i], y) for i in range(n)}


def test_disembark_before_the_transport_moves_the_unit_may_still_move_and_charge() -> None:
    """40k11 core rules, Transports, Disembark: set up wholly within 3"; before the transport
    moved the unit acts normally (here a Normal move after disembarking)."""
    t, b = aboard(trukk(), boyz())
    s = step(state(t, b), Disembark(unit="boyz", positions=_beside(5)))
    assert s.units["boyz"].embarked_in is None and s.units["trukk"].passengers == ()
    assert s.units["boyz"].models["boyz-1"].pos == Point(18.0, 23.0)
    assert check(s, move_to(27.0)) is None
    assert "no_charge" not in s.units["boyz"].turn_flags


def test_disembark_after_the_transports_normal_move_no_move_no_charge() -> None:
    """40k11 core rules, Transports, Disembark: after the transport made a Normal move this phase
    the unit cannot move or charge this turn."""
    t, b = aboard(trukk(), boyz())
    s = step(state(t, b), Move(unit="trukk", kind="normal", path=(Point(20.0, 16.0),)))
    s = step(s, Disembark(unit="boyz", positions=_beside(5, y=19.0)))
    r = check(s, move_to(24.0))
    assert r is not None and r.code == "already_moved"
    s = replace(s, phase="charge")
    enemy = infantry("grots", "b", [(19.0, 27.0)])
    s = replace(s, units={**s.units, "grots": enemy})
    r = check(s, Charge(unit="boyz", target="grots"))
    assert r is not None and r.code == "disembarked_after_transport_moved"


def test_disembark_refused_not_wholly_within_3_inches() -> None:
    """A base centred 2.5 in off the hull reaches 3.13 in: not wholly within 3"."""
    t, b = aboard(trukk(), boyz(n=1))
    r = check(state(t, b), Disembark(unit="boyz", positions={"boyz-1": Point(18.0, 24.5)}))
    assert r is not None and r.code == "too_far_to_disembark" and r.values["distance"] == 3.13
    assert r.rule == "40k11 core rules, Transports: Disembark"


def test_disembark_refused_within_engagement_range() -> None:
    """Not within Engagement Range (2") of enemy models: an enemy base 1.5 in away."""
    t, b = aboard(trukk(), boyz(n=1))
    enemy = infantry("grots", "b", [(18.0, 25.76)])
    r = check(state(t, b, enemy), Disembark(unit="boyz", positions={"boyz-1": Point(18.0, 23.0)}))
    assert r is not None and r.code == "in_engagement_range" and r.values["distance"] == 1.5


def test_disembark_refused_after_embarking_this_phase_and_from_an_advanced_transport() -> None:
    """Only a unit that started the Movement phase embarked disembarks; not from a transport that
    Advanced."""
    s = step(near_the_trukk(), Embark(unit="boyz", transport="trukk"))
    r = check(s, Disembark(unit="boyz", positions=_beside(5)))
    assert r is not None and r.code == "embarked_this_phase"
    t, b = aboard(trukk(), boyz())
    s = step(state(t, b), Move(unit="trukk", kind="advance"), [3])
    r = check(s, Disembark(unit="boyz", positions=_beside(5)))
    assert r is not None and r.code == "transport_advanced_or_fell_back"


SHOOT = Shoot(unit="gun", fire=(Fire(weapon="rokkit", target="trukk"),))


def _destroyed_scene() -> MatchState:
    """The Trukk has 1 wound left, no save; a tank hunter of side b shoots it from 20 in away."""
    t, b = aboard(trukk(w=1), boyz())
    gun = infantry("gun", "b", [(20.0, 0.0)], weapons=(weapon("rokkit", "gun-1", rng=24, s=9, d=3),))
    return state(t, b, gun, phase="shooting", active="b")


def test_destroyed_transport_passengers_set_up_then_roll_a_d6_each() -> None:
    """40k11 core rules, Transports, Destroyed Transport: hit 4, wound 3 (S9 > T8: 3+), no save,
    3 damage: the Trukk is destroyed; the boyz' owner is asked to place them
    (proposal: wholly within 3"); 5 D6: 1, 3, 4, 5, 6 - one mortal wound, allocated by the owner."""
    s = step(_destroyed_scene(), SHOOT, [4, 3])
    assert s.pending is not None and s.pending.kind == DECISION_EMERGENCY and s.pending.side == "a"
    placement = s.pending.placement
    assert placement is not None and placement.limits["within"] == 3.0 and len(placement.proposal) == 5
    assert placement.area  # the legal area is drawn for the owner
    s = take_proposal(s, DECISION_EMERGENCY, [1, 3, 4, 5, 6])
    assert s.pending is not None and s.pending.kind == DECISION_ALLOCATE
    s = take_proposal(s, DECISION_ALLOCATE)
    boyz_now = s.units["boyz"]
    assert boyz_now.embarked_in is None and not boyz_now.destroyed
    assert sum(m.alive for m in boyz_now.models.values()) == 4
    assert s.units["trukk"].destroyed and s.units["trukk"].passengers == ()
    texts = [e.text for e in s.log]
    assert any("disembarks from the destroyed trukk (wholly within 3 in): 5 set up" in t for t in texts)
    assert "boyz: 5 D6 rolled, 1 mortal wound." in texts


def test_destroyed_transport_placement_answer_checked() -> None:
    """A placed model must be wholly within 3" and a model left out must have no spot left."""
    s = _destroyed_scene()
    t, b = s.units["trukk"], s.units["boyz"]
    far = Answer(choice="place", place={f"boyz-{i}": Point(18.0 + i, 25.0) for i in range(1, 6)})
    r = check_placement(s, t, b, 3.0, far)
    assert r is not None and r.code == "too_far_to_disembark"
    short = Answer(choice="place", place={"boyz-1": Point(18.0, 23.0)})
    r = check_placement(s, t, b, 3.0, short)
    assert r is not None and r.code == "model_placeable"


def test_destroyed_transport_models_without_room_are_destroyed() -> None:
    """Boxed in by impassable terrain all round: no model can be set up, the unit is destroyed."""
    from hulldown.match.state import Terrain

    box = Terrain(
        id="wall",
        points=(Point(10.0, 10.0), Point(30.0, 10.0), Point(30.0, 30.0), Point(10.0, 30.0)),
        kinds=("impassable",),
    )
    s = _destroyed_scene()
    s = replace(s, terrain={"wall": box})
    s = step(s, SHOOT, [4, 3])
    s = take_proposal(s, DECISION_EMERGENCY)
    assert s.units["boyz"].destroyed
    assert "boyz is destroyed: no model could be set up." in [e.text for e in s.log]


def test_start_embarked_at_deployment_is_checked_by_who_fits() -> None:
    """Set-up: start embarked uses the same who-fits rule (INFANTRY, capacity)."""
    from hulldown.rules.wh40k11.transports import check_fits

    s = state(trukk(capacity=4), boyz())
    r = check_fits(s, s.units["boyz"], s.units["trukk"])
    assert r is not None and r.code == "over_capacity"
    assert check_fits(state(trukk(), boyz()), boyz(), trukk()) is None


def test_a_decide_on_the_paused_shot_by_the_shooter_is_refused() -> None:
    s = step(_destroyed_scene(), SHOOT, [4, 3])
    assert s.pending is not None
    assert check(s, Decide(s.pending.id, "proposal"), side="b") is not None
