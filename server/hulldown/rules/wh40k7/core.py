"""The minimal 40k7 core the vehicle rules need: to-hit tables, to-wound chart, saves.

All functions are pure table look-ups; dice are rolled by the callers through ``ApplyContext``.
"""

from __future__ import annotations

# 40k7 The Shooting Phase, "Roll To Hit": the score needed is 7 - BS. BS 6+ would re-roll misses
# (not modelled [decided]: treated as 2+).
SNAP_SHOT_NEED = 6  # 40k7 The Shooting Phase, Snap Shots: hit only on a 6 (BS1)
NO_WOUND = 7  # a wound roll that cannot succeed


def shooting_to_hit(bs: int, snap: bool) -> int:
    """40k7 BS to-hit table: 7 - BS, at least 2+; Snap Shots need a 6 (The Shooting Phase, Snap Shots)."""
    if snap:
        return SNAP_SHOT_NEED
    return min(6, max(2, 7 - bs))


def ws_to_hit(attacker_ws: int, defender_ws: int) -> int:
    """40k7 Weapon Skill comparison chart: WS0 is hit automatically (returns 1); higher WS hits on
    3+; a defender with more than twice the attacker's WS is hit on 5+; otherwise 4+."""
    if defender_ws <= 0:
        return 1
    if attacker_ws > defender_ws:
        return 3
    if defender_ws > 2 * attacker_ws:
        return 5
    return 4


def to_wound(strength: int, toughness: int) -> int:
    """40k7 To Wound chart: S >= T+2: 2+; T+1: 3+; =T: 4+; T-1: 5+; T-2 or T-3: 6+; lower: none."""
    diff = strength - toughness
    if diff >= 2:
        return 2
    if diff == 1:
        return 3
    if diff == 0:
        return 4
    if diff == -1:
        return 5
    if diff >= -3:
        return 6
    return NO_WOUND


def armour_save_allowed(sv: int | None, ap: int | None) -> bool:
    """40k7 Armour saves: an AP value equal to or lower than the save number ignores the save."""
    if sv is None or sv > 6:
        return False
    return ap is None or ap > sv


def best_save(sv: int | None, ap: int | None, cover: int | None, inv: int | None) -> tuple[int, str] | None:
    """The best save a model may take against one wound: (target number, kind) or None.
    40k7 Saving Throws: only one save per wound, the best available."""
    options: list[tuple[int, str]] = []
    if armour_save_allowed(sv, ap):
        assert sv is not None
        options.append((sv, "armour"))
    if cover is not None and cover <= 6:
        options.append((max(2, cover), "cover"))
    if inv is not None and inv <= 6:
        options.append((inv, "invulnerable"))
    if not options:
        return None
    return min(options)


def instant_death(strength: int, toughness: int) -> bool:
    """40k7 Instant Death: Strength at least double the Toughness removes every Wound."""
    return toughness > 0 and strength >= 2 * toughness
