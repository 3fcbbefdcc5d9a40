"""Faces the rules cannot tell apart are one branch (docs/odds.md, "Equal faces are one branch"):
the merged walk gives exactly the answer of the walk of all six faces of every roll, with far
fewer plays; samples that meet a play already made reuse it; a sampled answer stops once every
standard error is under its target, and agrees with the exact answer."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hulldown.match.actions import Action, Fire, Shoot
from hulldown.match.state import MatchState
from hulldown.odds import OddsAnswer, Prob
from hulldown.odds import face_classes as face_classes_module
from hulldown.odds.dice_sources import FACE_BLOCK, FaceStream, splitmix_faces, uniform_choice
from hulldown.odds.engine import SAMPLE_SEED
from hulldown.odds.face_classes import SIX_FACES, face_classes
from hulldown.rules.wh40k7.rolls import judge
from tests.wh40k7.builders import (
    infantry,
    krak,
    lascannon,
    make_state,
    predator,
    rhino,
    ruin,
    speeder,
    vehicle,
    weapon,
)

from .helpers import odds, unit_odds

Case = Callable[[], tuple[MatchState, Action]]


def lascannon_in_the_open() -> tuple[MatchState, Action]:
    """40k7: a Lascannon (BS4: to hit, armour penetration, Vehicle Damage table) at a Rhino."""
    state = make_state(predator("predator", "a", 10, 24), rhino("rhino", "b", 30, 24, 180), phase="shooting")
    return state, Shoot("predator", (Fire("lascannon", "rhino"),))


def lascannon_through_cover() -> tuple[MatchState, Action]:
    """40k7 Obscured Targets: the same shot through a ruin (a 4+ cover save per hit)."""
    state = make_state(
        predator("predator", "a", 10, 24),
        rhino("rhino", "b", 30, 24, 180),
        terrain=[ruin("ruin", 20, 20, 22, 24)],
        phase="shooting",
    )
    return state, Shoot("predator", (Fire("lascannon", "rhino"),))


def bolters_at_infantry() -> tuple[MatchState, Action]:
    """40k7: one S4 AP5 shot at a squad of three 4+ save models (to hit, to wound, armour
    saves, wound allocation)."""
    gun = weapon("gun", "Heavy stubber", 36, 4, 5)
    shooter = predator("predator", "a", 10, 24, weapons=(gun,))
    squad = infantry("squad", "b", [(30, 24), (31, 24), (32, 24)], sv=4)
    return make_state(shooter, squad, phase="shooting"), Shoot("predator", (Fire("gun", "squad"),))


def haywire_at_a_squadron() -> tuple[MatchState, Action]:
    """40k7 Squadrons and Haywire: two Haywire shots at a squadron of two 1-HP vehicles."""
    haywire = weapon("haywire", "Haywire blaster", 36, 3, None, shots=2, rules=("haywire",))
    shooter = predator("predator", "a", 10, 24, weapons=(haywire,))
    near = vehicle("near", "b", 28, 24, 180, armour=(10, 10, 10), hp=1, squadron="sq", name="Near")
    far = vehicle("far", "b", 31, 30, 180, armour=(10, 10, 10), hp=1, squadron="sq", name="Far")
    return make_state(shooter, near, far, phase="shooting"), Shoot("predator", (Fire("haywire", "near"),))


def melta_at_close_range() -> tuple[MatchState, Action]:
    """40k7 Melta: within half range the penetration roll adds a D6 - the base die is not
    judged alone, so it keeps its six faces."""
    melta = weapon("melta", "Multi-melta", 24, 8, 1, rules=("melta",))
    shooter = predator("predator", "a", 10, 24, weapons=(melta,))
    target = vehicle("tank", "b", 18, 24, 180, armour=(14, 13, 10), hp=3)
    return make_state(shooter, target, phase="shooting"), Shoot("predator", (Fire("melta", "tank"),))


def two_shots_at_the_rear() -> tuple[MatchState, Action]:
    """40k7: a two-shot S6 gun (its two to-hit dice are one batch: only counted) at a Rhino's
    rear (AV10): glancing on 4, penetrating on 5-6, each penetrating hit on the damage table."""
    gun = weapon("gun", "Autocannon", 48, 6, 4, shots=2)
    shooter = predator("predator", "a", 10, 24, weapons=(gun,))
    state = make_state(shooter, rhino("rhino", "b", 30, 24, 0), phase="shooting")
    return state, Shoot("predator", (Fire("gun", "rhino"),))


CASES: dict[str, Case] = {
    "two_shots_at_the_rear": two_shots_at_the_rear,
    "lascannon_in_the_open": lascannon_in_the_open,
    "lascannon_through_cover": lascannon_through_cover,
    "bolters_at_infantry": bolters_at_infantry,
    "haywire_at_a_squadron": haywire_at_a_squadron,
    "melta_at_close_range": melta_at_close_range,
}


def _probabilities(answer: OddsAnswer) -> dict[str, float]:
    """Every probability and expectation of the answer, by a name."""
    out: dict[str, float] = {}
    for u in answer.units:
        groups: dict[str, dict[str, Prob]] = {
            "final": u.final,
            "result": u.damage_results,
            "status": u.statuses,
        }
        for label, p in (
            ("no_effect", u.no_effect),
            ("destroyed", u.destroyed),
            ("glancing", u.glancing),
            ("penetrating", u.penetrating),
        ):
            if p is not None:
                out[f"{u.unit}.{label}"] = p.p
        for group, values in groups.items():
            for key, p in values.items():
                out[f"{u.unit}.{group}.{key}"] = p.p
        out[f"{u.unit}.expected_lost"] = u.expected_lost
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_the_merged_walk_gives_the_answer_of_all_six_faces(name: str) -> None:
    state, action = CASES[name]()
    merged = odds(state, "a", action, max_plays=20_000)
    every_face = odds(state, "a", action, max_plays=20_000, equal_faces=False)
    mine, reference = _probabilities(merged), _probabilities(every_face)
    assert mine.keys() == reference.keys()
    for key, p in reference.items():
        assert mine[key] == pytest.approx(p, abs=1e-6), key
    assert merged.summary == every_face.summary
    assert merged.plays < every_face.plays
    # Something happens and something may not: the comparison is not of two empty answers.
    first = merged.units[0]
    assert 0 < first.no_effect.p < 1


def test_only_judged_rolls_of_listed_purposes_are_merged() -> None:
    assert face_classes("40k7", "to hit", judge(3, "hit", "miss")) == ((1, 2), (3, 4, 5, 6))
    assert face_classes("40k7", "cover save", judge(5, "saved", "failed")) == ((1, 2, 3, 4), (5, 6))
    # No judge (an Ordnance pair, a Melta D6), an unlisted purpose, an unlisted edition: six.
    assert face_classes("40k7", "armour penetration", None) == SIX_FACES
    assert face_classes("40k7", "Explodes! radius", judge(3)) == SIX_FACES
    assert face_classes("hh3", "to hit", judge(3)) == SIX_FACES


def test_the_lascannon_walk_is_the_dice_it_can_tell_apart() -> None:
    """40k7 BS4 Lascannon at AV11: to hit (miss | hit), then D6 + 9 vs 11 (none on 1, glancing on
    2, penetrating on 3-6): 186 sequences of single faces, 13 branches of equal faces."""
    state, action = lascannon_in_the_open()
    assert odds(state, "a", action, equal_faces=False).plays == 186
    assert odds(state, "a", action).plays == 13


def test_a_sampled_answer_agrees_with_the_exact_answer() -> None:
    """The samples descend the tree of plays already made: they are still independent draws."""
    state, action = lascannon_through_cover()
    exact = unit_odds(odds(state, "a", action), "rhino")
    sampled = unit_odds(odds(state, "a", action, method="sampled", expect="sampled", samples=4000), "rhino")
    for key, p in exact.final.items():
        q = sampled.final.get(key, Prob(0.0, 0.0))
        assert abs(q.p - p.p) <= 4 * max(q.se, 1 / 4000), (key, p, q)
    assert abs(sampled.destroyed.p - exact.destroyed.p) <= 4 * max(sampled.destroyed.se, 1 / 4000)


def test_a_sampled_answer_stops_once_every_standard_error_is_under_the_target() -> None:
    """A Heavy bolter glances a Rhino's front only on a hit then a 6: every probability is small,
    so 1% standard errors are reached well before 2,500 samples; with no target it takes all."""
    gun = weapon("hb", "Heavy bolter", 36, 5, 4)
    shooter = predator("predator", "a", 10, 24, weapons=(gun,))
    state = make_state(shooter, rhino("rhino", "b", 30, 24, 180), phase="shooting")
    action = Shoot("predator", (Fire("hb", "rhino"),))
    early = odds(state, "a", action, method="sampled", expect="sampled")
    full = odds(state, "a", action, method="sampled", expect="sampled", target_se=0)
    assert full.samples == 2500
    assert 500 <= early.samples < 2500 and early.samples % 250 == 0
    rhino_odds = unit_odds(early, "rhino")
    reported = [rhino_odds.no_effect, rhino_odds.destroyed, *rhino_odds.final.values()]
    assert all(p.se <= 0.01 for p in reported)
    # The stop is a function of the independent stream only: the same answer on every ask.
    again = odds(state, "a", action, method="sampled", expect="sampled")
    assert again.samples == early.samples and again.units == early.units


def test_a_squadron_volley_with_a_jink_decision_is_exact() -> None:
    """40k7 Squadrons and Jink: a Lascannon and a Krak missile at three Land Speeders - the
    owner's best answer weighed for each option, and the volley walked exactly."""
    shooter = predator("predator", "a", 10, 24, weapons=(lascannon(), krak()))
    members = [speeder(f"ls{i}", "b", 30 + 3 * i, 20 + 4 * i, 180, squadron="speeders") for i in range(3)]
    state = make_state(shooter, *members, phase="shooting")
    answer = odds(state, "a", Shoot("predator", (Fire("lascannon", "ls0"), Fire("krak", "ls0"))))
    assert [d.kind for d in answer.decisions] == ["jink"]
    assert 0 < unit_odds(answer, "ls0").destroyed.p < 1
    assert {"ls0", "ls1"} <= {u.unit for u in answer.units}


