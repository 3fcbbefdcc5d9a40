"""hh3 Transport sub-type, Emergency Disembarkation, placed by the passengers' owner
(docs/decisions.md): the destroying shot pauses on a ``place_emergency_disembark`` decision that
only the owner answers; the proposal is the placement the server made on its own; an answer is
checked with the numbers; the paused action resumes with the same dice, in the same order."""

from __future__ import annotations

from msgspec.structs import replace
from shapely import Point as ShapelyPoint
from shapely import Polygon

from hulldown.match.actions import Decide, EndPhase, Fire, Shoot
from hulldown.match.context import ApplyContext
from hulldown.match.editions import rules_for
from hulldown.match.state import MatchState, Options, Point
from hulldown.rules import geometry as g
from hulldown.rules.dice import FixedDice
from hulldown.rules.hh3 import geom
from hulldown.rules.hh3.core import CONTACT
from hulldown.rules.hh3.emergency import DECISION_EMERGENCY

from .builders import act, log_text, make, rejection, squad, take_proposal, tank, transport, weapon

SHOT = Shoot("shooter", (Fire("lascannon", "rhino"),))
# hit 5 (BS4: 3+), penetration 3 (S9 + 3 = 12 > front AV 11): the Rhino's last Hull Point.
SHOT_DICE = [5, 3]
# The passengers' Cool check after they are placed: 4 + 5 = 9 > Cool 8, Pinned.
COOL_DICE = [4, 5]
# Three places in contact with the Rhino's top side (hull y 22.5 .. 25.5, 32 mm bases).
TOP = {"s-1": Point(38.0, 26.14), "s-2": Point(39.5, 26.14), "s-3": Point(41.0, 26.14)}


def _match(options: Options | None = None) -> MatchState:
    rhino = transport("rhino", "b", 40, 24, 180, hp=1, passengers=("s",))
    troops = squad("s", "b", [(40, 24)] * 3, cool=8, embarked_in="rhino")
    shooter = tank("shooter", "a", 10, 24, 0, weapons=[weapon("lascannon", strength=9, ap=2)])
    foe = squad("foe", "a", [(45.0, 24.0)])
    return make([shooter, rhino, troops, foe], phase="shooting", options=options)


def _paused() -> MatchState:
    return act(_match(), "a", SHOT, SHOT_DICE)


def test_the_shot_pauses_on_the_owners_decision_in_the_state_before_it() -> None:
    """hh3 Transport sub-type, Emergency Disembarkation: the owner of the passengers places them:
    side b is asked, while side a's shot waits; the state is the one before the shot plus the
    pending decision."""
    before = _match()
    state = _paused()
    pending = state.pending
    assert pending is not None and pending.kind == DECISION_EMERGENCY and pending.side == "b"
    assert pending.options == ("proposal", "place") and pending.proposal == "proposal"
    assert pending.placement is not None and pending.placement.models == ("s-1", "s-2", "s-3")
    assert pending.placement.limits == {"contact": CONTACT, "enemy_gap": 1.0}
    assert state.units == before.units  # nothing of the shot is applied yet
    assert state.suspended is not None and state.suspended.faces == (5, 3) and state.suspended.by == "a"
    assert "Waiting for side b" in log_text(state)
    assert "lascannon: 1 of 1 hit" in log_text(state)


def test_only_the_owner_answers_and_nothing_else_moves_the_match() -> None:
    state = _paused()
    assert state.pending is not None
    answer = Decide(state.pending.id, "proposal")
    why = rejection(state, "a", answer)
    assert why is not None and why.code == "not_your_decision"
    for side, action in (("a", EndPhase()), ("b", EndPhase()), ("a", SHOT)):
        why = rejection(state, side, action)  # type: ignore[arg-type]
        assert why is not None and why.code == "decision_pending"
    assert rejection(state, "b", answer) is None


def test_the_proposal_is_the_placement_the_server_made_on_its_own() -> None:
    """The proposal reproduces the automatic placement: the same state as ``auto_decide`` (and
    as the rules applied outside the reducer, the odds engine's policy)."""
    answered = take_proposal(_paused(), DECISION_EMERGENCY, COOL_DICE)
    auto = act(_match(Options(auto_decide=True)), "a", SHOT, [*SHOT_DICE, *COOL_DICE])
    assert auto.pending is None and auto.suspended is None
    assert answered.units == auto.units
    direct = rules_for("hh3").apply(
        _match(), "a", SHOT, ApplyContext(2, FixedDice([*SHOT_DICE, *COOL_DICE]), 0)
    )
    assert direct.units == auto.units
    pending = _paused().pending
    assert pending is not None and pending.placement is not None
    placed = {mid: m.pos for mid, m in answered.units["s"].models.items() if m.alive}
    assert placed == pending.placement.proposal
    assert answered.units["s"].statuses == {"pinned": 0}  # 4 + 5 = 9 > Cool 8
    assert answered.units["rhino"].destroyed


