"""40k11 weapon abilities with fixed dice (40k11 core rules [ext]; docs/rules-notes.md, 40k11
Weapon abilities): Random Attacks and Damage, Rapid Fire, Assault, Heavy, Torrent, Twin-linked,
Lethal Hits, Sustained Hits, Anti-KEYWORD, Devastating Wounds, Melta."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Fight, Fire, Shoot
from hulldown.match.state import MatchState, Unit
from hulldown.rules.wh40k11.units import with_flags

from .builders import check, infantry, rolls, state, step, vehicle, weapon

FAR = 30.0  # target model at (30, 10): about 18.7" from the shooter, beyond half of 24"
NEAR = 20.0  # target model at (20, 10): about 8.7", within half of 24"


def _duel(
    rules: tuple[str, ...],
    *,
    x: float = FAR,
    shots: int = 1,
    d: int = 1,
    w: int = 1,
    sv: int | None = 3,
    inv: int | None = None,
) -> MatchState:
    gun = weapon("gun", "shooter-1", rng=24, shots=shots, d=d, rules=rules)
    shooter = infantry("shooter", "a", [(10, 10)], weapons=(gun,))
    victim = infantry("victim", "b", [(x, 10)], w=w, sv=sv, inv=inv)
    return state(shooter, victim, phase="shooting")


SHOOT = Shoot(unit="shooter", fire=(Fire(weapon="gun", target="victim"),))


def _texts(s: MatchState) -> list[str]:
    return [e.text for e in s.log]


def _purposes(s: MatchState) -> list[str]:
    return [r[0] for r in rolls(s)]


# --- Random Attacks and Damage (40k11 core rules, Random characteristics) ----------------------


def test_random_attacks_d6_plus_3_are_rolled_before_the_hit_rolls() -> None:
    """40k11 core rules, Random characteristics: A D6+3 is rolled when the weapon shoots, before
    its hit rolls: a 2 gives 5 attacks, so five hit rolls follow (all 1s: misses)."""
    after = step(_duel(("attacks:d6+3",), shots=7), SHOOT, [2, 1, 1, 1, 1, 1])
    assert _purposes(after) == ["attacks"] + ["hit"] * 5
    assert any("Attacks D6+3: 5" in t for t in _texts(after))
    assert any("5 attacks, 0 hits" in t for t in _texts(after))


def test_random_attacks_d3_halves_the_d6_and_2d6_adds_two_dice() -> None:
    """40k11 core rules, Random characteristics: a D3 is a D6 halved, rounded up (a 5 is 3); 2D6
    is two dice added (3 + 4 = 7)."""
    after = step(_duel(("attacks:d3",), shots=2), SHOOT, [5, 1, 1, 1])
    assert _purposes(after) == ["attacks", "hit", "hit", "hit"]
    after = step(_duel(("attacks:2d6",), shots=7), SHOOT, [3, 4, *([1] * 7)])
    assert _purposes(after) == ["attacks", "attacks"] + ["hit"] * 7
    assert any("Attacks 2D6: 7" in t for t in _texts(after))


def test_random_damage_is_rolled_for_each_unsaved_attack() -> None:
    """40k11 core rules, Random characteristics: Damage D6 is rolled for each unsaved attack,
    after its saving throw. Two hits (4, 4), two wounds (4, 4; S4 vs T4), saves 1 and 1 fail;
    damage 1 then 6: the W10 model loses 7 (10 -> 3)."""
    s = _duel(("damage:d6",), shots=2, d=4, w=10)
    after = step(s, SHOOT, [4, 4, 4, 4, 1, 1, 1, 6])
    assert _purposes(after) == ["hit", "hit", "wound", "wound", "save", "damage", "save", "damage"]
    assert after.units["victim"].models["victim-1"].wounds == 3
    assert any("takes 6 damage (Damage D6: 6)" in t for t in _texts(after))


def test_no_damage_roll_for_a_saved_attack() -> None:
    """40k11 core rules, Random characteristics: a saved attack rolls no Damage (hit 4, wound 4,
    save 6 passes: three dice, no damage die)."""
    after = step(_duel(("damage:d6",), w=10), SHOOT, [4, 4, 6])
    assert _purposes(after) == ["hit", "wound", "save"]


# --- Rapid Fire, Melta (half range), Assault, Heavy, Torrent ----------------------------------


def test_rapid_fire_adds_attacks_within_half_range_only() -> None:
    """40k11 core rules, Rapid Fire X: +X attacks when the target is within half range: Rapid
    Fire 1 makes 1 shot 2 attacks at 8.7" (half of 24" is 12"), still 1 at 18.7"."""
    near = step(_duel(("rapid_fire:1",), x=NEAR), SHOOT, [1, 1])
    assert _purposes(near) == ["hit", "hit"]
    assert any("Rapid Fire 1: +1 attack" in t for t in _texts(near))
    far = step(_duel(("rapid_fire:1",), x=FAR), SHOOT, [1])
    assert _purposes(far) == ["hit"]


def test_melta_adds_damage_within_half_range() -> None:
    """40k11 core rules, Melta X: +X Damage within half range: Melta 2 on a Damage 1 weapon does 3
    to a W5 model at 8.7" (5 -> 2), 1 at 18.7" (5 -> 4). Hit 4, wound 4, save 1 each time."""
    near = step(_duel(("melta:2",), x=NEAR, w=5), SHOOT, [4, 4, 1])
    assert near.units["victim"].models["victim-1"].wounds == 2
    assert any("Melta 2: +2" in t for t in _texts(near))
    far = step(_duel(("melta:2",), x=FAR, w=5), SHOOT, [4, 4, 1])
    assert far.units["victim"].models["victim-1"].wounds == 4


def _advanced(s: MatchState) -> MatchState:
    return _flagged(s, "advanced", "moved")


def _flagged(s: MatchState, *flags: str) -> MatchState:
    """The shooter with these turn flags (as the Movement phase leaves them)."""
    return replace(s, units={**s.units, "shooter": with_flags(s.units["shooter"], *flags)})


def test_assault_weapons_shoot_after_advancing_others_do_not() -> None:
    """40k11 core rules, Assault: a unit that Advanced may shoot its [ASSAULT] weapons only; a unit
    without one may not shoot at all (as before)."""
    gun = weapon("gun", "shooter-1", rng=24, rules=("assault",))
    bolter = weapon("bolter", "shooter-1", rng=24)
    shooter = infantry("shooter", "a", [(10, 10)], weapons=(gun, bolter))
    s = _advanced(state(shooter, infantry("victim", "b", [(FAR, 10)]), phase="shooting"))
    assert check(s, SHOOT) is None
    refused = check(s, Shoot(unit="shooter", fire=(Fire(weapon="bolter", target="victim"),)))
    assert refused is not None and refused.code == "advanced_not_assault"
    assert refused.rule == "40k11 core rules, Assault"
    step(s, SHOOT, [1])
    plain = _advanced(_duel(()))
    refused = check(plain, SHOOT)
    assert refused is not None and refused.code == "advanced"


def test_heavy_gives_plus_one_to_hit_when_stationary() -> None:
    """40k11 core rules, Heavy: +1 to hit if the unit Remained Stationary: at BS 3+ a 2 hits (2 + 1)
    for a unit that did not move; after a move the 2 misses."""
    still = step(_duel(("heavy",)), SHOOT, [2, 1])
    assert rolls(still)[:1] == [("hit", 2, "hit")]
    s = _duel(("heavy",))
    s = _flagged(s, "moved")
    assert rolls(step(s, SHOOT, [2])) == [("hit", 2, "miss")]


def test_torrent_hits_automatically() -> None:
    """40k11 core rules, Torrent: no hit roll; 3 attacks are 3 hits, so the first dice are the
    three wound rolls (1, 1, 1: no wound)."""
    after = step(_duel(("torrent",), shots=3), SHOOT, [1, 1, 1])
    assert _purposes(after) == ["wound", "wound", "wound"]
    assert any("3 automatic hits [TORRENT]" in t for t in _texts(after))


# --- Twin-linked, Lethal Hits, Sustained Hits, Anti, Devastating Wounds ------------------------


def test_twin_linked_rerolls_a_failed_wound_roll() -> None:
    """40k11 core rules, Twin-linked: the failed wound roll (2, needing 4+) is re-rolled (5:
    wounds), then the save (1) fails."""
    after = step(_duel(("twin_linked",)), SHOOT, [4, 2, 5, 1])
    assert rolls(after)[:3] == [("hit", 4, "hit"), ("wound", 2, "fail"), ("wound re-roll", 5, "wound")]
    assert not after.units["victim"].models["victim-1"].alive


def test_twin_linked_keeps_a_successful_wound_roll() -> None:
    """40k11 core rules, Twin-linked [decided]: a successful wound roll is never re-rolled."""
    after = step(_duel(("twin_linked",)), SHOOT, [4, 4, 6])
    assert _purposes(after) == ["hit", "wound", "save"]


def test_lethal_hits_critical_hit_wounds_automatically() -> None:
    """40k11 core rules, Lethal Hits: a Critical Hit (unmodified 6) wounds with no wound roll: the
    dice are the hit (6) and the save (1); a 5 still rolls to wound."""
    after = step(_duel(("lethal_hits",)), SHOOT, [6, 1])
    assert _purposes(after) == ["hit", "save"]
    assert not after.units["victim"].models["victim-1"].alive
    assert _purposes(step(_duel(("lethal_hits",)), SHOOT, [5, 1])) == ["hit", "wound"]


def test_sustained_hits_adds_hits_on_a_critical_hit() -> None:
    """40k11 core rules, Sustained Hits X: a Critical Hit scores X additional hits: Sustained
    Hits 2, a 6 to hit, three wound rolls (all 1)."""
    after = step(_duel(("sustained_hits:2",)), SHOOT, [6, 1, 1, 1])
    assert _purposes(after) == ["hit", "wound", "wound", "wound"]
    assert any("Sustained Hits 2: 1 Critical Hit, +2 hits" in t for t in _texts(after))


def test_lethal_and_sustained_hits_together() -> None:
    """40k11 core rules, Lethal Hits and Sustained Hits 1: the Critical Hit wounds automatically,
    its extra hit rolls to wound (1: fails); the automatic wound's save (1) fails."""
    after = step(_duel(("lethal_hits", "sustained_hits:1")), SHOOT, [6, 1, 1])
    assert _purposes(after) == ["hit", "wound", "save"]


