"""A hit to resolve (hh3 Shooting, Assault, Explodes (X), driving through units): what shooting,
assault, movement and vehicle destruction hand to ``damage.resolve_hits``."""

from __future__ import annotations

from dataclasses import dataclass

from .. import geometry as g


@dataclass(frozen=True, slots=True)
class Hit:
    """One hit to resolve. ``source`` is where it comes from (facing, allocation, cover);
    ``facing`` fixes the armour facing hit on a vehicle (None: work it out from ``source``)."""

    strength: int
    ap: int | None
    damage: int
    label: str
    source: g.Point
    rules: tuple[str, ...] = ()
    facing: g.ArmourFacing | None = None
    shooting: bool = True
    melee: bool = False
    aim: str | None = None  # the model the attacker allocates this hit to (a Paragon's hits)
