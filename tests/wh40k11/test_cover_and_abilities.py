"""40k11 Benefit of Cover and the remaining common weapon abilities with fixed dice (40k11 core
rules [ext]; docs/rules-notes.md, 40k11 Weapon abilities): Benefit of Cover, Ignores Cover,
Indirect Fire, Lance, Hazardous, One Shot, Extra Attacks, Sustained Hits D3."""

from __future__ import annotations

from msgspec.structs import replace

from hulldown.match.actions import Fight, Fire, Shoot
from hulldown.match.state import MatchState, Point, Terrain, Weapon
from hulldown.rules.wh40k11.units import with_flags

from .builders import check, infantry, rolls, state, step, vehicle, weapon

SHOOT = Shoot(unit="shooter", fire=(Fire(weapon="gun", target="victim"),))


def _square(tid: str, x0: float, y0: float, x1: float, y1: float, *kinds: str) -> Terrain:
    pts = (Point(x0, y0), Point(x1, y0), Point(x1, y1), Point(x0, y1))
    return Terrain(id=tid, points=pts, kinds=kinds)


# A ruin giving cover around the victim at (30, 10); a wall between (10, 10) and (30, 10); a
# wall hiding (30, 20) from (10, 10) but not (30, 10).
RUIN = _square("ruin", 28, 8, 32, 12, "cover")
WALL = _square("wall", 19, 5, 21, 15, "blocks_los")
SIDE_WALL = _square("side-wall", 19, 13.5, 21, 16.5, "blocks_los")


def _duel(
    rules: tuple[str, ...] = (),
    *,
    ap: int = 1,
    terrain: tuple[Terrain, ...] = (RUIN,),
    victims: tuple[tuple[float, float], ...] = ((30, 10),),
    sv: int = 4,
) -> MatchState:
    gun = weapon("gun", "shooter-1", rng=24, ap=ap, rules=rules)
    shooter = infantry("shooter", "a", [(10, 10)], weapons=(gun,))
    victim = infantry("victim", "b", list(victims), sv=sv)
    return state(shooter, victim, phase="shooting", terrain=terrain)


def _texts(s: MatchState) -> list[str]:
    return [e.text for e in s.log]


def _purposes(s: MatchState) -> list[str]:
    return [r[0] for r in rolls(s)]


def _alive(s: MatchState, uid: str, mid: str) -> bool:
    return s.units[uid].models[mid].alive


# --- Benefit of Cover, Ignores Cover -----------------------------------------------------------


def test_benefit_of_cover_improves_the_armour_save_by_one() -> None:
    """40k11 core rules, Benefit of Cover: a Sv 4+ model within a terrain piece that gives cover
    saves an AP -1 attack on 4+ instead of 5+: hit 4, wound 4, save 4 saves. In the open the same
    dice kill it."""
    covered = step(_duel(), SHOOT, [4, 4, 4])
    assert _alive(covered, "victim", "victim-1")
    assert any("has the Benefit of Cover: saves on 4+ instead of 5+" in t for t in _texts(covered))
    open_ground = step(_duel(terrain=()), SHOOT, [4, 4, 4])
    assert not _alive(open_ground, "victim", "victim-1")
    assert not any("Benefit of Cover" in t for t in _texts(open_ground))


def test_no_benefit_of_cover_for_a_3_plus_save_against_ap_0() -> None:
    """40k11 core rules, Benefit of Cover: not for a model with a Save of 3+ or better against an
    attack with AP 0: a Sv 3+ model in the ruin fails on a 2 (it would save on 2+ with cover)."""
    after = step(_duel(ap=0, sv=3), SHOOT, [4, 4, 2])
    assert not _alive(after, "victim", "victim-1")
    assert any("without effect: a Save of 3+ or better against AP 0" in t for t in _texts(after))
    # Against AP -1 it does: 3 + 1 - 1 = 3+, a 3 saves.
    saved = step(_duel(ap=1, sv=3), SHOOT, [4, 4, 3])
    assert _alive(saved, "victim", "victim-1")


def test_ignores_cover_takes_the_benefit_of_cover_away() -> None:
    """40k11 core rules, Ignores Cover: the target has no Benefit of Cover against the weapon: the
    save of 4 fails on the 5+ it needs without cover."""
    after = step(_duel(("ignores_cover",)), SHOOT, [4, 4, 4])
    assert not _alive(after, "victim", "victim-1")
    assert any("[IGNORES COVER]" in t for t in _texts(after))


