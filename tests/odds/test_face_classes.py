"""Faces the rules cannot tell apart are one branch (docs/odds.md, "Equal faces are one branch"):
the merged walk gives exactly the answer of the walk of all six faces of every roll, with far
fewer plays; samples that meet a play already made reuse it; a sampled answer stops once every
standard error is under its target, and agrees with the exact answer."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from msgspec.structs import replace

from hulldown.match.actions import Action, Challenge, Charge, Fight, Fire, Move, Shoot
from hulldown.match.state import Edition, MatchState, Point, Profile, Unit
from hulldown.odds import OddsAnswer, Prob
from hulldown.odds import face_classes as face_classes_module
from hulldown.odds.context import OddsContext
from hulldown.odds.dice_sources import FACE_BLOCK, FaceStream, splitmix_faces, uniform_choice
from hulldown.odds.engine import MAX_EXACT_PLAYS, SAMPLE_SEED
from hulldown.odds.face_classes import EXCHANGEABLE, JUDGED_ONLY, SIX_FACES, face_classes
from hulldown.rules.hh3.core import at_least
from hulldown.rules.wh40k7.rolls import judge
from hulldown.rules.wh40k11.attacks import hit_succeeds
from tests.hh3 import builders as hh3
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
from tests.wh40k11 import builders as b11

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


# hh3 Vehicles, Vehicle damage table: a vehicle already Stunned and Pinned loses 1 HP on 1-4 and
# is Suppressed on 5-6 - no two statuses gained with the same chance, whose order in the summary
# would be left to the rounding of their sums.
ALREADY_STUNNED_AND_PINNED = {"stunned": 0, "pinned": 0}


def hh3_two_shots_at_infantry() -> tuple[MatchState, Action]:
    """hh3: a 2-shot S4 AP5 gun (BS4: 3+, its hit tests one batch) at two 4+ save models: wound
    tests (4+), the owner's allocation, saving throws."""
    gun = hh3.weapon("gun", strength=4, ap=5, shots=2, rng=36)
    shooter = hh3.tank("shooter", "a", 10, 24, 0, weapons=(gun,))
    squad = hh3.squad("squad", "b", hh3.row(30, 24, 2), sv=4)
    return hh3.make([shooter, squad], phase="shooting"), Shoot("shooter", (Fire("gun", "squad"),))


def hh3_mitigation_at_infantry() -> tuple[MatchState, Action]:
    """hh3 Damage Mitigation (``mitigation:5``): a failed save is followed by a 5+ test."""
    gun = hh3.weapon("gun", strength=4, ap=5, rng=36)
    shooter = hh3.tank("shooter", "a", 10, 24, 0, weapons=(gun,))
    squad = hh3.squad("squad", "b", hh3.row(30, 24, 2), sv=4, keywords=("mitigation:5",))
    return hh3.make([shooter, squad], phase="shooting"), Shoot("shooter", (Fire("gun", "squad"),))


def hh3_lascannon_at_a_tank() -> tuple[MatchState, Action]:
    """hh3 Vehicles: a Lascannon at a 1-HP tank (AV11, 5+ invulnerable, Explodes (4), already
    Stunned and Pinned) beside a squad: armour penetration, the glancing hit table, the
    invulnerable save of a penetrating hit, then Explodes and its S8 hit on the squad (wound
    test, saving throw)."""
    gun = hh3.weapon("las", strength=9, ap=2)
    shooter = hh3.tank("shooter", "a", 10, 24, 0, weapons=(gun,))
    tank = hh3.tank("tank", "b", 30, 24, 180, armour=(11, 11, 10), hp=1, inv=5, keywords=("explodes:4",))
    tank = replace(tank, statuses=ALREADY_STUNNED_AND_PINNED)
    near = hh3.squad("near", "b", [(30, 28)], sv=4)
    return hh3.make([shooter, tank, near], phase="shooting"), Shoot("shooter", (Fire("las", "tank"),))


