"""40k7 Vehicles, Tanks: Tank Shock - the models left in the Tank's way are moved aside by their
owner (docs/decisions.md): the Tank Shock pauses on a ``place_tank_shocked`` decision of that
side, whose proposal is the placement the server made on its own; answers are checked with the
numbers (1" to 3.05" from the hull)."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Decide, Move
from hulldown.match.state import MatchState, Options, Point
from hulldown.rules.wh40k7.aside import ASIDE_REACH, DECISION_ASIDE, PUSH_CLEARANCE

from .builders import act, infantry, make_state, rejection_of, rhino, take_proposal

SHOCK = Move("t", (Point(18, 24),), kind="tank_shock")
# The Rhino ends at (18, 24): hull x 15.75 .. 20.25, y 22.25 .. 25.75; 25 mm bases (0.492 in).
BELOW = {"e-0": Point(18.0, 27.3), "e-1": Point(19.2, 27.3)}


def _match(options: Options | None = None) -> MatchState:
    state = make_state(rhino("t", "a", 10, 24), infantry("e", "b", [(18, 24), (18, 25.2)], ld=8))
    return state if options is None else replace(state, options=options)


def _after_death_or_glory(state: MatchState) -> MatchState:
    """Morale 3 + 3 passes; side b declines Death or Glory."""
    paused = act(state, "a", SHOCK, [3, 3]).state
    assert paused.pending is not None and paused.pending.kind == "death_or_glory"
    return act(paused, "b", Decide(paused.pending.id, "none")).state


def test_the_tank_shock_pauses_for_the_owner_of_the_models_in_its_way() -> None:
    state = _after_death_or_glory(_match())
    pending = state.pending
    assert pending is not None and pending.kind == DECISION_ASIDE and pending.side == "b"
    assert pending.placement is not None and set(pending.placement.models) == {"e-0", "e-1"}
    assert pending.placement.limits["clearance"] == PUSH_CLEARANCE
    # the paused action is the answer to Death or Glory, folded again when this one is answered
    assert state.suspended is not None and state.suspended.before is not None
    assert state.suspended.before.kind == "death_or_glory"
    assert state.units["t"].models["t-m"].pos == Point(10, 24)  # the state before that answer
    why = rejection_of(state, "a", Decide(pending.id, "proposal"))
    assert why is not None and why.code == "not_your_decision"


def test_the_proposal_is_the_automatic_placement() -> None:
    answered = take_proposal(_after_death_or_glory(_match()), DECISION_ASIDE).state
    auto = _after_death_or_glory(_match(Options(auto_decide=True)))
    assert auto.pending is None and answered.units == auto.units
    pending = _after_death_or_glory(_match()).pending
    assert pending is not None and pending.placement is not None
    assert {k: m.pos for k, m in answered.units["e"].models.items()} == pending.placement.proposal
    assert answered.units["t"].flag("tank_shock")


def test_the_owner_moves_them_and_illegal_places_are_refused_with_the_numbers() -> None:
    state = _after_death_or_glory(_match())
    assert state.pending is not None
    did = state.pending.id

    def refused(place: dict[str, Point]) -> tuple[str, dict[str, object]]:
        why = rejection_of(state, "b", Decide(did, "place", place=place))
        assert why is not None
        return why.code, dict(why.values)

    # 26.5 - 0.492 - 25.75 = 0.26 in from the hull
    code, values = refused({**BELOW, "e-0": Point(18.0, 26.5)})
    assert code == "too_close_to_tank" and abs(float(values["distance"]) - 0.258) < 0.01  # type: ignore[arg-type]
    # 30 - 0.492 - 25.75 = 3.76 in: further than the shortest way out allows
    code, values = refused({**BELOW, "e-0": Point(18.0, 30.0)})
    assert code == "too_far_aside" and abs(float(values["distance"]) - 3.758) < 0.01  # type: ignore[arg-type]
    assert values["limit"] == ASIDE_REACH
    code, values = refused({"e-0": BELOW["e-0"]})
    assert code == "model_placeable" and values["model"] == "e-1"
    code, _ = refused({**BELOW, "e-1": Point(18.5, 27.3)})
    assert code == "overlaps_model"
    out = act(state, "b", Decide(did, "place", place=BELOW)).state
    assert {k: m.pos for k, m in out.units["e"].models.items()} == BELOW
    assert out.pending is None and out.suspended is None
    assert out.units["t"].models["t-m"].pos == Point(18, 24)
