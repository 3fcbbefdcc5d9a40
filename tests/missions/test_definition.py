"""The match definition's ``mission`` (docs/missions.md): a standard mission resolves for the
battlefield; a custom one is checked like every other part of a definition."""

from __future__ import annotations

from typing import Any

import msgspec

from hulldown.match.definition import DefinitionError, parse_definition, to_document
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.missions.catalogue import mission
from hulldown.missions.model import Mission
from tests.hh3 import builders as hh3


def _doc(mission_key: dict[str, Any]) -> dict[str, Any]:
    units = (
        hh3.squad("sq", "a", [(10.0, 10.0)], keywords=("line:1",)),
        hh3.squad("foe", "b", [(10.0, 40.0)]),
    )
    doc = to_document(CreateMatch(edition="hh3", scenario=Scenario(units=units)))
    doc["mission"] = mission_key
    return doc


def problems(doc: dict[str, Any]) -> list[tuple[str, str]]:
    found = parse_definition(doc)
    assert isinstance(found, DefinitionError), found
    return [(p.path, p.message) for p in found.problems]


def test_a_standard_mission_resolves_for_the_battlefield() -> None:
    doc = _doc({"id": "take_and_hold", "deployment": "hammer_and_anvil"})
    doc["scenario"]["battlefield"] = {"width": 60.0, "height": 44.0}
    created = parse_definition(doc)
    assert isinstance(created, CreateMatch) and created.mission is not None
    assert created.mission.deployment.id == "hammer_and_anvil"
    assert [m.pos for m in created.mission.objectives] == [(18.0, 22.0), (42.0, 22.0)]
    again = parse_definition(to_document(created))
    assert isinstance(again, CreateMatch) and again.mission == created.mission


def test_unknown_missions_and_maps_name_what_is_allowed() -> None:
    found = parse_definition(_doc({"id": "crusade"}))
    assert isinstance(found, DefinitionError) and [p.path for p in found.problems] == ["mission.id"]
    assert "the_crucible_of_war" in found.problems[0].allowed
    found = parse_definition(_doc({"id": "take_and_hold", "deployment": "vanguard_strike"}))
    assert isinstance(found, DefinitionError) and found.problems[0].path == "mission.deployment"
    assert found.problems[0].allowed == ("search_and_destroy", "hammer_and_anvil", "dawn_of_war")


def test_a_custom_mission_is_checked() -> None:
    base = mission("hh3", "the_heart_of_battle", "dawn_of_war", 72.0, 48.0)
    assert isinstance(base, Mission)
    good = msgspec.to_builtins(base)
    assert isinstance(parse_definition(_doc({"custom": good})), CreateMatch)
    bad = msgspec.to_builtins(base)
    bad["edition"] = "40k7"
    bad["deployment"]["zones"][0]["points"] = [[0, 0], [80, 0], [80, 12]]
    bad["objectives"][1]["pos"] = [36, 60]
    bad["scoring"]["secondaries"] = {"giant_killer": 3}
    found = problems(_doc({"custom": bad}))
    paths = [p for p, _ in found]
    assert paths == [
        "mission.custom.edition",
        "mission.custom.deployment.zones[0].points",
        "mission.custom.objectives[1].pos",
        "mission.custom.scoring.secondaries.giant_killer",
    ]
    both = problems(_doc({"id": "take_and_hold", "custom": good}))
    assert both[0][0] == "mission"
    typo = parse_definition(_doc({"ID": "take_and_hold"}))
    assert isinstance(typo, DefinitionError) and typo.stage == "shape"


def test_a_standard_mission_that_does_not_fit_the_battlefield_is_refused() -> None:
    """docs/missions.md: zones and markers must be on the battlefield - a standard mission built
    for a small table too. The Crucible of War's Hammer and Anvil zones are each 24 in deep from
    the centre line's 12 in gap: on a 20 in wide table they fall off it."""
    doc = _doc({"id": "the_crucible_of_war"})
    doc["scenario"]["battlefield"] = {"width": 20.0, "height": 48.0}
    found = problems(doc)
    assert [p for p, _ in found] == ["mission"]
    assert "does not fit a 20 x 48 in battlefield" in found[0][1]
    assert "every corner must be on the 20 x 48 battlefield" in found[0][1]


def test_a_map_that_cannot_be_drawn_on_the_table_is_a_problem_not_a_crash() -> None:
    """40k7 Vanguard Strike keeps 12 in clear around the centre: on a 72 x 20 table that circle
    cuts each triangle in two."""
    found = mission("40k7", "the_emperors_will", "vanguard_strike", 72.0, 20.0)
    assert isinstance(found, str) and "'vanguard_strike' does not fit a 72 x 20 in battlefield" in found
    assert isinstance(mission("40k7", "the_emperors_will", "vanguard_strike", 72.0, 30.0), Mission)


def test_a_custom_mission_with_overlapping_zones_or_negative_scoring_is_refused() -> None:
    """docs/missions.md, Custom missions: zone A is the side deploying first's and B the other's,
    so they may touch but not overlap; ``kill_points`` and ``max_per_turn`` are VP (0: none) and
    ``from_turn`` a battle turn. Each problem names its path (docs/match-definition.md)."""
    base = mission("hh3", "the_heart_of_battle", "dawn_of_war", 72.0, 48.0)
    assert isinstance(base, Mission)
    touching = msgspec.to_builtins(base)
    touching["deployment"]["zones"][1]["points"] = [[0, 12], [72, 12], [72, 48], [0, 48]]
    assert isinstance(parse_definition(_doc({"custom": touching})), CreateMatch)
    bad = msgspec.to_builtins(base)
    bad["deployment"]["zones"][1]["points"] = [[0, 10], [72, 10], [72, 48], [0, 48]]
    bad["scoring"].update({"kill_points": -1, "from_turn": -1, "max_per_turn": -2})
    found = problems(_doc({"custom": bad}))
    assert [p for p, _ in found] == [
        "mission.custom.deployment.zones",
        "mission.custom.scoring.kill_points",
        "mission.custom.scoring.from_turn",
        "mission.custom.scoring.max_per_turn",
    ]
    assert "overlap" in found[0][1]


def test_dawn_of_war_on_a_table_too_shallow_for_it_is_refused() -> None:
    """40k7 rulebook and hh3 Core Missions, Dawn of War: each side deploys within 12 in of its
    long edge; on a table 20 in deep the two zones overlap, so the mission does not fit."""
    doc = _doc({"id": "the_heart_of_battle", "deployment": "dawn_of_war"})
    doc["scenario"]["battlefield"] = {"width": 72.0, "height": 20.0}
    doc["scenario"]["units"][1]["models"][0]["pos"] = [10.0, 18.0]
    found = problems(doc)
    assert [p for p, _ in found] == ["mission"]
    assert "'dawn_of_war' does not fit a 72 x 20 in battlefield" in found[0][1]
    assert "overlap" in found[0][1]
    assert isinstance(mission("40k7", "crusade", "dawn_of_war", 72.0, 24.0), Mission)
    assert isinstance(mission("40k7", "crusade", "dawn_of_war", 72.0, 20.0), str)