def hh3_fist_at_a_vehicle() -> tuple[MatchState, Action]:
    """hh3 Vehicles, Combat: a model with 2 attacks (WS4 vs WS1: 2+, one batch) in contact with
    a tank already Stunned and Pinned: every hit on the rear (S4 vs AV10: glancing on a 6, then
    the table)."""
    fist = hh3.weapon("fist", strength=4, ap=None, kind="melee", rng=0)
    troops = hh3.squad("s", "a", [(32.87, 24)], ws=4, a=2, melee=fist)
    tank = replace(hh3.tank("v", "b", 36, 24, 180, armour=(13, 12, 10)), statuses=ALREADY_STUNNED_AND_PINNED)
    return hh3.make([troops, tank], phase="assault"), Fight("s", "v")


def hh3_volley_at_a_charge() -> tuple[MatchState, Action]:
    """hh3 Vehicles, Combat: a tank charged makes Volley Attacks (2 Snap Shots, one batch) at the
    charger (wound tests, saving throw), then the charge roll."""
    fist = hh3.weapon("fist", strength=4, ap=None, kind="melee", rng=0)
    hb = hh3.weapon("hb", strength=5, ap=4, shots=2, rng=36, kind="assault")
    tank = hh3.tank("v", "b", 36, 24, 180, armour=(13, 12, 10), weapons=(hb,))
    troops = hh3.squad("s", "a", [(27, 24)], ws=4, a=1, melee=fist, sv=4)  # Set-up Move: 3 in
    return hh3.make([troops, tank], phase="assault"), Charge("s", "v")


def _paragon(unit: Unit, mid: str, profile: Profile) -> Unit:
    models = dict(unit.models)
    models[mid] = replace(models[mid], kind="paragon", profile=profile, wounds=profile.w)
    return replace(unit, models=models)


def hh3_strike_back() -> tuple[MatchState, Action]:
    """hh3 core, Fight Sub-Phase: a trooper (A1, WS4 vs WS4: 4+, then a wound test 4+; no save)
    fights one that strikes back in the same Initiative step with 2 Attacks (its strike back hit
    tests one batch) whose S4 cannot wound the attacker's T8: the walk stays small."""
    s = hh3.squad("s", "a", [(10, 24)], t=8)
    t = hh3.squad("t", "b", [(11.27, 24)], a=2, sv=None)
    return hh3.make([s, t], phase="assault"), Fight("s", "t")


def hh3_challenge() -> tuple[MatchState, Action]:
    """hh3 core, Challenge Sub-Phase: a Paragon (I9) challenges one (I1, no attacks): Focus (2D6,
    no tie possible), then 2 challenge hit tests (one batch), a wound test per hit."""
    lord = Profile(m=7, ws=5, bs=5, s=4, t=4, w=1, i=9, a=1, ld=10, cool=10, intelligence=9)
    sergeant = Profile(m=7, ws=4, bs=4, s=4, t=4, w=1, i=1, a=0, ld=10, cool=8, intelligence=7)
    s = _paragon(hh3.squad("s", "a", [(10, 24)]), "s-1", lord)
    t = _paragon(hh3.squad("t", "b", [(11.27, 24)]), "t-1", sergeant)
    return hh3.make([s, t], phase="assault"), Challenge("s", "s-1", "t")


def hh3_through_dangerous_terrain() -> tuple[MatchState, Action]:
    """hh3 Dangerous terrain: two 2-wound models move into a dangerous piece, a test each."""
    swamp = hh3.wall("swamp", 24, 20, 26, 28, "dangerous")
    troops = hh3.squad("s", "a", [(21, 24), (21, 25.5)], w=2)
    return hh3.make([troops], terrain=[swamp]), Move("s", (Point(25, 24),))


def k11_two_shots_at_infantry() -> tuple[MatchState, Action]:
    """40k11: a 2-shot S5 AP1 gun (BS3) at two Sv4+ models: hit rolls, wound rolls (3+, each a
    batch), allocation, saves (5+)."""
    gun = b11.weapon("gun", "tank-m", s=5, ap=1, shots=2)
    shooter = b11.vehicle("tank", "a", 10, 24, weapons=(gun,))
    squad = b11.infantry("squad", "b", [(26, 24), (27.5, 24)], sv=4)
    return b11.state(shooter, squad, phase="shooting"), Shoot("tank", (Fire("gun", "squad"),))


