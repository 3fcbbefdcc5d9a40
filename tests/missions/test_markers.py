"""Players placing objective markers and choosing their deployment zone (docs/missions.md), worked
examples with fixed dice; the definition asks for the published placement with
``"place_markers": true``.

- 40k7 rulebook, Preparing for Battle, Placing Objective Markers: a roll-off decides who places
  first, then the players alternate; never within 6" of an edge or 12" of another marker, never
  on impassable terrain; Crusade places D3+2. Eternal War, The Battlefield: a roll-off whose
  winner chooses the half to deploy in; then the Standard Deployment Method's roll-off decides
  who deploys first.
- hh3 Core Missions, The Heart of Battle: the 3 VP marker at the centre; the players place two
  1 VP markers at least 12" from it, 6" from the edges and from each other.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec

from hulldown.match.actions import Decide, Deploy, PlaceMarker, RollOff, Undo
from hulldown.match.definition import parse_definition, to_document
from hulldown.match.definition_types import DefinitionError
from hulldown.match.reducer import state_hash
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Point
from hulldown.missions.catalogue import resolve
from hulldown.missions.model import MarkerPlacement, Mission, MissionChoice
from tests.builders import rectangle
from tests.hh3 import builders as hh3
from tests.wh40k7 import builders as k7

from ..server_process import ServerProcess
from .driver import Game, created
from .test_setup import at


def _mission(edition: str, mission_id: str) -> Mission:
    found = resolve(MissionChoice(id=mission_id, place_markers=True), edition, 72.0, 48.0)
    assert isinstance(found, Mission)
    return found


def test_40k7_crusade_markers_placed_in_turn_then_the_zone_chosen() -> None:
    game = Game(
        created(
            "40k7",
            (k7.infantry("tac", "a", [(10, 40)]), k7.infantry("foe", "b", [(10, 6)])),
            _mission("40k7", "crusade"),
            (rectangle("rock", 50, 20, 56, 28, ("impassable",)),),
        )
    )
    # D3: a 3 is 2, so 4 markers; the roll-off 6 to 1: side a places first.
    state = game.act("a", RollOff(), dice=[3, 6, 1])
    ms = state.mission
    assert ms is not None and ms.step == "markers" and ms.markers_left == 4 and ms.deploying == "a"
    assert ms.mission.objectives == ()
    edge = game.check("a", PlaceMarker(at=Point(3, 24)))
    assert edge is not None and edge.code == "marker_near_edge" and edge.values["gap"] == 6.0
    assert edge.rule == "40k7 rulebook, Preparing for Battle, Placing Objective Markers"
    state = game.act("a", PlaceMarker(at=Point(36, 24)))
    assert state.mission is not None and state.mission.mission.objectives[0].id == "m1"
    # Undo takes a placement back (it revealed no dice); then it is placed again.
    state = game.act("a", Undo())
    assert state.mission is not None and state.mission.mission.objectives == ()
    assert state.mission.markers_left == 4 and state.mission.deploying == "a"
    game.act("a", PlaceMarker(at=Point(36, 24)))
    turn = game.check("a", PlaceMarker(at=Point(20, 24)))
    assert turn is not None and turn.code == "not_your_turn"
    close = game.check("b", PlaceMarker(at=Point(40, 24)))
    assert close is not None and close.code == "marker_too_close" and close.values["marker"] == "m1"
    rock = game.check("b", PlaceMarker(at=Point(53, 24)))
    assert rock is not None and rock.code == "marker_on_impassable"
    game.act("b", PlaceMarker(at=Point(20, 24)))
    game.act("a", PlaceMarker(at=Point(36, 10)))
    # The last marker: then the zone roll-off (2 to 5: side b chooses).
    state = game.act("b", PlaceMarker(at=Point(56, 40)), dice=[2, 5])
    assert state.mission is not None and state.mission.step == "zone_choice"
    assert [m.id for m in state.mission.mission.objectives] == ["m1", "m2", "m3", "m4"]
    assert all(m.value == 3 for m in state.mission.mission.objectives)
    assert state.pending is not None and state.pending.side == "b" and state.pending.options == ("A", "B")
    # Side b takes zone A; the deployment roll-off (6 to 1): side a deploys first, in zone B.
    state = game.act("b", Decide(decision=state.pending.id, choice="A"), dice=[6, 1])
    assert state.mission is not None and state.mission.zones == {"b": "A", "a": "B"}
    assert state.pending is not None and state.pending.kind == "deploy_order" and state.pending.side == "a"
    state = game.act("a", Decide(decision=state.pending.id, choice="first"))
    assert "Side a deploys first, in zone B; side b in zone A." in [e.text for e in state.log]
    tac = state.units["tac"]
    wrong = game.check("a", Deploy(unit="tac", positions=at(tac, (10, 6))))
    assert wrong is not None and wrong.code == "outside_zone"
    game.act("a", Deploy(unit="tac", positions=at(tac, (10, 40))))
    assert state_hash(game.folded()) == state_hash(game.state)


def test_hh3_heart_of_battle_flank_markers_keep_12_from_the_centre() -> None:
    mission = _mission("hh3", "the_heart_of_battle")
    assert [m.id for m in mission.objectives] == ["o1"] and mission.placement is not None
    game = Game(
        created("hh3", (hh3.squad("sq-a", "a", [(10, 6)]), hh3.squad("sq-b", "b", [(10, 42)])), mission)
    )
    state = game.act("a", RollOff(), dice=[2, 4])  # side b places first
    assert state.mission is not None and state.mission.deploying == "b" and state.mission.markers_left == 2
    near = game.check("b", PlaceMarker(at=Point(40, 24)))
    assert near is not None and near.code == "marker_too_close" and near.values["gap"] == 12.0
    assert near.values["marker"] == "o1"
    game.act("b", PlaceMarker(at=Point(20, 24)))
    close = game.check("a", PlaceMarker(at=Point(24, 24)))
    assert close is not None and close.code == "marker_too_close" and close.values["gap"] == 6.0
    # The last marker; no zone choice in hh3: the deployment roll-off follows (5 to 3: side a).
    state = game.act("a", PlaceMarker(at=Point(52, 30)), dice=[5, 3])
    assert state.mission is not None and state.mission.step == "deploy_order"
    assert state.pending is not None and state.pending.side == "a"
    assert {m.id: m.value for m in state.mission.mission.objectives} == {"o1": 3, "m1": 1, "m2": 1}
    assert state_hash(game.folded()) == state_hash(game.state)


def _doc(mission: dict[str, Any]) -> dict[str, Any]:
    units = (hh3.squad("tac-a", "a", [(10.0, 20.0)]), hh3.squad("tac-b", "b", [(10.0, 30.0)]))
    doc = to_document(CreateMatch(edition="hh3", scenario=Scenario(units=units)))
    doc["mission"] = mission
    return doc


def test_a_custom_placement_is_checked() -> None:
    """docs/missions.md, Custom missions: a placement's count and distances are checked."""
    base = _mission("hh3", "the_crucible_of_war")
    custom = msgspec.to_builtins(replace_custom(base))
    custom["placement"]["count"] = 0
    refused = parse_definition(_doc({"custom": custom}))
    assert isinstance(refused, DefinitionError)
    assert [p.path for p in refused.problems] == ["mission.custom.placement.count"]


