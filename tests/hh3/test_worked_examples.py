"""hh3 Vehicles worked examples with fixed dice: Vehicle damage table, Repair Test, Transport
sub-type (Who can get in, Emergency Disembarkation)."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Decide, Embark, EndPhase, Fire, Move, Pivot, Shoot
from hulldown.match.state import MatchState, Point
from hulldown.rules import geometry as g
from hulldown.rules.hh3 import geom
from hulldown.rules.hh3.core import CONTACT
from hulldown.rules.hh3.emergency import DECISION_EMERGENCY

from .builders import act, make, rejection, rolls, squad, take_proposal, tank, transport, weapon


def _glance_setup() -> MatchState:
    gun = weapon("big-gun", strength=9, ap=2, shots=2)
    shooter = tank("shooter", "a", 20, 24, 0, weapons=[gun])
    target = tank("target", "b", 40, 24, 180, armour=(13, 12, 10), hp=3, inv=4, keywords=("fast",))
    return make([shooter, target], phase="shooting")


def test_example5_glance_pinned_then_pinned_again_costs_1hp_without_save() -> None:
    """hh3 Vehicles, Vehicle damage table / example 5: S9 glancing hit on front AV13;
    damage die 3 -> Pinned. A second glance in the same attack rolls 4 -> Pinned again -> loses 1
    HP, no save (the target has a 4+ invulnerable save and rolls none)."""
    state = _glance_setup()
    # hit, hit, penetration 4 (13 = glancing), table 3, penetration 4, table 4
    state = act(state, "a", Shoot("shooter", (Fire("big-gun", "target"),)), [6, 6, 4, 3, 4, 4])
    target = state.units["target"]
    assert target.statuses == {"pinned": 0}
    assert target.hp == 2
    purposes = [p for p, _ in rolls(state)]
    assert purposes.count("vehicle damage table") == 2
    assert not any("save" in p for p in purposes)


def test_example5_pinned_cannot_move_rush_or_pivot() -> None:
    """hh3 Vehicles, Statuses / example 5: Pinned -> cannot move, Rush (even Fast) or pivot."""
    state = _glance_setup()
    state = act(state, "a", Shoot("shooter", (Fire("big-gun", "target"),)), [6, 1, 4, 3])
    assert state.units["target"].statuses == {"pinned": 0}
    state = replace(state, active="b", phase="movement")
    for action in (
        Move("target", (Point(44, 24),)),
        Move("target", (Point(44, 24),), kind="rush"),
        Pivot("target", 90),
    ):
        why = rejection(state, "b", action)
        assert why is not None and why.code == "pinned", why


def _statused(*names: str) -> MatchState:
    vehicle = replace(tank("v", "a", 20, 24), statuses={n: 0 for n in names})
    return make([vehicle, tank("enemy", "b", 50, 24)], phase="end")


def test_example6_repair_six_removes_the_status_the_owner_chooses() -> None:
    """hh3 Vehicles, Repair Test / example 6: Pinned and Suppressed, Repair Test 6 -> the owner chooses which
    status goes (both choices), then the player turn ends."""
    for choice, kept in (("pinned", "suppressed"), ("suppressed", "pinned")):
        state = act(_statused("pinned", "suppressed"), "a", EndPhase(), [6])
        pending = state.pending
        assert pending is not None and pending.side == "a" and pending.kind == "repair"
        assert set(pending.options) == {"pinned", "suppressed"}
        assert state.active == "a"
        state = act(state, "a", Decide(pending.id, choice))
        assert state.units["v"].statuses == {kept: 0}
        assert state.pending is None
        assert (state.active, state.phase) == ("b", "start")


def test_example6_repair_five_removes_nothing() -> None:
    """hh3 Vehicles, Repair Test / example 6: a 5 removes nothing; the turn passes."""
    state = act(_statused("pinned", "suppressed"), "a", EndPhase(), [5])
    assert state.pending is None
    assert state.units["v"].statuses == {"pinned": 0, "suppressed": 0}
    assert (state.active, state.phase) == ("b", "start")


def test_example7_capacity_12_takes_six_bulky2_and_refuses_seven() -> None:
    """hh3 Transport sub-type, Who can get in / example 7: a transport with capacity 12 takes six
    Bulky(2) models and refuses seven."""
    rhino = transport("rhino", "a", 30, 24, 0, capacity=12)
    # Along both sides (access points left and right), 0.47 in from the hull.
    spots = [(x, y) for y in (26.6, 21.4) for x in (27.6, 28.9, 30.2, 31.5)]
    six = squad("six", "a", spots[:6], bulky=2)
    state = make([rhino, six])
    state = act(state, "a", Embark("six", "rhino"))
    assert state.units["six"].embarked_in == "rhino"
    assert state.units["rhino"].passengers == ("six",)
    seven = squad("seven", "a", spots[:7], bulky=2)
    why = rejection(make([rhino, seven]), "a", Embark("seven", "rhino"))
    assert why is not None and why.code == "over_capacity"
    assert why.values == {"needed": 14, "capacity": 12}


def test_example8_destroyed_transport_ten_passengers_emergency_disembark_cool_9_vs_8_pinned() -> None:
    """hh3 Transport sub-type, Emergency Disembarkation / example 8: a destroyed transport's ten
    passengers emergency-disembark in contact with the hull; Cool check 2D6 = 9 against Cool 8
    fails -> Pinned. No damage from the attack carries over."""
    rhino = transport("rhino", "b", 40, 24, 180, hp=1, passengers=("squad",))
    troops = squad("squad", "b", [(40, 24)] * 10, cool=8, embarked_in="rhino")
    gun = weapon("lascannon", strength=9, ap=2, damage=1)
    shooter = tank("shooter", "a", 10, 24, 0, weapons=[gun])
    state = make([shooter, rhino, troops], phase="shooting")
    # hit 5, penetration 3 (12 > AV11: penetrating); the owner takes the proposed placement;
    # Cool check 4 + 5 = 9
    state = act(state, "a", Shoot("shooter", (Fire("lascannon", "rhino"),)), [5, 3])
    state = take_proposal(state, DECISION_EMERGENCY, [4, 5])
    assert state.units["rhino"].destroyed
    unit = state.units["squad"]
    assert unit.embarked_in is None and not unit.destroyed
    assert unit.statuses == {"pinned": 0}
    hull = geom.hull(rhino.models["rhino-m"])
    placed = [geom.footprint(m) for m in unit.models.values()]
    assert len(placed) == 10 and all(m.alive and m.wounds == 1 for m in unit.models.values())
    for fp in placed:
        assert g.distance(fp, hull) <= CONTACT
        assert not g.overlaps(fp, hull)
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            assert not g.overlaps(a, b)
