"""``POST /matches/{id}/check`` answers exactly what acting would answer (docs/table.md): for a
table of legal and illegal 40k7 actions (40k7 Vehicles, Movement and Vehicles and Shooting; turn
sequence; decisions), check first, see that the stream, the state and the dice are untouched,
then act and compare the answers. Plus its measured facts, its access and its rate limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from msgspec.structs import replace

from hulldown.client import Client, create_match, get_events, get_state
from hulldown.wire import protocol
from tests.scenarios import duel, rhino

from ..server_process import ServerProcess

SHOOT = {"type": "shoot", "unit": "predator-1", "fire": [{"weapon": "lascannon", "target": "rhino-1"}]}
END = {"type": "end_phase"}

# (side, action): played in order; legal ones change the match for the next rows.
TABLE: list[tuple[str, dict[str, Any]]] = [
    ("b", END),  # not_your_turn
    ("a", {"type": "move", "unit": "rhino-1", "path": [[40.0, 20.0]]}),  # not_your_unit
    ("a", {"type": "move", "unit": "predator-1", "path": [[30.0, 24.0]]}),  # too far (20 in)
    ("a", {"type": "move", "unit": "predator-1", "path": [[2.0, 24.0]]}),  # hull off the table
    ("a", {"type": "move", "unit": "ghost", "path": [[12.0, 24.0]]}),  # unknown_unit
    ("a", SHOOT),  # wrong phase: movement
    ("a", {"type": "decide", "decision": "d1", "choice": "x"}),  # no decision pending
    ("a", {"type": "move", "unit": "predator-1", "path": [[12.0, 24.0], [14.0, 26.0]], "heading": 10.0}),
    ("a", {"type": "move", "unit": "predator-1", "path": [[15.0, 26.0]]}),  # already moved
    ("a", END),
    ("a", {"type": "shoot", "unit": "predator-1", "fire": [{"weapon": "nope", "target": "rhino-1"}]}),
    ("a", SHOOT),  # legal: rolls dice when acted, none when checked
    ("a", SHOOT),  # already shot
    ("a", {"type": "undo"}),  # the shot revealed dice: the undo is refused
    ("b", {"type": "takeback_request", "to_seq": 99}),
    ("a", {"type": "concede"}),
]


def _duel_that_outlasts_the_shot() -> Any:
    """The duel with a second side-B Rhino far off the Predator's line: the table's legal shot may
    destroy rhino-1 (its dice are the match's own), and the match must not end before the last
    rows (undo, takeback, concede) are played."""
    match = duel()
    spare = rhino("rhino-2", "b", 60, 44, 180)
    return replace(match, scenario=replace(match.scenario, units=(*match.scenario.units, spare)))


def _rejection_body(answer: protocol.Ack | protocol.Rejected) -> dict[str, Any]:
    assert isinstance(answer, protocol.Rejected)
    return {
        "code": answer.code,
        "rule": answer.rule,
        "message": answer.message,
        "values": dict(answer.values),
    }


async def _snapshot(server: ServerProcess, match_id: str) -> tuple[Any, ...]:
    state = await get_state(server.http, match_id)
    events = await get_events(server.http, match_id)
    return state["seq"], state["hash"], events


async def test_check_answers_what_act_answers_and_changes_nothing(server: ServerProcess) -> None:
    created = await create_match(server.http, _duel_that_outlasts_the_shot())
    match_id = created["match_id"]
    tokens = created["tokens"]
    url = f"{server.http}/matches/{match_id}/check"
    async with (
        httpx.AsyncClient(timeout=10) as http,
        Client(created["live_url"], token=tokens["a"]) as a,
        Client(created["live_url"], token=tokens["b"]) as b,
    ):
        players = {"a": a, "b": b}
        outcomes = []
        for i, (side, action) in enumerate(TABLE):
            before = await _snapshot(server, match_id)
            action_id = f"row-{i}"
            response = await http.post(
                url,
                json={"action": action, "action_id": action_id},
                headers={"authorization": f"Bearer {tokens[side]}"},
            )
            assert response.status_code == 200, response.text
            checked = response.json()
            assert checked["at"] == before[0]
            # Nothing appended, nothing folded, no die drawn: the stream and the state are as before.
            assert await _snapshot(server, match_id) == before
            answer = await players[side].act(action, action_id=action_id)
            if checked["ok"]:
                assert isinstance(answer, protocol.Ack), (i, action, answer)
                assert answer.seq == checked["seq"] and not answer.duplicate
                assert checked["rejected"] is None
            else:
                assert checked["rejected"] == _rejection_body(answer), (i, action)
                assert checked["seq"] is None
            outcomes.append(answer.code if isinstance(answer, protocol.Rejected) else "ok")
            await a.wait_seq((await get_state(server.http, match_id))["seq"])
        # The table covers both answers, with the codes its rows are there for.
        assert outcomes[:7] == [
            "not_your_turn",
            "not_your_unit",
            "too_far",
            "off_table",
            "unknown_unit",
            "wrong_phase",
            "no_decision_pending",
        ]
        assert outcomes[7] == "ok" and outcomes[9] == "ok" and outcomes[11] == "ok"
        assert outcomes[-1] == "ok"
        # A retry of an applied action is answered as acting would: a duplicate ack.
        retry = await http.post(
            url,
            json={"action": TABLE[7][1], "action_id": "row-7"},
            headers={"authorization": f"Bearer {tokens['a']}"},
        )
        body = retry.json()
        assert body["ok"] and body["duplicate"]
        again = await a.act(TABLE[7][1], action_id="row-7")
        assert isinstance(again, protocol.Ack) and again.duplicate and again.seq == body["seq"]
    # Every die in the log re-derives from the revealed seed at the seq of its event: the checks
    # drew none (a drawn die would have shifted nothing in the stream, but the shot's dice are
    # exactly those of its own seq).
    report = httpx.get(f"{server.http}/matches/{match_id}/dice", timeout=10).json()
    assert report["ok"] is True, report


async def test_check_reports_the_measured_facts(server: ServerProcess) -> None:
    created = await create_match(server.http, duel())
    match_id = created["match_id"]
    headers = {"authorization": f"Bearer {created['tokens']['a']}"}
    url = f"{server.http}/matches/{match_id}/check"
    async with httpx.AsyncClient(timeout=10) as http:
        # 40k7 Vehicles, Movement: 5 in is Combat Speed; 7 in Cruising; 13 in is over the 12 in.
        for x, band, ok in ((15.0, "combat", True), (17.0, "cruising", True), (23.0, "cruising", False)):
            move = {"type": "move", "unit": "predator-1", "path": [[x, 24.0]]}
            body = (await http.post(url, json={"action": move}, headers=headers)).json()
            facts = body["facts"]
            assert facts["distance"] == pytest.approx(x - 10.0)
            assert facts["allowance"] == 12.0 and facts["speed_band"] == band
            assert body["ok"] is ok
        too_far = body["rejected"]
        assert too_far["code"] == "too_far" and too_far["values"]["distance"] == pytest.approx(13.0)
        # A shot (checked in the Movement phase: rejected, but measured all the same). The Rhino
        # faces the Predator (heading 180): the front armour 11 is hit; nothing hides it.
        body = (await http.post(url, json={"action": SHOOT}, headers=headers)).json()
        assert body["rejected"]["code"] == "wrong_phase"
        (weapon,) = body["facts"]["weapons"]
        # 40k7 Vehicles and Shooting: range from the weapon (the turret at the hull's centre) to
        # the target's hull: 30 in between centres less the Rhino's half length of 2.25 in.
        assert weapon["distance"] == pytest.approx(30.0 - 2.25, abs=0.01)
        assert weapon["in_range"] and weapon["in_arc"] and weapon["visible"]
        assert (weapon["facing"], weapon["armour"], weapon["hidden_share"], weapon["obscured"]) == (
            "front",
            11,
            0.0,
            False,
        )


async def test_check_says_where_a_tank_shock_stops_short(server: ServerProcess) -> None:
    """40k7 Vehicles, Tanks: Tank Shock - the Tank stops 1" short of friendly models. A 12 in
    Tank Shock at side A's own Rhino (rear at x = 17.75) is legal but stops after 4.5 in, its
    centre at (14.5, 24): the facts say so (``stops_*``); a Tank Shock the other way does not
    stop short (the facts are null)."""
    match = duel()
    friend = rhino("rhino-a", "a", 20, 24)
    request = replace(match, scenario=replace(match.scenario, units=(*match.scenario.units, friend)))
    created = await create_match(server.http, request)
    headers = {"authorization": f"Bearer {created['tokens']['a']}"}
    url = f"{server.http}/matches/{created['match_id']}/check"
    async with httpx.AsyncClient(timeout=10) as http:
        move = {"type": "move", "unit": "predator-1", "path": [[22.0, 24.0]], "kind": "tank_shock"}
        body = (await http.post(url, json={"action": move}, headers=headers)).json()
        assert body["ok"] is True
        facts = body["facts"]
        assert facts["stops_at"] == pytest.approx([14.5, 24.0])
        assert facts["stops_after"] == pytest.approx(4.5)
        assert facts["stops_because"] == "Rhino, a friendly unit"
        back = {"type": "move", "unit": "predator-1", "path": [[10.0, 34.0]], "kind": "tank_shock"}
        facts = (await http.post(url, json={"action": back}, headers=headers)).json()["facts"]
        assert (facts["stops_at"], facts["stops_after"], facts["stops_because"]) == (None, None, None)


async def test_check_needs_a_side_token_and_a_good_body(server: ServerProcess) -> None:
    created = await create_match(server.http, duel())
    url = f"{server.http}/matches/{created['match_id']}/check"
    headers = {"authorization": f"Bearer {created['tokens']['a']}"}
    async with httpx.AsyncClient(timeout=10) as http:
        for bad in ({}, {"authorization": f"Bearer {created['spectator_token'] or 'nope'}"}):
            response = await http.post(url, json={"action": END}, headers=bad)
            assert response.status_code == 401 and response.json()["error"]["code"] == "unauthorised"
        response = await http.post(url, json={"action": {"type": "teleport"}}, headers=headers)
        assert response.status_code == 400 and "teleport" in response.json()["error"]["message"]
        response = await http.post(f"{server.http}/matches/nope/check", json={"action": END}, headers=headers)
        assert response.status_code == 404
        # 2 KB of nesting before the union's tag: a clear 422, not a 500 (the decoder's recursion)
        deep = b'{"action":{"unit":' + b"[" * 1000 + b"]" * 1000 + b',"type":"move"}}'
        response = await http.post(url, content=deep, headers=headers)
        assert response.status_code == 422 and response.json()["error"]["code"] == "too_deep"
    assert (await get_state(server.http, created["match_id"]))["seq"] == 1  # none of it changed the match


async def test_checks_are_rate_limited_like_actions(
    redis_url: str, key_prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The websocket's token bucket, per side: HULLDOWN_RATE per second, burst twice that. With
    a rate of 1, ten checks in a row exceed it (the burst is 2, and ten requests take far less
    than eight seconds); the other side's bucket is its own."""
    monkeypatch.setenv("HULLDOWN_RATE", "1")
    process = ServerProcess(redis_url=redis_url, prefix=key_prefix, log=tmp_path / "server.log")
    process.start()
    try:
        created = await create_match(process.http, duel())
        url = f"{process.http}/matches/{created['match_id']}/check"
        async with httpx.AsyncClient(timeout=10) as http:
            side_a = {"authorization": f"Bearer {created['tokens']['a']}"}
            answers = [await http.post(url, json={"action": END}, headers=side_a) for _ in range(10)]
            statuses = [r.status_code for r in answers]
            assert statuses[:2] == [200, 200] and 429 in statuses
            limited = answers[statuses.index(429)].json()["error"]
            assert limited == {"code": "rate_limited", "message": "more than 1 requests per second"}
            side_b = {"authorization": f"Bearer {created['tokens']['b']}"}
            assert (await http.post(url, json={"action": END}, headers=side_b)).status_code == 200
    finally:
        process.stop()