def test_a_custom_placement_places_at_least_one_marker() -> None:
    """docs/missions.md, Custom missions: ``placement.count`` markers are placed by the players
    (plus a D3 with ``extra_d3``); a placement that places none, or fewer than none, beside the
    mission's own markers is refused - the set-up would wait for a marker it does not have."""
    base = _mission("hh3", "the_heart_of_battle")  # its own centre marker, two to place
    custom = msgspec.to_builtins(replace_custom(base))
    for count in (0, -1):
        custom["placement"]["count"] = count
        refused = parse_definition(_doc({"custom": custom}))
        assert isinstance(refused, DefinitionError), count
        assert [p.path for p in refused.problems] == ["mission.custom.placement.count"]
    custom["placement"]["extra_d3"] = True  # D3 + 0: one to three markers
    custom["placement"]["count"] = 0
    assert not isinstance(parse_definition(_doc({"custom": custom})), DefinitionError)


def test_a_custom_markers_own_id_is_not_taken_for_a_placed_one() -> None:
    """docs/missions.md, Custom missions: a placed marker keeps ``fixed_gap`` from the mission's
    own markers and ``spacing`` from the placed ones (m1, m2...), whatever the own markers are
    called; an own marker may not take the id of a placed one."""
    from msgspec.structs import replace

    own = replace(_mission("hh3", "the_heart_of_battle").objectives[0], id="mid")
    mission = replace(_mission("hh3", "the_heart_of_battle"), custom=True, objectives=(own,))
    game = Game(
        created("hh3", (hh3.squad("sq-a", "a", [(10, 6)]), hh3.squad("sq-b", "b", [(10, 42)])), mission)
    )
    game.act("a", RollOff(), dice=[6, 1])  # side a places first
    near = game.check("a", PlaceMarker(at=Point(44, 24)))  # 8" from the centre marker
    assert near is not None and near.code == "marker_too_close"
    assert near.values["marker"] == "mid" and near.values["gap"] == 12.0
    state = game.act("a", PlaceMarker(at=Point(20, 24)))
    assert state.mission is not None
    assert [m.id for m in state.mission.mission.objectives] == ["mid", "m1"]
    custom = msgspec.to_builtins(replace(mission, objectives=(replace(own, id="m1"),)))
    refused = parse_definition(_doc({"custom": custom}))
    assert isinstance(refused, DefinitionError)
    assert [p.path for p in refused.problems] == ["mission.custom.objectives[0].id"]


