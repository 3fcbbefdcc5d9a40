"""At least 40 bad match definitions, each refused with its path and a useful message, the same
way by the definition reader, by ``hulldown simulate`` and by POST /matches (which stores
nothing); the valid base definitions are accepted (docs/match-definition.md)."""

from __future__ import annotations

import json

import httpx
import pytest

from hulldown.cli.simulate import run_scenario
from hulldown.match.definition import DefinitionError, create_match, parse_definition, read_definition
from hulldown.match.scenario import check_scenario

from ..server_process import ServerProcess
from .bad_definitions import BAD, Bad, base


def test_the_table_is_large_enough() -> None:
    assert len(BAD) >= 40
    assert len({b.name for b in BAD}) == len(BAD)


@pytest.mark.parametrize("edition", ["40k7", "hh3", "40k11"])
def test_the_base_definition_is_accepted(edition: str) -> None:
    parsed = parse_definition(base(edition))
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems]
    squad = next(u for u in parsed.scenario.units if u.id == "squad")
    carrier = next(u for u in parsed.scenario.units if u.id == "carrier")
    if edition != "40k11":  # 40k11 has no transports in this core
        assert carrier.passengers == ("squad",) and squad.embarked_in == "carrier"
    assert all(m.wounds == squad.profile.w for m in squad.models.values())


@pytest.mark.parametrize("bad", BAD, ids=lambda b: b.name)
def test_refused_with_path_and_message(bad: Bad) -> None:
    parsed = parse_definition(bad.document())
    assert isinstance(parsed, DefinitionError), f"{bad.name} was accepted"
    assert parsed.stage == bad.stage, [p.text() for p in parsed.problems]
    paths = [p.path for p in parsed.problems]
    assert bad.path in paths, [p.text() for p in parsed.problems]
    problem = parsed.problems[paths.index(bad.path)]
    assert bad.says in problem.text(), problem.text()


@pytest.mark.parametrize("bad", BAD, ids=lambda b: b.name)
def test_simulate_refuses_the_same(bad: Bad) -> None:
    result = run_scenario(bad.document())
    assert "final_state" not in result
    assert any(p["path"] == bad.path for p in result["problems"]), result


def test_post_matches_refuses_each_and_stores_nothing(creating_server: ServerProcess) -> None:
    server = creating_server
    before = httpx.get(f"{server.http}/matches", timeout=10).json()["matches"]
    for bad in BAD:
        response = httpx.post(f"{server.http}/matches", content=json.dumps(bad.document()), timeout=10)
        assert response.status_code == (400 if bad.stage == "shape" else 422), (bad.name, response.text)
        body = response.json()["error"]
        assert body["code"] == ("bad_request" if bad.stage == "shape" else "bad_scenario")
        assert any(p["path"] == bad.path for p in body["problems"]), (bad.name, body)
        assert bad.path in body["message"] or body["problems"][0]["path"] != bad.path
    after = httpx.get(f"{server.http}/matches", timeout=10).json()["matches"]
    assert after == before
    ok = httpx.post(f"{server.http}/matches", content=json.dumps(base()), timeout=10)
    assert ok.status_code == 201, ok.text


def test_large_and_deep_bodies_are_refused_quickly(server: ServerProcess) -> None:
    big = httpx.post(f"{server.http}/matches", content=b" " * 1_000_001, timeout=10)
    assert big.status_code == 413 and big.json()["error"]["code"] == "too_large"
    chunked = httpx.post(
        f"{server.http}/matches", content=iter([b" " * 600_000] * 3), timeout=10
    )  # no length
    assert chunked.status_code == 413 and chunked.json()["error"]["code"] == "too_large"
    deep = httpx.post(f"{server.http}/matches", content=b"[" * 100_000 + b"]" * 100_000, timeout=10)
    assert deep.status_code == 422 and deep.json()["error"]["code"] == "too_deep"
    nested = {"format": 1, "edition": "40k7", "scenario": {"units": [{"id": [[[[[[[[[[]]]]]]]]]]}]}}
    shallow = httpx.post(f"{server.http}/matches", json=nested, timeout=10)
    assert shallow.status_code == 400 and shallow.json()["error"]["code"] == "bad_request"
    not_json = httpx.post(f"{server.http}/matches", content=b"{nope", timeout=10)
    assert not_json.status_code == 400


def test_lists_and_maps_give_the_same_match() -> None:
    listed = base()
    mapped = base()
    units = mapped["scenario"]["units"]
    mapped["scenario"]["units"] = {u.pop("id"): u for u in units}
    for unit in mapped["scenario"]["units"].values():
        if isinstance(unit["models"], list):
            unit["models"] = {m.pop("id"): m for m in unit["models"]}
        unit["weapons"] = {w.pop("id"): w for w in unit["weapons"]}
    assert parse_definition(listed) == parse_definition(mapped)


def test_defaults_come_from_the_profile_and_state_overrides_them() -> None:
    doc = base()
    doc["scenario"]["units"][2]["profile"]["w"] = 2
    doc["scenario"]["units"][0]["profile"]["hp"] = 12
    doc["scenario"]["units"][1]["state"] = {"hp": 1, "statuses": {"stunned": 3}}
    doc["scenario"]["units"][2]["models"]["s1"]["state"] = {"wounds": 1}
    parsed = parse_definition(doc)
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems]
    tank, carrier, squad = parsed.scenario.units
    assert tank.hp == 12  # HP from hp
    assert carrier.hp == 1 and carrier.statuses == {"stunned": 3}
    assert [m.wounds for m in squad.models.values()] == [2, 1, 2, 2, 2]  # wounds from w


def test_the_earlier_form_is_read_as_the_same_document() -> None:
    """No ``format``: the runtime fields beside the others (a state dump) are its ``state``."""
    doc = base()
    del doc["format"]
    tank = doc["scenario"]["units"][0]
    tank.update(hp=2, statuses={}, destroyed=False, wreck=False, moved=0.0, turn_flags=[], passengers=[])
    tank["models"][0].update(wounds=1, alive=True)
    doc["scenario"]["units"][1]["passengers"] = ["squad"]
    parsed = parse_definition(doc)
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems]
    assert parsed.scenario.units[0].hp == 2
    doc["scenario"]["units"][1]["passengers"] = ["tank"]
    refused = parse_definition(doc)
    assert isinstance(refused, DefinitionError)
    assert refused.problems[0].path == "scenario.units[1].passengers[0]"


def test_check_scenario_with_the_edition_runs_the_same_checks() -> None:
    """For callers that build a CreateMatch in Python (LiveService.create may pass its edition)."""
    parsed = parse_definition(base())
    assert not isinstance(parsed, DefinitionError)
    assert check_scenario(parsed.scenario, "40k7") is None
    tonk = base()
    tonk["scenario"]["units"][0]["keywords"] = ["tonk"]
    tonk["format"] = 1
    read = read_definition(tonk)
    assert not isinstance(read, DefinitionError)
    scenario = create_match(read).scenario
    assert check_scenario(scenario) is None  # the old checks alone let it through
    refused = check_scenario(scenario, "40k7")
    assert refused is not None and refused.code == "bad_scenario"
    assert refused.values["path"] == "scenario.units[0].keywords[0]" and "'tank'" in refused.message
