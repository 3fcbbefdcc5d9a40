"""The odds engine's contract (docs/odds.md): rejections as validation, never the match's dice,
the decision policy, the sampled fallback and its standard errors."""

from __future__ import annotations

import ast
from contextlib import nullcontext
from pathlib import Path

import msgspec
import pytest
from msgspec.structs import replace

from hulldown.match.actions import Fire, Shoot, Undo
from hulldown.match.rejection import Rejection
from hulldown.match.validate import validate
from hulldown.odds import OddsOptions, compute_odds, engine
from hulldown.odds.aggregate import _likeliest
from tests.wh40k7.builders import make_state, predator, rhino, ruin, speeder, vehicle, weapon

from .helpers import EPS, hit_chance_40k7, odds, unit_odds

LASCANNON_AT_SPEEDER = Shoot("predator", (Fire("lascannon", "speeder"),))


def _speeder_duel() -> object:
    return make_state(
        predator("predator", "a", 10, 24), speeder("speeder", "b", 30, 24, 180), phase="shooting"
    )


def test_an_illegal_action_gets_the_rejection_validation_gives() -> None:
    state = make_state(
        predator("predator", "a", 10, 24), speeder("speeder", "b", 30, 24, 180), phase="movement"
    )
    answer = compute_odds(state, "a", LASCANNON_AT_SPEEDER)
    assert isinstance(answer, Rejection)
    assert answer == validate(state, "a", LASCANNON_AT_SPEEDER)
    assert answer.code == "wrong_phase"
    not_yours = compute_odds(replace(state, phase="shooting"), "b", LASCANNON_AT_SPEEDER)
    assert isinstance(not_yours, Rejection) and not_yours.code == "not_your_turn"
    undo = compute_odds(state, "a", Undo())
    assert isinstance(undo, Rejection) and undo.code == "odds_not_applicable"


@pytest.mark.parametrize("method", ["exact", "sampled"])
def test_the_answer_does_not_depend_on_the_match_seed(method: str) -> None:
    """Never the match's dice: two states that differ only in the dice seed and its commitment
    (and the match id the HMAC dice are bound to) get identical answers."""
    state = _speeder_duel()
    other = replace(state, match_id="another-match", seed="ff" * 32, commitment="00" * 32)  # type: ignore[type-var]
    one = odds(state, "a", LASCANNON_AT_SPEEDER, method=method, samples=600, expect=method)  # type: ignore[arg-type]
    two = odds(other, "a", LASCANNON_AT_SPEEDER, method=method, samples=600, expect=method)  # type: ignore[arg-type]
    assert msgspec.json.encode(one) == msgspec.json.encode(two)


def test_jink_is_the_defenders_best_answer_and_is_reported() -> None:
    """40k7 Jink: the target's owner may take a 4+ cover save. The default policy answers with
    the owner's best answer (Jink: fewer Hull Points lost); a fixed choice overrides it. The
    Lascannon (S9) always glances or penetrates the Speeder's AV10."""
    state = _speeder_duel()
    best = odds(state, "a", LASCANNON_AT_SPEEDER)
    (decision,) = best.decisions
    assert (decision.kind, decision.side, decision.raised.p) == ("jink", "b", 1.0)
    assert decision.chosen == {"jink": decision.raised}
    assert (decision.policy, decision.rule) == ("best_answer", "40k7 Special Rules, Jink")
    assert best.policy == "best_answer"
    hit = hit_chance_40k7(4)
    jinked = unit_odds(best, "speeder")
    assert jinked.final["2"].p == pytest.approx(1 - hit / 2, abs=EPS)
    assert jinked.statuses["jink"].p == 1.0
    stood = unit_odds(odds(state, "a", LASCANNON_AT_SPEEDER, choices={"jink": "no"}), "speeder")
    assert stood.final["2"].p == pytest.approx(1 - hit, abs=EPS)
    assert stood.expected_lost > jinked.expected_lost


