"""Player actions: the client -> server vocabulary of play, shared by every edition.

Each action is a frozen msgspec struct with an explicit, stable tag. An edition implements the
subset of actions its rules know and rejects the others with ``unsupported_action``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from .state import Point

MoveKind = Literal[
    "normal",  # every edition's ordinary move
    "advance",  # 40k11 Advance move
    "rush",  # hh3 Rush (Fast/Rapid vehicles only)
    "flat_out",  # 40k7 Flat Out, made in the Shooting phase instead of firing
    "fall_back",  # 40k11 Fall Back
    "run",  # 40k7 infantry Run, made in the Shooting phase
    "tank_shock",  # 40k7 Tank Shock
    "ram",  # 40k7 Ram
    "charge",  # 40k11 charge move, after a successful Charge roll
    "battlesmith",  # hh3 Battlesmith (X): moves nothing; ``target`` is the vehicle to mend
]


class Move(
    msgspec.Struct,
    gc=False,
    frozen=True,
    tag="move",
    tag_field="type",
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    """Move a unit along waypoints. Every model is moved by the same displacement as the unit's
    first model, whose centre follows ``path`` (waypoints after its start position);
    ``heading`` is the final heading of vehicle hulls (degrees, counter-clockwise, 0 = +x).
    ``positions`` may instead give each model's end position explicitly (model id -> point).
    """

    unit: str
    path: tuple[Point, ...] = ()
    heading: float | None = None
    kind: MoveKind = "normal"
    positions: dict[str, Point] = {}
    target: str | None = None
    advance_roll: int | None = None
    # 40k7 Flyers with Hover: the flight mode declared with the unit's first move of its Movement
    # phase ("zoom" or "hover"); with no path and no positions the move only declares it.
    flight: Literal["zoom", "hover"] | None = None


class Pivot(msgspec.Struct, gc=False, frozen=True, tag="pivot", tag_field="type", forbid_unknown_fields=True):
    """Pivot a vehicle about the centre of its hull without moving it."""

    unit: str
    heading: float


class Fire(msgspec.Struct, gc=False, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """One weapon firing at one target unit; ``snap`` asks for Snap Shots. ``target_model``: the
    model of the target unit its hits go to (hh3: a Paragon allocates the hits it inflicts).
    ``aim``: 40k7 Blast / Template, the point aimed at, given in advance instead of answering the
    aiming decision (docs/decisions.md): every marker of the weapon is placed with its hole there,
    or the template points toward it."""

    weapon: str
    target: str
    snap: bool = False
    target_model: str | None = None
    aim: Point | None = None


class Shoot(
    msgspec.Struct,
    gc=False,
    frozen=True,
    tag="shoot",
    tag_field="type",
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    """Fire a unit's weapons. 40k7 requires a single target; hh3 allows split fire."""

    unit: str
    fire: tuple[Fire, ...]
    nonce: str = ""


