"""Horus Heresy 3rd edition core tables: ranged and melee hit tables, the wound table, saves and
Cool checks (the minimal core the vehicle rules need, hh3 core [ext]; docs/rules-notes.md, hh3).

Every function returns a target number (the D6 score needed), or None when the test cannot
succeed, or 0 for an automatic success (no die rolled).
"""

from __future__ import annotations

# hh3 core, Ranged Hit Table: BS 1-5 hit on 6+..2+; BS 6-9 hit on 2+ (their critical hits are not
# modelled); BS 10+ hits automatically.
_RANGED: dict[int, int] = {1: 6, 2: 5, 3: 4, 4: 3, 5: 2}
RANGED_AUTO_HIT_BS = 10
# hh3 core, Ranged Hit Table, Snap Shots row: BS1 cannot snap shoot, BS 2-3 6+, 4-5 5+, 6-7 4+,
# 8-9 3+, 10+ 2+.
_SNAP: dict[int, int | None] = {1: None, 2: 6, 3: 6, 4: 5, 5: 5, 6: 4, 7: 4, 8: 3, 9: 3}

# hh3 core, Melee Hit Table: row = attacker's WS (1-10), column = defender's WS (1-10).
_MELEE: tuple[tuple[int, ...], ...] = (
    (4, 6, 6, 6, 6, 6, 6, 6, 6, 6),
    (2, 4, 5, 6, 6, 6, 6, 6, 6, 6),
    (2, 3, 4, 5, 5, 6, 6, 6, 6, 6),
    (2, 2, 3, 4, 4, 5, 5, 5, 6, 6),
    (2, 2, 3, 3, 4, 4, 5, 5, 5, 6),
    (2, 2, 2, 3, 3, 4, 4, 5, 5, 5),
    (2, 2, 2, 3, 3, 3, 4, 4, 5, 5),
    (2, 2, 2, 2, 3, 3, 3, 4, 5, 5),
    (2, 2, 2, 2, 2, 3, 3, 3, 4, 5),
    (2, 2, 2, 2, 2, 3, 3, 3, 3, 4),
)

# hh3 core, Wound Table: row = Strength (1-10), column = Toughness (1-10); 0 = impossible.
_WOUND: tuple[tuple[int, ...], ...] = (
    (4, 5, 6, 6, 0, 0, 0, 0, 0, 0),
    (3, 4, 5, 6, 6, 0, 0, 0, 0, 0),
    (2, 3, 4, 5, 6, 6, 0, 0, 0, 0),
    (2, 2, 3, 4, 5, 6, 6, 0, 0, 0),
    (2, 2, 2, 3, 4, 5, 6, 6, 0, 0),
    (2, 2, 2, 2, 3, 4, 5, 6, 6, 0),
    (2, 2, 2, 2, 2, 3, 4, 5, 6, 6),
    (2, 2, 2, 2, 2, 2, 3, 4, 5, 6),
    (2, 2, 2, 2, 2, 2, 2, 3, 4, 5),
    (2, 2, 2, 2, 2, 2, 2, 2, 3, 4),
)

# The best a save can be (hh3 core, Modifiers and Saving Throws: never better than 2+).
BEST_SAVE = 2


def _clamp(value: int) -> int:
    return max(1, min(10, value))


def ranged_hit_target(bs: int, snap: bool) -> int | None:
    """hh3 core, Ranged Hit Table. None: cannot hit (BS 0, or a BS1 Snap Shot); 0: automatic."""
    if bs <= 0:
        return None
    if snap:
        return _SNAP.get(bs, 2) if bs < 10 else 2
    if bs >= RANGED_AUTO_HIT_BS:
        return 0
    return _RANGED.get(bs, 2)


def melee_hit_target(attacker_ws: int, defender_ws: int) -> int | None:
    """hh3 core, Melee Hit Table. WS0 attackers cannot attack; a WS0 defender is hit on 2+."""
    if attacker_ws <= 0:
        return None
    if defender_ws <= 0:
        return 2
    return _MELEE[_clamp(attacker_ws) - 1][_clamp(defender_ws) - 1]


def wound_target(strength: int, toughness: int) -> int | None:
    """hh3 core, Wound Table. None: the wound is impossible."""
    if strength <= 0:
        return None
    if toughness <= 0:
        return 0
    value = _WOUND[_clamp(strength) - 1][_clamp(toughness) - 1]
    return value or None


def armour_save_allowed(sv: int | None, ap: int | None) -> bool:
    """hh3 core: AP equal to or better (lower) than the armour save negates it."""
    if sv is None:
        return False
    return ap is None or ap > sv


def best_save(*targets: int | None) -> int | None:
    """The best (lowest) of the saves on offer, never better than 2+; None when none is."""
    offered = [t for t in targets if t is not None and t <= 6]
    if not offered:
        return None
    return max(BEST_SAVE, min(offered))
