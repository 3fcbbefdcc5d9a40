"""The exact odds against closed forms (docs/odds.md): each case is one action whose outcome
distribution can be written down from the edition's rules by counting dice faces."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from hulldown.match.actions import Charge, Fire, Shoot
from hulldown.match.state import MatchState, Point, Terrain, Unit
from hulldown.rules.hh3.geom import unit_distance as hh3_unit_distance
from hulldown.rules.wh40k7.geo import unit_distance
from hulldown.rules.wh40k11.movement import charge_reaches
from hulldown.rules.wh40k11.shooting import plan_shoot
from tests.hh3 import builders as hh3
from tests.wh40k7.builders import infantry, make_state, vehicle, weapon
from tests.wh40k11 import builders as b11

from .helpers import EPS, d6_probability, hit_chance_40k7, odds, unit_odds


def _duel_40k7(shooter_weapon_rules: tuple[str, ...] = (), **kw: object) -> MatchState:
    """A 40k7 tank at (10, 24) facing +x and a target tank at (30, 24) facing the shooter (its
    front armour is hit), open ground, Shooting phase."""
    strength = int(kw.pop("s", 9))  # type: ignore[call-overload]
    ap = kw.pop("ap", 2)
    wtype = kw.pop("type", "heavy")
    rng = float(kw.pop("range", 48))  # type: ignore[arg-type]
    gun = weapon("gun", "Gun", rng, strength, ap, type=wtype, rules=shooter_weapon_rules)  # type: ignore[arg-type]
    shooter = vehicle("shooter", "a", 10, 24, 0, bs=int(kw.pop("bs", 4)), weapons=(gun,))  # type: ignore[call-overload]
    target_x = float(kw.pop("target_x", 30))  # type: ignore[arg-type]
    target = vehicle("target", "b", target_x, 24, 180, **kw)  # type: ignore[arg-type]
    return make_state(shooter, target, phase="shooting")


SHOOT = Shoot("shooter", (Fire("gun", "target"),))


@pytest.mark.parametrize(("bs", "s", "av"), [(4, 9, 11), (3, 7, 12), (5, 8, 13), (2, 6, 10), (4, 4, 10)])
def test_one_shot_glancing_and_penetrating_split(bs: int, s: int, av: int) -> None:
    """40k7 Armour Penetration Rolls: P(hit) * P(D6 + S = AV) glancing, P(hit) * P(D6 + S > AV)
    penetrating; no effect otherwise (10 HP, so only Explodes! can destroy)."""
    state = _duel_40k7(s=s, bs=bs, armour=(av, av, av), hp=10)
    answer = odds(state, "a", SHOOT)
    assert answer.method == "exact" and answer.samples == 0
    t = unit_odds(answer, "target")
    hit = hit_chance_40k7(bs)
    glance = hit * d6_probability(lambda d: d + s == av)
    pen = hit * d6_probability(lambda d: d + s > av)
    assert t.glancing is not None and t.penetrating is not None
    assert t.glancing.p == pytest.approx(glance, abs=EPS)
    assert t.penetrating.p == pytest.approx(pen, abs=EPS)
    assert t.no_effect.p == pytest.approx(1 - glance - pen, abs=EPS)
    assert t.glancing.se == 0.0
    # Every glancing or penetrating hit costs a Hull Point (no cover in the open).
    assert t.final["10"].p == pytest.approx(1 - glance - pen, abs=EPS)


def test_ordnance_rolls_two_dice_and_keeps_the_highest() -> None:
    """40k7 Ordnance: armour penetration with 2D6, the highest counts."""
    state = _duel_40k7(s=8, type="ordnance", armour=(13, 13, 13), hp=10)
    t = unit_odds(odds(state, "a", SHOOT), "target")
    hit = hit_chance_40k7(4)
    assert t.glancing is not None and t.penetrating is not None
    assert t.glancing.p == pytest.approx(hit * d6_probability(lambda a, b: max(a, b) + 8 == 13, 2), abs=EPS)
    assert t.penetrating.p == pytest.approx(hit * d6_probability(lambda a, b: max(a, b) + 8 > 13, 2), abs=EPS)


@pytest.mark.parametrize(
    ("rules", "kw"), [(("melta",), {"range": 24, "target_x": 24}), (("armourbane",), {})]
)
def test_melta_within_half_range_and_armourbane_add_a_d6(
    rules: tuple[str, ...], kw: dict[str, object]
) -> None:
    """40k7 Melta (within half range) and Armourbane: an additional D6 on armour penetration."""
    state = _duel_40k7(rules, s=8, armour=(14, 14, 14), hp=10, **kw)
    t = unit_odds(odds(state, "a", SHOOT), "target")
    hit = hit_chance_40k7(4)
    assert t.glancing is not None and t.penetrating is not None
    assert t.glancing.p == pytest.approx(hit * d6_probability(lambda a, b: a + b + 8 == 14, 2), abs=EPS)
    assert t.penetrating.p == pytest.approx(hit * d6_probability(lambda a, b: a + b + 8 > 14, 2), abs=EPS)


def test_melta_beyond_half_range_rolls_one_die() -> None:
    state = _duel_40k7(("melta",), s=8, range=24, target_x=30, armour=(14, 14, 14), hp=10)
    t = unit_odds(odds(state, "a", SHOOT), "target")
    assert t.glancing is not None and t.penetrating is not None
    assert t.glancing.p == pytest.approx(hit_chance_40k7(4) * d6_probability(lambda d: d + 8 == 14), abs=EPS)
    assert t.penetrating.p == 0.0


def test_lance_counts_armour_above_12_as_12() -> None:
    """40k7 Lance: AV14 counts as 12 - S9 glances on a 3, penetrates on 4+."""
    state = _duel_40k7(("lance",), s=9, armour=(14, 14, 14), hp=10)
    t = unit_odds(odds(state, "a", SHOOT), "target")
    hit = hit_chance_40k7(4)
    assert t.glancing is not None and t.penetrating is not None
    assert t.glancing.p == pytest.approx(hit * 1 / 6, abs=EPS)
    assert t.penetrating.p == pytest.approx(hit * 3 / 6, abs=EPS)


def test_haywire_is_one_none_two_to_five_glancing_six_penetrating() -> None:
    """40k7 Haywire: a D6 instead of armour penetration - 1 no effect, 2-5 glancing, 6 penetrating,
    whatever the Armour Value."""
    state = _duel_40k7(("haywire",), s=3, armour=(14, 14, 14), hp=10)
    t = unit_odds(odds(state, "a", SHOOT), "target")
    hit = hit_chance_40k7(4)
    assert t.glancing is not None and t.penetrating is not None
    assert t.glancing.p == pytest.approx(hit * 4 / 6, abs=EPS)
    assert t.penetrating.p == pytest.approx(hit * 1 / 6, abs=EPS)


def _table_40k7(total: int) -> str:
    """The 40k7 Vehicle Damage table as printed: 1-3 Crew Shaken, 4 Crew Stunned, 5 Weapon
    Destroyed, 6 Immobilised, 7+ Explodes!"""
    if total <= 3:
        return "Crew Shaken"
    return {4: "Crew Stunned", 5: "Weapon Destroyed", 6: "Immobilised"}.get(total, "Explodes!")


@pytest.mark.parametrize(
    ("ap", "open_topped", "modifier"),
    [(None, False, 0), (3, False, 0), (2, False, 1), (1, False, 2), (2, True, 2), (None, True, 1)],
)
def test_damage_table_with_ap_and_open_topped(ap: int | None, open_topped: bool, modifier: int) -> None:
    """40k7 Vehicle Damage table: AP2 +1, AP1 +2, Open-topped +1 (cumulative). S10 against AV10
    always penetrates, so each result's chance is P(hit) * P(D6 + modifier gives it)."""
    keywords = ("tank", "open-topped") if open_topped else ("tank",)
    state = _duel_40k7(s=10, ap=ap, bs=5, armour=(10, 10, 10), hp=10, keywords=keywords)
    t = unit_odds(odds(state, "a", SHOOT), "target")
    hit = hit_chance_40k7(5)
    for result in ("Crew Shaken", "Crew Stunned", "Weapon Destroyed", "Immobilised", "Explodes!"):
        expected = hit * d6_probability(lambda d, r=result: _table_40k7(d + modifier) == r)  # type: ignore[misc]
        got = t.damage_results.get(result)
        assert (got.p if got else 0.0) == pytest.approx(expected, abs=EPS), result
    assert t.destroyed.p == pytest.approx(hit * d6_probability(lambda d: d + modifier >= 7), abs=EPS)


