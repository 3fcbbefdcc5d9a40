"""Each edition's standard missions, built for a battlefield size. Every reading cites its
section; what the published text leaves open is a named constant (docs/rules-notes.md,
"Missions")."""

from __future__ import annotations

from collections.abc import Callable

from msgspec.structs import replace

from .fit import misfits
from .maps import (
    DoesNotFit,
    dawn_of_war,
    hammer_and_anvil,
    search_and_destroy,
    vanguard_strike,
    zone_centre,
)
from .model import DeploymentMap, MarkerPlacement, Mission, MissionChoice, ObjectiveMarker, Scoring

MapBuilder = Callable[[float, float, str], DeploymentMap]

R7 = "40k7 rulebook, Eternal War missions"
RH = "hh3 Age of Darkness, Core Mission Pack"
R11 = "40k11 core rules, Objective Control"

MAPS: dict[str, dict[str, MapBuilder]] = {
    "40k7": {
        "dawn_of_war": dawn_of_war,
        "hammer_and_anvil": hammer_and_anvil,
        "vanguard_strike": vanguard_strike,
    },
    "hh3": {
        "search_and_destroy": search_and_destroy,
        "hammer_and_anvil": hammer_and_anvil,
        "dawn_of_war": dawn_of_war,
    },
    "40k11": {"dawn_of_war": dawn_of_war},
}

# 40k7 Eternal War: markers are set up by the players in turn; the catalogue places them at fixed
# points 12" from the edges and from each other [decided] (a custom mission may place any).
CRUSADE_MARKERS = 4
CRUSADE_VALUE = 3  # 40k7 Crusade: 3 VP per objective controlled at the end of the game
EMPERORS_WILL_VALUE = 3  # 40k7 The Emperor's Will: 3 VP for each of the two objectives
PURGE_KILL_POINTS = 1  # 40k7 Purge the Alien: 1 VP per enemy unit destroyed
# 40k7 Eternal War secondary objectives: First Blood, Linebreaker, Slay the Warlord (1 VP each)
SECONDARY_40K7 = {"first_blood": 1, "linebreaker": 1, "slay_the_warlord": 1}
TURNS_40K7 = 5  # the random game length starts checking at the end of turn 5
TURNS_HH3 = 4  # hh3 Core Mission step 8: four Battle Turns
HH3_MARKER_CLEARANCE = 16.0 / 25.4  # hh3: never deployed on an Objective (a 32 mm marker)
HH3_ENEMY_GAP = 2.0  # hh3 Deployment: never within 2" of an enemy model
TURNS_40K11 = 5  # 40k11: five battle rounds [decided, as the standard mission]
VALUE_40K11 = 5  # 40k11 standard mission: 5 VP per marker controlled [decided]
MAX_PER_TURN_40K11 = 15
FROM_TURN_40K11 = 2


def _crusade_markers(w: float, h: float) -> tuple[ObjectiveMarker, ...]:
    points = ((w / 4, h / 2), (3 * w / 4, h / 2), (w / 2, h / 4), (w / 2, 3 * h / 4))
    return tuple(
        ObjectiveMarker(f"o{i + 1}", p, CRUSADE_VALUE) for i, p in enumerate(points[:CRUSADE_MARKERS])
    )


def _40k7(mission_id: str, name: str, dmap: DeploymentMap, w: float, h: float) -> Mission:
    scoring: Scoring
    markers: tuple[ObjectiveMarker, ...] = ()
    if mission_id == "crusade":
        markers = _crusade_markers(w, h)
        scoring = Scoring(objectives="end_of_game", secondaries=SECONDARY_40K7)
    elif mission_id == "the_emperors_will":
        markers = tuple(
            ObjectiveMarker(f"o{i + 1}", zone_centre(z), EMPERORS_WILL_VALUE)
            for i, z in enumerate(dmap.zones)
        )
        scoring = Scoring(objectives="end_of_game", secondaries=SECONDARY_40K7)
    else:
        scoring = Scoring(objectives="never", kill_points=PURGE_KILL_POINTS, secondaries=SECONDARY_40K7)
    return Mission(
        id=mission_id,
        name=name,
        edition="40k7",
        deployment=dmap,
        objectives=markers,
        first_turn="deployed_first",
        deploy_order="whole_army",
        seize=True,
        game_length="random_40k7",
        turns=TURNS_40K7,
        flyers_in_reserve=True,
        scoring=scoring,
        rule=f"{R7}, {name}",
    )


