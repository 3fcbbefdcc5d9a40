"""Hits: what an attack delivers to a target unit, before armour penetration or wound rolls.

Shooting, close combat, Death or Glory, Ram, explosions and Crash and Burn all produce
:class:`Hit` values; ``resolve.resolve_hits`` applies them to a vehicle (single or squadron) or to
a unit of models.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .. import geometry as g
from .penetration import PenProfile

AttackKind = Literal["shooting", "close_combat", "death_or_glory", "ram", "explosion", "tank_shock"]
ArmourFacing = Literal["front", "side", "rear"]


@dataclass(frozen=True)
class Hit:
    """One hit. ``origin`` is where it comes from (the firing model, the weapon's mount, the
    centre of an explosion): it decides the facing hit (40k7 Vehicle Facing and Armour Values)
    and cover. ``group`` identifies the firer for cover (a vehicle's weapons each form their own
    group, 40k7 Vehicle Weapons and Line of Sight); ``facing`` forces a facing (close combat:
    rear; Ram; Death or Glory: front).
    """

    pen: PenProfile
    ap: int | None
    origin: g.Point
    source: str
    group: str = ""
    facing: ArmourFacing | None = None
    cover_allowed: bool = True
    cover_override: int | None = None  # a cover save fixed by the caller (e.g. a blast marker)
    rules: tuple[str, ...] = ()

    @property
    def strength(self) -> int:
        return self.pen.strength


@dataclass
class Tally:
    """What an attack did: for assault results (40k7 Vehicles and Close Combat) and Morale checks."""

    glancing: int = 0
    penetrating: int = 0
    unsaved_wounds: int = 0
    casualties: int = 0
    destroyed: list[str] = field(default_factory=list)
    stopped: bool = False  # Death or Glory / Ram: the vehicle was stopped
    pinning: bool = False  # an unsaved wound from a Pinning weapon: the unit tests (40k7 Pinning)

    @property
    def combat_wounds(self) -> int:
        """40k7 Vehicles and Close Combat: glancing = 1 Wound, penetrating = 2 Wounds."""
        return self.unsaved_wounds + self.glancing + 2 * self.penetrating