def replace_custom(m: Mission) -> Mission:
    from msgspec.structs import replace

    return replace(m, custom=True)


def test_place_markers_over_the_wire(server: ServerProcess) -> None:
    response = httpx.post(
        f"{server.http}/matches",
        content=msgspec.json.encode(_doc({"id": "take_and_hold", "place_markers": True})),
        timeout=10,
    )
    assert response.status_code == 201, response.text
    created_match = response.json()
    view = httpx.get(
        f"{server.http}/matches/{created_match['match_id']}/state",
        headers={"authorization": f"Bearer {created_match['tokens']['a']}"},
        timeout=10,
    ).json()["view"]
    placement = view["mission"]["mission"]["placement"]
    assert placement["count"] == 2 and placement["spacing"] == 18.0 and placement["edge_gap"] == 12.0
    assert view["mission"]["mission"].get("objectives", []) == []


# docs/missions.md, "Placing markers and choosing the zone": the rules say nothing of a battlefield with no
# legal place left for a marker; a definition that cannot fit them all is refused, and in play
# the markers no place is left for are not placed (missions/placement_room.py).


def _hh3_placing(placement: MarkerPlacement) -> Game:
    mission = replace_placement(_mission("hh3", "take_and_hold"), placement)
    return Game(
        created("hh3", (hh3.squad("sq-a", "a", [(10, 6)]), hh3.squad("sq-b", "b", [(10, 42)])), mission)
    )


def replace_placement(m: Mission, placement: MarkerPlacement) -> Mission:
    from msgspec.structs import replace

    return replace(m, custom=True, placement=placement)


def test_markers_no_place_is_left_for_are_not_placed() -> None:
    """Three markers 18" from the edges of a 72 x 48 table and 12" apart: the legal area is the
    36 x 12 band from (18, 18) to (54, 30). Placed at (27, 24) and (45, 24), the first two leave
    every point of it under 12" from one of them (10.8" at the worst: (18, 18), (36, 18)...), so
    the third is not placed and the deployment roll-off follows (hh3: no zone choice)."""
    game = _hh3_placing(MarkerPlacement(count=3, value=3, edge_gap=18.0, spacing=12.0))
    state = game.act("a", RollOff(), dice=[6, 1])  # side a places first
    assert state.mission is not None and state.mission.markers_left == 3
    state = game.act("a", PlaceMarker(at=Point(27, 24)))
    assert state.mission is not None and state.mission.step == "markers" and state.mission.deploying == "b"
    # The last place left: the second marker takes it, and the deployment roll-off (5 to 3) follows.
    state = game.act("b", PlaceMarker(at=Point(45, 24)), dice=[5, 3])
    ms = state.mission
    assert ms is not None and ms.step == "deploy_order" and ms.markers_left == 0
    assert [m.id for m in ms.mission.objectives] == ["m1", "m2"]
    assert state.pending is not None and state.pending.kind == "deploy_order" and state.pending.side == "a"
    texts = [e.text for e in state.log]
    assert "No place is left for another objective marker (1 not placed): the set-up goes on." in texts
    # Placed elsewhere, the second marker leaves room (54, 18 is 12.7" from 40, 24): the third is asked for.
    game = _hh3_placing(MarkerPlacement(count=3, value=3, edge_gap=18.0, spacing=12.0))
    game.act("a", RollOff(), dice=[6, 1])
    game.act("a", PlaceMarker(at=Point(27, 24)))
    state = game.act("b", PlaceMarker(at=Point(40, 24)))
    assert state.mission is not None and state.mission.step == "markers" and state.mission.markers_left == 1
    assert game.check("a", PlaceMarker(at=Point(54, 18))) is None
    assert state_hash(game.folded()) == state_hash(game.state)


