"""Leaks (docs/operations.md): a private match is never listed and its summary needs its token."""

from __future__ import annotations

import httpx

from ..server_process import ServerProcess
from .helpers import bearer, create, private_duel


def test_private_match_is_not_listed_and_its_summary_needs_a_token(server: ServerProcess) -> None:
    public = create(server.http)
    private = create(server.http, private_duel())
    secret = private["spectator_token"]
    assert secret

    listed = httpx.get(f"{server.http}/matches", timeout=10).json()
    ids = [m["match_id"] for m in listed["matches"]]
    assert public["match_id"] in ids and private["match_id"] not in ids
    for status in ("live", "ended"):
        page = httpx.get(f"{server.http}/matches", params={"status": status}, timeout=10).json()
        assert private["match_id"] not in [m["match_id"] for m in page["matches"]]

    url = f"{server.http}/matches/{private['match_id']}"
    anonymous = httpx.get(url, timeout=10)
    assert anonymous.status_code == 403
    assert anonymous.json() == {
        "error": {
            "code": "spectator_token_required",
            "message": "this match is private: pass its spectator token (Authorization: Bearer <token>)",
        }
    }
    assert httpx.get(url, headers=bearer("not-the-token"), timeout=10).status_code == 403
    for token in (secret, private["tokens"]["a"], private["tokens"]["b"]):
        summary = httpx.get(url, headers=bearer(token), timeout=10)
        assert summary.status_code == 200 and summary.json()["match_id"] == private["match_id"]
        assert summary.json()["seq"] == 1
    in_query = httpx.get(url, params={"token": secret}, timeout=10)
    assert in_query.status_code == 400 and in_query.json()["error"]["code"] == "token_in_query"

    assert httpx.get(f"{server.http}/matches/{public['match_id']}", timeout=10).status_code == 200
    assert httpx.get(f"{server.http}/matches/nosuchmatch", timeout=10).status_code == 404
