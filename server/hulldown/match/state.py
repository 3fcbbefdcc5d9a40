"""Match state: immutable msgspec structs with structural sharing.

Every collection a client follows is a map keyed by a stable id (``/units/rhino-1/hp``), never a
positional list that shifts. State is never mutated: the reducer builds a new struct with
``msgspec.structs.replace`` and reuses every unchanged sub-tree, so a diff can skip unchanged
parts by identity.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import msgspec

from .mission_state import MissionState

Side = Literal["a", "b"]
Edition = Literal["40k7", "hh3", "40k11"]
UnitKind = Literal["vehicle", "infantry", "monster", "paragon", "walker"]

WeaponType = Literal[
    "assault", "heavy", "rapid_fire", "ordnance", "salvo", "pistol", "melee", "primary", "none"
]
HullFacing = Literal["front", "rear", "left", "right"]

SIDES: tuple[Side, Side] = ("a", "b")


def other_side(side: Side) -> Side:
    return "b" if side == "a" else "a"


class Point(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True, array_like=True):
    """A battlefield position in inches: ``[x, y]`` on the wire."""

    x: float
    y: float


class HullSize(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """A baseless vehicle's hull: an oriented rectangle (length along the heading)."""

    length: float
    width: float


class Armour(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    front: int
    side: int
    rear: int


class Mount(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """Where a weapon sits on its model and which way it can fire (40k7 Vehicle Weapons and Line of
    Sight; hh3 Vehicles, Fire arcs and weapon mounts)."""

    kind: Literal["hull", "turret", "sponson", "pintle", "coaxial", "centreline", "none"] = "none"
    arc: Literal["front", "rear", "left", "right", "side"] | None = None
    side: Literal["left", "right"] | None = None
    offset: Point = Point(0.0, 0.0)
    swivel: float = 45.0
    linked: str | None = None
    # Barrel length in inches from the mount point to the muzzle (0: the muzzle is at the mount).
    # 40k7 measures weapon ranges from the muzzle; the gun is pointed at the target, so the
    # range is the mount's distance less the barrel.
    barrel: float = 0.0


class Weapon(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """A weapon profile. ``model`` is the id of the model that carries it. ``defensive``: the
    profile designates it a Defensive weapon (hh3; otherwise its Strength and mount decide)."""

    id: str
    name: str
    model: str
    range: float
    strength: int
    ap: int | None = None
    damage: int = 1
    shots: int = 1
    type: WeaponType = "assault"
    rules: tuple[str, ...] = ()
    mount: Mount = Mount()
    destroyed: bool = False
    defensive: bool = False


class Profile(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """Characteristics. Which ones matter depends on the edition and the unit kind.

    ``bs``/``ws`` are characteristics (4 = hits on 3+) in 40k7 and hh3, target numbers (3 = 3+)
    in 40k11. ``sv``/``inv`` are target numbers (3 = 3+).
    """

    m: float = 0.0
    ws: int = 0
    bs: int = 0
    s: int = 0
    t: int = 0
    w: int = 1
    i: int = 0
    a: int = 1
    ld: int = 7
    cool: int = 7
    intelligence: int = 7
    sv: int | None = None
    inv: int | None = None
    armour: Armour | None = None
    hp: int = 0
    capacity: int = 0
    access: tuple[HullFacing, ...] = ()


class Model(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """One model on the table: a vehicle hull or a model on a round base."""

    id: str
    pos: Point
    heading: float = 0.0
    hull: HullSize | None = None
    base_mm: float | None = None
    wounds: int = 1
    bulky: int = 1
    alive: bool = True
    # hh3: the model's own characteristics and type where they differ from its unit's (a Paragon
    # in the Infantry unit it joined): docs/match-definition.md. None: the unit's.
    profile: Profile | None = None
    kind: UnitKind | None = None


class Unit(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """A unit: its fixed profile and its changing condition.

    ``keywords`` holds vehicle types (40k7: tank, fast, skimmer...), sub-types (hh3) and keywords
    (40k11: VEHICLE, MONSTER, INFANTRY, FRAME), lower-cased. ``statuses`` maps a status name to the
    player-turn index at whose end it expires (0: until removed).
    """

    id: str
    side: Side
    name: str
    kind: UnitKind
    profile: Profile
    models: dict[str, Model]
    weapons: dict[str, Weapon] = {}
    keywords: tuple[str, ...] = ()
    faction: str = ""
    squadron: str | None = None
    hp: int = 0
    statuses: dict[str, int] = {}
    embarked_in: str | None = None
    passengers: tuple[str, ...] = ()
    destroyed: bool = False
    wreck: bool = False
    moved: float = 0.0
    turn_flags: tuple[str, ...] = ()

    def has(self, keyword: str) -> bool:
        return keyword in self.keywords

    def flag(self, name: str) -> bool:
        return name in self.turn_flags


class Terrain(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """A terrain piece: a polygon with kinds (difficult, dangerous, impassable, blocks_los, cover)."""

    id: str
    points: tuple[Point, ...]
    kinds: tuple[str, ...] = ()
    cover_save: int | None = None
    level: int = 0
    name: str = ""


class Battlefield(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    width: float = 72.0
    height: float = 48.0


# A ring of points on the battlefield, in inches (not closed: the last point joins the first),
# and a polygon: its exterior ring, then its holes.
Ring: TypeAlias = tuple[Point, ...]
Shape: TypeAlias = tuple[Ring, ...]


class Placement(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """What a placement decision asks (docs/decisions.md): the models of ``unit`` to place, for
    each model the legal area of its base's centre (polygons, each its exterior ring then its
    holes, to be filled even-odd; the base must also not overlap
    another model, which the area cannot show), and the server's proposal: a centre for each model
    it could place (a model the proposal leaves out is a casualty in it). ``limits`` holds the
    distances the rule sets (e.g. ``contact``, ``enemy_gap``), in inches."""

    unit: str
    models: tuple[str, ...]
    area: dict[str, tuple[Shape, ...]] = {}
    proposal: dict[str, Point] = {}
    limits: dict[str, float] = {}


class Aim(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """What an aiming decision asks (docs/decisions.md, 40k7 Weapons, Blast / Template): the
    firer aims ``weapon`` at the target unit ``target`` before the scatter is rolled.

    ``shape``: ``blast`` (a marker: ``area`` is where the hole's centre may go) or ``template``
    (a teardrop whose narrow end is at ``origin``: the answer is a point the template points
    toward; ``area`` holds the wedges, out to the template's length, of the legal directions,
    also given as ``directions``: [from, to] in degrees, counter-clockwise from +x). ``area``:
    polygons, each its exterior ring then its holes, in inches, filled even-odd. ``proposal``:
    the server's aim (the centre of the target's model nearest the firer). ``limits``: the
    numbers the rule sets (``radius``, ``range``; ``length``, ``narrow``, ``wide``), in inches."""

    shape: Literal["blast", "template"]
    weapon: str
    target: str
    origin: Point
    proposal: Point
    area: tuple[Shape, ...] = ()
    directions: tuple[tuple[float, float], ...] = ()
    limits: dict[str, float] = {}


class Decision(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """A pending choice only one player may answer (docs/decisions.md).

    ``proposal``: the option the server proposes (a decision taken in the middle of an action,
    docs/decisions.md; ``auto_decide`` answers with it). ``placement``: what a placement
    decision asks (its options are ``proposal`` and ``place``). ``aim``: what an aiming
    decision asks (its options are ``proposal`` and ``aim``)."""

    id: str
    side: Side
    kind: str
    options: tuple[str, ...]
    prompt: str
    rule: str
    context: dict[str, str] = {}
    proposal: str = ""
    placement: Placement | None = None
    aim: Aim | None = None


class Answer(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """A player's answer to a decision taken in the middle of an action: the option chosen and,
    for a placement, the centre of each model placed; for an aim, the point aimed at
    (docs/decisions.md)."""

    choice: str
    place: dict[str, Point] = {}
    aim: Point | None = None


class Suspended(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """An action paused on a decision in its middle (docs/decisions.md, match/suspend.py).

    The state holding it is the state *before* the action, plus the pending decision: ``action``
    (the action's JSON) by side ``by`` is folded again from it once the decision is answered,
    with ``faces`` (every die it drew so far, in order: the same dice again) and ``answers``
    (the answers given so far, in order). ``before`` is the decision the action answered, if
    it was itself an answer (e.g. a Jink answer whose shooting then destroys a transport)."""

    action: str
    by: Side
    faces: tuple[int, ...] = ()
    answers: tuple[Answer, ...] = ()
    before: Decision | None = None


class LogRoll(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """A die roll as the log shows it: which die of the event, face, purpose, target, outcome."""

    i: int
    value: int
    purpose: str
    target: str = ""
    outcome: str = ""


# A structured value of a log line: a number, a word, a flag, or a list of them.
LogScalar: TypeAlias = str | int | float | bool
LogValue: TypeAlias = LogScalar | list[LogScalar]


class LogEntry(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """One line of the combat log. ``values`` holds every number the rules used for the line
    (the facing used and why, the to-hit target, the hidden share, measured distances ...) so a
    client need not parse ``text``."""

    n: int
    seq: int
    text: str
    rule: str = ""
    rolls: tuple[LogRoll, ...] = ()
    values: dict[str, LogValue] = {}


class Options(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """Match options agreed at creation."""

    wrecks_remain: bool = False
    turn_limit: int = 5
    spectator_delay_events: int = 0
    spectator_delay_seconds: float = 0.0
    private_spectators: bool = False
    # docs/decisions.md: every decision taken in the middle of an action (placing models,
    # ...) is answered at once with the server's proposal instead of waiting for its player.
    auto_decide: bool = False


LOG_WINDOW = 50


class LineStep(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """The latest game action on the line of play: what an undo takes back
    (docs/architecture.md section 9).

    ``parent`` is the seq of the state the action was applied to (an undo restores it);
    ``dice`` counts the dice the action revealed (0: its actor may undo it freely).
    """

    seq: int
    by: Side
    action: str
    dice: int = 0
    parent: int = 0


class UndoMark(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """The latest undo or granted takeback: at ``seq`` the state as of ``to`` was restored, so
    every action after ``to`` on the line before ``seq`` is an undone branch (still in the log)."""

    seq: int
    to: int
    by: Side
    kind: Literal["undo", "takeback"] = "undo"


class MatchState(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """The whole game state of one match at one seq. Contains no secret."""

    match_id: str
    edition: Edition
    seq: int = 0
    turn: int = 1
    player_turn: int = 1
    active: Side = "a"
    phase: str = "movement"
    battlefield: Battlefield = Battlefield()
    terrain: dict[str, Terrain] = {}
    units: dict[str, Unit] = {}
    pending: Decision | None = None
    # The action paused on ``pending`` when it is a decision taken in its middle (match/suspend.py).
    suspended: Suspended | None = None
    log: tuple[LogEntry, ...] = ()
    log_count: int = 0
    options: Options = Options()
    commitment: str = ""
    ended: bool = False
    winner: Side | None = None
    end_reason: str = ""
    takeback: dict[str, str] = {}
    phase_flags: tuple[str, ...] = ()
    # Undo and takebacks (match/history.py): ``line`` is restored by an undo; ``acted`` (seq of
    # each side's latest event) and ``last_undo`` are stream bookkeeping an undo carries over,
    # like ``seq`` and the log. ``seed``: the dice seed, empty until the match end reveals it.
    line: LineStep | None = None
    acted: dict[str, int] = {}
    last_undo: UndoMark | None = None
    seed: str = ""
    # The mission (docs/missions.md): set-up, off-table units, objectives and victory points.
    # ``first``: the side that takes the first player turn of each battle turn.
    mission: MissionState | None = None
    first: Side = "a"