def test_a_placement_with_no_place_at_all_goes_straight_on() -> None:
    """A match made before definitions were checked for room (or built directly): 18" from the
    edges of a 48" deep table leaves 12" of depth and 36" of width, but 30" from the edges leaves
    nothing; the roll-off for the first marker is not made and the deployment roll-off (4 to 2)
    follows."""
    game = _hh3_placing(MarkerPlacement(count=2, value=3, edge_gap=30.0, spacing=12.0))
    state = game.act("a", RollOff(), dice=[4, 2])
    ms = state.mission
    assert ms is not None and ms.step == "deploy_order" and ms.mission.objectives == ()
    assert state.pending is not None and state.pending.side == "a"
    assert "No place is left for another objective marker (2 not placed): the set-up goes on." in [
        e.text for e in state.log
    ]


def test_a_definition_whose_markers_cannot_all_be_placed_is_refused() -> None:
    base = _mission("hh3", "the_crucible_of_war")
    custom = msgspec.to_builtins(replace_custom(base))
    custom["placement"]["edge_gap"] = 30.0
    refused = parse_definition(_doc({"custom": custom}))
    assert isinstance(refused, DefinitionError)
    [problem] = refused.problems
    assert problem.path == "mission.custom.placement"
    assert "room for 0 of 4 on the 72 x 48 battlefield" in problem.message
    assert 'at least 30" from the edges, 12" apart' in problem.message
    # 12" from the edges and 12" apart, four fit (the published distances). 40" apart, two do:
    # (12, 12) and (52, 12); a point of the 48 x 24 legal area 40" from both would need
    # x >= 44 and x <= 20.
    custom["placement"]["edge_gap"] = 12.0
    assert not isinstance(parse_definition(_doc({"custom": custom})), DefinitionError)
    custom["placement"]["spacing"] = 40.0
    refused = parse_definition(_doc({"custom": custom}))
    assert isinstance(refused, DefinitionError)
    assert "room for 2 of 4" in refused.problems[0].message


def test_impassable_terrain_counts_against_the_room() -> None:
    """Crusade (40k7): D3+2 markers, 6" from the edges, 12" apart, so room for 5 is needed. An
    impassable slab over all the table but a 12" strip along the bottom edge leaves the legal
    area's band from y = 6 to 12: room for 6 markers along it (x = 6, 18 ... 66). A slab over
    all but a 12" strip along the right edge leaves the band from x = 60 (on the slab's edge,
    so not free) to 66, 36" tall: 4 markers 12" apart along it (y = 6, 18, 30, 42)."""
    doc = to_document(
        CreateMatch(
            edition="40k7",
            scenario=Scenario(
                units=(k7.infantry("tac", "a", [(10.0, 2.0)]), k7.infantry("foe", "b", [(60.0, 2.0)]))
            ),
        )
    )
    doc["mission"] = {"id": "crusade", "deployment": "dawn_of_war", "place_markers": True}

    def with_slab(x0: float, y0: float, x1: float, y1: float) -> object:
        slab = rectangle("slab", x0, y0, x1, y1, ("impassable",))
        doc["scenario"]["terrain"] = [msgspec.to_builtins(slab)]
        return parse_definition(doc)

    assert not isinstance(with_slab(0, 12, 72, 48), DefinitionError)
    refused = with_slab(0, 0, 60, 48)
    assert isinstance(refused, DefinitionError)
    assert refused.problems[0].path == "mission.place_markers"
    assert "room for 4 of 5 (D3 + 2 at most)" in refused.problems[0].message
    # The same slab, not impassable: no problem.
    doc["scenario"]["terrain"] = [msgspec.to_builtins(rectangle("slab", 0, 0, 60, 48, ("difficult",)))]
    assert not isinstance(parse_definition(doc), DefinitionError)
