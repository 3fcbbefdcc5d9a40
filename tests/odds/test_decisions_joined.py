"""A decision's continuation is walked once and joined to every play that reaches it
(docs/odds.md, "Decisions"): the joined exact answer agrees with a brute-force sampler over the
real reducer that answers the decision the same way."""

from __future__ import annotations

from hulldown.match.actions import Fire, Shoot
from tests.wh40k7.builders import krak, lascannon, make_state, predator, speeder

from .helpers import assert_agrees, brute_force, odds

PLAYS = 4000


def test_a_jinking_squadron_volley_agrees_with_brute_force() -> None:
    """40k7 Squadrons and Jink: a Lascannon and a Krak missile at three Land Speeders whose
    owner Jinks (4+ cover save); each hit goes to the closest living member."""
    shooter = predator("predator", "a", 10, 24, weapons=(lascannon(), krak()))
    members = [speeder(f"ls{i}", "b", 30 + 3 * i, 20 + 4 * i, 180, squadron="speeders") for i in range(3)]
    state = make_state(shooter, *members, phase="shooting")
    action = Shoot("predator", (Fire("lascannon", "ls0"), Fire("krak", "ls0")))
    answer = odds(state, "a", action, choices={"jink": "jink"})
    (decision,) = answer.decisions
    assert decision.chosen["jink"].p == 1.0
    units = ["ls0", "ls1"]
    sampled = brute_force(state, "a", action, units, PLAYS, choices={"jink": "jink"})
    assert assert_agrees(answer, sampled) >= 2 * len(units)
    assert 0 < sampled["ls0"].lost_mean < 2
