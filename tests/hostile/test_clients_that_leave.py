"""Clients that leave without saying so (docs/limits-and-outages.md): a websocket dropped without
a close frame (a killed browser tab, a lost network) and an HTTP body cut off before its declared
length are ordinary events, not errors - no traceback in the server's log, no 500 - and a query
parameter takes digits 0-9 only. On a real server, its log read afterwards."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import httpx

from ..server_process import ServerProcess
from .frames import connect, create, reply

CUT_BODIES = ("/matches", "/matches/{match_id}/check", "/matches/{match_id}/odds", "/rosters")


def _cut_body(port: int, path: str, token: str) -> None:
    """Headers declaring 5,000 bytes, 100 of them sent, then the connection closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        raw.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {token}\r\nContent-Length: 5000\r\n\r\n".encode()
            + b"{" * 100
        )


async def test_clients_that_leave_leave_no_traceback(tmp_path: Path, redis_url: str, key_prefix: str) -> None:
    log = tmp_path / "server.log"
    server = ServerProcess(redis_url=redis_url, prefix=key_prefix, log=log)
    server.start()
    try:
        created = create(server)
        match_id, token = created["match_id"], created["tokens"]["a"]
        url = f"{server.ws}/matches/{match_id}/live"
        for hello in ({"type": "hello", "token": token}, {"type": "hello", "spectator": True}):
            for _ in range(3):
                ws = await connect(url)
                await ws.send(json.dumps(hello))
                assert (await reply(ws))["type"] == "welcome"
                ws.transport.abort()  # gone, without a close frame
        for path in CUT_BODIES:
            _cut_body(server.port, path.format(match_id=match_id), token)
        await asyncio.sleep(1.0)  # the server notices the sockets are gone
        with httpx.Client(base_url=server.http, timeout=10) as http:
            summary = http.get(f"/matches/{match_id}").json()
            assert summary["players_connected"] == 0 and summary["spectators"] == 0
            headers = {"authorization": f"Bearer {token}"}
            for odd in ("1_0", "٣", " 1 ", "+1", "1e3", "-1"):
                answer = http.get(f"/matches/{match_id}/events", params={"from": odd}, headers=headers)
                assert answer.status_code == 400, (odd, answer.text)
                assert answer.json()["error"]["code"] == "bad_parameter"
            assert (
                http.get(f"/matches/{match_id}/events", params={"from": "0"}, headers=headers).status_code
                == 200
            )
    finally:
        server.stop()
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-4000:]
    assert '" 500' not in text, text[-4000:]