def test_the_owner_places_the_models_where_they_choose() -> None:
    state = _paused()
    assert state.pending is not None
    out = act(state, "b", Decide(state.pending.id, "place", place=TOP), COOL_DICE)
    unit = out.units["s"]
    assert {mid: m.pos for mid, m in unit.models.items()} == TOP
    assert unit.embarked_in is None and unit.statuses == {"pinned": 0}
    hull = geom.hull(_match().units["rhino"].models["rhino-m"])
    assert all(g.distance(geom.footprint(m), hull) <= CONTACT for m in unit.models.values())
    assert out.pending is None and out.suspended is None


def test_the_resumed_shot_writes_each_line_once_and_rolls_only_new_dice() -> None:
    """The lines of the shot are written by the shot's event; the answer's event writes the rest,
    whose dice are its own (numbered from 0)."""
    paused = _paused()
    out = take_proposal(paused, DECISION_EMERGENCY, COOL_DICE)
    text = log_text(out)
    assert text.count("lascannon: 1 of 1 hit") == 1
    mine = [e for e in out.log if e.seq == out.seq]
    assert [r.i for e in mine for r in e.rolls] == [0, 1]
    assert [r.value for e in mine for r in e.rolls] == COOL_DICE
    assert mine[0].n == paused.log_count


def test_illegal_placements_are_refused_with_the_numbers() -> None:
    state = _paused()
    assert state.pending is not None
    did = state.pending.id

    def refused(place: dict[str, Point], choice: str = "place") -> tuple[str, dict[str, object]]:
        why = rejection(state, "b", Decide(did, choice, place=place))
        assert why is not None
        return why.code, dict(why.values)

    code, values = refused({**TOP, "s-3": Point(40.0, 28.0)})
    assert code == "not_in_contact" and abs(float(values["distance"]) - 1.87) < 0.01  # type: ignore[arg-type]
    assert values["limit"] == CONTACT
    # a place at the front of the hull, 0.6 in from the enemy at (45, 24)
    code, values = refused({**TOP, "s-3": Point(43.14, 24.0)})
    assert code == "too_close_to_enemy" and abs(float(values["distance"]) - 0.6) < 0.01  # type: ignore[arg-type]
    assert values["limit"] == 1.0
    code, values = refused({**TOP, "s-3": Point(39.0, 26.14)})
    assert code == "overlaps_model"
    code, values = refused({**TOP, "s-3": Point(40.0, 25.0)})
    assert code == "overlaps_hull"
    code, values = refused({"s-1": TOP["s-1"], "s-2": TOP["s-2"]})
    assert code == "model_placeable" and values["model"] == "s-3"
    code, values = refused({**TOP, "x-9": Point(38.0, 21.86)})
    assert code == "unknown_model"
    code, _ = refused(TOP, choice="proposal")
    assert code == "place_with_proposal"
    assert _paused() == state  # refusals change nothing


def test_each_proposed_centre_lies_in_its_legal_area() -> None:
    pending = _paused().pending
    assert pending is not None and pending.placement is not None
    for mid, centre in pending.placement.proposal.items():
        shapes = pending.placement.area[mid]
        polygons = [
            Polygon([(p.x, p.y) for p in s[0]], [[(p.x, p.y) for p in h] for h in s[1:]]) for s in shapes
        ]
        assert any(poly.distance(ShapelyPoint(centre.x, centre.y)) < 0.01 for poly in polygons), mid
    # the enemy's keep-out zone is cut out of the area in front of the hull
    front = [
        Polygon([(p.x, p.y) for p in s[0]], [[(p.x, p.y) for p in h] for h in s[1:]])
        for s in pending.placement.area["s-1"]
    ]
    assert not any(poly.contains(ShapelyPoint(43.14, 24.0)) for poly in front)
    assert any(poly.distance(ShapelyPoint(TOP["s-1"].x, TOP["s-1"].y)) < 0.01 for poly in front)


def test_positions_are_refused_for_a_decision_that_places_nothing() -> None:
    """Only a placement decision takes ``place`` (docs/decisions.md)."""
    from hulldown.match.state import Decision

    state = replace(
        _match(),
        pending=Decision(
            id="facing-9", side="b", kind="facing", options=("front", "left"), prompt="p", rule="r"
        ),
    )
    why = rejection(state, "b", Decide("facing-9", "front", place={"s-1": Point(1.0, 1.0)}))
    assert why is not None and why.code == "place_not_asked"


def test_hulldown_replay_names_the_placed_models() -> None:
    """``hulldown replay`` shows a placement answer with the positions it gave."""
    from hulldown.cli.replay import describe
    from hulldown.match.events import Event

    answer = Decide("emergency-3-s", "place", place={"s-2": Point(39.5, 26.14), "s-1": Point(38.0, 26.14)})
    line = describe(Event(seq=4, at=0.0, by="b", action_id="x", body=answer))
    assert line == "side b: decides emergency-3-s -> place, s-1 at (38, 26.14), s-2 at (39.5, 26.14)"