class Charge(
    msgspec.Struct,
    gc=False,
    frozen=True,
    tag="charge",
    tag_field="type",
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    unit: str
    target: str
    nonce: str = ""


class Fight(
    msgspec.Struct,
    gc=False,
    frozen=True,
    tag="fight",
    tag_field="type",
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    """Make close combat attacks against a unit in base contact / engagement range."""

    unit: str
    target: str
    weapon: str | None = None
    nonce: str = ""
    target_model: str | None = None  # hh3: a Paragon allocates the hits it inflicts
    smash: bool = False  # 40k7 Smash: one Smash Attack per model instead of its attacks


class Challenge(
    msgspec.Struct,
    gc=False,
    frozen=True,
    tag="challenge",
    tag_field="type",
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    """hh3 Challenge Sub-Phase: the Paragon model ``model`` of ``unit`` challenges the enemy unit
    ``target`` it is locked in combat with; the target's owner accepts with one of its Paragon
    models or declines (decision ``accept_challenge``, docs/decisions.md)."""

    unit: str
    model: str
    target: str
    nonce: str = ""


class Embark(
    msgspec.Struct, gc=False, frozen=True, tag="embark", tag_field="type", forbid_unknown_fields=True
):
    unit: str
    transport: str


class Disembark(
    msgspec.Struct, gc=False, frozen=True, tag="disembark", tag_field="type", forbid_unknown_fields=True
):
    """Place an embarked unit's models (model id -> position) next to its transport."""

    unit: str
    positions: dict[str, Point]


class Abandon(
    msgspec.Struct, gc=False, frozen=True, tag="abandon", tag_field="type", forbid_unknown_fields=True
):
    """40k7 squadrons: leave an Immobilised member behind as a unit of its own."""

    unit: str
    model: str


class Join(msgspec.Struct, gc=False, frozen=True, tag="join", tag_field="type", forbid_unknown_fields=True):
    """hh3: the Paragon unit ``unit`` joins the friendly Infantry unit ``target``: its model becomes a
    Paragon model of that unit, with its own profile (docs/rules-notes.md, hh3 Paragon)."""

    unit: str
    target: str


class Leave(msgspec.Struct, gc=False, frozen=True, tag="leave", tag_field="type", forbid_unknown_fields=True):
    """hh3: the Paragon model ``model`` leaves the unit ``unit`` it joined and becomes a Paragon unit
    of its own, whose id is the model's id (docs/rules-notes.md, hh3 Paragon)."""

    unit: str
    model: str


class Manifest(
    msgspec.Struct,
    frozen=True,
    tag="manifest",
    tag_field="type",
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    """40k7 Psychic phase: ``unit`` (a Psyker) tries to manifest the psychic power ``power`` at
    ``target``, expending ``dice`` Warp Charge points from its side's pool for the Psychic test;
    ``snap`` asks for Snap Shots with a witchfire power (docs/psychic.md)."""

    unit: str
    power: str
    target: str
    dice: int
    snap: bool = False
    nonce: str = ""


class EndPhase(
    msgspec.Struct,
    gc=False,
    frozen=True,
    tag="end_phase",
    tag_field="type",
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    """Finish the current phase (the last phase also ends the player turn)."""

    nonce: str = ""


class Decide(
    msgspec.Struct,
    gc=False,
    frozen=True,
    tag="decide",
    tag_field="type",
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    """Answer the pending decision ``decision`` with one of its options. ``place``: for a
    placement decision answered ``place``, the centre of each model placed; ``aim``: for an
    aiming decision answered ``aim``, the point aimed at (docs/decisions.md)."""

    decision: str
    choice: str
    nonce: str = ""
    place: dict[str, Point] = {}
    aim: Point | None = None


class Undo(msgspec.Struct, gc=False, frozen=True, tag="undo", tag_field="type", forbid_unknown_fields=True):
    """Take back your own last action (free only while it revealed no dice and the opponent has
    not acted since)."""


class TakebackRequest(
    msgspec.Struct,
    gc=False,
    frozen=True,
    tag="takeback_request",
    tag_field="type",
    forbid_unknown_fields=True,
):
    """Ask the opponent to let the match go back to the state as of ``to_seq``."""

    to_seq: int


class TakebackAnswer(
    msgspec.Struct, gc=False, frozen=True, tag="takeback_answer", tag_field="type", forbid_unknown_fields=True
):
    grant: bool


class Concede(
    msgspec.Struct, gc=False, frozen=True, tag="concede", tag_field="type", forbid_unknown_fields=True
):
    pass


class RollOff(
    msgspec.Struct, gc=False, frozen=True, tag="roll_off", tag_field="type", forbid_unknown_fields=True
):
    """Set-up (docs/missions.md): roll off for deployment; the server rolls both dice."""


class PlaceMarker(
    msgspec.Struct, frozen=True, tag="place_marker", tag_field="type", forbid_unknown_fields=True
):
    """Set-up (docs/missions.md): the side placing objective markers puts one at ``at``."""

    at: Point


class Deploy(
    msgspec.Struct,
    gc=False,
    frozen=True,
    tag="deploy",
    tag_field="type",
    forbid_unknown_fields=True,
    omit_defaults=True,
):
    """Set-up: place every model of ``unit`` (model id -> position) in the deploying side's zone;
    ``heading``: the heading of its vehicle hulls. Embarked units come with their transport."""

    unit: str
    positions: dict[str, Point]
    heading: float | None = None


class Reserve(
    msgspec.Struct, gc=False, frozen=True, tag="reserve", tag_field="type", forbid_unknown_fields=True
):
    """Set-up: declare ``unit`` (and whatever it carries) in reserve."""

    unit: str


class DeepStrike(
    msgspec.Struct, gc=False, frozen=True, tag="deep_strike", tag_field="type", forbid_unknown_fields=True
):
    """40k7 Deep Strike: a unit arriving from reserve aims its first model at ``at``; it scatters
    and the others are placed beside it (docs/missions.md)."""

    unit: str
    at: Point


PlayAction = (
    RollOff
    | PlaceMarker
    | Deploy
    | Reserve
    | DeepStrike
    | Move
    | Pivot
    | Shoot
    | Charge
    | Fight
    | Challenge
    | Embark
    | Disembark
    | Abandon
    | Join
    | Leave
    | Manifest
    | EndPhase
    | Decide
)
"""The actions an edition's dispatch table handles (match/dispatch.py)."""

SharedAction = Undo | TakebackRequest | TakebackAnswer | Concede
"""The actions every edition shares, handled before any edition is asked (match/history.py)."""

Action = PlayAction | SharedAction

PLAY_ACTION_KINDS: tuple[type[PlayAction], ...] = (
    RollOff,
    PlaceMarker,
    Deploy,
    Reserve,
    DeepStrike,
    Move,
    Pivot,
    Shoot,
    Charge,
    Fight,
    Challenge,
    Embark,
    Disembark,
    Abandon,
    Join,
    Leave,
    Manifest,
    EndPhase,
    Decide,
)
