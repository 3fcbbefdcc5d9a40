"""Leaks (docs/operations.md): tokens travel only in headers, first frames and URL fragments; one
sent in a query string anyway is refused and never appears in any log line the server writes -
nor in the shipped nginx access log format."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
import websockets

from hulldown.client import Client, get_state

from ..server_process import logging_server
from .helpers import END, MOVE, bearer, create, private_duel

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("log_format", ["text", "json"])
async def test_a_token_in_a_query_string_never_reaches_the_log(
    redis_url: str, key_prefix: str, tmp_path: Path, log_format: str
) -> None:
    log = tmp_path / "server.log"
    server = logging_server(redis_url, key_prefix, log, log_format)
    server.start()
    try:
        created = create(server.http, private_duel())
        match_id = created["match_id"]
        secrets = [created["spectator_token"], created["tokens"]["a"], created["tokens"]["b"]]
        base = f"{server.http}/matches/{match_id}"
        for path, name, token in (
            ("/state", "token", secrets[0]),
            ("/events", "spectator_token", secrets[0]),
            ("/index", "token", secrets[1]),
            ("", "token", secrets[2]),
        ):
            refused = httpx.get(f"{base}{path}", params={"from": "1", name: token}, timeout=10)
            assert refused.status_code == 400 and refused.json()["error"]["code"] == "token_in_query"
        # An old viewer link with the token in the query still serves the page (its script moves
        # the token into the fragment); the request line is scrubbed all the same.
        page = httpx.get(f"{base}/view", params={"spectator_token": secrets[0]}, timeout=10)
        assert page.status_code == 200
        assert httpx.get(f"{base}/state", headers=bearer(secrets[0]), timeout=10).status_code == 200
        assert (await get_state(server.http, match_id, token=secrets[1]))["seq"] == 1
        # A websocket opened with the token in its URL (the hello carries the real one).
        url = created["live_url"].replace("/live", f"/live?token={secrets[1]}")
        async with websockets.connect(url) as ws:
            await ws.send(json.dumps({"type": "hello", "token": secrets[1]}))
            assert json.loads(await ws.recv())["type"] == "welcome"
        async with Client(created["live_url"], token=secrets[1]) as player:
            await player.act(MOVE)
            await player.act(END)
    finally:
        server.stop()
    text = log.read_text()
    for secret in secrets:
        assert secret not in text
    assert len(re.findall(r"token=\[redacted\]", text)) >= 5  # the refused requests were logged, scrubbed
    assert f"/matches/{match_id}/state" in text  # the access log is there
    assert "act ack" in text  # and so is the action log


def test_the_shipped_nginx_access_log_leaves_out_query_strings() -> None:
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    formats = re.findall(r"log_format\s+(\w+)\s+((?:'[^']*'\s*)+);", conf)
    assert formats, "nginx.conf defines its own log_format"
    name, body = formats[0]
    assert "$uri" in body
    for leaky in ("$request ", '$request"', "$request_uri", "$args", "$query_string", "$arg_"):
        assert leaky not in body, leaky
    access = re.findall(r"access_log\s+(\S+)\s+(\w+)\s*;", conf)
    assert access and all(fmt == name for _, fmt in access)
