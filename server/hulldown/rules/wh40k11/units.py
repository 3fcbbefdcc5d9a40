"""Keywords, weapon rules and per-turn flags of 40k11 units.

Keywords are lower-case in ``Unit.keywords`` (MONSTER, VEHICLE, INFANTRY, FRAME); weapon keywords
in ``Weapon.rules`` ([BLAST] = "blast", [CLOSE-QUARTERS] = "close_quarters", the abilities of
constants.py; ``name:X`` for those with a value: ``attacks:d6+3``, ``rapid_fire:1``,
``anti:infantry:4``; docs/match-definition.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from msgspec.structs import replace

from ...match.dice_text import DiceExpr, parse_dice
from ...match.state import MatchState, Model, Unit, Weapon
from .constants import ANTI, BLAST, CLOSE_QUARTERS, DEADLY_DEMISE, FRAME, MONSTER, SUSTAINED_HITS, VEHICLE


def is_monster_vehicle(unit: Unit) -> bool:
    """40k11 17.00: a MONSTER or VEHICLE unit."""
    return unit.has(MONSTER) or unit.has(VEHICLE)


def is_frame(unit: Unit) -> bool:
    """40k11 17.02: the FRAME keyword."""
    return unit.has(FRAME)


def _after(words: Iterable[str], prefix: str) -> str | None:
    """What follows ``prefix`` in the first of ``words`` that starts with it, or None."""
    for word in words:
        if word.startswith(prefix):
            return word[len(prefix) :]
    return None


def rule_value(weapon: Weapon, name: str) -> str | None:
    """The X of the weapon's ``name:X`` rule (the first one), or None."""
    return _after(weapon.rules, f"{name}:")


def rule_number(weapon: Weapon, name: str) -> int:
    """The whole number X of ``name:X`` (0 without the rule): [RAPID FIRE X], [MELTA X]..."""
    value = rule_value(weapon, name)
    return int(value) if value is not None and value.isdigit() else 0


def dice_rule(weapon: Weapon, name: str) -> DiceExpr | None:
    """Random Attacks / Damage (40k11 core rules, Random characteristics): ``attacks:d6``."""
    value = rule_value(weapon, name)
    return parse_dice(value) if value is not None else None


def sustained_dice(weapon: Weapon) -> DiceExpr | None:
    """40k11 core rules [ext], Sustained Hits X with a random X (``sustained_hits:d3``), or None."""
    value = rule_value(weapon, SUSTAINED_HITS)
    return parse_dice(value) if value is not None and not value.isdigit() else None


def anti_need(weapon: Weapon, target: Unit) -> int | None:
    """40k11 core rules [ext], Anti: the lowest X of the weapon's [ANTI-KEYWORD X+] whose KEYWORD
    the target has (``anti:infantry:4``), or None."""
    needs = []
    for rule in weapon.rules:
        if rule.startswith(f"{ANTI}:"):
            keyword, _, need = rule[len(ANTI) + 1 :].rpartition(":")
            need = need.rstrip("+")
            if target.has(keyword) and need.isdigit():
                needs.append(int(need))
    return min(needs) if needs else None


def deadly_demise(unit: Unit) -> str | None:
    """40k11 core rules [ext], Deadly Demise X: the X of the unit's ``deadly_demise:X`` keyword (a
    whole number or a dice expression such as ``d3``), or None without it."""
    return _after(unit.keywords, f"{DEADLY_DEMISE}:")


def is_blast(weapon: Weapon) -> bool:
    return BLAST in weapon.rules


def is_close_quarters(weapon: Weapon) -> bool:
    return CLOSE_QUARTERS in weapon.rules


RESERVES = "reserves"  # docs/missions.md: the status of a unit in reserve


def on_table(unit: Unit) -> bool:
    """A unit that takes part in play: not destroyed, not embarked, not in reserve."""
    return not unit.destroyed and unit.embarked_in is None and RESERVES not in unit.statuses


def live_models(unit: Unit) -> Iterator[Model]:
    return (m for m in unit.models.values() if m.alive)


def live_count(unit: Unit) -> int:
    return sum(1 for _ in live_models(unit))


def enemies(state: MatchState, unit: Unit) -> Iterator[Unit]:
    return (u for u in state.units.values() if u.side != unit.side and on_table(u))


def flag_value(unit: Unit, name: str) -> str | None:
    """The value of a ``name=value`` turn flag, or None."""
    return _after(unit.turn_flags, f"{name}=")


def flag_int(unit: Unit, name: str) -> int | None:
    value = flag_value(unit, name)
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


def with_flags(unit: Unit, *flags: str) -> Unit:
    """Add turn flags (``name`` or ``name=value``), keeping existing ones."""
    new = tuple(f for f in flags if f not in unit.turn_flags)
    return replace(unit, turn_flags=(*unit.turn_flags, *new)) if new else unit


def phase_flag(state: MatchState, name: str, unit_id: str) -> bool:
    return f"{name}:{unit_id}" in state.phase_flags


def add_phase_flag(state: MatchState, name: str, unit_id: str) -> MatchState:
    flag = f"{name}:{unit_id}"
    if flag in state.phase_flags:
        return state
    return replace(state, phase_flags=(*state.phase_flags, flag))