def _hh3(mission_id: str, name: str, dmap: DeploymentMap, w: float, h: float) -> Mission:
    cx, cy = w / 2, h / 2
    window = False
    markers: tuple[ObjectiveMarker, ...]
    if mission_id == "the_heart_of_battle":
        markers = (
            ObjectiveMarker("o1", (cx, cy), 3),
            ObjectiveMarker("o2", (cx - 12, cy - 6), 1),
            ObjectiveMarker("o3", (cx + 12, cy + 6), 1),
        )
        secondaries = {"last_man_standing": 3, "first_strike": 3, "slay_the_warlord": 3}
    elif mission_id == "the_crucible_of_war":
        markers = tuple(
            ObjectiveMarker(f"o{i + 1}", p, 2)
            for i, p in enumerate(
                ((cx - 12, cy - 8), (cx + 12, cy - 8), (cx - 12, cy + 8), (cx + 12, cy + 8))
            )
        )
        secondaries = {"last_man_standing": 2, "first_strike": 4, "slay_the_warlord": 2}
    else:
        markers = (ObjectiveMarker("o1", (cx - 12, cy), 3), ObjectiveMarker("o2", (cx + 12, cy), 3))
        secondaries = {"last_man_standing": 4, "first_strike": 2, "slay_the_warlord": 2}
        window = True
    return Mission(
        id=mission_id,
        name=name,
        edition="hh3",
        deployment=dmap,
        objectives=markers,
        first_turn="deployed_first",
        deploy_order="whole_army",
        seize=True,
        game_length="fixed",
        turns=TURNS_HH3,
        enemy_gap=HH3_ENEMY_GAP,
        marker_clearance=HH3_MARKER_CLEARANCE,
        scoring=Scoring(objectives="end_of_own_turn", window_of_opportunity=window, secondaries=secondaries),
        rule=f"{RH}, {name}",
    )


def _40k11(mission_id: str, name: str, dmap: DeploymentMap, w: float, h: float) -> Mission:
    points = ((w / 2, 6.0), (w / 2, h - 6.0), (w / 4, h / 2), (w / 2, h / 2), (3 * w / 4, h / 2))
    return Mission(
        id=mission_id,
        name=name,
        edition="40k11",
        deployment=dmap,
        objectives=tuple(ObjectiveMarker(f"o{i + 1}", p, VALUE_40K11) for i, p in enumerate(points)),
        first_turn="roll_off",
        deploy_order="alternate",
        seize=False,
        game_length="fixed",
        turns=TURNS_40K11,
        scoring=Scoring(
            objectives="end_of_own_turn", from_turn=FROM_TURN_40K11, max_per_turn=MAX_PER_TURN_40K11
        ),
        rule=f"{R11}, {name}",
    )


Builder = Callable[[str, str, DeploymentMap, float, float], Mission]

# edition -> mission id -> (name, default deployment map, builder)
MISSIONS: dict[str, dict[str, tuple[str, str, Builder]]] = {
    "40k7": {
        "crusade": ("Crusade", "dawn_of_war", _40k7),
        "purge_the_alien": ("Purge the Alien", "hammer_and_anvil", _40k7),
        "the_emperors_will": ("The Emperor's Will", "vanguard_strike", _40k7),
    },
    "hh3": {
        "the_heart_of_battle": ("The Heart of Battle", "dawn_of_war", _hh3),
        "the_crucible_of_war": ("The Crucible of War", "hammer_and_anvil", _hh3),
        "take_and_hold": ("Take and Hold", "search_and_destroy", _hh3),
    },
    "40k11": {"take_and_hold": ("Take and Hold", "dawn_of_war", _40k11)},
}


