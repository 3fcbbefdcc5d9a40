"""What one play did to each unit: read from the state before and after, and from the rolls of
the combat log the play wrote (attributed to units through their tokens, ``plays``).

- Hull Points for units with Hull Points (vehicles; 40k11 vehicles have wounds), else the wounds
  of the living models. A destroyed unit ends at 0.
- A glancing / penetrating hit is an armour penetration roll (or Haywire roll) against the unit
  judged glancing / penetrating, as scored, before any save: the Hull Points show what got
  through.
- A damage-table result is a roll on the edition's vehicle damage table against the unit
  (40k7 Vehicle Damage table, hh3 glancing hit table).
- A status is gained when the unit has it after the play and did not before.
- For a charge (40k7 Charge, hh3 Charge, 40k11 Charge Phase): whether the charger reached.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, assert_never, cast

from ..match.actions import Action, Charge, Move
from ..match.state import LogEntry, LogRoll, MatchState, Unit
from ..rules.hh3.core import F_CHARGE_OK
from ..rules.wh40k11.constants import CHARGE_DECLARED, CHARGE_FAILED
from .plays import Play, tokens_in

Measure = Literal["hp", "wounds"]
# 40k7 Charge: a charge that reaches flags the charger "charged_into:<target>".
CHARGED_INTO_40K7 = "charged_into:"


@dataclass(frozen=True)
class UnitOutcome:
    changed: bool
    lost: int
    final: int
    destroyed: bool
    glancing: int
    penetrating: int
    results: tuple[str, ...]
    statuses: tuple[str, ...]


def measure_of(unit: Unit) -> Measure:
    return "hp" if unit.hp > 0 or unit.profile.hp > 0 else "wounds"


def amount(unit: Unit, measure: Measure) -> int:
    if unit.destroyed:
        return 0
    if measure == "hp":
        return unit.hp
    return sum(m.wounds for m in unit.models.values() if m.alive)


def _condition(unit: Unit) -> tuple[object, ...]:
    """Everything an attack can change about a unit (not its position or turn flags)."""
    return (
        unit.hp,
        unit.destroyed,
        unit.wreck,
        tuple(sorted(unit.statuses)),
        tuple((m.id, m.wounds, m.alive) for m in unit.models.values()),
        tuple(w.id for w in unit.weapons.values() if w.destroyed),
    )


@dataclass
class _Rolls:
    glancing: int = 0
    penetrating: int = 0
    results: list[str] | None = None


def rolls_by_unit(entries: tuple[LogEntry, ...]) -> dict[str, list[LogRoll]]:
    """The rolls of a play's log, by the unit each line is about: the last unit it names (the
    target in "X fires at Y")."""
    out: dict[str, list[LogRoll]] = {}
    for entry in entries:
        if entry.rolls:
            named = tokens_in(entry.text)
            if named:
                out.setdefault(named[-1], []).extend(entry.rolls)
    return out


def _tally(rolls: list[LogRoll]) -> _Rolls:
    tally = _Rolls()
    for roll in rolls:
        purpose = roll.purpose
        if "penetration" in purpose or purpose == "haywire":
            if roll.outcome.endswith("penetrating"):
                tally.penetrating += 1
            elif roll.outcome.endswith("glancing"):
                tally.glancing += 1
        elif purpose.startswith("vehicle damage") and roll.outcome:
            if tally.results is None:
                tally.results = []
            tally.results.append(roll.outcome.split(": ")[-1])
    return tally


def play_rolls(play: Play) -> dict[str, list[LogRoll]]:
    """``rolls_by_unit`` of the play's log, read once per play."""
    found = play.read.get("rolls")
    if found is None:
        found = play.read["rolls"] = rolls_by_unit(play.entries)
    return cast(dict[str, list[LogRoll]], found)


def observe(play: Play, units: list[str]) -> dict[str, UnitOutcome]:
    """The outcome of ``play`` for each of ``units`` (each worked out once per play)."""
    out: dict[str, UnitOutcome] = {}
    for uid in units:
        known = play.read.get(("unit", uid))
        if known is None:
            known = play.read[("unit", uid)] = _outcome(play, uid, play_rolls(play))
        out[uid] = cast(UnitOutcome, known)
    return out


def _outcome(play: Play, uid: str, rolls: dict[str, list[LogRoll]]) -> UnitOutcome:
    before = play.start.units[uid]
    after = play.end.units.get(uid, before)
    measure = measure_of(before)
    start, final = amount(before, measure), amount(after, measure)
    tally = _tally(rolls.get(uid, []))
    gained = tuple(sorted(s for s in after.statuses if s not in before.statuses))
    return UnitOutcome(
        # Unchanged units are shared between states (structural sharing): identity first.
        changed=after is not before and _condition(before) != _condition(after),
        lost=max(0, start - final),
        final=final,
        destroyed=after.destroyed and not before.destroyed,
        glancing=tally.glancing,
        penetrating=tally.penetrating,
        results=tuple(tally.results or ()),
        statuses=gained,
    )


def affected_units_of(play: Play, named: list[str]) -> list[str]:
    """The units of ``named`` and those whose condition ``play`` changed."""
    out = [t for t in named if t in play.start.units]
    for uid, unit in play.end.units.items():
        before = play.start.units.get(uid)
        if (
            uid not in out
            and before is not None
            and unit is not before
            and _condition(unit) != _condition(before)
        ):
            out.append(uid)
    return out


def affected_units(plays: list[Play], action: Action) -> list[str]:
    """The units whose condition any play changed, and the units the action names."""
    named: list[str] = [t for t in named_units(action) if t in plays[0].start.units] if plays else []
    seen = set(named)
    for p in plays:
        for uid, unit in p.end.units.items():
            if (
                uid not in seen
                and uid in p.start.units
                and _condition(unit) != _condition(p.start.units[uid])
            ):
                seen.add(uid)
                named.append(uid)
    return named


def named_units(action: Action) -> list[str]:
    """The units an action names: the targets; for a move (dangerous terrain, Tank Shock, Ram)
    the moving unit first."""
    fire = getattr(action, "fire", None)
    if fire is not None:
        return list(dict.fromkeys(f.target for f in fire))
    named = [action.unit] if isinstance(action, Move) else []
    target = getattr(action, "target", None)
    return [*named, target] if isinstance(target, str) else named


def charge_reached(state: MatchState, action: Charge) -> bool:
    """Did the charging unit reach its target (per edition, see module doc)?"""
    unit = state.units[action.unit]
    match state.edition:
        case "40k7":
            return any(f.startswith(CHARGED_INTO_40K7) for f in unit.turn_flags)
        case "hh3":
            return F_CHARGE_OK in unit.turn_flags
        case "40k11":
            return CHARGE_DECLARED in unit.turn_flags and CHARGE_FAILED not in unit.turn_flags
        case _:
            assert_never(state.edition)
