"""hh3 core, Resolution Sub-Phase, Aftermath: a Routed unit Falls Back (Initiative + D6, straight
away from the nearest enemy model; docs/rules-notes.md, hh3, Combat resolution) and, if a model
reached the battlefield edge, makes a Leadership Check (hh3 core, Rout Sub-Phase, Falling Back),
the winner Consolidates without moving, a vehicle only Holds."""

from __future__ import annotations

import pytest

from hulldown.match.actions import EndPhase, Fight
from hulldown.match.state import MatchState
from hulldown.rules.hh3.allocation import DECISION_ALLOCATE
from hulldown.rules.hh3.geom import radius

from .builders import act, log_text, make, rolls, squad, take_proposal, wall

# s's three troopers touch t's front model t-1 (bases 1.26 in across); t-2 stands behind t-1.
GAP = 1.27


def _combat(x: float, *terrain_kinds: str) -> MatchState:
    """s at ``x`` attacks t: t-1 at x - GAP (in contact), t-2 at x - 2 GAP (t's I4)."""
    s = squad("s", "a", [(x, 24), (x, 25.3), (x, 22.7)])
    t = squad("t", "b", [(x - GAP, 24), (x - 2 * GAP, 24)], sv=None)
    terrain = [wall("w", x - 7, 20, x - 6, 28, *terrain_kinds)] if terrain_kinds else []
    return make([s, t], phase="assault", terrain=terrain)


def _lost(state: MatchState, fall_back_die: int, *edge_check: int) -> MatchState:
    """s-1 hits and wounds (6, 6) and slays t-1 (the proposal: the closest model); s-2, s-3 and
    t's strike backs miss (1, 1, 1, 1). Side a 1 + 1 (3 models against 1) = 2 points; t's Panic
    Check at Leadership 7 - 2 = 5: 3 + 3 fails, t gains Routed, then its Fall Back die (and the
    battlefield edge's Leadership Check dice, when t reaches the edge)."""
    state = act(state, "a", Fight("s", "t"), [6, 6])
    state = take_proposal(state, DECISION_ALLOCATE, [1, 1, 1, 1])
    assert not state.units["t"].models["t-1"].alive
    return act(state, "a", EndPhase(), [3, 3, fall_back_die, *edge_check])


def test_a_routed_loser_falls_back_initiative_plus_d6_straight_away_from_the_winner() -> None:
    """hh3 core, Resolution Sub-Phase, Aftermath (Fall Back; Rout Sub-Phase, Falling Back: each
    model's Initiative + one D6 for the unit): t-2 (I4) rolls 3 and moves 7 in straight away from
    s-1, the nearest enemy model (along -x); s has no enemy left in base contact and Consolidates,
    staying where it is."""
    start = _combat(32.86)
    state = _lost(start, 3)
    assert [p for p, _ in rolls(state)] == ["Panic Check (t)", "Panic Check (t)", "Fall Back (t)"]
    t2 = state.units["t"].models["t-2"].pos
    assert t2.x == pytest.approx(32.86 - 2 * GAP - 7.0) and t2.y == pytest.approx(24.0)
    assert state.units["t"].statuses == {"routed": 0}
    text = log_text(state)
    assert "t is Routed and Falls Back 7.0 in (Initiative 4 + 3)." in text
    assert "s Consolidates: it stays where it is." in text
    assert {m.id: m.pos for m in state.units["s"].models.values()} == {
        m.id: m.pos for m in start.units["s"].models.values()
    }


def test_a_routed_loser_at_the_table_edge_stops_there() -> None:
    """hh3 core, Rout Sub-Phase, Falling Back: a model that reaches the battlefield edge stops
    there. t-2 stands 3 in from the x = 0 edge; I4 + 6 = 10 in would take it off the table, so
    its base stops touching the edge (its Leadership Check, 3 + 4, passes)."""
    state = _lost(_combat(3.0 + 2 * GAP), 6, 3, 4)
    model = state.units["t"].models["t-2"]
    assert model.pos.x == pytest.approx(radius(model)) and model.pos.y == pytest.approx(24.0)
    assert "t is Routed and Falls Back 2.4 in (Initiative 4 + 6, stopped short by the table edge" in (
        log_text(state)
    )


