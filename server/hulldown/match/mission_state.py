"""A match's mission as the state carries it (docs/missions.md): the set-up step, which units are
not on the table, the victory points and who holds each objective marker, and why."""

from __future__ import annotations

from typing import Literal

import msgspec

from ..missions.model import Mission

SetupStep = Literal[
    "roll_off",
    "markers",
    "zone_choice",
    "deploy_order",
    "deploy",
    "infiltrate_order",
    "infiltrate",
    "scout_order",
    "scout",
    "seize",
    "battle",
]
OffTable = Literal["undeployed", "reserve", "arriving"]


class MarkerControl(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """Who holds a marker now (``None``: nobody) and why, in words; ``value``: what it scores."""

    holder: Literal["a", "b"] | None = None
    why: str = ""
    value: int = 0


class MissionState(msgspec.Struct, gc=False, frozen=True, forbid_unknown_fields=True):
    """``step``: the set-up step (``battle`` once turn 1 has begun); ``zones``: side -> zone id;
    ``deploying``: the side placing units; ``deployed_first``: the side that deployed first;
    ``off_table``: unit id -> ``undeployed`` or ``reserve``; ``vp``: side -> victory points;
    ``control``: marker id -> who holds it; ``values``: marker id -> its current value (hh3
    Window of Opportunity lowers it); ``destroyed_by``: side -> enemy units it destroyed;
    ``first_blood``: the side(s) that scored First Blood; ``slew_warlord``: the side(s) that
    scored Slay the Warlord; ``last_turn``: the last battle turn
    (the 40k7 random game length extends it); ``over``: the game length has run out.
    Infiltrate, Scout and Outflank (match/setup_special.py): ``scouts_left``: Scout units still to
    redeploy or stay; ``scouting``: the Scout unit redeploying now; ``outflanking``: 40k7 units in
    reserve declared outflanking; ``arrival_edges``: unit -> the table edges it arrives from
    (``south``, ``north``, ``west``, ``east``); ``no_charge``: unit -> the last player turn in
    which it may not charge; ``markers_left``: objective markers still to be placed (the side
    ``deploying`` places the next)."""

    mission: Mission
    step: SetupStep = "roll_off"
    zones: dict[str, str] = {}
    deploying: Literal["a", "b"] | None = None
    deployed_first: Literal["a", "b"] | None = None
    off_table: dict[str, OffTable] = {}
    vp: dict[str, int] = msgspec.field(default_factory=lambda: {"a": 0, "b": 0})
    control: dict[str, MarkerControl] = {}
    values: dict[str, int] = {}
    destroyed_by: dict[str, int] = msgspec.field(default_factory=lambda: {"a": 0, "b": 0})
    first_blood: tuple[str, ...] = ()
    first_strike: tuple[str, ...] = ()
    slew_warlord: tuple[str, ...] = ()
    scouts_left: tuple[str, ...] = ()
    scouting: str | None = None
    outflanking: tuple[str, ...] = ()
    arrival_edges: dict[str, tuple[str, ...]] = {}
    no_charge: dict[str, int] = {}
    markers_left: int = 0
    last_turn: int = 0
    over: bool = False
