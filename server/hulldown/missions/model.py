"""The mission model: what a mission names before turn 1 and what decides the winner.

Coordinates are inches on the battlefield, ``[x, y]`` pairs on the wire (like a model's ``pos``).
A mission is plain data: the standard ones (missions/catalogue.py) are built for the match's
battlefield size; a custom one is written out in full (docs/missions.md, "Custom missions").
"""

from __future__ import annotations

from typing import Literal

import msgspec

XY = tuple[float, float]

FirstTurn = Literal["deployed_first", "roll_off"]
"""Who takes the first player turn: the side that deployed first (40k7, hh3), or the winner of
a roll-off made once deployment is over (40k11)."""

DeployOrder = Literal["whole_army", "alternate"]
"""``whole_army``: one side deploys every unit, then the other (40k7, hh3); ``alternate``: the
sides deploy one unit each in turn (40k11)."""

GameLength = Literal["fixed", "random_40k7"]
"""``fixed``: ``turns`` battle turns; ``random_40k7``: at the end of turn ``turns`` (5 in the
standard missions) a D6 of 3+ plays one more turn, at the end of that one a 4+ plays another,
the game ends after turn ``turns + 2`` at the latest."""

ObjectiveTiming = Literal["end_of_game", "end_of_own_turn", "never"]
"""When markers score: once at the end of the game for their holder, or at the end of each
player turn for the active player's markers (hh3 Victory sub-phase; 40k11 from ``from_turn``)."""

Secondary = Literal["first_blood", "linebreaker", "last_man_standing", "first_strike", "slay_the_warlord"]
SECONDARIES: tuple[str, ...] = (
    "first_blood",
    "linebreaker",
    "last_man_standing",
    "first_strike",
    "slay_the_warlord",
)


class Zone(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """A deployment zone: a simple polygon (at least 3 corners)."""

    id: str
    points: tuple[XY, ...]


class DeploymentMap(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """Two deployment zones, ``A`` (taken by the side that deploys first) and ``B``."""

    id: str
    name: str
    zones: tuple[Zone, ...]
    rule: str = ""


class ObjectiveMarker(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """A marker at ``pos`` worth ``value`` victory points each time it scores."""

    id: str
    pos: XY
    value: int = 1


class Scoring(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """How victory points are scored.

    ``objectives``: when markers score; ``from_turn``: the first battle turn they do;
    ``max_per_turn``: a cap on marker VP per player turn (0: none); ``window_of_opportunity``:
    hh3 Take and Hold, a marker loses 1 value each time it scores and is removed at 0;
    ``kill_points``: VP per enemy unit destroyed, at the end of the game (40k7 Purge the Alien);
    ``secondaries``: secondary objective -> VP.
    """

    objectives: ObjectiveTiming = "end_of_game"
    from_turn: int = 1
    max_per_turn: int = 0
    window_of_opportunity: bool = False
    kill_points: int = 0
    secondaries: dict[str, int] = {}


class MarkerPlacement(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """Objective markers the players place in turn before deployment (the winner of a roll-off
    first): ``count`` of them (plus a D3 when ``extra_d3``: 40k7 Crusade's D3+2), each worth
    ``value``, at least ``edge_gap`` from every battlefield edge, ``spacing`` from every other
    marker and ``fixed_gap`` from the mission's own markers; never on impassable terrain."""

    count: int
    value: int = 1
    edge_gap: float = 6.0
    spacing: float = 12.0
    fixed_gap: float = 0.0
    extra_d3: bool = False


class Mission(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """One mission: deployment map, markers, first turn, game length and scoring.

    ``enemy_gap``: a model may not be deployed within this many inches of an enemy model
    (hh3 Deployment: 2"); ``marker_clearance``: a model may not be deployed within this many
    inches of a marker's centre (hh3: never on an Objective, a 32 mm marker); ``seize``: the side
    going second may try to Seize the Initiative (a 6); ``reserves``: units may be declared in
    reserve; ``flyers_in_reserve``: a Flyer may not be deployed, it starts in reserve;
    ``warlords``: side -> the id of its Warlord, a unit or one model of a unit (Slay the Warlord);
    ``placement``: markers the players place before deployment; ``zone_choice``: a roll-off
    before deployment whose winner chooses the deployment zone (else the side deploying first
    takes zone A).
    """

    id: str
    name: str
    edition: str
    deployment: DeploymentMap
    objectives: tuple[ObjectiveMarker, ...] = ()
    first_turn: FirstTurn = "deployed_first"
    deploy_order: DeployOrder = "whole_army"
    seize: bool = False
    game_length: GameLength = "fixed"
    turns: int = 5
    enemy_gap: float = 0.0
    marker_clearance: float = 0.0
    reserves: bool = True
    flyers_in_reserve: bool = False
    scoring: Scoring = Scoring()
    rule: str = ""
    custom: bool = False
    warlords: dict[str, str] = {}
    placement: MarkerPlacement | None = None
    zone_choice: bool = False


class MissionChoice(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """The match definition's ``mission``: a standard mission by ``id`` (with the ``deployment``
    map to use, default the mission's own), or a ``custom`` mission written out in full.
    ``warlords``: side -> its Warlord (a unit id, or a model id), for either kind of mission;
    ``place_markers``: a standard mission's markers are placed by the players as its published
    rules say, and the zone chosen by a roll-off where they say so (docs/missions.md)."""

    id: str = ""
    deployment: str = ""
    custom: Mission | None = None
    warlords: dict[str, str] = {}
    place_markers: bool = False