def mission(edition: str, mission_id: str, deployment: str, width: float, height: float) -> Mission | str:
    """The standard mission ``mission_id`` on ``deployment`` (default its own map), or why not."""
    known = MISSIONS.get(edition, {})
    if mission_id not in known:
        return f"no {edition} mission {mission_id!r} (known: {', '.join(sorted(known))})"
    name, default_map, build = known[mission_id]
    maps = MAPS[edition]
    map_id = deployment or default_map
    if map_id not in maps:
        return f"no {edition} deployment map {map_id!r} (known: {', '.join(sorted(maps))})"
    size = f"a {width:g} x {height:g} in battlefield"
    try:
        dmap = maps[map_id](width, height, "")
    except DoesNotFit as exc:
        return f"the {edition} deployment map {map_id!r} does not fit {size}: {exc}"
    section = R7 if edition == "40k7" else RH if edition == "hh3" else R11
    dmap = replace(dmap, rule=f"{section}, {dmap.name}")
    built = build(mission_id, name, dmap, width, height)
    problems = misfits(built, width, height)
    if problems:
        where, what = problems[0]
        return f"the {edition} mission {mission_id!r} on {map_id!r} does not fit {size} ({where}: {what})"
    return built


def resolve(choice: MissionChoice, edition: str, width: float, height: float) -> Mission | str:
    """The mission a match definition names: a custom one as written, else a standard one."""
    found = (
        choice.custom
        if choice.custom is not None
        else mission(edition, choice.id, choice.deployment, width, height)
    )
    if isinstance(found, str):
        return found
    if choice.place_markers and choice.custom is None:
        found = published_placement(found)
    if not choice.warlords:
        return found
    return replace(found, warlords={**found.warlords, **choice.warlords})


# The markers and zones of a standard mission as its published rules place them (the catalogue's
# fixed points are the default: docs/missions.md).
# 40k7 rulebook, Preparing for Battle, Placing Objective Markers: in turn after a roll-off, not
# within 6" of an edge or 12" of another marker; Crusade places D3+2 of them. Eternal War,
# The Battlefield: a roll-off whose winner chooses the table half.
PLACEMENT_40K7_EDGE = 6.0
PLACEMENT_40K7_SPACING = 12.0
CRUSADE_PLACED = MarkerPlacement(
    count=2, value=3, edge_gap=PLACEMENT_40K7_EDGE, spacing=PLACEMENT_40K7_SPACING, extra_d3=True
)
# hh3 Core Missions: The Heart of Battle, two 1 VP markers 6" from the edges and each other and
# 12" from the centre one; The Crucible of War, four 2 VP 12" from the edges and each other;
# Take and Hold, two 3 VP 12" from the edges and 18" apart.
HH3_PLACED = {
    "the_heart_of_battle": MarkerPlacement(count=2, value=1, edge_gap=6.0, spacing=6.0, fixed_gap=12.0),
    "the_crucible_of_war": MarkerPlacement(count=4, value=2, edge_gap=12.0, spacing=12.0),
    "take_and_hold": MarkerPlacement(count=2, value=3, edge_gap=12.0, spacing=18.0),
}


def published_placement(found: Mission) -> Mission:
    """``found`` with its markers placed by the players and its zone chosen where the edition's
    published mission says so (40k7 Eternal War; hh3 Core Missions); 40k11 unchanged."""
    if found.edition == "40k7":
        if found.id == "crusade":
            return replace(found, objectives=(), placement=CRUSADE_PLACED, zone_choice=True)
        return replace(found, zone_choice=True)
    if found.edition == "hh3" and found.id in HH3_PLACED:
        centre = tuple(m for m in found.objectives if found.id == "the_heart_of_battle" and m.value == 3)
        return replace(found, objectives=centre, placement=HH3_PLACED[found.id])
    return found


def catalogue(edition: str, width: float, height: float) -> list[Mission]:
    """Every standard mission of ``edition`` on each of the edition's deployment maps that fits
    a ``width`` x ``height`` battlefield (a small table leaves some out)."""
    out: list[Mission] = []
    for mission_id in MISSIONS.get(edition, {}):
        for map_id in MAPS[edition]:
            found = mission(edition, mission_id, map_id, width, height)
            if isinstance(found, Mission):
                out.append(found)
    return out