def k11_two_shots_at_a_vehicle() -> tuple[MatchState, Action]:
    """40k11: a 2-shot S9 AP2 D3 gun at a T9 Sv3+ VEHICLE of 6 wounds."""
    gun = b11.weapon("gun", "tank-m", s=9, ap=2, d=3, shots=2, rng=36)
    shooter = b11.vehicle("tank", "a", 10, 24, weapons=(gun,))
    target = b11.vehicle("target", "b", 30, 24, 180, t=9, sv=3, w=6)
    return b11.state(shooter, target, phase="shooting"), Shoot("tank", (Fire("gun", "target"),))


def k11_sword_in_a_fight() -> tuple[MatchState, Action]:
    """40k11 Fight: a sword of 2 attacks (WS3, S5 AP1) at two engaged Sv4+ models."""
    sword = b11.weapon("sword", "squad-1", s=5, ap=1, shots=2, rng=0, kind="melee")
    squad = b11.infantry("squad", "a", [(10, 24)], weapons=(sword,))
    foe = b11.infantry("foe", "b", [(11.3, 24), (11.3, 25.4)], sv=4)
    return b11.state(squad, foe, phase="fight"), Fight(unit="squad", target="foe", weapon="sword")


CASES: dict[str, Case] = {
    "two_shots_at_the_rear": two_shots_at_the_rear,
    "lascannon_in_the_open": lascannon_in_the_open,
    "lascannon_through_cover": lascannon_through_cover,
    "bolters_at_infantry": bolters_at_infantry,
    "haywire_at_a_squadron": haywire_at_a_squadron,
    "melta_at_close_range": melta_at_close_range,
    "hh3_two_shots_at_infantry": hh3_two_shots_at_infantry,
    "hh3_mitigation_at_infantry": hh3_mitigation_at_infantry,
    "hh3_lascannon_at_a_tank": hh3_lascannon_at_a_tank,
    "hh3_fist_at_a_vehicle": hh3_fist_at_a_vehicle,
    "hh3_volley_at_a_charge": hh3_volley_at_a_charge,
    "hh3_challenge": hh3_challenge,
    "hh3_strike_back": hh3_strike_back,
    "hh3_through_dangerous_terrain": hh3_through_dangerous_terrain,
    "k11_two_shots_at_infantry": k11_two_shots_at_infantry,
    "k11_two_shots_at_a_vehicle": k11_two_shots_at_a_vehicle,
    "k11_sword_in_a_fight": k11_sword_in_a_fight,
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
        if u.reaches is not None:
            out[f"{u.unit}.reaches"] = u.reaches.p
    for d in answer.decisions:
        out[f"decision.{d.kind}.{d.side}.raised"] = d.raised.p
        for option, p in d.chosen.items():
            out[f"decision.{d.kind}.{d.side}.chosen.{option}"] = p.p
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
    # Something happens and something may not: the comparison is not of two empty answers. The
    # first unit the action can touch is checked (the first listed, but for a charged vehicle,
    # named first and untouched by the charge: its Volley Attacks hurt the charger).
    first = next((u for u in merged.units if u.no_effect.p < 1), None)
    assert first is not None and first.no_effect.p > 0
    assert first is merged.units[0] or name == "hh3_volley_at_a_charge"


def test_only_judged_rolls_of_listed_purposes_are_merged() -> None:
    assert face_classes("40k7", "to hit", judge(3, "hit", "miss")) == ((1, 2), (3, 4, 5, 6))
    assert face_classes("40k7", "cover save", judge(5, "saved", "failed")) == ((1, 2, 3, 4), (5, 6))
    # No judge (an Ordnance pair, a Melta D6), an unlisted purpose, an unlisted edition: six.
    assert face_classes("40k7", "armour penetration", None) == SIX_FACES
    assert face_classes("40k7", "Explodes! radius", judge(3)) == SIX_FACES
    assert face_classes("hh3", "to hit", judge(3)) == SIX_FACES
    # hh3 and 40k11 list their own purposes; their rolls without a judge keep six faces.
    assert face_classes("hh3", "hit test", at_least(3, "hit", "miss")) == ((1, 2), (3, 4, 5, 6))
    assert face_classes("hh3", "armour penetration", None) == SIX_FACES
    assert face_classes("hh3", "vehicle damage table", None) == SIX_FACES

    def hit_on_3(v: int) -> str:
        return "hit" if hit_succeeds(v, 3, -1) else "miss"

    assert face_classes("40k11", "hit", hit_on_3) == ((1, 2, 3), (4, 5, 6))
    assert face_classes("40k11", "charge", None) == SIX_FACES
    assert face_classes("40k11", "hit test", hit_on_3) == SIX_FACES  # hh3's name, not 40k11's


def test_the_cases_roll_every_hh3_and_40k11_purpose_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hh3 and 40k11 cases above meet every purpose of JUDGED_ONLY with a judge, and every
    purpose of EXCHANGEABLE as a batch of two dice or more: each listed roll is checked against
    the walk of all six faces somewhere."""
    judged: set[tuple[str, str]] = set()
    batched: set[tuple[str, str]] = set()
    roll = OddsContext.roll

    def recording(
        self: OddsContext,
        purpose: str,
        target: str = "",
        judge: Callable[[int], str] | None = None,
        batch: object = None,
    ) -> int:
        face = roll(self, purpose, target, judge, batch)
        edition = self._edition
        if judge is not None:
            judged.add((edition, purpose))
        if self._script.continues and self._script.continues[-1]:
            batched.add((edition, purpose))
        return face

    monkeypatch.setattr(OddsContext, "roll", recording)
    for name, case in CASES.items():
        if name.startswith(("hh3_", "k11_")):
            state, action = case()
            odds(state, "a", action, max_plays=20_000)
    editions: tuple[Edition, ...] = ("hh3", "40k11")
    assert {(e, p) for e in editions for p in JUDGED_ONLY[e]} <= judged
    assert {(e, p) for e in editions for p in EXCHANGEABLE[e]} <= batched


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


def k11_four_shots_at_infantry() -> tuple[MatchState, Action]:
    """40k11: a 4-shot S5 AP1 gun (BS3) at three Sv4+ models."""
    gun = b11.weapon("gun", "tank-m", s=5, ap=1, shots=4)
    shooter = b11.vehicle("tank", "a", 10, 24, weapons=(gun,))
    squad = b11.infantry("squad", "b", [(26, 24), (27.5, 24), (29, 24)], sv=4)
    return b11.state(shooter, squad, phase="shooting"), Shoot("tank", (Fire("gun", "squad"),))


def hh3_three_bolters_at_infantry() -> tuple[MatchState, Action]:
    """hh3: three models fire a bolter each (BS4, S4 AP5) at three 4+ save models."""
    firers = hh3.squad("firers", "a", hh3.row(10, 24, 3), gun=hh3.bolter())
    squad = hh3.squad("squad", "b", hh3.row(30, 24, 3), sv=4)
    state = hh3.make([firers, squad], phase="shooting")
    return state, Shoot("firers", tuple(Fire(f"firers-{k}-gun", "squad") for k in (1, 2, 3)))


@pytest.mark.parametrize("case", [k11_four_shots_at_infantry, hh3_three_bolters_at_infantry])
def test_a_shot_once_too_large_to_walk_is_now_exact(monkeypatch: pytest.MonkeyPatch, case: Case) -> None:
    """With six faces to every roll these trees have tens of thousands of leaves or more (4 shots,
    their wounds and saves: 6^4 orders of the hit dice alone), so even ``max_plays`` 20,000 is
    sampled; merged and batched they are walked exactly within the default ``max_plays``, and
    the answer of the six faces, sampled, agrees with it."""
    state, action = case()
    exact = odds(state, "a", action)  # method "exact" asked for, at the default max_plays
    assert exact.plays <= MAX_EXACT_PLAYS and exact.samples == 0
    monkeypatch.delitem(JUDGED_ONLY, state.edition)
    monkeypatch.delitem(EXCHANGEABLE, state.edition)
    before = odds(state, "a", action, expect="sampled", max_plays=20_000)
    squad = unit_odds(exact, "squad")
    sampled = unit_odds(before, "squad")
    assert squad.expected_lost > 0
    assert abs(sampled.expected_lost - squad.expected_lost) <= 4 * max(sampled.expected_lost_se, 0.01)
    for key, p in squad.final.items():
        q = sampled.final.get(key, Prob(0.0, 0.0))
        assert abs(q.p - p.p) <= 4 * max(q.se, 1 / before.samples), (key, p, q)


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
