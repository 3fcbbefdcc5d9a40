"""The types of the match definition document (docs/match-definition.md): what a person sets
for a match, and why a definition was refused. ``match/definition.py`` reads and checks them;
``match/definition_checks.py`` holds the edition's checks over them."""

from __future__ import annotations

from typing import Any

import msgspec

from ..missions.model import MissionChoice
from .limits import FORMAT_VERSION
from .problems import Problem
from .state import (
    Battlefield,
    Edition,
    HullSize,
    Mount,
    Options,
    Point,
    Profile,
    Side,
    Terrain,
    UnitKind,
    WeaponType,
)


class WeaponState(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A weapon's condition when the match starts mid-game."""

    destroyed: bool = False


class WeaponDef(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A weapon profile. ``model``: the id of the model carrying it (may be left out when the unit
    has a single model)."""

    name: str
    range: float
    id: str = ""
    strength: int
    model: str = ""
    ap: int | None = None
    damage: int = 1
    shots: int = 1
    type: WeaponType = "assault"
    rules: tuple[str, ...] = ()
    mount: Mount = Mount()
    defensive: bool = False
    state: WeaponState | None = None


class ModelState(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A model's condition when the match starts mid-game. ``wounds``: wounds left (default: the
    profile's W)."""

    wounds: int | None = None
    alive: bool = True


class ModelDef(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One model: where it stands and how big it is (a hull for baseless vehicles, else a base).
    hh3 only: ``profile`` gives the model characteristics of its own instead of its unit's, and
    ``kind: "paragon"`` makes it a Paragon in an Infantry unit (one that joined the unit)."""

    pos: Point
    id: str = ""
    heading: float = 0.0
    hull: HullSize | None = None
    base_mm: float | None = None
    bulky: int = 1
    profile: Profile | None = None
    kind: UnitKind | None = None
    state: ModelState | None = None


class UnitState(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A unit's condition when the match starts mid-game. ``hp``: Hull Points left (default: the
    profile's HP); ``statuses``: status -> player-turn index at whose end it expires (0: until
    removed)."""

    hp: int | None = None
    statuses: dict[str, int] = {}
    destroyed: bool = False
    wreck: bool = False
    moved: float = 0.0
    turn_flags: tuple[str, ...] = ()


class UnitDef(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A unit: its side, kind, profile, models, weapons and keywords; ``embarked_in`` starts it
    inside a transport of its side."""

    side: Side
    kind: UnitKind
    id: str = ""
    models: tuple[ModelDef, ...]
    name: str = ""
    profile: Profile = Profile()
    weapons: tuple[WeaponDef, ...] = ()
    keywords: tuple[str, ...] = ()
    faction: str = ""
    squadron: str | None = None
    embarked_in: str | None = None
    state: UnitState | None = None


class ScenarioDef(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Where the match is played and who is on the table. ``first``: the side that plays first."""

    battlefield: Battlefield = Battlefield()
    terrain: tuple[Terrain, ...] = ()
    units: tuple[UnitDef, ...] = ()
    first: Side = "a"


class MatchDefinition(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The match definition document (docs/match-definition.md)."""

    edition: Edition
    scenario: ScenarioDef
    format: int = FORMAT_VERSION
    options: Options = Options()
    mission: MissionChoice | None = None


class SimulationFile(MatchDefinition, frozen=True, forbid_unknown_fields=True):
    """A ``hulldown simulate`` file: a match definition plus the actions to play (docs/simulate.md)."""

    actions: tuple[dict[str, Any], ...] = ()
    dice: tuple[int, ...] | None = None
    seed: str | None = None
    match_id: str | None = None
    stop_on_rejection: bool = False
    states: bool = False  # also print the state after each event (``simulate --states``)


class DefinitionError(msgspec.Struct, frozen=True):
    """Why a definition was refused. ``stage``: ``shape`` (not the document: unknown keys, wrong
    types or values) or ``rules`` (the document is well-formed but the match cannot be played)."""

    stage: str
    problems: tuple[Problem, ...]
