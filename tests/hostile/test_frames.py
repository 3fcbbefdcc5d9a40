"""Every frame gets an answer (docs/limits-and-outages.md): binary frames, JSON nested 5,000 deep,
frames over the limit (counted in bytes), malformed acts (their action_id comes back), bad match
ids - on the live and the replay socket, before and after the first message - and floods are
refused past the rate. Nothing is appended for any of them and the connection stays open."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hulldown.web.settings import Settings

from ..server_process import ServerProcess, server_with_env
from .frames import connect, create, events, hello, reply, still_open

MAX_FRAME = Settings().max_frame
DEEP = "[" * 5000 + "]" * 5000


async def test_live_socket_answers_every_hostile_frame_before_and_after_hello(server: ServerProcess) -> None:
    created = create(server)
    match_id, token = created["match_id"], created["tokens"]["a"]
    ws = await connect(f"{server.ws}/matches/{match_id}/live")
    try:
        # Before the hello: each frame gets its error, and the hello still works after them.
        await ws.send(b"\x00\x01binary")
        assert (await reply(ws))["code"] == "binary_frame"
        await ws.send(DEEP)
        assert (await reply(ws))["code"] == "bad_message"
        await ws.send("x" * (MAX_FRAME + 1))
        assert (await reply(ws))["code"] == "too_large"
        assert (await hello(ws, token))["type"] == "welcome"
        # After it.
        await ws.send(b"\xff" * 100)
        assert (await reply(ws))["code"] == "binary_frame"
        await ws.send('{"type":"act","action_id":"deep","action":' + '{"a":' * 5000 + "1" + "}" * 5000 + "}")
        answer = await reply(ws)  # nested too deeply, but its action_id is readable
        assert (answer["type"], answer["action_id"], answer["code"]) == ("rejected", "deep", "bad_action")
        await ws.send('{"type":"ping","nonce":' + DEEP + "}")
        assert (await reply(ws))["code"] == "bad_message"
        # Bytes, not characters: 3-byte characters under the limit in characters, over it in bytes.
        multibyte = json.dumps({"type": "ping", "nonce": "€" * (MAX_FRAME // 3 + 10)}, ensure_ascii=False)
        assert len(multibyte) < MAX_FRAME < len(multibyte.encode())
        await ws.send(multibyte)
        answer = await reply(ws)
        assert answer["code"] == "too_large" and f"> {MAX_FRAME}" in answer["message"]
        # Far over the limit (1 MiB, four times what used to close the connection with 1009).
        await ws.send("y" * (1 << 20))
        assert (await reply(ws))["code"] == "too_large"
        # A malformed act whose action_id can be read gets exactly one rejected, with its id.
        bad_act = {"type": "act", "action_id": "broken-1", "action": {"type": "move", "unit": 7}}
        await ws.send(json.dumps(bad_act))
        answer = await reply(ws)
        assert answer["type"] == "rejected" and answer["action_id"] == "broken-1"
        assert answer["code"] == "bad_action" and "$.action.unit" in answer["message"]
        await ws.send(json.dumps({"type": "act", "action_id": "broken-2", "action": {"type": "fly"}}))
        answer = await reply(ws)
        assert (answer["type"], answer["action_id"], answer["code"]) == ("rejected", "broken-2", "bad_action")
        await ws.send(json.dumps({"type": "act", "action_id": 5, "action": {}}))
        assert (await reply(ws))["code"] == "bad_message"  # no readable action_id: an error
        assert await still_open(ws)
    finally:
        await ws.close()
    assert [e["seq"] for e in events(server, match_id, token)] == [1]  # nothing appended


async def test_replay_socket_answers_binary_deep_and_oversize_frames(server: ServerProcess) -> None:
    created = create(server)
    ws = await connect(f"{server.ws}/matches/{created['match_id']}/replay")
    try:
        await ws.send(b"\x00")
        assert (await reply(ws))["code"] == "binary_frame"
        await ws.send(DEEP)
        assert (await reply(ws))["code"] == "bad_message"
        await ws.send(json.dumps({"type": "replay_open", "from_seq": 1}))
        assert (await reply(ws))["type"] == "replay_state"
        await ws.send(b"\x00" * 10)
        assert (await reply(ws))["code"] == "binary_frame"
        await ws.send("z" * (1 << 20))
        assert (await reply(ws))["code"] == "too_large"
        await ws.send('{"type":"replay_step","count":' + DEEP + "}")
        assert (await reply(ws))["code"] == "bad_message"
        await ws.send(json.dumps({"type": "ping", "nonce": "r"}))
        assert await reply(ws) == {"type": "pong", "nonce": "r"}
    finally:
        await ws.close()


async def test_replay_socket_frames_are_rate_limited_like_the_live_sockets(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """HULLDOWN_RATE per second, burst twice that, per replay connection as per live one: a seek
    or a step folds and diffs states on the event loop, and the replay socket took any number of
    them. With a rate of 1, ten seeks in a row exceed it (the burst is 2, and ten frames take far
    less than eight seconds); each frame still gets one answer and the connection stays open."""
    with server_with_env(redis_url, key_prefix, tmp_path, {"HULLDOWN_RATE": "1"}) as process:
        created = create(process)
        ws = await connect(f"{process.ws}/matches/{created['match_id']}/replay")
        try:
            await ws.send(json.dumps({"type": "replay_open", "from_seq": 1}))
            assert (await reply(ws))["type"] == "replay_state"
            for _ in range(10):
                await ws.send(json.dumps({"type": "replay_seek", "seq": 1}))
            answers = [await reply(ws) for _ in range(10)]
            kinds = [a["type"] if a["type"] != "error" else a["code"] for a in answers]
            assert kinds[:1] == ["replay_state"] and set(kinds) == {"replay_state", "rate_limited"}
            assert kinds.count("replay_state") <= 3  # the burst, and at most what refilled meanwhile
            limited = answers[kinds.index("rate_limited")]
            assert limited["message"] == "more than 1 messages per second" and not limited["fatal"]
        finally:
            await ws.close()


async def test_live_socket_acts_are_rate_limited_and_the_match_carries_on(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """HULLDOWN_RATE per second, burst twice that, per live connection (docs/limits-and-outages.md):
    with a rate of 1, ten acts in one write exceed it. Every act gets one answer - an ack, or a
    ``rate_limited`` error that is not fatal - nothing is appended for a refused one, and once
    the bucket refilled the connection acts again."""
    with server_with_env(redis_url, key_prefix, tmp_path, {"HULLDOWN_RATE": "1"}) as process:
        created = create(process)
        match_id, token = created["match_id"], created["tokens"]["a"]
        ws = await connect(f"{process.ws}/matches/{match_id}/live")
        try:
            assert (await hello(ws, token))["type"] == "welcome"
            before = len(events(process, match_id, token))
            acts = [
                {"type": "act", "action_id": f"flood-{i}", "action": {"type": "end_phase"}} for i in range(10)
            ]
            for act in acts:
                await ws.send(json.dumps(act))
            answers = [await reply(ws) for _ in acts]
            kinds = [a["type"] if a["type"] != "error" else a["code"] for a in answers]
            assert set(kinds) == {"ack", "rate_limited"}, kinds
            assert 1 <= kinds.count("ack") <= 3  # the burst, and at most what refilled meanwhile
            limited = answers[kinds.index("rate_limited")]
            assert limited["message"] == "more than 1 messages per second" and not limited["fatal"]
            appended = events(process, match_id, token)[before:]
            assert [e["action_id"] for e in appended] == [
                a["action_id"] for a in answers if a["type"] == "ack"
            ]

            await asyncio.sleep(2.2)  # the bucket refills (two tokens)
            await ws.send(
                json.dumps({"type": "act", "action_id": "after-the-flood", "action": {"type": "end_phase"}})
            )
            answer = await reply(ws)
            assert answer["type"] == "ack" and answer["action_id"] == "after-the-flood"
        finally:
            await ws.close()


BAD_IDS = ["has space", "br{ace", "br}ace", "x" * 201]
ROUTES = ["", "/state", "/events", "/log", "/dice", "/arcs?unit=u&weapon=w", "/view"]


@pytest.mark.parametrize("bad_id", BAD_IDS, ids=["space", "open-brace", "close-brace", "201-chars"])
async def test_bad_match_ids_answer_400_on_every_route_and_an_error_frame_on_sockets(
    server: ServerProcess, bad_id: str
) -> None:
    quoted = httpx.URL(f"{server.http}/matches/").join(bad_id.replace(" ", "%20")).raw_path.decode()
    for route in ROUTES:
        response = httpx.get(f"{server.http}{quoted}{route}", timeout=10)
        assert response.status_code == 400, (route, response.status_code, response.text)
        assert response.json()["error"]["code"] == "bad_match_id"
    for feed in ("live", "replay"):
        ws = await connect(f"{server.ws}{quoted}/{feed}")
        answer = await reply(ws)
        assert answer["type"] == "error" and answer["code"] == "bad_match_id" and answer["fatal"] is True
        await ws.wait_closed()
        assert ws.close_code == 4400


async def test_unknown_routes_answer_json(server: ServerProcess) -> None:
    response = httpx.get(f"{server.http}/no-such-route", timeout=10)
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    response = httpx.delete(f"{server.http}/matches", timeout=10)
    assert response.status_code == 405 and response.json()["error"]["code"] == "method_not_allowed"


def declared_too_large(server: ServerProcess, path: str, headers: bytes = b"") -> str:
    """POST ``path`` declaring 100 MB and sending 1 KB of it: the answer, which must come on the
    Content-Length alone (the socket times out after 10 s if the server waits for the body)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        raw.sendall(
            b"POST "
            + path.encode()
            + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + headers
            + b"Content-Length: 100000000\r\n\r\n"
            + b" " * 1024
        )
        received = b""
        while b'"too_large"' not in received:  # the status line and the JSON body may come apart
            chunk = raw.recv(65536)
            if not chunk:
                break
            received += chunk
    return received.decode()