def test_hh3_glancing_table_and_the_duplicate_status_rule() -> None:
    """hh3 glancing hits (hh3 Vehicles, Vehicle damage table): D6 1-2 Stunned, 3-4 Pinned, 5-6
    Suppressed; a status the vehicle already has costs 1 HP instead. The target is already
    Stunned and S7 against AV13 only glances, on a 6; hh3 BS4 hits on 3+."""
    gun = hh3.weapon("gun", strength=7, ap=None)
    shooter = hh3.tank("shooter", "a", 10, 24, 0, weapons=(gun,))
    target = replace(hh3.tank("target", "b", 30, 24, 180, armour=(13, 13, 13), hp=3), statuses={"stunned": 0})
    state = hh3.make([shooter, target], phase="shooting")
    answer = odds(state, "a", Shoot("shooter", (Fire("gun", "target"),)))
    t = unit_odds(answer, "target")
    glance = (4 / 6) * (1 / 6)
    assert t.glancing is not None and t.glancing.p == pytest.approx(glance, abs=EPS)
    assert t.penetrating is not None and t.penetrating.p == 0.0
    assert t.statuses["pinned"].p == pytest.approx(glance / 3, abs=EPS)
    assert t.statuses["suppressed"].p == pytest.approx(glance / 3, abs=EPS)
    assert "stunned" not in t.statuses  # already had it: never gained
    assert t.final["2"].p == pytest.approx(glance / 3, abs=EPS)  # Stunned again: 1 HP instead
    assert t.expected_lost == pytest.approx(glance / 3, abs=EPS)


