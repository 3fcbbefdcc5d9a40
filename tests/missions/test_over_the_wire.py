"""Missions through a real server (docs/missions.md): ``GET /missions`` lists each edition's
standard missions; a match definition names one; the set-up is played over the websocket (the
roll-off's dice in the log, a refused deployment, the first turn) and the summary shows the VP."""

from __future__ import annotations

from typing import Any

import httpx
import msgspec

from hulldown.client import Client
from hulldown.match.definition import to_document
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.wire.protocol import Ack, Rejected
from tests.hh3 import builders as hh3

from ..server_process import ServerProcess


def test_missions_are_listed_per_edition(server: ServerProcess) -> None:
    listed = httpx.get(f"{server.http}/missions", params={"edition": "40k7"}, timeout=10)
    assert listed.status_code == 200
    body = listed.json()
    pairs = {(m["id"], m["deployment"]["id"]) for m in body["missions"]}
    assert ("crusade", "vanguard_strike") in pairs and len(pairs) == 9
    hh3_list = httpx.get(f"{server.http}/missions", params={"edition": "hh3", "width": 60}, timeout=10).json()
    heart = next(m for m in hh3_list["missions"] if m["id"] == "the_heart_of_battle")
    assert heart["objectives"][0]["pos"] == [30.0, 24.0] and heart["turns"] == 4
    bad = httpx.get(f"{server.http}/missions", params={"edition": "40k9"}, timeout=10)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_parameter"
    small = httpx.get(f"{server.http}/missions", params={"edition": "hh3", "height": "x"}, timeout=10)
    assert small.status_code == 400
    # A small table: only the missions whose maps fit it (Vanguard Strike's 12 in around the
    # centre splits its zones on a 20 in deep table; Dawn of War's zones, 12 in from each long
    # edge, overlap on it), not a 500.
    short = httpx.get(f"{server.http}/missions", params={"edition": "40k7", "height": 20}, timeout=10)
    assert short.status_code == 200
    maps = {m["deployment"]["id"] for m in short.json()["missions"]}
    assert maps == {"hammer_and_anvil"}
    tiny = httpx.get(
        f"{server.http}/missions", params={"edition": "hh3", "width": 12, "height": 12}, timeout=10
    )
    assert tiny.status_code == 200 and tiny.json()["missions"] == []


def _definition(mission: dict[str, Any]) -> dict[str, Any]:
    units = (hh3.squad("tac-a", "a", [(10.0, 20.0), (12.0, 20.0)]), hh3.squad("tac-b", "b", [(10.0, 30.0)]))
    doc = to_document(CreateMatch(edition="hh3", scenario=Scenario(units=units)))
    doc["mission"] = mission
    return doc


def test_an_unknown_mission_is_refused_with_the_allowed_ids(server: ServerProcess) -> None:
    response = httpx.post(
        f"{server.http}/matches", content=msgspec.json.encode(_definition({"id": "crusade"})), timeout=10
    )
    assert response.status_code == 422, response.text
    problem = response.json()["error"]["problems"][0]
    assert problem["path"] == "mission.id" and "the_heart_of_battle" in problem["allowed"]


async def test_set_up_over_the_wire(server: ServerProcess) -> None:
    doc = _definition({"id": "the_heart_of_battle", "deployment": "dawn_of_war"})
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(doc), timeout=10)
    assert response.status_code == 201, response.text
    created = response.json()
    url = created["live_url"]
    async with Client(url, token=created["tokens"]["a"]) as a, Client(url, token=created["tokens"]["b"]) as b:
        assert a.view.data["phase"] == "setup" and a.view.data["mission"]["step"] == "roll_off"
        early = await a.act({"type": "end_phase"})
        assert isinstance(early, Rejected) and early.code == "in_setup"
        rolled = await a.act({"type": "roll_off"})
        assert isinstance(rolled, Ack)
        await b.wait_seq(rolled.seq)
        pending = a.view.data["pending"]
        assert any(entry["rolls"] for entry in a.view.data["log"])
        winner = a if pending["side"] == "a" else b
        assert isinstance(
            await winner.act({"type": "decide", "decision": pending["id"], "choice": "first"}), Ack
        )
        await a.wait_seq(rolled.seq + 1)
        first = a if pending["side"] == "a" else b
        side = pending["side"]
        unit = "tac-a" if side == "a" else "tac-b"
        models = ["tac-a-1", "tac-a-2"] if side == "a" else ["tac-b-1"]
        y_out = 20.0  # Dawn of War: zone A is y <= 12, zone B y >= 36
        refused = await first.act(
            {
                "type": "deploy",
                "unit": unit,
                "positions": {m: [10.0 + 2 * k, y_out] for k, m in enumerate(models)},
            }
        )
        assert isinstance(refused, Rejected) and refused.code == "outside_zone", refused
        y_in = 6.0  # the side deploying first takes zone A
        ok = await first.act(
            {
                "type": "deploy",
                "unit": unit,
                "positions": {m: [10.0 + 2 * k, y_in] for k, m in enumerate(models)},
            }
        )
        assert isinstance(ok, Ack), ok
        await a.wait_seq(ok.seq)
        assert a.view.data["mission"]["deploying"] != side
    summary = httpx.get(f"{server.http}/matches/{created['match_id']}", timeout=10).json()
    assert summary["mission"] == "The Heart of Battle" and summary["vp"] == {"a": 0, "b": 0}
