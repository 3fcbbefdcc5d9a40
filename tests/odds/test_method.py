"""How ``auto`` chooses between the exact walk and sampling (docs/odds.md, "Exact or sampled"):
by the probe's estimate of the walk's cost, against ``EXACT_BUDGET_S``. The decision is tested
with given estimates; the engine's wiring with budgets no machine can miss (none, and unbounded)."""

from __future__ import annotations

import math

import pytest

from hulldown.match.actions import Fire, Shoot
from hulldown.match.rejection import Rejection
from hulldown.match.state import MatchState
from hulldown.odds import OddsOptions, compute_odds
from hulldown.odds.method import (
    EXACT_BUDGET_S,
    PROBE_MARGIN,
    WALK_SLACK,
    PlayTimer,
    ProbeEstimate,
    walk_exactly,
    walk_limit,
)
from tests.wh40k7.builders import lascannon, make_state, predator, rhino, weapon

MAX_PLAYS = 3000


@pytest.mark.parametrize(
    ("leaves", "known", "per_play", "expected"),
    [
        # A single Lascannon shot: 13 leaves (5 met by the probe) at 0.5 ms, well within the budget.
        (13, 5, 0.0005, True),
        # The three-weapon shot: ~2,900 leaves, 30 met, at 0.45 ms - about 1.3 s: sampled.
        (2900, 30, 0.00045, False),
        # Few leaves but each play expensive (a decision weighed inside every play).
        (171, 10, 0.002, False),
        # A shot whose only play stops at a Jink decision (the squadron volley): the probe's one
        # play, however long it took, is the whole tree - nothing is left to walk.
        (1, 1, 0.25, True),
        # Many cheap leaves still within the budget.
        (2500, 0, 0.00001, True),
        # Exactly at the budget walks; just over it samples (the leaves left count).
        (410, 10, EXACT_BUDGET_S / 400, True),
        (411, 10, EXACT_BUDGET_S / 400, False),
    ],
)
def test_auto_walks_only_when_the_estimated_cost_is_within_the_budget(
    leaves: float, known: int, per_play: float, expected: bool
) -> None:
    estimate = ProbeEstimate(leaves, known, per_play)
    assert estimate.exact_seconds == pytest.approx(max(0.0, leaves - known) * per_play)
    assert walk_exactly("auto", estimate, MAX_PLAYS, EXACT_BUDGET_S) is expected


def test_exact_ignores_the_budget_but_not_max_plays() -> None:
    costly = ProbeEstimate(2900, 30, 0.01)  # 29 s
    assert walk_exactly("exact", costly, MAX_PLAYS, EXACT_BUDGET_S)
    assert not walk_exactly("auto", costly, MAX_PLAYS, EXACT_BUDGET_S)
    too_many = ProbeEstimate(MAX_PLAYS * PROBE_MARGIN + 1, 0, 0.0)
    assert not walk_exactly("exact", too_many, MAX_PLAYS, EXACT_BUDGET_S)
    assert not walk_exactly("auto", too_many, MAX_PLAYS, math.inf)


def test_sampled_never_walks() -> None:
    assert not walk_exactly("sampled", ProbeEstimate(1, 1, 0.0), MAX_PLAYS, math.inf)


def test_the_timer_takes_the_median_play() -> None:
    timer = PlayTimer([0.05, 0.001, 0.002, 0.003])
    assert timer.per_play() == pytest.approx(0.0025)
    assert PlayTimer().per_play() == 0.0
    calls = timer.timed(lambda x: x * 2)
    assert calls(21) == 42 and len(timer.seconds) == 5 and timer.seconds[-1] >= 0.0


def _two_weapon_shot() -> tuple[MatchState, Shoot]:
    """A Lascannon and a 3-shot Heavy bolter at a Rhino's front (40k7 Shooting, Armour
    Penetration): a few hundred leaves."""
    hb = weapon("hb", "Heavy bolter", 36, 5, 4, shots=3)
    state = make_state(
        predator("predator", "a", 10, 24, weapons=(lascannon(), hb)),
        rhino("rhino", "b", 30, 24, 180),
        phase="shooting",
    )
    return state, Shoot("predator", (Fire("lascannon", "rhino"), Fire("hb", "rhino")))


def test_the_engine_follows_the_estimate() -> None:
    """Unbounded budget: the tree is walked; a zero budget (any play costs some CPU time):
    sampled; ``exact`` walks whatever the budget."""
    state, action = _two_weapon_shot()
    walked = compute_odds(state, "a", action, OddsOptions(exact_budget_s=math.inf))
    sampled = compute_odds(state, "a", action, OddsOptions(exact_budget_s=0.0))
    forced = compute_odds(state, "a", action, OddsOptions(method="exact", exact_budget_s=0.0))
    assert not isinstance(walked, Rejection) and not isinstance(sampled, Rejection)
    assert not isinstance(forced, Rejection)
    assert walked.method == "exact" and walked.samples == 0
    assert sampled.method == "sampled" and sampled.samples >= 500
    assert forced.method == "exact" and forced.plays == walked.plays


def test_an_auto_walk_is_cut_at_twice_the_plays_its_budget_buys() -> None:
    """An estimate too low (Knuth's estimate from few plays varies) costs at most
    WALK_SLACK budgets of plays before the answer is sampled."""
    estimate = ProbeEstimate(400, 100, 0.0004)
    affordable = EXACT_BUDGET_S / 0.0004  # the plays the budget buys (0.05 s: 125)
    assert walk_limit("auto", estimate, MAX_PLAYS, EXACT_BUDGET_S) == 100 + int(WALK_SLACK * affordable)
    assert walk_limit("auto", estimate, 300, EXACT_BUDGET_S) == 300
    assert walk_limit("exact", estimate, MAX_PLAYS, EXACT_BUDGET_S) == MAX_PLAYS
    # A single play costing more than the budget still leaves the known leaves and one more.
    assert walk_limit("auto", ProbeEstimate(1, 1, 0.5), MAX_PLAYS, EXACT_BUDGET_S) == 2
    assert walk_limit("auto", ProbeEstimate(1, 1, 0.0), MAX_PLAYS, EXACT_BUDGET_S) == MAX_PLAYS