async def test_post_matches_refuses_a_big_body_before_reading_it(server: ServerProcess) -> None:
    # Declared too large: refused on the Content-Length alone, after 1 KB of the 100 MB.
    head = declared_too_large(server, "/matches")
    assert head.startswith("HTTP/1.1 413"), head
    assert '"too_large"' in head

    # Streamed without a length (chunked): refused once more than the limit has arrived.
    def chunks() -> Iterator[bytes]:
        for _ in range(200):
            yield b" " * 65536

    response = httpx.post(f"{server.http}/matches", content=chunks(), timeout=30)
    assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"
    # A normal body still works.
    assert create(server)["match_id"]


@pytest.mark.parametrize("tool", ["check", "odds"])
async def test_player_tools_refuse_a_big_body_before_reading_it(server: ServerProcess, tool: str) -> None:
    """/check and /odds take a side token and a small body: a body declared far over their limit
    is refused on its Content-Length, before the server reads (and holds) any of it."""
    created = create(server)
    bearer = f"Authorization: Bearer {created['tokens']['a']}\r\n".encode()
    head = declared_too_large(server, f"/matches/{created['match_id']}/{tool}", bearer)
    assert head.startswith("HTTP/1.1 413"), head
    assert '"too_large"' in head and "100000000 bytes" in head

    # Streamed without a length: refused once more than the limit has arrived.
    def chunks() -> Iterator[bytes]:
        for _ in range(40):
            yield b" " * 65536

    response = httpx.post(
        f"{server.http}/matches/{created['match_id']}/{tool}",
        content=chunks(),
        headers={"authorization": f"Bearer {created['tokens']['a']}"},
        timeout=30,
    )
    assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"


