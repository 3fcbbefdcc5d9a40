"""Statuses, per-turn flags and per-phase flags of 40k7 units.

Status names used by the 40k7 rules (``Unit.statuses``: name -> player-turn index at whose end it
expires, 0 = until removed):

- ``shaken``, ``stunned``: Crew Shaken / Crew Stunned (40k7 Vehicle Damage Table) until the end of the
  owner's next turn [decided].
- ``immobilised``: permanent.
- ``jink``: the 4+ Jink cover save, until the start of the unit's next Movement phase;
  ``snap_only``: Snap Shots only - after a Jink until the end of its next turn; after a failed
  passenger Leadership test until the end of its next Shooting phase.
- ``pinned``: Gone to Ground after a failed Pinning test until the end of its next turn.
- ``falling_back``: until it Regroups.
- a Zooming Flyer with ``stunned`` must move 18" straight in its next Movement phase.
- ``forced_out``: forced out of a destroyed transport in the enemy's turn, cannot charge until
  the end of its own next turn.
- ``reserves``: a Flyer that left combat airspace (Ongoing Reserves; re-entry is not modelled).
- ``reserves``: in reserve (a Flyer that left combat airspace is in Ongoing Reserves; with a mission it comes back, docs/missions.md).

Per-turn flags (``Unit.turn_flags``, cleared when the owner's turn starts): ``moved``, ``pivoted``,
``shot``, ``ran``, ``flat_out``, ``tank_shock``, ``rammed``, ``charged``, ``embarked``,
``disembarked``, ``overwatched``, ``regrouped``, ``fired_heavy`` (no charge after Heavy, Rapid
Fire, Salvo or Ordnance), ``shot_at:<unit>``, ``no_charge``.
Per-phase flags (``MatchState.phase_flags``): ``fought:<unit>``, ``morale:<unit>``,
``casualties:<unit>:<models at phase start>``, ``passenger_test:<passenger unit>:<transport>``,
``squadron_target:<squadron>:<target>``.
"""

from __future__ import annotations

from msgspec.structs import replace

from ...match.state import MatchState, Side, Unit
from ...match.turns import add_flag, replace_unit

PERMANENT = 0
# A unit forced out of a destroyed transport (not an Assault Vehicle) in the enemy's turn cannot
# charge in its own next Assault phase: this status lasts until the end of its next player turn
# (40k7 Vehicles, Transports; docs/rules-notes.md, 40k7 Transports).
FORCED_OUT_STATUS = "forced_out"


def end_of_next_turn(state: MatchState, side: Side) -> int:
    """The player-turn index at whose end "until the end of its next turn" expires for a unit of
    ``side`` (40k7 Vehicle Damage Table [decided]: the owning player's next player turn)."""
    return state.player_turn + (2 if state.active == side else 1)


def end_of_next_shooting_phase(state: MatchState, side: Side) -> int:
    """The player-turn index at whose end "in their next Shooting phase" expires for a unit of
    ``side``, judged at the end of the current phase (40k7 Transports, Effects of Damage on
    Passengers): in the owner's Movement phase its next Shooting phase is this turn's; later in
    its own turn, the one of its next turn; in the opponent's turn, the one of its coming turn."""
    if state.active != side:
        return state.player_turn + 1
    return state.player_turn if state.phase == "movement" else state.player_turn + 2


def start_of_next_turn(state: MatchState, side: Side) -> int:
    """Expiry index for "until the start of its next turn / Movement phase": the end of the player
    turn just before the owner's next one."""
    return state.player_turn + (1 if state.active == side else 0)


def with_status(unit: Unit, name: str, until: int) -> Unit:
    """Add or extend a status; a permanent status stays permanent, later expiries win."""
    current = unit.statuses.get(name)
    if current is not None and (current == PERMANENT or (until != PERMANENT and current >= until)):
        return unit
    statuses = dict(unit.statuses)
    statuses[name] = until
    return replace(unit, statuses=statuses)


def without_status(unit: Unit, name: str) -> Unit:
    if name not in unit.statuses:
        return unit
    return replace(unit, statuses={k: v for k, v in unit.statuses.items() if k != name})


def set_status(state: MatchState, uid: str, name: str, until: int) -> MatchState:
    unit = state.units[uid]
    new = with_status(unit, name, until)
    return state if new is unit else replace_unit(state, new)


def flag_unit(state: MatchState, uid: str, *flags: str) -> MatchState:
    unit = state.units[uid]
    new = unit
    for flag in flags:
        new = add_flag(new, flag)
    return state if new is unit else replace_unit(state, new)


def has_phase_flag(state: MatchState, flag: str) -> bool:
    return flag in state.phase_flags


def add_phase_flag(state: MatchState, flag: str) -> MatchState:
    if flag in state.phase_flags:
        return state
    return replace(state, phase_flags=(*state.phase_flags, flag))


def phase_flags_with_prefix(state: MatchState, prefix: str) -> list[str]:
    return [f[len(prefix) :] for f in state.phase_flags if f.startswith(prefix)]


def flags_with_prefix(unit: Unit, prefix: str) -> list[str]:
    return [f[len(prefix) :] for f in unit.turn_flags if f.startswith(prefix)]