def three_shots_through_cover() -> tuple[MatchState, Action]:
    """40k7: a three-shot S6 gun at a Rhino's rear (AV10) through a ruin: glancing on 4,
    penetrating on 5-6, a 4+ cover save against each, a damage roll per penetrating hit kept."""
    gun = weapon("gun", "Autocannon", 48, 6, 4, shots=3)
    shooter = predator("predator", "a", 10, 24, weapons=(gun,))
    state = make_state(
        shooter, rhino("rhino", "b", 30, 24, 0), terrain=[ruin("ruin", 20, 20, 22, 24)], phase="shooting"
    )
    return state, Shoot("predator", (Fire("gun", "rhino"),))


def two_guns_through_cover() -> tuple[MatchState, Action]:
    """40k7: a 2-shot and a 1-shot S6 gun of the same profile at a Rhino's rear through a ruin:
    their hits have the same penetration profile, AP and cover save."""
    guns = [weapon(w, "Autocannon", 48, 6, 4, shots=n) for w, n in (("gun-l", 2), ("gun-r", 1))]
    shooter = predator("predator", "a", 10, 24, weapons=tuple(guns))
    state = make_state(
        shooter, rhino("rhino", "b", 30, 24, 0), terrain=[ruin("ruin", 20, 20, 22, 24)], phase="shooting"
    )
    return state, Shoot("predator", tuple(Fire(w, "rhino") for w in ("gun-l", "gun-r")))


