"""The types a match starts from: a :class:`Scenario` (units with profiles, positions, facings,
terrain) and the body of ``POST /matches``. ``match/scenario.py`` checks them and makes the first
event; ``match/definition.py`` reads them from a match definition."""

from __future__ import annotations

import msgspec

from ..missions.model import Mission
from .state import Battlefield, Edition, Options, Side, Terrain, Unit


class Scenario(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    battlefield: Battlefield = Battlefield()
    terrain: tuple[Terrain, ...] = ()
    units: tuple[Unit, ...] = ()
    first: Side = "a"


class CreateMatch(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The body of ``POST /matches``."""

    edition: Edition
    scenario: Scenario
    options: Options = Options()
    mission: Mission | None = None
