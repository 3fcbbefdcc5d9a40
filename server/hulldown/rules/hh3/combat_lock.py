"""Locked in combat (hh3 Vehicles, Combat): what movement, shooting, assault, transports and Battlesmith
all ask of a unit before it acts."""

from __future__ import annotations

from ...match.state import MatchState, Unit
from . import geom
from .core import CONTACT, is_vehicle, units_on_table


def locked(state: MatchState, unit: Unit) -> bool:
    """Locked in combat: in base contact with an enemy model that is not a vehicle (vehicles never
    lock nor are locked, hh3 Vehicles, Combat)."""
    if is_vehicle(unit):
        return False
    return any(
        geom.unit_distance(unit, other) <= CONTACT
        for other in units_on_table(state)
        if other.side != unit.side and not is_vehicle(other)
    )
