"""40k11 core attacks (hit roll, wound roll, saving throw [ext]): hit rolls with the +1/-1 cap and
unmodified 1s and 6s, wound rolls S vs T, saves with AP and invulnerable saves, Damage; 17.03's
-1 and its exemption."""

from __future__ import annotations

import pytest

from hulldown.match.actions import Fire, Shoot
from hulldown.rules.wh40k11.allocation import DECISION_ALLOCATE
from hulldown.rules.wh40k11.attacks import (
    capped,
    hit_succeeds,
    save_succeeds,
    save_target,
    wound_succeeds,
    wound_target,
)

from .builders import infantry, rolls, state, step, take_proposal, vehicle, weapon


def test_17_03_minus_one_makes_a_3_miss_at_3_plus() -> None:
    """40k11 17.03 / core hit roll: with -1 a 3 misses at BS 3+; without it the 3 hits."""
    assert not hit_succeeds(3, 3, -1)
    assert hit_succeeds(3, 3, 0)


def test_hit_modifier_cap() -> None:
    """40k11 core, Hit roll: the total modifier is capped at +1/-1: -2 counts as -1 (a 4 still hits
    at 3+), +2 counts as +1 (at 4+ a 3 hits, a 2 misses: 2 + 1 = 3)."""
    assert capped(-2) == -1 and capped(2) == 1 and capped(0) == 0
    assert hit_succeeds(4, 3, -2)  # uncapped 4 - 2 = 2 would miss
    assert not hit_succeeds(3, 3, -2)
    assert hit_succeeds(3, 4, 2)  # 3 + 1 = 4
    assert not hit_succeeds(2, 4, 2)  # uncapped 2 + 2 = 4 would hit


def test_unmodified_one_and_six() -> None:
    """40k11 core, Hit roll: an unmodified 1 always fails (even at 2+ with +1), an unmodified 6
    always hits (even at 6+ with -1); with +1 a 5 reaches 6+."""
    assert not hit_succeeds(1, 2, 1)
    assert hit_succeeds(6, 6, -1)
    assert hit_succeeds(5, 6, 1)


@pytest.mark.parametrize(
    ("s", "t", "need"),
    [(8, 4, 2), (5, 4, 3), (4, 4, 4), (3, 4, 5), (2, 4, 6), (4, 10, 6), (9, 10, 5), (10, 5, 2), (6, 5, 3)],
)
def test_wound_table(s: int, t: int, need: int) -> None:
    """40k11 core, Wound roll: S >= 2T 2+, S > T 3+, S = T 4+, S < T 5+, S <= T/2 6+."""
    assert wound_target(s, t) == need


def test_wound_roll_unmodified() -> None:
    """An unmodified 1 never wounds; a 6 always does."""
    assert not wound_succeeds(1, 2)
    assert wound_succeeds(6, 6)
    assert not wound_succeeds(5, 6)


def test_save_targets() -> None:
    """40k11 core, Saving throw: Sv 3+ against AP 2 needs 5+; an invulnerable 4+ ignores AP and is
    used when better; AP beyond 6+ leaves only the invulnerable save, or none."""
    assert save_target(3, None, 2) == 5
    assert save_target(3, 4, 2) == 4
    assert save_target(3, 5, 1) == 4
    assert save_target(4, None, 3) is None
    assert save_target(None, 5, 3) == 5
    assert not save_succeeds(1, 2)
    assert save_succeeds(4, 4)
    assert not save_succeeds(6, None)


def test_damage_and_allocation_through_a_full_attack() -> None:
    """40k11 core, Inflict damage: each failed save costs the Damage; excess damage is lost; a
    wounded model takes the next failed save [decided]. Two shots of D3 (here 3) at W4 models:
    first kills nothing (4 -> 1), second goes to the same model (1 -> 0, 2 damage lost)."""
    shooter = infantry(
        "gun", "a", [(10, 10)], weapons=(weapon("lascannon", "gun-1", rng=48, s=12, ap=3, d=3, shots=2),)
    )
    target = infantry("brutes", "b", [(30, 10), (30, 12)], w=4, t=5, sv=3, inv=5)
    s = state(shooter, target, phase="shooting")
    # hits 4, 4; wounds 2, 2 (S12 vs T5 -> 2+); saves: 6+ from armour (3+3), 5+ invulnerable -> 4, 3 fail.
    after = step(s, Shoot(unit="gun", fire=(Fire(weapon="lascannon", target="brutes"),)), [4, 4, 2, 2, 4])
    # 40k11 core, Allocate attack: the first failed save has two legal models; take the proposal
    # (brutes-1); the second (3) must go to the wounded brutes-1, so nothing more is asked.
    after = take_proposal(after, DECISION_ALLOCATE, [3])
    assert rolls(after)[-2:] == [("save", 4, "failed"), ("save", 3, "failed")]
    models = after.units["brutes"].models
    assert (models["brutes-1"].wounds, models["brutes-1"].alive) == (0, False)
    assert (models["brutes-2"].wounds, models["brutes-2"].alive) == (4, True)
    assert not after.units["brutes"].destroyed


