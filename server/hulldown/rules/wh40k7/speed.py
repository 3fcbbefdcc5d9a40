"""How fast a vehicle moved and how many weapons it may fire at full BS (40k7 Vehicles, Movement;
Vehicles and Shooting; the vehicle types).

- Stationary: all weapons. Combat Speed (up to 6"): one weapon at full BS, the others Snap Shots.
  Cruising Speed (more than 6"): Snap Shots only.
- Fast: Combat Speed all weapons, Cruising Speed two. Zooming Flyer: four weapons at full BS
  (Combat Speed up to 18", Cruising Speed up to 36"). Heavy, Super-heavy and Walkers count as
  Stationary.
- Crew Shaken, Crew Stunned, Jinked (snap_only), Pinned, Falling Back, a Ram this turn: Snap
  Shots only.
"""

from __future__ import annotations

import math
from typing import Literal

from ...match.state import Unit
from .types import counts_stationary_for_shooting, is_fast, is_super_heavy, is_vehicle, is_zooming

Speed = Literal["stationary", "combat", "cruising"]

COMBAT_SPEED = 6.0  # 40k7 Vehicles: up to 6" is Combat Speed
CRUISING_SPEED = 12.0  # more than 6" and up to 12" is Cruising Speed
FLYER_COMBAT_SPEED = 18.0  # 40k7 Flyers: Zoom, Combat Speed 18"
FLYER_CRUISING_SPEED = 36.0  # Cruising Speed up to 36"
FLYER_MIN_MOVE = 18.0  # a Zooming Flyer never voluntarily moves less than 18"
FLYER_FULL_BS = 4
FAST_CRUISING_FULL_BS = 2
SNAP_ONLY_STATUSES = ("shaken", "stunned", "snap_only", "pinned", "falling_back")
# The turn flag of a unit that arrived by Deep Strike this turn (match/arrivals.py).
DEEP_STRUCK = "deep_struck"


def speed_of(unit: Unit) -> Speed:
    """The speed the unit moved at this turn (pivots do not count as moving). 40k7 Deep Strike:
    a vehicle that arrived so this turn counts as having moved at Combat Speed (Walkers, which
    count as Stationary for shooting, are exempt there: ``shooting_speed``)."""
    if unit.moved <= 1e-9:
        return "combat" if unit.flag(DEEP_STRUCK) and is_vehicle(unit) else "stationary"
    limit = FLYER_COMBAT_SPEED if is_zooming(unit) else COMBAT_SPEED
    return "combat" if unit.moved <= limit + 1e-9 else "cruising"


def shooting_speed(unit: Unit) -> Speed:
    """The speed that counts for shooting (Heavy, Super-heavy and Walkers count as Stationary)."""
    if counts_stationary_for_shooting(unit):
        return "stationary"
    return speed_of(unit)


def snap_only(unit: Unit) -> str | None:
    """Why every shot of the unit must be a Snap Shot, or None."""
    for status in SNAP_ONLY_STATUSES:
        if status in unit.statuses and not (is_super_heavy(unit) and status in ("shaken", "stunned")):
            return status
    if unit.flag("rammed"):
        return "rammed"
    return None


def full_bs_allowance(unit: Unit) -> float:
    """How many weapons may fire at full BS (math.inf = all)."""
    if snap_only(unit) is not None:
        return 0
    if not is_vehicle(unit) or is_super_heavy(unit):
        return math.inf
    if is_zooming(unit):
        return FLYER_FULL_BS
    speed = shooting_speed(unit)
    if speed == "stationary":
        return math.inf
    if speed == "combat":
        return math.inf if is_fast(unit) else 1
    return FAST_CRUISING_FULL_BS if is_fast(unit) else 0