async def test_a_lone_surrogate_escape_is_named_not_called_truncated(server: ServerProcess) -> None:
    """RFC 8259 section 7: a character outside the Basic Multilingual Plane is escaped as a
    surrogate pair. A high surrogate escape with no low one after it is malformed JSON; the
    decoder called it "Input data was truncated", though nothing was cut off. A frame and a
    match definition holding one are told what is wrong; a well-formed pair still decodes."""
    created = create(server)
    match_id, token = created["match_id"], created["tokens"]["a"]
    ws = await connect(f"{server.ws}/matches/{match_id}/live")
    try:
        assert (await hello(ws, token))["type"] == "welcome"
        await ws.send('{"type":"ping","nonce":"\\ud800x"}')
        answer = await reply(ws)
        assert answer["code"] == "bad_message" and "surrogate" in answer["message"]
        assert "truncated" not in answer["message"]
        await ws.send('{"type":"act","action_id":"lone","action":{"type":"end_phase","nonce":"\\uD83D"}}')
        answer = await reply(ws)  # not JSON at all: no action_id can be read from it
        assert answer["code"] == "bad_message" and "surrogate" in answer["message"]
        await ws.send('{"type":"ping","nonce":"\\ud83d\\ude00"}')  # a pair: an emoji
        assert (await reply(ws))["type"] == "pong"
        await ws.send('{"type":"ping","nonce":"cut')  # a frame really cut off is still called so
        assert "truncated" in (await reply(ws))["message"]
    finally:
        await ws.close()
    body = (
        (Path(__file__).parents[2] / "examples" / "duel-40k7.json")
        .read_text()
        .replace('"name": "', '"name": "\\ud800', 1)
    )
    answer = httpx.post(f"{server.http}/matches", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 400 and "surrogate" in answer.json()["error"]["message"]