def _engaged_40k11(bs: int) -> MatchState:
    """Two 40k11 VEHICLEs 1" apart (engaged): side a's shoots side b's with close-quarters shooting
    and a weapon without [CLOSE-QUARTERS] - two -1 modifiers (17.03, core Close-quarters
    shooting)."""
    gun = b11.weapon("gun", "tank-a-m", rng=24, s=20, ap=0)
    a = b11.vehicle("tank-a", "a", 20, 24, weapons=(gun,), bs=bs)
    target = b11.vehicle("tank-b", "b", 27, 24, t=4, sv=None, w=12)
    return b11.state(a, target, phase="shooting")


def test_40k11_hit_modifier_is_capped_at_minus_one() -> None:
    """40k11 core, Hit roll: -2 counts as -1, so BS3 hits on a modified 3+ (unmodified 4+); then
    S20 against T4 wounds on 2+ (an unmodified 1 fails) and there is no save."""
    state = _engaged_40k11(3)
    action = Shoot("tank-a", (Fire("gun", "tank-b"),))
    plan = plan_shoot(state, action)
    assert isinstance(plan, list), plan
    assert [p.modifier for p in plan] == [-2]
    t = unit_odds(odds(state, "a", action), "tank-b")
    hit = d6_probability(lambda d: d != 1 and (d == 6 or d - 1 >= 3))
    assert hit == pytest.approx(3 / 6)
    assert t.final["11"].p == pytest.approx(hit * 5 / 6, abs=EPS)


def test_40k11_unmodified_six_always_hits() -> None:
    """40k11 core, Hit roll: an unmodified 6 hits even when no modified roll can reach BS 7+."""
    state = _engaged_40k11(7)
    t = unit_odds(odds(state, "a", Shoot("tank-a", (Fire("gun", "tank-b"),))), "tank-b")
    assert t.final["11"].p == pytest.approx((1 / 6) * (5 / 6), abs=EPS)


def test_a_charge_reaches_with_2d6_at_least_the_distance() -> None:
    """40k7 Charge: 2D6 inches; the charge succeeds when the roll reaches the distance. The target
    has no weapons, so there is no Overwatch decision."""
    charger: Unit = infantry("charger", "a", [(10, 24)])
    target: Unit = infantry("target", "b", [(17.5, 24)])
    state = make_state(charger, target, phase="assault")
    need = unit_distance(state.units["charger"], state.units["target"])
    answer = odds(state, "a", Charge("charger", "target"))
    c = unit_odds(answer, "charger")
    assert c.reaches is not None
    assert c.reaches.p == pytest.approx(d6_probability(lambda a, b: a + b >= need - 1e-9, 2), abs=EPS)
    assert 0.3 < c.reaches.p < 0.9
    # No Overwatch; the only decision is the charger's placement once the charge reaches.
    assert [(d.kind, d.side) for d in answer.decisions] == [("place_chargers", "a")]
    assert "reaches" in c.summary


def test_hh3_charge_takes_the_highest_of_2d6() -> None:
    """hh3 core, Charge Procedure: the set-up move (I4 + M7: 3 in, Make Set-up Move) closes the
    gap first; then roll 2D6, the highest counts; the charge reaches when it is at least the
    distance left (the target has no weapons: no volley)."""
    charger = hh3.squad("charger", "a", [(10, 24)])
    target = hh3.squad("target", "b", [(17.2, 24)])
    state = hh3.make([charger, target], phase="assault")
    need = hh3_unit_distance(state.units["charger"], state.units["target"]) - 3.0
    c = unit_odds(odds(state, "a", Charge("charger", "target")), "charger")
    assert c.reaches is not None
    assert c.reaches.p == pytest.approx(d6_probability(lambda a, b: max(a, b) >= need - 1e-9, 2), abs=EPS)
    assert 0.2 < c.reaches.p < 0.9


