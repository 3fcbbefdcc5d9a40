"""Turn and phase bookkeeping shared by every edition.

A game turn has two player turns (side ``a`` then ``b`` unless the scenario says otherwise);
each player turn runs through the edition's phases in order. Statuses that last "until the end
of its next turn" store the player-turn index at whose end they expire (docs/rules-notes.md,
All editions, Timed effects [decided]).
"""

from __future__ import annotations

from msgspec.structs import replace

from .state import MatchState, Side, Unit, other_side
from .victory import same_count


def next_phase(state: MatchState, phases: tuple[str, ...], first: Side | None = None) -> MatchState:
    """Advance to the next phase, or end the player turn after the last phase."""
    index = phases.index(state.phase) if state.phase in phases else len(phases) - 1
    if index + 1 < len(phases):
        return replace(state, phase=phases[index + 1], phase_flags=())
    return end_player_turn(state, phases, first)


def end_player_turn(state: MatchState, phases: tuple[str, ...], first: Side | None = None) -> MatchState:
    """End the active player's turn: expire statuses, reset the next side's per-turn flags.
    ``first`` (default: the state's) is the side whose player turn begins a battle turn."""
    first = first or state.first
    ending = state.player_turn
    units = expire_statuses(state.units, ending)
    nxt = other_side(state.active)
    units = reset_turn_flags(units, nxt)
    turn = state.turn + 1 if nxt == first else state.turn
    return replace(
        state,
        units=units,
        active=nxt,
        player_turn=ending + 1,
        turn=turn,
        phase=phases[0],
        phase_flags=(),
    )


def expire_statuses(units: dict[str, Unit], ending_player_turn: int) -> dict[str, Unit]:
    """Drop every status whose expiry is the player turn now ending (0 never expires)."""
    changed: dict[str, Unit] = {}
    for uid, unit in units.items():
        statuses = unit.statuses  # most units have none: no generator made for them
        if statuses and any(0 < until <= ending_player_turn for until in statuses.values()):
            kept = {k: v for k, v in statuses.items() if not 0 < v <= ending_player_turn}
            changed[uid] = replace(unit, statuses=kept)
    if not changed:
        return units
    return {uid: changed.get(uid, unit) for uid, unit in units.items()}


def reset_turn_flags(units: dict[str, Unit], side: Side) -> dict[str, Unit]:
    """Clear movement and per-turn flags of ``side``'s units as its player turn starts."""
    changed = {
        uid: replace(unit, moved=0.0, turn_flags=())
        for uid, unit in units.items()
        if unit.side == side and (unit.moved or unit.turn_flags)
    }
    if not changed:
        return units
    return {uid: changed.get(uid, unit) for uid, unit in units.items()}


def replace_unit(state: MatchState, unit: Unit) -> MatchState:
    """A new state with one unit replaced (every other unit shared)."""
    units = dict(state.units)
    old = units.get(unit.id)
    units[unit.id] = unit
    if old is not None and old.side == unit.side and old.destroyed == unit.destroyed:
        same_count(state.units, units)
    return replace(state, units=units)


def add_flag(unit: Unit, flag: str) -> Unit:
    flags = with_flag(unit.turn_flags, flag)
    return unit if flags is unit.turn_flags else replace(unit, turn_flags=flags)


def with_flag(flags: tuple[str, ...], flag: str) -> tuple[str, ...]:
    """A unit's ``turn_flags`` with ``flag`` (the same tuple when it is there already): for a
    copy of the unit that changes more than its flags (``add_flag`` would copy it twice)."""
    if flag in flags:
        return flags
    return (*flags, flag)