def test_a_unit_has_cover_when_each_model_is_in_cover_or_hidden() -> None:
    """40k11 core rules, Benefit of Cover [decided, COVER_NEEDS_EVERY_MODEL]: one model within the
    ruin and one hidden from the firer by a wall: the unit has cover (the save of 4 holds). With the
    second model in the open instead, it has none (the 4 fails)."""
    both = _duel(terrain=(RUIN, SIDE_WALL), victims=((30, 10), (30, 20)))
    after = step(both, SHOOT, [4, 4, 4])
    assert all(m.alive for m in after.units["victim"].models.values())
    assert any("Benefit of Cover" in t for t in _texts(after))
    one_open = _duel(terrain=(RUIN,), victims=((30, 10), (30, 20)))
    after = step(one_open, SHOOT, [4, 4, 4])
    # The save failed: the owner is asked which model takes it (40k11 core, Allocate attack).
    assert after.pending is not None and after.pending.kind == "allocate_wound"
    assert not any("Benefit of Cover" in t for t in _texts(after))


# --- Indirect Fire -----------------------------------------------------------------------------


def test_indirect_fire_shoots_an_unseen_target_at_minus_1_and_it_has_cover() -> None:
    """40k11 core rules, Indirect Fire: a target no model of which is visible may be shot by an
    [INDIRECT FIRE] weapon (another weapon is refused for line of sight); -1 to hit (BS 3+: a 3
    misses, a 4 hits) and the target has the Benefit of Cover (Sv 4+ vs AP -1: a 4 saves)."""
    refused = check(_duel(terrain=(WALL,)), SHOOT)
    assert refused is not None and refused.code == "no_line_of_sight"
    s = _duel(("indirect_fire",), terrain=(WALL,))
    assert check(s, SHOOT) is None
    missed = step(s, SHOOT, [3])
    assert any("[INDIRECT FIRE]" in t and "0 hits" in t for t in _texts(missed))
    saved = step(s, SHOOT, [4, 4, 4])
    assert _alive(saved, "victim", "victim-1")
    assert any("saves on 4+ instead of 5+" in t for t in _texts(saved))


def test_indirect_fire_at_a_visible_target_is_an_ordinary_shot() -> None:
    """40k11 core rules, Indirect Fire: with a model of the target visible, no -1 and no cover
    from it (open ground: a 3 hits, the save of 4 fails against 5+)."""
    after = step(_duel(("indirect_fire",), terrain=()), SHOOT, [3, 4, 4])
    assert not _alive(after, "victim", "victim-1")


# --- Lance -------------------------------------------------------------------------------------


def _melee(*weapons: Weapon, charged: bool = False) -> MatchState:
    boyz = infantry("boyz", "a", [(10, 10)], weapons=weapons)
    if charged:
        boyz = with_flags(boyz, "charged")
    foe = infantry("foe", "b", [(11.5, 10)], sv=None)
    return state(boyz, foe, phase="fight")


def test_lance_adds_1_to_the_wound_roll_after_a_charge() -> None:
    """40k11 core rules, Lance: +1 to the wound roll if the bearer's unit made a Charge move this
    turn: S4 vs T4 needs 4+, a 3 wounds after the charge (3 + 1), fails without it."""
    lance = weapon("lance", "boyz-1", rng=0, rules=("lance",), kind="melee")
    fight = Fight(unit="boyz", target="foe", weapon="lance")
    charged = step(_melee(lance, charged=True), fight, [4, 3])
    assert not _alive(charged, "foe", "foe-1")
    assert any("+1 [LANCE]" in t for t in _texts(charged))
    still = step(_melee(lance), fight, [4, 3])
    assert _alive(still, "foe", "foe-1")


# --- Hazardous ---------------------------------------------------------------------------------


