"""40k7 Psykers and Warp Charge: who is a Psyker, its Mastery Level, its powers, the pools.

Seed 001: "Vehicles with the Psychic Pilot special rule manifest their psychic powers during the
Psychic phase, as normal"; the published 40k7 rules do the rest (Special Rules, Psychic Pilot;
The Psychic Phase). A vehicle is a Psyker when it has the keyword ``psychic_pilot`` (Mastery
Level 1) or ``psychic_pilot:X`` (Mastery Level X), as its army list entry writes "Psychic Pilot
(Mastery Level X)". Its powers are weapon profiles with the rule ``witchfire:X`` (X: the Warp
Charge cost). docs/psychic.md.

The Warp Charge pools last one Psychic phase (they are lost when it ends), so they live in the
phase flags: ``warp:<side>:<points>``; ``manifested:<unit>:<power>`` records every power a unit
has attempted this phase (``<unit>``: the unit id, or ``squadron/<side>/<name>`` for a vehicle of a
squadron - one unit; ``<power>``: the power's name).
"""

from __future__ import annotations

import functools

from msgspec.structs import replace

from ...match.state import MatchState, Side, Unit, Weapon
from .firing import is_psychic_power
from .geo import on_table
from .status import add_phase_flag, has_phase_flag, phase_flags_with_prefix
from .types import has_type, is_vehicle

PSYCHIC_PILOT = "psychic_pilot"
# 40k7 Special Rules, Psychic Pilot: "if no Mastery Level is shown then that vehicle has a
# Mastery Level of 1".
DEFAULT_MASTERY_LEVEL = 1
# 40k7 Special Rules, Psychic Pilot: "the vehicle is considered to have a Leadership
# characteristic of 10, should this be needed in order to resolve any psychic power or Perils".
PILOT_LEADERSHIP = 10
ADAMANTIUM_WILL = "adamantium_will"  # 40k7 Special Rules, Adamantium Will: +1 to Deny the Witch
WITCHFIRE_RULE = "witchfire"  # weapon rule ``witchfire:X``
# "The same psychic power" (40k7 Manifesting Psychic Powers) is a power of the same name: two
# vehicles of one squadron knowing Smite know one power, whatever the ids of their profiles
# [decided].
SAME_POWER_BY_NAME = True
# Generating Warp Charge adds "the Mastery Levels of all the Psyker units" on the table. A vehicle
# squadron is one unit, but each of its Psychic Pilot vehicles is a Psyker with its own Mastery
# Level: each adds its level (True) [decided]; False would count the squadron once, at the highest
# level among its vehicles on the table.
EACH_PILOT_GENERATES_WARP_CHARGE = True


def mastery_level(unit: Unit) -> int:
    """The Mastery Level of a vehicle with Psychic Pilot; 0 for a unit that is no Psyker (only
    vehicle Psykers are modelled: docs/psychic.md)."""
    return _pilot_level(unit.keywords) if is_vehicle(unit) else 0


@functools.lru_cache(maxsize=1024)
def _pilot_level(keywords: tuple[str, ...]) -> int:
    """The highest ``psychic_pilot[:N]`` among the keywords (0: none). Asked for every unit at the
    end of every phase: kept per keyword list (the lists are few; a unit's keeps its value)."""
    level = 0
    for keyword in keywords:
        head, sep, value = keyword.partition(":")
        if head != PSYCHIC_PILOT:
            continue
        level = max(level, int(value) if sep and value.isdigit() else DEFAULT_MASTERY_LEVEL)
    return level


def is_psyker(unit: Unit) -> bool:
    return mastery_level(unit) > 0


def has_adamantium_will(unit: Unit) -> bool:
    return has_type(unit, ADAMANTIUM_WILL)


def warp_charge_cost(power: Weapon) -> int:
    """The Warp Charge cost of a power (``witchfire:X``); 0 for a weapon that is no power."""
    for rule in power.rules:
        head, _, value = rule.partition(":")
        if head == WITCHFIRE_RULE and value.rstrip("+").isdigit():
            return int(value.rstrip("+"))
    return 0


def powers(unit: Unit) -> list[Weapon]:
    """The psychic powers the unit still knows (Mental Purge takes one away for the battle)."""
    return [w for w in unit.weapons.values() if is_psychic_power(w) and not w.destroyed]


def psykers_on_table(state: MatchState, side: Side) -> list[Unit]:
    """40k7 Generating Warp Charge: "the Psyker units they currently have on the tabletop"."""
    return [u for u in state.units.values() if u.side == side and on_table(u) and is_psyker(u)]


def mastery_total(state: MatchState, side: Side) -> int:
    """40k7 Generating Warp Charge: the Mastery Levels of the side's Psykers on the table, each
    Psychic Pilot vehicle of a squadron with its own (``EACH_PILOT_GENERATES_WARP_CHARGE``)."""
    psykers = psykers_on_table(state, side)
    if EACH_PILOT_GENERATES_WARP_CHARGE:
        return sum(mastery_level(u) for u in psykers)
    highest: dict[str, int] = {}
    for u in psykers:
        key = u.squadron or u.id
        highest[key] = max(highest.get(key, 0), mastery_level(u))
    return sum(highest.values())


def pool(state: MatchState, side: Side) -> int:
    """The Warp Charge points ``side`` has left this Psychic phase (0 outside it)."""
    found = phase_flags_with_prefix(state, f"warp:{side}:")
    return int(found[0]) if found else 0


def with_pool(state: MatchState, side: Side, points: int) -> MatchState:
    """Set the pool of ``side`` (never below 0)."""
    kept = tuple(f for f in state.phase_flags if not f.startswith(f"warp:{side}:"))
    return replace(state, phase_flags=(*kept, f"warp:{side}:{max(0, points)}"))


def manifesting_unit(unit: Unit) -> str:
    """The unit that manifests, for "once per Psychic phase": a vehicle squadron is a single unit
    (40k7 Vehicles, Vehicle Squadrons), so every vehicle of it counts as the squadron."""
    return f"squadron/{unit.side}/{unit.squadron}" if unit.squadron else unit.id


def attempted(state: MatchState, unit: Unit, power: Weapon) -> bool:
    """40k7 Manifesting Psychic Powers: "no unit can attempt to manifest the same psychic power
    more than once per Psychic phase" - the same power is the same name
    (SAME_POWER_BY_NAME), whichever vehicle of a squadron attempted it."""
    return has_phase_flag(state, _attempt_flag(unit, power))


def mark_attempted(state: MatchState, unit: Unit, power: Weapon) -> MatchState:
    return add_phase_flag(state, _attempt_flag(unit, power))


def _attempt_flag(unit: Unit, power: Weapon) -> str:
    return f"manifested:{manifesting_unit(unit)}:{power.name if SAME_POWER_BY_NAME else power.id}"
