"""What the HTTP routes answer to inputs a client gets wrong (client-protocol/SPEC.md sections 4
and 6.1): a number no float can hold is named by its path, and a token in the query string is
refused on every route that takes one - the players' tools (/check, /options, /odds) as much as
the reads. On a real server."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from ..server_process import ServerProcess
from .frames import create

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "duel-40k7.json"


@pytest.mark.parametrize(
    ("written", "instead", "path"),
    [
        ('"width": 72', '"width": 1e999', "scenario.battlefield.width"),
        ('"pos": [10, 24]', '"pos": [-1e400, 24]', "scenario.units[0].models[0].pos[0]"),
        ('"range": 48', '"range": 1' + "0" * 400 + ".5", "scenario.units[0].weapons[0].range"),
    ],
    ids=["exponent", "negative-in-a-list", "long-decimal"],
)
def test_a_number_out_of_a_floats_range_is_named_by_its_path(
    server: ServerProcess, written: str, instead: str, path: str
) -> None:
    """RFC 8259 puts no bound on a number; a float holds at most about 1.8e308. A larger one was
    answered "not JSON: Number out of range - at `$[...][...][...]`": called not JSON, and no path
    a client could follow. It is now a problem of the definition, with its path, as the same
    number written as an integer is."""
    body = EXAMPLE.read_text().replace(written, instead, 1)
    assert instead in body
    response = httpx.post(f"{server.http}/matches", content=body, timeout=10)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "bad_request"
    assert "not JSON" not in error["message"] and "[...]" not in error["message"]
    assert error["message"].startswith(f"{path}: ")
    assert error["problems"][0]["path"] == path
    assert "finite number" in error["problems"][0]["message"]


async def test_the_players_tools_refuse_a_token_in_the_query(server: ServerProcess) -> None:
    """SPEC section 4: a request with ``?token=`` or ``?spectator_token=`` is refused with 400
    ``token_in_query``. /check, /options and /odds - the routes that take a side's token, the
    one that can act - answered 200 to it when the header carried the token too, so the client
    was never told."""
    created = create(server)
    match_id, token = created["match_id"], created["tokens"]["a"]
    headers = {"authorization": f"Bearer {token}"}
    body = {"action": {"type": "end_phase"}}
    with httpx.Client(base_url=server.http, headers=headers, timeout=30) as http:
        for name in ("token", "spectator_token"):
            answers = [
                http.post(f"/matches/{match_id}/check", params={name: token}, json=body),
                http.get(f"/matches/{match_id}/options", params={"unit": "predator-1", name: token}),
                http.post(f"/matches/{match_id}/odds", params={name: token}, json=body),
            ]
            for answer in answers:
                assert answer.status_code == 400, (answer.request.url.path, name, answer.text)
                assert answer.json()["error"]["code"] == "token_in_query"
        # With the token in the header only, each still answers.
        assert http.post(f"/matches/{match_id}/check", json=body).status_code == 200
        assert http.get(f"/matches/{match_id}/options", params={"unit": "predator-1"}).status_code == 200
        assert http.post(f"/matches/{match_id}/odds", json=body).status_code == 200


def test_match_creation_is_rate_limited_per_client(redis_url: str, key_prefix: str, tmp_path: Path) -> None:
    """docs/limits-and-outages.md, "Match creation": HULLDOWN_CREATE_RATE requests a minute per
    client address in a one-minute window; then 429 ``rate_limited`` with Retry-After, and nothing
    is created. Before, one client could create matches without end. Refused definitions count too
    (checking one is work); another address has a count of its own (tests/hostile/
    test_create_limit.py: the same count across processes)."""
    rate = 3
    server = ServerProcess(
        redis_url=redis_url,
        prefix=key_prefix,
        log=tmp_path / "server.log",
        env={"HULLDOWN_CREATE_RATE": str(rate)},
    )
    server.start()
    try:
        body = EXAMPLE.read_bytes()
        with httpx.Client(timeout=10) as client:
            assert client.post(f"{server.http}/matches", content=b"{").status_code == 400  # counts
            created = [client.post(f"{server.http}/matches", content=body) for _ in range(rate - 1)]
            assert [r.status_code for r in created] == [201] * (rate - 1)
            refused = client.post(f"{server.http}/matches", content=body)
            listed = client.get(f"{server.http}/matches", params={"limit": 100}).json()["matches"]
            # uvicorn takes the address from X-Forwarded-For when the peer is trusted (127.0.0.1 by
            # default): a second client behind a proxy.
            other = client.post(
                f"{server.http}/matches", content=body, headers={"X-Forwarded-For": "192.0.2.7"}
            )
    finally:
        server.stop()
    assert refused.status_code == 429, refused.text
    error = refused.json()["error"]
    assert error["code"] == "rate_limited" and "docs/limits-and-outages.md" in error["message"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 60  # the window closes a minute after it opened
    assert len(listed) == rate - 1  # the refused request created nothing
    assert other.status_code == 201, other.text