def test_hazardous_test_after_shooting_destroys_the_bearer_on_a_1() -> None:
    """40k11 core rules, Hazardous: after the unit has shot, one D6 for the Hazardous weapon; on a 1
    the model carrying it is destroyed (here the last one: the unit is destroyed); a 2 passes."""
    failed = step(_duel(("hazardous",), terrain=()), SHOOT, [1, 1])
    assert _purposes(failed) == ["hit", "hazardous"]
    assert failed.units["shooter"].destroyed
    assert any("Hazardous test failed" in t for t in _texts(failed))
    passed = step(_duel(("hazardous",), terrain=()), SHOOT, [1, 2])
    assert _alive(passed, "shooter", "shooter-1")


def test_hazardous_costs_a_vehicle_3_mortal_wounds() -> None:
    """40k11 core rules, Hazardous [decided, simplified]: a MONSTER/VEHICLE bearer that fails
    suffers 3 mortal wounds (W12 -> 9) instead of being destroyed."""
    gun = weapon("gun", "shooter-m", rng=24, rules=("hazardous",))
    tank = vehicle("shooter", "a", 10, 10, weapons=(gun,))
    s = state(tank, infantry("victim", "b", [(30, 10)]), phase="shooting")
    after = step(s, SHOOT, [1, 1])
    assert after.units["shooter"].models["shooter-m"].wounds == 9
    assert any("suffers 3 mortal wounds" in t for t in _texts(after))


def test_hazardous_test_after_fighting() -> None:
    """40k11 core rules, Hazardous: the test is taken after the unit fights too (hit 1, test 1)."""
    blade = weapon("blade", "boyz-1", rng=0, rules=("hazardous",), kind="melee")
    after = step(_melee(blade), Fight(unit="boyz", target="foe", weapon="blade"), [1, 1])
    assert _purposes(after) == ["hit", "hazardous"]
    assert after.units["boyz"].destroyed


# --- One Shot ----------------------------------------------------------------------------------


def test_one_shot_fires_once_per_battle() -> None:
    """40k11 core rules, One Shot: the weapon may be fired only once per battle; a second use (next
    turn: the turn flags cleared) is refused, naming the rule."""
    after = step(_duel(("one_shot",), terrain=()), SHOOT, [1])
    assert "one_shot:gun" in after.units["shooter"].statuses
    next_turn = replace(
        after, units={**after.units, "shooter": replace(after.units["shooter"], turn_flags=())}
    )
    refused = check(next_turn, SHOOT)
    assert refused is not None and refused.code == "one_shot_spent"
    assert refused.rule == "40k11 core rules, One Shot"


# --- Extra Attacks -----------------------------------------------------------------------------


def _fighter() -> tuple[Weapon, Weapon]:
    sword = weapon("sword", "boyz-1", rng=0, kind="melee")
    bite = weapon("bite", "boyz-1", rng=0, shots=2, rules=("extra_attacks",), kind="melee")
    return sword, bite


def test_extra_attacks_weapon_attacks_besides_the_chosen_one() -> None:
    """40k11 core rules, Extra Attacks: the model attacks with its chosen weapon (sword, 1 attack)
    and with its Extra Attacks weapon besides (bite, 2 attacks): three hit rolls, all 1s."""
    s = _melee(*_fighter())
    after = step(s, Fight(unit="boyz", target="foe", weapon="sword"), [1, 1, 1])
    assert _purposes(after) == ["hit", "hit", "hit"]
    assert any("sword: 1 attack, 0 hits" in t for t in _texts(after))
    assert any("bite: 2 attacks, 0 hits" in t and "[EXTRA ATTACKS]" in t for t in _texts(after))
    # Naming the Extra Attacks weapon [decided]: the other weapon is used, the bite as well.
    named = step(s, Fight(unit="boyz", target="foe", weapon="bite"), [1, 1, 1])
    assert _purposes(named) == ["hit", "hit", "hit"]


# --- Sustained Hits D3 -------------------------------------------------------------------------


def test_sustained_hits_d3_is_rolled_for_each_critical_hit() -> None:
    """40k11 core rules, Sustained Hits: with a random X (D3) it is rolled for each Critical Hit,
    after the hit rolls: a 6 to hit, the D3 a 5 (3): 4 hits to wound (all 1s)."""
    after = step(_duel(("sustained_hits:d3",), terrain=()), SHOOT, [6, 5, 1, 1, 1, 1])
    assert _purposes(after) == ["hit", "sustained hits", "wound", "wound", "wound", "wound"]
    assert any("Sustained Hits D3 (3): 1 Critical Hit, +3 hits" in t for t in _texts(after))