def test_40k11_charge_roll_is_2d6() -> None:
    """40k11 Charge phase: the charge roll is 2D6; whether a total reaches is the rules' own
    geometry (``charge_reaches``), so the chance is the sum of P(2D6 = t) over the totals that do."""
    charger = b11.infantry("charger", "a", [(10, 24)])
    target = b11.infantry("target", "b", [(18, 24)])
    state = b11.state(charger, target, phase="charge")
    reaching = [
        t for t in range(2, 13) if charge_reaches(state, state.units["charger"], state.units["target"], t)
    ]
    assert 2 < len(reaching) < 11
    c = unit_odds(odds(state, "a", Charge("charger", "target")), "charger")
    assert c.reaches is not None
    assert c.reaches.p == pytest.approx(d6_probability(lambda a, b: a + b in reaching, 2), abs=EPS)


def test_40k11_random_attacks_d3_exact_distribution() -> None:
    """40k11 core rules, Random characteristics: A D3 is rolled before the hit rolls (a D6
    halved, rounded up: 1/3 each of 1, 2, 3 attacks). BS 3+ hits on 4/6 (an unmodified 1 fails),
    S20 vs T4 wounds on 2+ (5/6), no save, Damage 1: the target loses all three wounds only when
    three attacks were rolled and all hit and wound: (1/3) * (4/6 * 5/6)^3."""
    gun = b11.weapon("gun", "shooter-1", rng=24, s=20, rules=("attacks:d3",), shots=2)
    shooter = b11.infantry("shooter", "a", [(10, 24)], weapons=(gun,), bs=3)
    target = b11.vehicle("tank-b", "b", 30, 24, t=4, sv=None, w=12)
    state = b11.state(shooter, target, phase="shooting")
    t = unit_odds(odds(state, "a", Shoot("shooter", (Fire("gun", "tank-b"),))), "tank-b")
    p = (4 / 6) * (5 / 6)
    assert t.final["9"].p == pytest.approx((1 / 3) * p**3, abs=EPS)
    assert t.final["12"].p == pytest.approx(sum((1 / 3) * (1 - p) ** n for n in (1, 2, 3)), abs=EPS)


def test_40k11_lethal_hits_tells_a_critical_hit_from_another_hit() -> None:
    """40k11 core rules, Lethal Hits: a Critical Hit (an unmodified 6) wounds automatically, so the
    odds tell a 6 from a 4 or 5 that also hits. BS 3+ (4+ here, BS 4), S1 vs T8 wounds on 6+: the
    target loses a wound with 1/6 (a 6 to hit) + 2/6 * 1/6 (a 4 or 5, then a 6 to wound)."""
    gun = b11.weapon("gun", "shooter-1", rng=24, s=1, rules=("lethal_hits",))
    shooter = b11.infantry("shooter", "a", [(10, 24)], weapons=(gun,), bs=4)
    target = b11.vehicle("tank-b", "b", 30, 24, t=8, sv=None, w=12)
    state = b11.state(shooter, target, phase="shooting")
    t = unit_odds(odds(state, "a", Shoot("shooter", (Fire("gun", "tank-b"),))), "tank-b")
    assert t.final["11"].p == pytest.approx(1 / 6 + (2 / 6) * (1 / 6), abs=EPS)


def test_40k11_benefit_of_cover_in_the_odds() -> None:
    """40k11 core rules, Benefit of Cover: a Sv 4+ model within a ruin that gives cover saves an
    AP -1 attack on 4+ instead of 5+: it dies with 4/6 (hit, BS 3+) * 3/6 (wound, S4 vs T4) * 3/6."""
    ruin = Terrain(
        id="ruin", points=(Point(28, 22), Point(32, 22), Point(32, 26), Point(28, 26)), kinds=("cover",)
    )
    gun = b11.weapon("gun", "shooter-1", rng=24, ap=1)
    shooter = b11.infantry("shooter", "a", [(10, 24)], weapons=(gun,), bs=3)
    target = b11.infantry("foot", "b", [(30, 24)], sv=4)
    state = b11.state(shooter, target, phase="shooting", terrain=(ruin,))
    t = unit_odds(odds(state, "a", Shoot("shooter", (Fire("gun", "foot"),))), "foot")
    assert t.destroyed.p == pytest.approx((4 / 6) * (3 / 6) * (3 / 6), abs=EPS)
