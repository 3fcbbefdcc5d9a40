"""The checks of a match definition's ``mission`` (docs/missions.md): a known standard mission
and map, or a custom mission whose zones and markers fit the battlefield."""

from __future__ import annotations

from collections.abc import Sequence

from .catalogue import MAPS, MISSIONS, resolve
from .fit import misfits
from .model import SECONDARIES, Mission, MissionChoice
from .placement_room import XY, is_placed_marker, markers_to_place, room_for

MAX_MARKERS = 20
MAX_TURNS = 20


def mission_problems(
    choice: MissionChoice,
    edition: str,
    width: float,
    height: float,
    impassable: Sequence[Sequence[XY]] = (),
) -> list[tuple[str, str, tuple[str, ...]]]:
    """(path, message, allowed values) for each problem of ``choice``; empty when it is playable.
    ``impassable``: the corners of each impassable terrain piece (no marker is placed on one)."""
    found = _choice_problems(choice, edition, width, height)
    if found:
        return found
    mission = resolve(choice, edition, width, height)
    if not isinstance(mission, Mission):
        return [("mission", mission, ())]  # a standard mission that does not fit the battlefield
    if mission.placement is None:
        return []
    p = mission.placement
    wanted = markers_to_place(p)
    fits = room_for(width, height, p, (m.pos for m in mission.objectives), impassable)
    if fits >= wanted:
        return []
    path = "mission.custom.placement" if choice.custom is not None else "mission.place_markers"
    most = f"{wanted} (D3 + {p.count} at most)" if p.extra_d3 else str(wanted)
    return [
        (
            path,
            f"the players could not place all the objective markers: there is room for {fits} of "
            f'{most} on the {width:g} x {height:g} battlefield at least {p.edge_gap:g}" from the '
            f'edges, {p.spacing:g}" apart'
            + (f", {p.fixed_gap:g}\" from the mission's markers" if p.fixed_gap > p.spacing else "")
            + " and off impassable terrain",
            (),
        )
    ]


def _choice_problems(
    choice: MissionChoice, edition: str, width: float, height: float
) -> list[tuple[str, str, tuple[str, ...]]]:
    if choice.custom is None:
        if not choice.id:
            return [
                (
                    "mission.id",
                    "name a standard mission, or give a custom one",
                    tuple(MISSIONS.get(edition, {})),
                )
            ]
        if choice.id not in MISSIONS.get(edition, {}):
            return [("mission.id", f"no {edition} mission {choice.id!r}", tuple(MISSIONS.get(edition, {})))]
        if choice.deployment and choice.deployment not in MAPS[edition]:
            return [
                (
                    "mission.deployment",
                    f"no {edition} deployment map {choice.deployment!r}",
                    tuple(MAPS[edition]),
                )
            ]
        return []
    if choice.id or choice.deployment:
        return [("mission", "give either a standard mission (id, deployment) or a custom one, not both", ())]
    return list(_custom(choice.custom, edition, width, height))


def _custom(m: Mission, edition: str, width: float, height: float) -> list[tuple[str, str, tuple[str, ...]]]:
    out: list[tuple[str, str, tuple[str, ...]]] = []
    base = "mission.custom"
    if m.edition != edition:
        out.append(
            (f"{base}.edition", f"the mission is for {m.edition!r}, the match is {edition!r}", (edition,))
        )
    ids = [z.id for z in m.deployment.zones]
    if sorted(ids) != ["A", "B"]:
        out.append((f"{base}.deployment.zones", "a deployment map has exactly the zones A and B", ("A", "B")))
    out.extend((f"{base}.{path}", message, ()) for path, message in misfits(m, width, height))
    if len(m.objectives) > MAX_MARKERS:
        out.append((f"{base}.objectives", f"at most {MAX_MARKERS} markers", ()))
    seen: set[str] = set()
    for i, marker in enumerate(m.objectives):
        path = f"{base}.objectives[{i}]"
        if marker.id in seen:
            out.append((f"{path}.id", f"marker id {marker.id!r} is used twice", ()))
        elif m.placement is not None and is_placed_marker(marker.id):
            out.append(
                (
                    f"{path}.id",
                    f"marker id {marker.id!r}: the ids m1, m2... are the markers the players place",
                    (),
                )
            )
        seen.add(marker.id)
        if marker.value < 0:
            out.append((f"{path}.value", "a marker's value is 0 or more", ()))
    if not 1 <= m.turns <= MAX_TURNS:
        out.append((f"{base}.turns", f"1 to {MAX_TURNS} battle turns", ()))
    if m.scoring.kill_points < 0:
        out.append((f"{base}.scoring.kill_points", "VP per enemy unit destroyed: 0 or more (0: none)", ()))
    if m.scoring.from_turn < 1:
        out.append((f"{base}.scoring.from_turn", "the first battle turn markers score: 1 or more", ()))
    if m.scoring.max_per_turn < 0:
        out.append((f"{base}.scoring.max_per_turn", "a cap on marker VP per turn: 0 or more (0: none)", ()))
    if m.enemy_gap < 0 or m.marker_clearance < 0:
        out.append((base, "enemy_gap and marker_clearance are 0 or more", ()))
    if m.placement is not None:
        p = m.placement
        if p.count < (0 if p.extra_d3 else 1):
            out.append(
                (
                    f"{base}.placement.count",
                    "the players place at least 1 marker (count 0 only with extra_d3: a D3 of them)",
                    (),
                )
            )
        elif not 1 <= p.count + len(m.objectives) <= MAX_MARKERS - (3 if p.extra_d3 else 0):
            out.append((f"{base}.placement.count", f"1 to {MAX_MARKERS} markers in all, D3 included", ()))
        if min(p.edge_gap, p.spacing, p.fixed_gap) < 0 or p.value < 0:
            out.append((f"{base}.placement", "distances and the value are 0 or more", ()))
    for name, value in m.scoring.secondaries.items():
        if name not in SECONDARIES:
            out.append(
                (f"{base}.scoring.secondaries.{name}", f"unknown secondary objective {name!r}", SECONDARIES)
            )
        elif value < 0:
            out.append((f"{base}.scoring.secondaries.{name}", "a secondary's value is 0 or more", ()))
    return out


def warlord_problems(
    choice: MissionChoice, side_of: dict[str, str]
) -> list[tuple[str, str, tuple[str, ...]]]:
    """Each side names at most one Warlord: a unit or a model of its own army (``side_of``: unit
    and model id -> side). Slay the Warlord reads it (docs/missions.md)."""
    out: list[tuple[str, str, tuple[str, ...]]] = []
    named = dict(choice.custom.warlords) if choice.custom is not None else {}
    named.update(choice.warlords)
    for side, piece in sorted(named.items()):
        path = f"mission.warlords.{side}"
        if side not in ("a", "b"):
            out.append((path, f"no side {side!r}", ("a", "b")))
        elif piece not in side_of:
            out.append((path, f"no unit or model {piece!r} in the match", ()))
        elif side_of[piece] != side:
            own = tuple(sorted(k for k, s in side_of.items() if s == side))
            out.append((path, f"{piece!r} belongs to side {side_of[piece]}, not side {side}", own))
    return out
