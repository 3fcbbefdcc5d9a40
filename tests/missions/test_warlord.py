"""Slay the Warlord (docs/missions.md): the match definition names each side's Warlord, a unit or
one model of a unit; worked examples citing each edition's section.

- 40k7 rulebook, Secondary Objectives, Slay the Warlord: if, at the end of the game, the enemy's
  Warlord has been removed as a casualty, 1 VP.
- hh3 Age of Darkness, Core Mission Secondary Objectives, Slay the Warlord: when the enemy
  Warlord's High Command choice is removed as a casualty, X VP (The Heart of Battle 3, The
  Crucible of War 2, Take and Hold 2), once per battle.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
from msgspec.structs import replace

from hulldown.match.actions import Join
from hulldown.match.context import ApplyContext
from hulldown.match.definition import parse_definition, to_document
from hulldown.match.definition_types import DefinitionError
from hulldown.match.events import Event
from hulldown.match.history import evolve_with_history
from hulldown.match.mission_flow import after_action, end_of_game, warlord_slain
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import MatchState
from hulldown.missions.model import Scoring
from hulldown.rules.dice import FixedDice, SeededDice
from tests.hh3 import builders as hh3
from tests.hh3 import test_playthrough as hh3_play
from tests.wh40k7 import builders as k7

from ..server_process import ServerProcess
from .driver import standard
from .test_scoring import battle, custom


def _ctx(state: MatchState) -> ApplyContext:
    return ApplyContext(state.seq + 1, FixedDice([]), state.log_count)


def _kill_unit(state: MatchState, uid: str) -> MatchState:
    return replace(state, units={**state.units, uid: replace(state.units[uid], destroyed=True)})


def _kill_model(state: MatchState, uid: str, mid: str) -> MatchState:
    unit = state.units[uid]
    models = {**unit.models, mid: replace(unit.models[mid], alive=False, wounds=0)}
    return replace(state, units={**state.units, uid: replace(unit, models=models)})


def test_40k7_slay_the_warlord_scores_at_the_end_of_the_game() -> None:
    """40k7 rulebook, Secondary Objectives, Slay the Warlord: nothing when the Warlord falls; 1 VP at the end."""
    m = custom(
        "40k7", scoring=Scoring(secondaries={"slay_the_warlord": 1}), warlords={"a": "captain", "b": "boss"}
    )
    units = (k7.infantry("captain", "a", [(10, 10)]), k7.infantry("boss", "b", [(10, 40)]))
    state = battle("40k7", units, m)
    assert not warlord_slain(state, "b")
    ctx = _ctx(state)
    after = after_action(state, _kill_unit(state, "boss"), ctx)
    assert warlord_slain(after, "b") and not warlord_slain(after, "a")
    assert after.mission is not None and after.mission.vp == {"a": 0, "b": 0}
    assert ctx.entries == []
    ctx = _ctx(after)
    ended = end_of_game(after, ctx)
    assert ended.mission is not None and ended.mission.vp == {"a": 1, "b": 0}
    assert ended.mission.slew_warlord == ("a",)
    lines = [(e.text, e.rule) for e in ctx.entries]
    assert (
        "Slay the Warlord: side b's Warlord has fallen; side a scores 1 VP.",
        "40k7 rulebook, Secondary Objectives, Slay the Warlord",
    ) in lines


def test_40k7_a_living_warlord_scores_nothing_and_no_warlord_named_scores_nothing() -> None:
    """40k7 rulebook, Secondary Objectives, Slay the Warlord: only a Warlord removed as a casualty scores."""
    m = custom("40k7", scoring=Scoring(secondaries={"slay_the_warlord": 1}), warlords={"b": "boss"})
    units = (k7.infantry("captain", "a", [(10, 10)]), k7.infantry("boss", "b", [(10, 40)]))
    state = battle("40k7", units, m)
    ended = end_of_game(state, _ctx(state))
    assert ended.mission is not None and ended.mission.vp == {"a": 0, "b": 0}
    # Side a names no Warlord: side b scores nothing for killing the captain.
    state = _kill_unit(state, "captain")
    ended = end_of_game(state, _ctx(state))
    assert ended.mission is not None and ended.mission.vp == {"a": 0, "b": 0}


def test_hh3_a_warlord_model_falls_and_scores_at_once_only_once() -> None:
    """hh3 Core Mission Secondary Objectives, Slay the Warlord: the Warlord is one model of a
    command squad; when it is removed as a casualty the other side scores at once (The Heart of
    Battle: 3 VP), once per battle, though its squad lives on."""
    heart = standard("hh3", "the_heart_of_battle")
    assert heart.scoring.secondaries["slay_the_warlord"] == 3
    m = replace(heart, warlords={"b": "cmd-b-1"})
    command = hh3.squad("cmd-b", "b", [(10, 40), (12, 40)])
    state = battle("hh3", (hh3.squad("sq-a", "a", [(10, 10)]), command), m)
    ctx = _ctx(state)
    other = after_action(state, _kill_model(state, "cmd-b", "cmd-b-2"), ctx)  # not the Warlord
    assert other.mission is not None and other.mission.vp == {"a": 0, "b": 0}
    ctx = _ctx(other)
    fallen = after_action(other, _kill_model(other, "cmd-b", "cmd-b-1"), ctx)
    assert not fallen.units["cmd-b"].destroyed
    assert fallen.mission is not None and fallen.mission.vp == {"a": 3, "b": 0}
    assert [(e.text, e.rule) for e in ctx.entries] == [
        (
            "Slay the Warlord: side b's Warlord has fallen; side a scores 3 VP.",
            "hh3 Core Mission Secondary Objectives, Slay the Warlord",
        )
    ]
    # The squad destroyed later (First Strike: side a's first turn) and the end of the game (Last
    # Man Standing): no second Slay the Warlord.
    ctx = _ctx(fallen)
    later = after_action(fallen, _kill_unit(fallen, "cmd-b"), ctx)
    ended_ctx = _ctx(later)
    ended = end_of_game(later, ended_ctx)
    values = heart.scoring.secondaries
    assert ended.mission is not None
    assert (
        ended.mission.vp["a"]
        == values["slay_the_warlord"] + values["first_strike"] + values["last_man_standing"]
    )
    assert not any("Slay the Warlord" in e.text for e in [*ctx.entries, *ended_ctx.entries])
    assert ended.mission.slew_warlord == ("a",)


def test_hh3_a_warlord_paragon_that_joins_a_unit_is_still_the_warlord() -> None:
    """hh3 Model Types, Paragon: a Paragon named as Warlord by its unit id joins an Infantry
    unit, whose id the merged unit keeps; the Warlord is its model from then on, so its death
    still counts for Slay the Warlord (the name pointed at a unit that no longer exists)."""
    mission = replace(
        standard("hh3", "the_heart_of_battle", "dawn_of_war"), warlords={"a": "cap-a", "b": "cap-b"}
    )
    state = replace(battle("hh3", hh3_play.armies(), mission), active="a", turn=1, player_turn=1)
    join = Join(unit="cap-a", target="ass-a")
    event = Event(seq=state.seq + 1, at=0.0, by="a", action_id="join", body=join)
    joined = evolve_with_history(state, event, SeededDice(b"x", "m", event.seq), lambda seq: state)
    assert "cap-a" not in joined.units and "cap-a-1" in joined.units["ass-a"].models
    assert joined.mission is not None and joined.mission.mission.warlords == {"a": "cap-a-1", "b": "cap-b"}
    assert not warlord_slain(joined, "a")
    squad = joined.units["ass-a"]
    fallen = replace(squad, models={**squad.models, "cap-a-1": replace(squad.models["cap-a-1"], alive=False)})
    assert warlord_slain(replace(joined, units={**joined.units, "ass-a": fallen}), "a")


def test_the_standard_missions_list_slay_the_warlord() -> None:
    """40k7 Eternal War: 1 VP; hh3 Core Missions: Heart 3, Crucible 2, Take and Hold 2."""
    for mission_id in ("crusade", "purge_the_alien", "the_emperors_will"):
        assert standard("40k7", mission_id).scoring.secondaries["slay_the_warlord"] == 1
    values = {
        m: standard("hh3", m).scoring.secondaries["slay_the_warlord"]
        for m in ("the_heart_of_battle", "the_crucible_of_war", "take_and_hold")
    }
    assert values == {"the_heart_of_battle": 3, "the_crucible_of_war": 2, "take_and_hold": 2}


def _doc(warlords: dict[str, str]) -> dict[str, Any]:
    units = (hh3.squad("tac-a", "a", [(10.0, 20.0), (12.0, 20.0)]), hh3.squad("tac-b", "b", [(10.0, 30.0)]))
    doc = to_document(CreateMatch(edition="hh3", scenario=Scenario(units=units)))
    doc["mission"] = {"id": "the_heart_of_battle", "warlords": warlords}
    return doc


def test_the_definition_names_each_sides_warlord_or_is_refused_with_the_path() -> None:
    """docs/missions.md, Slay the Warlord: a side's Warlord is a unit or a model of its army."""
    good = parse_definition(_doc({"a": "tac-a-1", "b": "tac-b"}))
    assert isinstance(good, CreateMatch) and good.mission is not None
    assert good.mission.warlords == {"a": "tac-a-1", "b": "tac-b"}
    refused = parse_definition(_doc({"a": "tac-b"}))
    assert isinstance(refused, DefinitionError)
    assert [p.path for p in refused.problems] == ["mission.warlords.a"]
    assert "belongs to side b" in refused.problems[0].message and "tac-a" in refused.problems[0].allowed
    refused = parse_definition(_doc({"a": "nobody", "c": "tac-a"}))
    assert isinstance(refused, DefinitionError)
    assert sorted(p.path for p in refused.problems) == ["mission.warlords.a", "mission.warlords.c"]


def test_the_warlord_is_carried_by_the_match_over_the_wire(server: ServerProcess) -> None:
    """docs/missions.md: the mission in the state carries the Warlords the definition named."""
    response = httpx.post(
        f"{server.http}/matches", content=msgspec.json.encode(_doc({"a": "tac-a-1"})), timeout=10
    )
    assert response.status_code == 201, response.text
    created = response.json()
    view = httpx.get(
        f"{server.http}/matches/{created['match_id']}/state",
        headers={"authorization": f"Bearer {created['tokens']['a']}"},
        timeout=10,
    ).json()["view"]
    assert view["mission"]["mission"]["warlords"] == {"a": "tac-a-1"}
    refused = httpx.post(
        f"{server.http}/matches", content=msgspec.json.encode(_doc({"b": "tac-a"})), timeout=10
    )
    assert (
        refused.status_code == 422 and refused.json()["error"]["problems"][0]["path"] == "mission.warlords.b"
    )
