"""Every edition is reachable through the server: a Horus Heresy and an 11th-edition match are
created over HTTP and played through ``hulldown.client`` against a real server; illegal actions
come back as rejections naming the edition's rule, legal ones as patches every client applies."""

from __future__ import annotations

from typing import Any

import httpx
import msgspec

from hulldown.client import Client
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.wire.protocol import Ack, Rejected
from tests.hh3 import builders as hh3
from tests.wh40k11 import builders as w11

from ..server_process import ServerProcess


def create(server: ServerProcess, request: CreateMatch) -> dict[str, Any]:
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(request), timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def state_view(server: ServerProcess, match_id: str) -> Any:
    return httpx.get(f"{server.http}/matches/{match_id}/state", timeout=10).json()["view"]


async def test_hh3_match_over_the_wire(server: ServerProcess) -> None:
    lascannon = hh3.weapon("lascannon", strength=9, ap=2, rng=48.0)
    request = CreateMatch(
        edition="hh3",
        scenario=Scenario(
            units=(
                hh3.tank("predator-a", "a", 10.0, 24.0, 0.0, weapons=(lascannon,)),
                hh3.transport("rhino-b", "b", 30.0, 24.0, 180.0),
                hh3.transport("rhino-b2", "b", 60.0, 40.0, 180.0),
            )
        ),
        options=Options(turn_limit=0),
    )
    created = create(server, request)
    url = created["live_url"]
    async with Client(url, token=created["tokens"]["a"]) as a, Client(url, spectator=True) as spectator:
        assert a.view.data["phase"] == "start"
        assert isinstance(await a.act({"type": "end_phase"}), Ack)
        rush = await a.act({"type": "move", "unit": "predator-a", "path": [[25.0, 24.0]], "kind": "rush"})
        assert isinstance(rush, Rejected) and rush.rule.startswith("hh3"), rush
        assert isinstance(await a.act({"type": "move", "unit": "predator-a", "path": [[14.0, 24.0]]}), Ack)
        assert isinstance(await a.act({"type": "end_phase"}), Ack)
        shot = await a.act(
            {"type": "shoot", "unit": "predator-a", "fire": [{"weapon": "lascannon", "target": "rhino-b"}]}
        )
        assert isinstance(shot, Ack), shot
        await spectator.wait_seq(shot.seq)
        view = state_view(server, created["match_id"])
        assert a.view.data == view and spectator.view.data == view
        assert view["units"]["predator-a"]["models"]["predator-a-m"]["pos"] == [14.0, 24.0]
        assert any(entry["seq"] == shot.seq and entry["rolls"] for entry in view["log"])


async def test_40k11_match_over_the_wire(server: ServerProcess) -> None:
    gun = w11.weapon("cannon", "tank-a-m", rng=24.0, s=9, ap=2, d=3)
    request = CreateMatch(
        edition="40k11",
        scenario=Scenario(
            units=(
                w11.vehicle("tank-a", "a", 10.0, 24.0, weapons=(gun,)),
                w11.infantry("squad-b", "b", [(28.0, 24.0), (29.5, 24.0)]),
                w11.infantry("squad-b2", "b", [(60.0, 40.0)]),
            )
        ),
        options=Options(turn_limit=0),
    )
    created = create(server, request)
    url = created["live_url"]
    async with Client(url, token=created["tokens"]["a"]) as a, Client(url, token=created["tokens"]["b"]) as b:
        assert a.view.data["phase"] == "command"
        early = await a.act(
            {"type": "shoot", "unit": "tank-a", "fire": [{"weapon": "cannon", "target": "squad-b"}]}
        )
        assert isinstance(early, Rejected) and early.rule.startswith("40k11"), early
        not_yours = await b.act({"type": "end_phase"})
        assert isinstance(not_yours, Rejected) and not_yours.code == "not_your_turn"
        for _ in range(2):  # command -> movement -> shooting
            assert isinstance(await a.act({"type": "end_phase"}), Ack)
        shot = await a.act(
            {"type": "shoot", "unit": "tank-a", "fire": [{"weapon": "cannon", "target": "squad-b"}]}
        )
        assert isinstance(shot, Ack), shot
        await b.wait_seq(shot.seq)
        view = state_view(server, created["match_id"])
        assert a.view.data == view and b.view.data == view
        assert any(entry["seq"] == shot.seq and entry["rolls"] for entry in view["log"])
