"""``POST /matches/{id}/odds`` on a real server (docs/odds.md): side tokens in the Authorization
header only, the rejection of an illegal action, the same answer for two matches that differ
only in their dice seed, and the match left untouched."""

from __future__ import annotations

from typing import Any

import httpx
import msgspec

from hulldown.odds import OddsAnswer
from hulldown.web import openapi
from tests.live.wsclient import RawClient
from tests.scenarios import duel

from ..server_process import ServerProcess

SHOOT = {"type": "shoot", "unit": "predator-1", "fire": [{"weapon": "lascannon", "target": "rhino-1"}]}


def _create(server: ServerProcess) -> dict[str, Any]:
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(duel()), timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def _odds(
    server: ServerProcess, created: dict[str, Any], body: dict[str, Any], token: str | None
) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    response = httpx.post(
        f"{server.http}/matches/{created['match_id']}/odds", json=body, headers=headers, timeout=30
    )
    documented = openapi.openapi_document()["paths"]["/matches/{match_id}/odds"]["post"]["responses"]
    assert str(response.status_code) in documented, response.status_code
    return response


async def _to_shooting(server: ServerProcess, created: dict[str, Any]) -> None:
    url = f"{server.ws}/matches/{created['match_id']}/live"
    a = await RawClient.connect(url, {"token": created["tokens"]["a"]})
    assert (await a.act({"type": "end_phase"}, "e1"))["type"] == "ack"
    await a.close()


async def test_odds_over_http(server: ServerProcess) -> None:
    first, second = _create(server), _create(server)
    # Before the Shooting phase the shot is illegal: the rejection validation gives (422).
    early = _odds(server, first, {"action": SHOOT}, first["tokens"]["a"])
    assert early.status_code == 422
    assert early.json()["error"]["code"] == "wrong_phase"
    await _to_shooting(server, first)
    await _to_shooting(server, second)
    answers = []
    for created in (first, second):
        response = _odds(server, created, {"action": SHOOT}, created["tokens"]["a"])
        assert response.status_code == 200, response.text
        answers.append(response.json())
        sampled = _odds(
            server, created, {"action": SHOOT, "method": "sampled", "samples": 500}, created["tokens"]["a"]
        )
        assert sampled.status_code == 200
        answers.append(sampled.json())
    # Two matches with different secret seeds: the very same odds (never the match's dice).
    assert answers[0] == answers[2] and answers[1] == answers[3]
    exact = msgspec.convert(answers[0], OddsAnswer, strict=True)
    assert exact.method == "exact" and exact.samples == 0
    rhino = next(u for u in exact.units if u.unit == "rhino-1")
    assert 0 < rhino.penetrating.p < 1 if rhino.penetrating else False
    assert exact.summary[0].startswith("Lascannon -> Rhino, front AV11")
    sampled_answer = msgspec.convert(answers[1], OddsAnswer, strict=True)
    assert sampled_answer.method == "sampled" and sampled_answer.samples == 500
    assert all(
        p.se > 0 for p in (next(u for u in sampled_answer.units if u.unit == "rhino-1").final.values())
    )
    # Asking changes nothing: the match is still at seq 2.
    state = httpx.get(
        f"{server.http}/matches/{first['match_id']}/state",
        headers={"authorization": f"Bearer {first['tokens']['a']}"},
        timeout=10,
    ).json()
    assert state["seq"] == 2


async def test_odds_needs_a_side_token_in_the_header_and_a_strict_body(server: ServerProcess) -> None:
    created = _create(server)
    missing = _odds(server, created, {"action": SHOOT}, None)
    assert missing.status_code == 401 and missing.json()["error"]["code"] == "side_token_required"
    # A token in the query string is not accepted here: refused as on every route (SPEC section 4).
    query = httpx.post(
        f"{server.http}/matches/{created['match_id']}/odds",
        params={"token": created["tokens"]["a"]},
        json={"action": SHOOT},
        timeout=10,
    )
    assert query.status_code == 400 and query.json()["error"]["code"] == "token_in_query"
    wrong = _odds(server, created, {"action": SHOOT}, "not-a-token")
    assert wrong.status_code == 403
    unknown_field = _odds(server, created, {"action": SHOOT, "colour": "red"}, created["tokens"]["a"])
    assert unknown_field.status_code == 400
    assert "colour" in unknown_field.json()["error"]["message"]
    bad_action = _odds(server, created, {"action": {"type": "shoot", "unit": 3}}, created["tokens"]["a"])
    assert bad_action.status_code == 400 and "$.action" in bad_action.json()["error"]["message"]
    bad_samples = _odds(server, created, {"action": SHOOT, "samples": 0}, created["tokens"]["a"])
    assert bad_samples.status_code == 400 and "samples" in bad_samples.json()["error"]["message"]
    undo = _odds(server, created, {"action": {"type": "undo"}}, created["tokens"]["a"])
    assert undo.status_code == 422 and undo.json()["error"]["code"] == "odds_not_applicable"
    nobody = httpx.post(f"{server.http}/matches/nope/odds", json={"action": SHOOT}, timeout=10)
    assert nobody.status_code == 404
    # 2 KB of nesting before the union's tag: a clear 422, not a 500 (the decoder's recursion)
    deep = httpx.post(
        f"{server.http}/matches/{created['match_id']}/odds",
        content=b'{"action":{"unit":' + b"[" * 1000 + b"]" * 1000 + b',"type":"shoot"}}',
        headers={"authorization": f"Bearer {created['tokens']['a']}"},
        timeout=10,
    )
    assert deep.status_code == 422 and deep.json()["error"]["code"] == "too_deep"