def test_a_routed_loser_reaching_the_edge_fails_its_leadership_check_and_is_removed() -> None:
    """hh3 core, Rout Sub-Phase, Falling Back: after the move, if one or more models touched the
    battlefield edge the unit makes a Leadership Check; failed, all its models are removed as
    casualties. t-2 reaches the x = 0 edge (I4 + 6); 4 + 4 = 8 against Leadership 7 fails: t is
    destroyed, and s, with no enemy left, Consolidates."""
    state = _lost(_combat(3.0 + 2 * GAP), 6, 4, 4)
    assert [p for p, _ in rolls(state)] == [
        "Panic Check (t)",
        "Panic Check (t)",
        "Fall Back (t)",
        "Fall Back Leadership Check (t)",
        "Fall Back Leadership Check (t)",
    ]
    t = state.units["t"]
    assert t.destroyed and not any(m.alive for m in t.models.values())
    text = log_text(state)
    assert (
        "t reached the battlefield edge and fails its Leadership Check (Leadership 7): "
        "all its models are removed as casualties; t is destroyed."
    ) in text
    assert "s Consolidates: it stays where it is." in text
    assert "t Holds." not in text


def test_a_routed_loser_reaching_the_edge_passes_its_leadership_check_and_is_suppressed() -> None:
    """hh3 core, Rout Sub-Phase, Falling Back: a passed Leadership Check after touching the
    battlefield edge - the unit loses Routed and gains Suppressed. 3 + 4 = 7 against Leadership 7
    passes; t-2 stays at the edge, and t (it fell back) does not Hold as well."""
    state = _lost(_combat(3.0 + 2 * GAP), 6, 3, 4)
    assert [p for p, _ in rolls(state)][-2:] == ["Fall Back Leadership Check (t)"] * 2
    t = state.units["t"]
    assert not t.destroyed and t.models["t-2"].alive
    assert t.statuses == {"suppressed": 0}
    text = log_text(state)
    assert (
        "t reached the battlefield edge and passes its Leadership Check (Leadership 7): "
        "it loses Routed and gains Suppressed."
    ) in text
    assert "t Holds." not in text
    assert "s Consolidates: it stays where it is." in text


def test_a_routed_loser_that_does_not_reach_the_edge_takes_no_leadership_check() -> None:
    """hh3 core, Rout Sub-Phase, Falling Back: only a unit with a model touching the battlefield
    edge makes the Leadership Check. t-2 stands 12 in from the x = 0 edge and falls back 10 in
    (I4 + 6): no check, t stays Routed."""
    state = _lost(_combat(12.0 + 2 * GAP), 6)
    assert [p for p, _ in rolls(state)] == ["Panic Check (t)", "Panic Check (t)", "Fall Back (t)"]
    t = state.units["t"]
    assert not t.destroyed and t.statuses == {"routed": 0}
    assert t.models["t-2"].pos.x == pytest.approx(2.0)
    assert "Leadership Check" not in log_text(state)


def test_a_routed_loser_stops_at_impassable_terrain() -> None:
    """hh3 core, Rout Sub-Phase, Falling Back and Line of Movement (no path through impassable
    terrain): an impassable wall 6 to 7 in behind s; t-2's 7 in (I4 + 3) stops with its base
    touching the wall's near face."""
    x = 32.86
    state = _lost(_combat(x, "impassable"), 3)
    model = state.units["t"].models["t-2"]
    assert model.pos.x == pytest.approx(x - 6 + radius(model), abs=1e-4)  # the base's polygon


def test_a_passed_panic_check_holds_and_rolls_no_fall_back_die() -> None:
    """hh3 core, Resolution Sub-Phase, Aftermath: a unit without Routed models Holds (the only
    choice modelled); the Panic Check 2 + 3 = 5 passes, so no Fall Back die and nobody moves; s may
    not Consolidate, as t does not Fall Back, and Holds too."""
    start = _combat(32.86)
    state = act(start, "a", Fight("s", "t"), [6, 6])
    state = take_proposal(state, DECISION_ALLOCATE, [1, 1, 1, 1])
    state = act(state, "a", EndPhase(), [2, 3])
    assert [p for p, _ in rolls(state)] == ["Panic Check (t)", "Panic Check (t)"]
    assert state.units["t"].models["t-2"].pos == start.units["t"].models["t-2"].pos
    text = log_text(state)
    assert "t Holds." in text and "s Holds." in text and "Consolidates" not in text
