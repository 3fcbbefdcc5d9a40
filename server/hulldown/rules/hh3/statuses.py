"""Tactical statuses: what each forbids, gaining them, Cool checks and Repair Tests.

# hh3 Vehicles, Statuses [seed + ext]: a vehicle can gain every status except Routed; it loses them only by a
# Repair Test (or Battlesmith, not modelled). Any status: charges are Disordered, no Stationary
# benefit, cannot hold objectives. Pinned: no move, Rush or charge. Suppressed: all shooting is
# Snap Shots. Stunned: no reactions.
#
# [decided] Statuses in hh3 are not timed: they are stored with expiry 0 (until removed), so the
# shared end-of-turn expiry never drops them. Vehicles lose them by Repair Tests; other units by a
# Cool check in the Statuses sub-phase (see endphase.py).
"""

from __future__ import annotations

from typing import Literal

from msgspec.structs import replace

from ...match.context import ApplyContext
from ...match.state import Unit
from .core import REPAIR_TARGET, is_vehicle, lent_characteristic, rule_value

Status = Literal["pinned", "suppressed", "stunned", "routed"]
PINNED: Status = "pinned"
SUPPRESSED: Status = "suppressed"
STUNNED: Status = "stunned"
ROUTED: Status = "routed"
# [decided] expiry 0 = until removed (hh3 statuses are never timed).
UNTIL_REMOVED = 0

# hh3 Vehicles, Vehicle damage table [ext]: the vehicle damage table, one D6 per glancing hit.
DAMAGE_TABLE: dict[int, Status] = {1: STUNNED, 2: STUNNED, 3: PINNED, 4: PINNED, 5: SUPPRESSED, 6: SUPPRESSED}


def can_gain(unit: Unit, status: str) -> bool:
    """hh3 Vehicles, Statuses: a vehicle can gain every status except Routed (it has no Cool)."""
    return not (is_vehicle(unit) and status == ROUTED)


def gain(unit: Unit, status: str) -> Unit:
    """The unit with the status added (unchanged if it already has it or cannot gain it)."""
    if status in unit.statuses or not can_gain(unit, status):
        return unit
    return replace(unit, statuses={**unit.statuses, status: UNTIL_REMOVED})


def remove(unit: Unit, status: str) -> Unit:
    if status not in unit.statuses:
        return unit
    return replace(unit, statuses={k: v for k, v in unit.statuses.items() if k != status})


def is_pinned(unit: Unit) -> bool:
    """Pinned: the unit cannot move, Rush or charge (hh3 Vehicles, Statuses)."""
    return PINNED in unit.statuses


def must_snap(unit: Unit) -> bool:
    """Suppressed: all of the unit's shooting is Snap Shots (hh3 Vehicles, Statuses)."""
    return SUPPRESSED in unit.statuses


def can_react(unit: Unit) -> bool:
    """Stunned: the unit makes no reactions; its Volley Attacks when charged are the only
    reaction modelled here (hh3 Vehicles, Statuses and Combat)."""
    return STUNNED not in unit.statuses


def stationary_benefit(unit: Unit, moved: bool) -> bool:
    """hh3 Vehicles, Statuses: a unit with any status gets no Stationary benefit."""
    return not moved and not unit.statuses


def repair_target(unit: Unit) -> int:
    """hh3 Vehicles, Repair Test: a 6, or X for Auto-repair (X) (hh3 Armoury, Auto-repair)."""
    auto = rule_value(unit.keywords, "auto_repair")
    return min(REPAIR_TARGET, auto) if auto is not None else REPAIR_TARGET


# hh3 Vehicles, Repair Test ("some special rules add dice"): the unit keyword ``repair_dice:X``
# stands for any such rule and adds X dice to the test [decided: the keyword's name]; the test is
# passed when any die scores the target, and a passed test still removes one status, however many
# dice succeed (the seed: "on a 6, remove one status") [decided].
REPAIR_DICE_KEYWORD = "repair_dice"


def repair_dice(unit: Unit) -> int:
    """hh3 Vehicles, Repair Test: one die, plus the dice that special rules add (``repair_dice:X``)."""
    return 1 + (rule_value(unit.keywords, REPAIR_DICE_KEYWORD) or 0)


def _check_2d6(ctx: ApplyContext, purpose: str, need: int) -> bool:
    """The 2D6 of hh3 core, Cool Checks and Leadership Checks: passed when the total is equal to
    or less than ``need``; the second die carries the total and the verdict."""
    first = ctx.roll(purpose, f"2D6 <= {need}")
    second = ctx.roll(purpose, f"2D6 <= {need}")
    total = first + second
    passed = total <= need
    ctx.set_outcome(f"{total}: {'passed' if passed else 'failed'}")
    return passed


def cool_check(unit: Unit, ctx: ApplyContext, why: str) -> bool:
    """hh3 core, Cool Checks: 2D6, passed when the total is equal to or less than Cool."""
    cool = lent_characteristic(unit, "cool")  # a Paragon lends its Cool (seed glossary)
    return _check_2d6(ctx, f"Cool check ({why})", cool)


def leadership_check(unit: Unit, ctx: ApplyContext, purpose: str, modifier: int = 0) -> tuple[bool, int]:
    """hh3 core, Leadership Checks: 2D6, passed when the total is equal to or less than
    Leadership plus ``modifier`` (a Paragon lends its Leadership: seed glossary). Returns whether
    it passed and the Leadership tested on (before the modifier)."""
    ld = lent_characteristic(unit, "ld")
    return _check_2d6(ctx, purpose, ld + modifier), ld
