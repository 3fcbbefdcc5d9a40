"""A decision in the middle of an action, over the wire (docs/decisions.md): a real server, real
websocket clients. Side a's shot destroys a transport; the match pauses on its passengers'
owner's placement; only side b may answer; an illegal placement is refused with the numbers;
the delayed spectator, ``GET /state?at``, the events (folded again) and ``GET /dice`` all agree.
hh3 Transport sub-type, Emergency Disembarkation."""

from __future__ import annotations

from typing import Any

import httpx
import msgspec

from hulldown.client import Client
from hulldown.match.events import decode_event
from hulldown.match.hashing import base_hash
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.match.timeline import fold_history
from hulldown.rules.dice import FixedDice, NoDice
from hulldown.rules.hh3.emergency import DECISION_EMERGENCY
from hulldown.wire.protocol import Ack, Rejected
from tests.hh3 import builders as hh3

from ..server_process import ServerProcess


def _request() -> CreateMatch:
    # Ten S10 shots at a 1-HP AV10 Rhino: every hit penetrates, all ten miss once in 59,000.
    gun = hh3.weapon("lascannon", strength=10, ap=2, shots=10)
    return CreateMatch(
        edition="hh3",
        scenario=Scenario(
            units=(
                hh3.tank("shooter", "a", 10.0, 24.0, 0.0, weapons=(gun,)),
                hh3.transport("rhino", "b", 40.0, 24.0, 180.0, hp=1, armour=(10, 10, 10), passengers=("s",)),
                hh3.squad("s", "b", [(40.0, 24.0)] * 3, embarked_in="rhino"),
                hh3.tank("reserve", "b", 66.0, 44.0, 180.0),
            )
        ),
        options=Options(turn_limit=0, spectator_delay_events=1),
    )


def _get(server: ServerProcess, path: str, token: str) -> Any:
    response = httpx.get(f"{server.http}{path}", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


async def test_a_paused_shot_over_the_wire(server: ServerProcess) -> None:
    body = msgspec.json.encode(_request())
    created = httpx.post(f"{server.http}/matches", content=body, timeout=10).json()
    url, tokens, mid = created["live_url"], created["tokens"], created["match_id"]
    async with (
        Client(url, token=tokens["a"]) as a,
        Client(url, token=tokens["b"]) as b,
        Client(url, spectator=True) as delayed,
    ):
        for _ in range(2):  # start -> movement -> shooting
            assert isinstance(await a.act({"type": "end_phase"}), Ack)
        shot = await a.act(
            {"type": "shoot", "unit": "shooter", "fire": [{"weapon": "lascannon", "target": "rhino"}]}
        )
        assert isinstance(shot, Ack), shot
        await b.wait_seq(shot.seq)
        pending = b.view.data["pending"]
        assert pending["kind"] == DECISION_EMERGENCY and pending["side"] == "b"
        assert b.view.data["suspended"]["by"] == "a"
        assert not b.view.data["units"]["rhino"]["destroyed"]  # the state before the shot
        proposal = pending["placement"]["proposal"]
        assert set(proposal) == {"s-1", "s-2", "s-3"}
        assert all(len(pending["placement"]["area"][m]) >= 1 for m in proposal)

        wrong_side = await a.act({"type": "decide", "decision": pending["id"], "choice": "proposal"})
        assert isinstance(wrong_side, Rejected) and wrong_side.code == "not_your_decision"
        far = {**proposal, "s-1": [40.0, 30.0]}  # 30 - 0.63 (base) - 25.5 (hull edge) = 3.87 in
        illegal = await b.act({"type": "decide", "decision": pending["id"], "choice": "place", "place": far})
        assert isinstance(illegal, Rejected) and illegal.code == "not_in_contact", illegal
        assert abs(illegal.values["distance"] - 3.87) < 0.01 and illegal.values["limit"] == 0.05

        answer = await b.act({"type": "decide", "decision": pending["id"], "choice": "proposal"})
        assert isinstance(answer, Ack), answer
        await a.wait_seq(answer.seq)
        assert a.view.data["pending"] is None and a.view.data["units"]["rhino"]["destroyed"]
        placed = {mid: m["pos"] for mid, m in a.view.data["units"]["s"]["models"].items() if m["alive"]}
        assert placed == proposal

        # the delayed spectator (one event behind) sees the paused match
        await delayed.wait_seq(shot.seq)
        assert (
            delayed.view.data["seq"] == shot.seq
            and delayed.view.data["pending"]["kind"] == DECISION_EMERGENCY
        )

        at_shot = _get(server, f"/matches/{mid}/state?at={shot.seq}", tokens["a"])
        assert at_shot["view"]["pending"]["id"] == pending["id"]

        events = [
            decode_event(msgspec.json.encode(e))
            for e in _get(server, f"/matches/{mid}/events", tokens["a"])["events"]
        ]
        # The last event carries the h3 hash of the state before it (match/hashing.py).
        folded = fold_history(mid, events[:-1], lambda e: FixedDice(e.rolls) if e.rolls else NoDice())
        assert base_hash(folded) == events[-1].state_hash

        assert isinstance(await b.act({"type": "concede"}), Ack)
    report = _get(server, f"/matches/{mid}/dice", tokens["a"])
    assert report["ok"], report["failures"]