@pytest.mark.parametrize("case", [three_shots_through_cover, two_guns_through_cover])
def test_the_penetration_dice_of_hits_treated_alike_are_one_batch(
    monkeypatch: pytest.MonkeyPatch, case: Case
) -> None:
    """40k7 Armour Penetration Rolls: a facing's hits are rolled first, then those with the same
    penetration profile, AP and cover save are treated alike (cover saves, Hull Points, damage
    rolls), so only how many came out none, glancing and penetrating matters: walking their
    dice as one batch (KEYED_EXCHANGEABLE) gives exactly the answer of walking them one by one,
    in fewer plays."""
    state, action = case()
    batched = odds(state, "a", action, max_plays=20_000)
    monkeypatch.setitem(face_classes_module.KEYED_EXCHANGEABLE, "40k7", frozenset())
    one_by_one = odds(state, "a", action, max_plays=20_000)
    mine, reference = _probabilities(batched), _probabilities(one_by_one)
    assert mine.keys() == reference.keys()
    for key, p in reference.items():
        assert mine[key] == pytest.approx(p, abs=1e-9), key
    assert batched.plays < one_by_one.plays
    rhino_odds = unit_odds(batched, "rhino")
    assert "cover" in batched.summary[0]
    assert 0 < rhino_odds.destroyed.p < rhino_odds.penetrating.p < 1


def test_the_face_stream_is_splitmix64_face_by_face() -> None:
    """The sampled stream, computed in blocks, is the scalar SplitMix64 recurrence's, across
    block boundaries, for the engine's seed and others (docs/odds.md, "Never the match's dice")."""
    for seed in (SAMPLE_SEED, 0, 1, (1 << 64) - 1):
        stream = FaceStream(seed)
        drawn = [stream.face() for _ in range(3 * FACE_BLOCK + 7)]
        assert drawn == splitmix_faces(seed, len(drawn))
        assert set(drawn) == {1, 2, 3, 4, 5, 6}


def test_the_probes_uniform_choice_takes_every_branch_alike() -> None:
    """Knuth's estimate (docs/odds.md) needs each branch chosen with the same chance: for 1 to 6
    branches, 6,000 choices from the stream each come out within 5 standard errors of even."""
    for n in range(1, 7):
        choose = uniform_choice(FaceStream(SAMPLE_SEED))
        counts = [0] * n
        for _ in range(6000):
            counts[choose(n)] += 1
        p = 1 / n
        se = (p * (1 - p) * 6000) ** 0.5
        assert all(abs(c - 6000 * p) <= 5 * se + 1e-9 for c in counts), (n, counts)
