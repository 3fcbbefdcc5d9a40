"""40k7 Vehicles, Transports: Effects of Damage on Passengers - the owner places the passengers of
a destroyed transport (docs/decisions.md): the shot pauses on a ``place_survivors`` decision of
the passengers' side; the proposal is the placement the server made on its own; answers are
checked with the numbers (Wrecked: wholly within 3" of the hull; Explodes!: where the vehicle
was, within 2")."""

from __future__ import annotations

import hashlib
import random

from msgspec.structs import replace
from shapely import Point as ShapelyPoint

from hulldown.match.actions import Decide, EndPhase, Fire, Shoot
from hulldown.match.state import MatchState, Options, Point
from hulldown.rules.wh40k7.survivors import DECISION_SURVIVORS

from ..decision_answers import polygon, seeded_answered_run
from .builders import act, infantry, krak, make_state, rejection_of, rhino, take_proposal, vehicle, weapon

# The Rhino's hull: x 27.75 .. 32.25, y 22.25 .. 25.75; 25 mm bases (radius 0.492 in).
TOP = {f"m-{k}": Point(28.0 + 1.1 * k, 26.25) for k in range(5)}


def _marines(n: int = 5):  # type: ignore[no-untyped-def]
    bolter = weapon("bg", "Boltgun", 24, 4, 5, type="rapid_fire")
    return infantry(
        "m", "b", [(26.5, 21.9 + 1.05 * k) for k in range(n)], weapons=[(k, bolter) for k in range(n)]
    )


def _wreck_match(options: Options | None = None) -> MatchState:
    t = replace(rhino("r", "b", 30, 24, 0, keywords=("tank", "transport")), passengers=("m",), hp=1)
    m = replace(_marines(), embarked_in="r")
    gun = vehicle("g", "a", 10, 24, weapons=(krak(),))
    enemy = infantry("e", "a", [(35.5, 24.0)])
    state = make_state(gun, t, m, enemy, phase="shooting")
    return replace(state, options=options) if options is not None else state


# hit 6; rear AV10: 8 + 3 = 11 penetrating -> 0 HP; damage 3 (Shaken); Wrecked
SHOT = Shoot("g", (Fire("krak", "r"),))
SHOT_DICE = [6, 3, 3]
PINNING = [3, 3]


def _paused() -> MatchState:
    return act(_wreck_match(), "a", SHOT, SHOT_DICE).state


def test_a_wrecked_transport_pauses_for_the_passengers_owner() -> None:
    before = _wreck_match()
    state = _paused()
    pending = state.pending
    assert pending is not None and pending.kind == DECISION_SURVIVORS and pending.side == "b"
    assert pending.placement is not None and pending.placement.limits["within"] == 3.0
    assert state.units == before.units
    why = rejection_of(state, "a", Decide(pending.id, "proposal"))
    assert why is not None and why.code == "not_your_decision"
    why = rejection_of(state, "a", EndPhase())
    assert why is not None and why.code == "decision_pending"


def test_the_proposal_is_the_automatic_placement() -> None:
    answered = take_proposal(_paused(), DECISION_SURVIVORS, PINNING).state
    auto = act(_wreck_match(Options(auto_decide=True)), "a", SHOT, [*SHOT_DICE, *PINNING]).state
    assert answered.units == auto.units and auto.pending is None
    pending = _paused().pending
    assert pending is not None and pending.placement is not None
    assert {k: m.pos for k, m in answered.units["m"].models.items()} == pending.placement.proposal
    for mid, centre in pending.placement.proposal.items():
        shapes = [polygon(s) for s in pending.placement.area[mid]]
        assert any(p.distance(ShapelyPoint(centre.x, centre.y)) < 0.01 for p in shapes)


def test_the_owner_places_them_and_the_pinning_test_follows() -> None:
    state = _paused()
    assert state.pending is not None
    res = act(state, "b", Decide(state.pending.id, "place", place=TOP), PINNING)
    assert {k: m.pos for k, m in res.state.units["m"].models.items()} == TOP
    assert [r.purpose for r in res.rolls] == ["Pinning test", "Pinning test"]
    assert res.state.units["r"].wreck and res.state.pending is None