def test_a_large_tree_is_sampled_with_standard_errors_under_one_percent() -> None:
    """A Lascannon and two Heavy bolters (three shots each): too many dice sequences to walk by
    default (even with each weapon's to-hit and penetration dice walked as batches); the 2,500
    default samples keep every standard error at or under 1%."""
    hb = weapon("hb", "Heavy bolter", 36, 5, 4, shots=3)
    hb2 = weapon("hb2", "Heavy bolter", 36, 5, 4, shots=3)
    shooter = predator("predator", "a", 10, 24, weapons=(weapon("lascannon", "Lascannon", 48, 9, 2), hb, hb2))
    target = vehicle("rhino", "b", 30, 24, 180, armour=(10, 10, 10), hp=3, name="Rhino")
    state = make_state(shooter, target, phase="shooting")
    action = Shoot("predator", (Fire("lascannon", "rhino"), Fire("hb", "rhino"), Fire("hb2", "rhino")))
    answer = odds(state, "a", action, expect="sampled")
    assert answer.samples == 2500 and answer.plays == 2500
    rhino = unit_odds(answer, "rhino")
    probabilities = [rhino.no_effect, rhino.destroyed, *rhino.final.values(), *rhino.damage_results.values()]
    assert all(0 < p.se <= 0.01 for p in probabilities if 0 < p.p < 1)
    assert rhino.expected_lost_se > 0
    assert rhino.summary.startswith("Lascannon + Heavy bolter x2 -> Rhino, front AV10")


def test_max_plays_bounds_the_exact_walk() -> None:
    state = _speeder_duel()
    answer = compute_odds(state, "a", LASCANNON_AT_SPEEDER, OddsOptions(max_plays=5, samples=300))
    assert not isinstance(answer, Rejection)
    assert answer.method == "sampled" and answer.samples == 300


def test_an_answer_costs_at_most_its_cpu_budgets() -> None:
    """docs/odds.md, What an answer may cost: past ``weigh_budget_s`` no decision state is weighed
    (it takes its first option, policy first_option), past ``sampling_budget_s`` no batch of
    samples is drawn (the probe's are all there are), past ``max_cpu_s`` the answer is refused
    with odds_too_costly. Budgets of 0 make each happen at once."""
    state = _speeder_duel()
    unweighed = odds(state, "a", LASCANNON_AT_SPEEDER, weigh_budget_s=0.0)
    (decision,) = unweighed.decisions
    assert decision.policy == "first_option"
    assert decision.chosen == {decision.options[0]: decision.raised}
    short = odds(state, "a", LASCANNON_AT_SPEEDER, expect="sampled", method="sampled", sampling_budget_s=0.0)
    assert short.samples == engine.PROBE_PLAYS
    refused = compute_odds(state, "a", LASCANNON_AT_SPEEDER, OddsOptions(max_cpu_s=0.0))
    assert isinstance(refused, Rejection) and refused.code == "odds_too_costly"
    assert refused.rule == "docs/odds.md, What an answer may cost"
    assert "took more than 0 s of CPU" in refused.message


def test_the_engine_cannot_reach_the_match_dice() -> None:
    """No module of the odds package imports the match's dice: the HMAC source, its derivation
    or the binding of events to it (docs/odds.md, "Never the match's dice")."""
    package = Path(__file__).resolve().parents[2] / "server" / "hulldown" / "odds"
    files = sorted(package.glob("*.py"))
    assert len(files) >= 5
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert "dice_binding" not in (node.module or ""), path.name
                names = {alias.name for alias in node.names}
                assert not names & {"SeededDice", "derive_die", "event_dice"}, (path.name, names)


def test_memoised_geometry_changes_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """rules/memo.py only saves work: the same answers with the memo scope replaced by nothing
    (a shot through a ruin's cover, where facings, sight and cover are all memoised)."""
    state = make_state(
        predator("predator", "a", 10, 24),
        rhino("rhino", "b", 30, 24, 180),
        terrain=[ruin("ruin", 20, 20, 22, 24)],
        phase="shooting",
    )
    action = Shoot("predator", (Fire("lascannon", "rhino"),))
    memoised = [
        odds(state, "a", action),
        odds(state, "a", action, method="sampled", samples=300, expect="sampled"),
    ]
    monkeypatch.setattr(engine, "memo_scope", nullcontext)
    plain = [
        odds(state, "a", action),
        odds(state, "a", action, method="sampled", samples=300, expect="sampled"),
    ]
    assert [msgspec.json.encode(a) for a in memoised] == [msgspec.json.encode(a) for a in plain]
    assert "4+ cover" in memoised[0].summary[0]


def test_equally_likely_results_are_listed_by_name_whatever_the_rounding() -> None:
    """A summary lists equally likely results by name: sums of the same chances taken in another
    order (the merged walk against all six faces) differ in their last bits, which put them in
    either order."""
    third = 1 / 3
    assert _likeliest({"stunned": 0.1 + 0.2, "pinned": 0.3, "suppressed": third}) == [
        ("suppressed", third),
        ("pinned", 0.3),
        ("stunned", 0.1 + 0.2),
    ]
