"""The operator's view (docs/operations.md): ``--log-format json`` writes one JSON object per line,
with the action log's fields and no token; the scrubber redacts every form a token takes."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest

from hulldown.cli.logging_setup import ScrubbingTextFormatter, scrub
from hulldown.client import Client
from hulldown.wire import protocol

from ..server_process import logging_server
from .helpers import END, MOVE, create

SECRET = "s3cr3t-T0ken_value"


@pytest.mark.parametrize(
    ("line", "scrubbed"),
    [
        (f"GET /m/x/state?token={SECRET}&at=2 400", "GET /m/x/state?token=[redacted]&at=2 400"),
        (
            f'"WebSocket /m/x/live?spectator_token={SECRET}" [accepted]',
            '"WebSocket /m/x/live?spectator_token=[redacted]" [accepted]',
        ),
        (f"/m/x/view?at=1&TOKEN={SECRET}", "/m/x/view?at=1&TOKEN=[redacted]"),
        (f"Authorization: Bearer {SECRET}", "Authorization: Bearer [redacted]"),
        (f"next=%2Fm%3Ftoken%3D{SECRET}%26a", "next=%2Fm%3Ftoken%3D[redacted]%26a"),
        ('{"path": "/m?token=abc\\" x"}', '{"path": "/m?token=[redacted]\\" x"}'),
        ("a token=", "a token=[redacted]"),
        ("mytoken=keep-this", "mytoken=keep-this"),
    ],
)
def test_scrub_redacts_every_token_form(line: str, scrubbed: str) -> None:
    assert scrub(line) == scrubbed


async def test_json_log_lines_parse_and_carry_the_action_fields(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    server = logging_server(redis_url, key_prefix, log)
    server.start()
    try:
        created = create(server.http)
        tokens = created["tokens"]
        async with (
            Client(created["live_url"], token=tokens["a"]) as a,
            Client(created["live_url"], token=tokens["b"]) as b,
        ):
            moved = await a.act(MOVE)
            assert isinstance(moved, protocol.Ack)
            refused = await b.act(END)
            assert isinstance(refused, protocol.Rejected) and refused.code == "not_your_turn"
        httpx.get(
            f"{server.http}/matches/{created['match_id']}/state", params={"token": tokens["a"]}, timeout=10
        )
    finally:
        server.stop()
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"ts", "level", "logger", "event"} <= entry.keys() for entry in entries)
    acts = [e for e in entries if e["logger"] == "hulldown.actions"]
    ack = next(e for e in acts if e["code"] == "ack")
    assert ack["match_id"] == created["match_id"] and ack["seq"] == moved.seq
    assert ack["side"] == "a" and ack["action"] == "move" and ack["duration_ms"] > 0
    rejected = next(e for e in acts if e["code"] == "not_your_turn")
    assert rejected["side"] == "b" and rejected["action"] == "end_phase" and rejected["rule"]
    access = [e for e in entries if e["logger"] == "hulldown.access"]
    create_line = next(e for e in access if e["method"] == "POST")
    assert (
        create_line["path"] == "/matches" and create_line["status"] == 201 and create_line["duration_ms"] > 0
    )
    refused_line = next(e for e in access if e["status"] == 400)
    assert refused_line["path"].endswith("?token=[redacted]")
    text = log.read_text()
    assert tokens["a"] not in text and tokens["b"] not in text


def test_the_text_access_line_carries_the_client_and_duration() -> None:
    """docs/operations.md, Logs: the access log's fields are in both formats; the text line left
    out the client and the duration (its message gives the method, path and status)."""
    record = logging.LogRecord(
        "hulldown.access", logging.INFO, __file__, 1, "%s %s %d", ("GET", "/healthz", 200), None
    )
    for name, value in {
        "method": "GET",
        "path": "/healthz",
        "status": 200,
        "client": "10.0.0.7:51234",
        "duration_ms": 0.42,
    }.items():
        setattr(record, name, value)
    line = ScrubbingTextFormatter().format(record)
    assert line.endswith("hulldown.access: GET /healthz 200 client=10.0.0.7:51234 duration_ms=0.42"), line