def test_anti_infantry_makes_a_4_a_critical_wound() -> None:
    """40k11 core rules, Anti: Anti-Infantry 4+ with S1 against T4 (needs 6+): an unmodified 4 is a
    Critical Wound against INFANTRY; against a VEHICLE the same 4 fails."""
    gun = weapon("gun", "shooter-1", rng=24, s=1, rules=("anti:infantry:4",))
    shooter = infantry("shooter", "a", [(10, 10)], weapons=(gun,))
    s = state(shooter, infantry("victim", "b", [(FAR, 10)]), phase="shooting")
    after = step(s, SHOOT, [4, 4, 1])
    assert rolls(after)[1] == ("wound", 4, "critical wound")
    tank = vehicle("victim", "b", FAR, 10, t=4)
    s = state(shooter, tank, phase="shooting")
    assert rolls(step(s, SHOOT, [4, 4]))[1] == ("wound", 4, "fail")


def test_devastating_wounds_skip_the_save() -> None:
    """40k11 core rules, Devastating Wounds [decided reading]: a Critical Wound (6) makes no saving
    throw; its Damage 2 is inflicted on the W3 model (3 -> 1). A 5 to wound still saves (6)."""
    after = step(_duel(("devastating_wounds",), d=2, w=3, sv=2, inv=4), SHOOT, [4, 6])
    assert _purposes(after) == ["hit", "wound"]
    assert after.units["victim"].models["victim-1"].wounds == 1
    assert any("Devastating Wounds" in t for t in _texts(after))
    after = step(_duel(("devastating_wounds",), d=2, w=3, sv=2), SHOOT, [4, 5, 6])
    assert _purposes(after) == ["hit", "wound", "save"]


