"""Random choices drawn by re-rolling (docs/odds.md, "Random choices"): a 40k7 Weapon Destroyed
result picks the weapon with D6s re-rolled beyond the choices (docs/rules-notes.md, Dice), an
endless tree of dice. The engine takes the choice itself, 1 / n each, so the answer is exact;
checked against closed forms counted with fractions, not against the engine."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import pytest
from msgspec.structs import replace

from hulldown.match.actions import Decide, Fire, Shoot
from hulldown.match.state import MatchState
from hulldown.odds import MAX_EXACT_PLAYS, OddsOptions, engine
from hulldown.odds.dice_sources import FaceStream, uniform_choice
from hulldown.odds.engine import SAMPLE_SEED
from tests.wh40k7.builders import act, make_state, vehicle, weapon
from tests.wh40k7.test_survivors_decision import SHOT as KRAK_SHOT
from tests.wh40k7.test_survivors_decision import _wreck_match

from .helpers import EPS, d6_probability, odds, unit_odds

SHOOT = Shoot("shooter", (Fire("gun", "target"),))
# BS5 hits on 2+; S10 against AV10 always penetrates; AP- adds nothing to the Vehicle Damage
# table, whose 5 is Weapon Destroyed (40k7 Vehicles, Vehicle Damage Table).
HIT = Fraction(5, 6)
WEAPON_DESTROYED = HIT * Fraction(1, 6)
# No CPU budget: the answers compared here are never cut short.
UNBOUNDED = OddsOptions(weigh_budget_s=math.inf, sampling_budget_s=math.inf, max_cpu_s=math.inf)


def _target_with(n: int) -> MatchState:
    """A Lascannon-like S10 AP- gun at BS5 against the front (AV10, 10 Hull Points) of a tank
    with ``n`` working weapons, in the open."""
    gun = weapon("gun", "Gun", 48, 10, None)
    shooter = vehicle("shooter", "a", 10, 24, 0, bs=5, weapons=(gun,))
    guns = tuple(weapon(f"w{i}", f"Gun {i}", 24, 4, 5) for i in range(n))
    target = vehicle("target", "b", 30, 24, 180, armour=(10, 10, 10), hp=10, weapons=guns)
    return make_state(shooter, target, phase="shooting")


def _weapons_lost(state: MatchState, options: OddsOptions) -> tuple[bool, dict[str, float]]:
    """Whether the engine's distribution is exact, and the chance each target weapon is lost."""
    dist = engine._Engine(options).distribution(
        state, "a", SHOOT, samples=options.samples, max_plays=MAX_EXACT_PLAYS, method=options.method
    )
    lost: dict[str, float] = {}
    for w, p in dist.plays:
        for wid, wp in p.end.units["target"].weapons.items():
            if wp.destroyed:
                lost[wid] = lost.get(wid, 0.0) + w
    return dist.exact, lost


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7])
def test_weapon_destroyed_among_several_weapons_is_exact(n: int) -> None:
    """40k7 Weapon Destroyed on a tank with n weapons: each is lost with P(hit) x 1/6 x 1/n.
    The weapon is picked with D6s re-rolled beyond n (two D6 for 7): an endless tree the walk
    never finished, so the answer was sampled even when asked exact."""
    state = _target_with(n)
    t = unit_odds(odds(state, "a", SHOOT), "target")
    assert t.damage_results["Weapon Destroyed"].p == pytest.approx(float(WEAPON_DESTROYED), abs=EPS)
    assert t.damage_results["Weapon Destroyed"].se == 0.0
    exact, lost = _weapons_lost(state, dataclasses.replace(UNBOUNDED, method="exact"))
    assert exact
    assert set(lost) == {f"w{i}" for i in range(n)}
    for wid, p in lost.items():
        assert p == pytest.approx(float(WEAPON_DESTROYED / n), abs=EPS), wid


def test_a_sampled_answer_draws_the_choice_evenly() -> None:
    """Sampled, the choice among 5 (one face of the stream redrawn above 5) and among 7 (two
    faces as 0-35, redrawn from 35 on) is drawn evenly: each weapon's loss within 4 standard
    errors of P(hit) x 1/6 x 1/n over 20,000 samples."""
    samples = 20_000
    for n in (5, 7):
        options = dataclasses.replace(UNBOUNDED, method="sampled", samples=samples, target_se=0)
        exact, lost = _weapons_lost(_target_with(n), options)
        assert not exact
        p = float(WEAPON_DESTROYED / n)
        se = math.sqrt(p * (1 - p) / samples)
        for i in range(n):
            assert abs(lost.get(f"w{i}", 0.0) - p) <= 4 * se, (n, i, lost)


def test_the_probes_uniform_choice_takes_every_branch_alike_up_to_36() -> None:
    """A random choice offers up to 36 branches: for 7 to 36, 36,000 choices from the stream
    each come out within 5 standard errors of even (Knuth's estimate, docs/odds.md)."""
    draws = 36_000
    for n in (7, 11, 20, 35, 36):
        choose = uniform_choice(FaceStream(SAMPLE_SEED))
        counts = [0] * n
        for _ in range(draws):
            counts[choose(n)] += 1
        p = 1 / n
        se = (p * (1 - p) * draws) ** 0.5
        assert all(abs(c - draws * p) <= 5 * se for c in counts), (n, counts)


def test_a_paused_action_replays_the_re_rolls_it_drew() -> None:
    """docs/odds.md, Decisions: the odds of answering a paused decision replay the action's own
    dice first. A Krak missile takes a two-weapon Rhino's last Hull Point (hit 6, penetration 3)
    with Weapon Destroyed (5), whose pick re-rolled a 4 then took 2; the Rhino is Wrecked and
    the shot pauses for its passengers' placement. Replayed, the pick reads the 4 and the 2 as
    the match did, and only the passengers' Pinning test (2D6 against Ld 8: pinned on 9+) is
    walked: 36 plays, pinned 10/36 (read as a fresh choice, the pick left the 4 and 2 to the
    Pinning test: 2 plays, never pinned)."""
    state = _wreck_match()
    guns = {f"w{i}": weapon(f"w{i}", f"Gun {i}", 24, 4, 5) for i in range(2)}
    state = replace(state, units={**state.units, "r": replace(state.units["r"], weapons=guns)})
    paused = act(state, "a", KRAK_SHOT, [6, 3, 5, 4, 2]).state
    assert paused.pending is not None and paused.suspended is not None
    assert paused.units["r"].weapons["w1"].destroyed is False  # not applied until resumed
    answer = odds(paused, "b", Decide(paused.pending.id, "proposal"))
    assert answer.plays == 36
    assert unit_odds(answer, "r").destroyed.p == pytest.approx(1.0, abs=EPS)
    pinned = d6_probability(lambda a, b: a + b > 8, 2)
    assert unit_odds(answer, "m").statuses["pinned"].p == pytest.approx(pinned, abs=EPS)
