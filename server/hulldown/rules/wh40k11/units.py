"""Keywords, weapon rules and per-turn flags of 40k11 units.

Keywords are lower-case in ``Unit.keywords`` (MONSTER, VEHICLE, INFANTRY, FRAME); weapon keywords
in ``Weapon.rules`` ([BLAST] = "blast", [CLOSE-QUARTERS] = "close_quarters").
"""

from __future__ import annotations

from collections.abc import Iterator

from msgspec.structs import replace

from ...match.state import MatchState, Model, Unit, Weapon
from .constants import BLAST, CLOSE_QUARTERS, FRAME, MONSTER, VEHICLE


def is_monster_vehicle(unit: Unit) -> bool:
    """40k11 17.00: a MONSTER or VEHICLE unit."""
    return unit.has(MONSTER) or unit.has(VEHICLE)


def is_frame(unit: Unit) -> bool:
    """40k11 17.02: the FRAME keyword."""
    return unit.has(FRAME)


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
    prefix = f"{name}="
    for flag in unit.turn_flags:
        if flag.startswith(prefix):
            return flag[len(prefix) :]
    return None


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