def test_devastating_wounds_with_anti_and_random_damage() -> None:
    """40k11 core rules, Anti + Devastating Wounds + Random characteristics: Anti-Infantry 2+ makes
    a 2 a Critical Wound; no save; Damage D3 rolls a 6 (3): the W4 model is left on 1."""
    after = step(_duel(("anti:infantry:2", "devastating_wounds", "damage:d3"), w=4, sv=2), SHOOT, [4, 2, 6])
    assert _purposes(after) == ["hit", "wound", "damage"]
    assert after.units["victim"].models["victim-1"].wounds == 1


# --- Fight -------------------------------------------------------------------------------------


def _melee(rules: tuple[str, ...]) -> tuple[MatchState, Unit]:
    choppa = weapon("choppa", "boyz-1", rng=0, rules=rules, kind="melee")
    boyz = infantry("boyz", "a", [(10, 10)], weapons=(choppa,))
    foe = infantry("foe", "b", [(11.5, 10)])
    return state(boyz, foe, phase="fight"), boyz


def test_random_attacks_in_a_fight_are_rolled_per_fighting_model() -> None:
    """40k11 core rules, Random characteristics: a melee weapon's A D3 is rolled as the model
    fights (6 -> 3 attacks), then its hit rolls (1s)."""
    s, _ = _melee(("attacks:d3",))
    after = step(s, Fight(unit="boyz", target="foe", weapon="choppa"), [6, 1, 1, 1])
    assert _purposes(after) == ["attacks", "hit", "hit", "hit"]


def test_lethal_hits_in_a_fight() -> None:
    """40k11 core rules, Lethal Hits applies to melee weapons too: a 6 to hit, no wound roll."""
    s, _ = _melee(("lethal_hits",))
    after = step(s, Fight(unit="boyz", target="foe", weapon="choppa"), [6, 1])
    assert _purposes(after) == ["hit", "save"]