def test_successful_save_costs_nothing() -> None:
    """40k11 core, Saving throw: a passed save (5 against the 5+ invulnerable) costs no wounds."""
    shooter = infantry(
        "gun", "a", [(10, 10)], weapons=(weapon("lascannon", "gun-1", rng=48, s=12, ap=3, d=3),)
    )
    target = infantry("brutes", "b", [(30, 10)], w=4, t=5, sv=3, inv=5)
    after = step(
        state(shooter, target, phase="shooting"),
        Shoot(unit="gun", fire=(Fire(weapon="lascannon", target="brutes"),)),
        [5, 2, 5],
    )
    assert after.units["brutes"].models["brutes-1"].wounds == 4


def test_17_03_exemption_applies_only_to_close_quarters_weapons_of_engaged_units() -> None:
    """40k11 17.03 with fixed dice: against an engaged VEHICLE, an engaged unit's [CLOSE-QUARTERS]
    weapon hits on a 3 (no -1), while an unengaged unit's [CLOSE-QUARTERS] weapon misses on a 3
    (-1)."""
    tank = vehicle("tank", "b", 20, 24)
    near = infantry(
        "near", "a", [(24.63, 24)], weapons=(weapon("pistol", "near-1", rng=12, rules=("close_quarters",)),)
    )
    far = infantry(
        "far", "a", [(30, 24)], weapons=(weapon("pistol2", "far-1", rng=12, rules=("close_quarters",)),)
    )
    s = state(tank, near, far, phase="shooting")
    # near: hit 3 (hits, no -1), wound 6 (S4 vs T10: 6+), save 6 (3+ save passes).
    after = step(s, Shoot(unit="near", fire=(Fire(weapon="pistol", target="tank"),)), [3, 6, 6])
    assert rolls(after) == [("hit", 3, "hit"), ("wound", 6, "wound"), ("save", 6, "saved")]
    after = step(after, Shoot(unit="far", fire=(Fire(weapon="pistol2", target="tank"),)), [3])
    assert rolls(after)[-1] == ("hit", 3, "miss")


def test_blast_adds_an_attack_per_five_models() -> None:
    """[BLAST] (ext): +1 attack per 5 models in the target unit: 1 shot at 10 models = 3 attacks."""
    shooter = infantry("gun", "a", [(10, 10)], weapons=(weapon("frag", "gun-1", rng=48, rules=("blast",)),))
    horde = infantry("horde", "b", [(30 + i, 20) for i in range(10)])
    after = step(
        state(shooter, horde, phase="shooting"),
        Shoot(unit="gun", fire=(Fire(weapon="frag", target="horde"),)),
        [1, 1, 1],
    )
    assert [r[0] for r in rolls(after)] == ["hit", "hit", "hit"]


def test_blast_counts_the_models_of_the_target_when_it_was_selected() -> None:
    """[BLAST] (40k11 core rules [ext], Blast: the extra attacks count the target unit's models as
    they were when it was selected as the target): targets are selected as the unit shoots, so the
    casualties of the unit's earlier weapons do not lower the count. A bolter first kills one of
    ten models (hit 6, wound 6, save 1); the frag that follows still counts ten: 1 + 2 = 3 attacks
    (it counted nine, 1 + 1 = 2, before)."""
    shooter = infantry(
        "gun",
        "a",
        [(10, 10), (10, 12)],
        weapons=(weapon("bolter", "gun-1", rng=48), weapon("frag", "gun-2", rng=48, rules=("blast",))),
    )
    horde = infantry("horde", "b", [(30 + i, 20) for i in range(10)])
    shot = Shoot(
        unit="gun", fire=(Fire(weapon="bolter", target="horde"), Fire(weapon="frag", target="horde"))
    )
    after = step(state(shooter, horde, phase="shooting"), shot, [6, 6, 1])
    # 40k11 core, Allocate attack: ten unwounded models may take it; take the proposal, then the
    # frag's three hit rolls (all 1s: misses).
    after = take_proposal(after, DECISION_ALLOCATE, [1, 1, 1])
    assert sum(1 for m in after.units["horde"].models.values() if m.alive) == 9
    assert [r[0] for r in rolls(after)] == ["hit", "wound", "save", "hit", "hit", "hit"]