def test_illegal_placements_are_refused_with_the_numbers() -> None:
    state = _paused()
    assert state.pending is not None
    did = state.pending.id

    def refused(place: dict[str, Point]) -> tuple[str, dict[str, object]]:
        why = rejection_of(state, "b", Decide(did, "place", place=place))
        assert why is not None
        return why.code, dict(why.values)

    # 29.5 - 25.75 = 3.75 in from the hull, plus the base's 0.49 in: 4.24 > 3
    code, values = refused({**TOP, "m-4": Point(30.0, 29.5)})
    assert code == "too_far_from_hull" and abs(float(values["distance"]) - 4.242) < 0.01  # type: ignore[arg-type]
    assert values["limit"] == 3.0
    code, _ = refused({**TOP, "m-4": Point(30.0, 25.5)})
    assert code == "overlaps_hull"
    # 35.5 - 34.2 - 2 x 0.492 = 0.32 in from the enemy model
    code, values = refused({**TOP, "m-4": Point(34.2, 24.0)})
    assert code == "too_close_to_enemy" and abs(float(values["distance"]) - 0.316) < 0.01  # type: ignore[arg-type]
    code, values = refused({k: p for k, p in TOP.items() if k != "m-4"})
    assert code == "model_placeable" and values["model"] == "m-4"
    code, _ = refused({**TOP, "m-4": Point(28.5, 26.25)})
    assert code == "overlaps_model"


def test_an_exploded_transports_passengers_may_stand_where_it_was() -> None:
    """Explodes!: the survivors are placed where the vehicle was (its footprint and 2" round it
    [decided]); then the S4 hits of the explosion on each embarked model and the Pinning test."""
    t = replace(rhino("r", "b", 30, 24, 180, keywords=("tank", "transport")), passengers=("m",))
    m = replace(_marines(2), embarked_in="r")
    gun = vehicle("g", "a", 10, 24, weapons=(weapon("las", "AP1 gun", 48, 9, 1),))
    state = make_state(gun, t, m, phase="shooting")
    # hit 6, pen 6, damage 5 + 2 = 7 Explodes!; radius 1
    paused = act(state, "a", Shoot("g", (Fire("las", "r"),)), [6, 6, 5, 1]).state
    pending = paused.pending
    assert pending is not None and pending.kind == DECISION_SURVIVORS and pending.placement is not None
    assert pending.placement.limits["within"] == 2.0
    centre = ShapelyPoint(30.0, 24.0)
    assert any(polygon(s).contains(centre) for s in pending.placement.area["m-0"])
    far = {"m-0": Point(29.5, 24.0), "m-1": Point(30.0, 27.5)}  # 1.75 + 0.49 = 2.24 > 2
    why = rejection_of(paused, "b", Decide(pending.id, "place", place=far))
    assert why is not None and why.code == "too_far_from_hull"
    inside = {"m-0": Point(29.5, 24.0), "m-1": Point(30.5, 24.0)}
    # 2 hits: wound 4, 4; Randomly Allocated (40k7 Transports, Effects of Damage on Passengers):
    # a 1 (faces 1-3 of the D6) picks m-0, save 1 fails; m-1 is the only one left (no die); save 6; pinning 1 1
    res = act(paused, "b", Decide(pending.id, "place", place=inside), [4, 4, 1, 1, 6, 1, 1])
    alive = {k: mm.pos for k, mm in res.state.units["m"].models.items() if mm.alive}
    assert len(alive) == 1 and set(alive.values()) <= set(inside.values())


def test_random_answers_fold_back_to_the_live_state() -> None:
    """With seeded dice and random answers (the proposal, or a random legal placement), folding
    the events again from the start gives the live state (docs/decisions.md)."""
    paused_runs = 0
    for i in range(12):
        seed = hashlib.sha256(f"survivors-{i}".encode()).digest()
        run = seeded_answered_run(_wreck_match(), "a", SHOT, seed, {DECISION_SURVIVORS}, random.Random(i))
        if run.asked is not None:
            paused_runs += 1
            assert run.asked.side == "b"
            assert run.live.pending is None and run.live.units["m"].embarked_in is None
    assert paused_runs >= 2
