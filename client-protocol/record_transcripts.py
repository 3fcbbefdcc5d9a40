#!/usr/bin/env python3
"""Record example transcripts of the protocol from a real server.

    python client-protocol/record_transcripts.py [--out client-protocol/transcripts]

Starts ``hulldown serve`` on a free port with an embedded Redis in a temporary directory, then
plays two scripted sessions with raw websocket clients and writes every frame, in the order the
script sent or read it, as JSON Lines:

- ``match.jsonl``: one full short match (turn limit 1): create, two players and a spectator
  connect, a rejection, a protocol error, move / shoot / end phases, the match end and the seed
  reveal;
- ``reconnect.jsonl``: a player whose connection drops before an ack arrives reconnects with
  ``hello {resume_from}``, receives the patch it missed and retries the same ``action_id``
  (``ack {duplicate: true}``); a spectator notices a gap and sends ``resume``.

Every line is one of ``{"i", "note"}``, ``{"i", "http", "request", "status", "response"}`` or
``{"i", "conn", "dir": "send" | "recv", "frame"}``. The side tokens are replaced by
``<token-a>`` and ``<token-b>``; everything else is as sent, so the dice of the match transcript
can be checked against the seed revealed at its end (docs/architecture.md section 8). The dice differ from
run to run; a run whose dice end a match before its script does is recorded again.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

import websockets  # noqa: E402
from websockets.asyncio.client import ClientConnection  # noqa: E402

Frame = dict[str, Any]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """``hulldown serve`` with its own embedded Redis under a temporary data directory."""

    def __init__(self, data_dir: Path) -> None:
        self.port = free_port()
        self.data_dir = data_dir
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env["PYTHONPATH"] = str(ROOT / "server") + os.pathsep + env.get("PYTHONPATH", "")
        args = [sys.executable, "-m", "hulldown.cli", "serve", "--port", str(self.port)]
        args += ["--data-dir", str(self.data_dir), "--log-level", "warning"]
        self.process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.http}/healthz", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)


class Transcript:
    """The lines of one transcript, with secrets replaced when written."""

    def __init__(self, name: str, about: str) -> None:
        self.name = name
        self.lines: list[dict[str, Any]] = [{"transcript": name, "protocol": 1, "about": about}]
        self.secrets: dict[str, str] = {}

    def add(self, line: dict[str, Any]) -> None:
        self.lines.append({"i": len(self.lines), **line})

    def note(self, text: str) -> None:
        self.add({"note": text})

    def hide(self, value: str | None, placeholder: str) -> None:
        if value:
            self.secrets[value] = placeholder

    def text(self) -> str:
        out = []
        for line in self.lines:
            encoded = json.dumps(line, ensure_ascii=False)
            for secret, placeholder in self.secrets.items():
                encoded = encoded.replace(secret, placeholder)
            out.append(encoded)
        return "\n".join(out) + "\n"


def http(transcript: Transcript, method: str, url: str, base: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + url, data=data, method=method)
    if data is not None:
        request.add_header("content-type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        status, payload = response.status, json.loads(response.read())
    transcript.add({"http": f"{method} {url}", "request": body, "status": status, "response": payload})
    return payload


class Restart(Exception):
    """The dice ended the match before the script did: record this transcript again."""


class Conn:
    """A raw websocket whose every sent and read frame goes into the transcript."""

    def __init__(self, transcript: Transcript, name: str, ws: ClientConnection) -> None:
        self.transcript = transcript
        self.name = name
        self.ws = ws
        self.seq = 0

    @classmethod
    async def open(cls, transcript: Transcript, name: str, url: str) -> Conn:
        return cls(transcript, name, await websockets.connect(url))

    async def send(self, frame: Frame) -> None:
        self.transcript.add({"conn": self.name, "dir": "send", "frame": frame})
        await self.ws.send(json.dumps(frame))

    async def recv(self, note: str | None = None) -> Frame:
        frame: Frame = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
        line: dict[str, Any] = {"conn": self.name, "dir": "recv", "frame": frame}
        if note:
            line["note"] = note
        self.transcript.add(line)
        if frame["type"] in ("welcome", "resync") or (
            frame["type"] == "patch" and frame["seq"] == self.seq + 1
        ):
            self.seq = frame["seq"]
        return frame

    async def until(self, predicate: Callable[[Frame], bool]) -> Frame:
        while True:
            frame = await self.recv()
            if predicate(frame):
                return frame

    async def act(self, action: Frame, action_id: str) -> Frame:
        await self.send({"type": "act", "action_id": action_id, "action": action})
        return await self.until(lambda f: f.get("action_id") == action_id)

    async def ack(self, action: Frame, action_id: str) -> Frame:
        """An action the script needs applied: a rejection means the match ended early."""
        reply = await self.act(action, action_id)
        if reply["type"] != "ack":
            raise Restart(f"{action_id}: {reply}")
        return reply

    async def catch_up(self, seq: int) -> None:
        while self.seq < seq:
            await self.recv()

    async def close(self) -> None:
        await self.ws.close()


MOVE_A = {"type": "move", "unit": "predator-1", "path": [[14.0, 24.0]], "heading": 0.0}
MOVE_B = {"type": "move", "unit": "rhino-1", "path": [[37.0, 24.0]], "heading": 180.0}
SHOOT = {"type": "shoot", "unit": "predator-1", "fire": [{"weapon": "lascannon", "target": "rhino-1"}]}
END = {"type": "end_phase"}


def scenario(turn_limit: int) -> dict[str, Any]:
    """A Predator (side a) and a Rhino (side b) on an empty 72 x 48 table."""

    def vehicle(
        uid: str, side: str, name: str, x: float, heading: float, armour: list[int]
    ) -> dict[str, Any]:
        model = f"{uid}-m"
        weapons = {}
        if uid.startswith("predator"):
            weapons["lascannon"] = {
                "id": "lascannon", "name": "Lascannon", "model": model, "range": 48, "strength": 9,
                "ap": 2, "type": "heavy", "mount": {"kind": "turret"},
            }  # fmt: skip
        return {
            "id": uid, "side": side, "name": name, "kind": "vehicle", "keywords": ["tank"],
            "profile": {"bs": 4, "armour": {"front": armour[0], "side": armour[1], "rear": armour[2]}, "hp": 3},
            "models": {model: {"id": model, "pos": [x, 24.0], "heading": heading, "hull": {"length": 4.5, "width": 3.5}}},
            "weapons": weapons,
        }  # fmt: skip

    return {
        "edition": "40k7",
        "scenario": {
            "units": [
                vehicle("predator-1", "a", "Predator", 10.0, 0.0, [13, 11, 10]),
                vehicle("rhino-1", "b", "Rhino", 40.0, 180.0, [11, 11, 10]),
            ]
        },
        "options": {"turn_limit": turn_limit},
    }


def _hide_tokens(transcript: Transcript, created: dict[str, Any]) -> None:
    transcript.hide(created["tokens"]["a"], "<token-a>")
    transcript.hide(created["tokens"]["b"], "<token-b>")


async def record_match(server: Server) -> Transcript:
    t = Transcript("match", "One full short match (40k7, turn limit 1): Predator against Rhino.")
    created = http(t, "POST", "/matches", server.http, scenario(turn_limit=1))
    _hide_tokens(t, created)
    live = f"ws://127.0.0.1:{server.port}/matches/{created['match_id']}/live"
    t.note("Both players and a spectator connect: hello -> welcome (the full view at seq 1).")
    a = await Conn.open(t, "a", live)
    await a.send({"type": "hello", "token": created["tokens"]["a"]})
    await a.recv()
    b = await Conn.open(t, "b", live)
    await b.send({"type": "hello", "token": created["tokens"]["b"]})
    await b.recv()
    s = await Conn.open(t, "spectator", live)
    await s.send({"type": "hello", "spectator": True})
    await s.recv()
    await s.send({"type": "ping", "nonce": "ready"})
    await s.until(lambda f: f["type"] == "pong")

    t.note("Side b may not act in side a's turn: a rejection names the rule; nothing is appended.")
    await b.act(END, "b-too-early")
    t.note("A spectator may not act: a protocol error, the connection stays open.")
    await s.send({"type": "act", "action_id": "spectator-act", "action": END})
    await s.until(lambda f: f["type"] == "error")

    clients = (a, b, s)
    script = [
        (a, MOVE_A, "a-move", "Side a moves its Predator 4 inches: patch (to every client), then ack."),
        (a, END, "a-end-movement", None),
        (a, SHOOT, "a-shoot", "The shot: the log lines carry every die, its purpose and the rule."),
        (a, END, "a-end-shooting", None),
        (a, END, "a-end-assault", "Side a's turn is over: side b's movement phase."),
        (b, MOVE_B, "b-move", None),
        (b, END, "b-end-movement", None),
        (b, END, "b-end-shooting", None),
        (
            b,
            END,
            "b-end-assault",
            "Turn limit reached: the match ends; the server then reveals the dice seed.",
        ),
    ]
    for client, action, action_id, note in script:
        if note:
            t.note(note)
        reply = await client.ack(action, action_id)
        for other in clients:
            await other.catch_up(reply["seq"])
        if action is SHOOT and http(t, "GET", f"/matches/{created['match_id']}", server.http)["ended"]:
            raise Restart("the shot ended the match")
    # The seed is revealed by a system event appended after the last action's ack, so the match
    # record read right after that ack may not have it yet: every client waits for the reveal.
    for client in clients:
        await client.until(reveals_seed)
    http(t, "GET", f"/matches/{created['match_id']}", server.http)
    for client in clients:
        await client.close()
    return t


def reveals_seed(frame: Frame) -> bool:
    """A patch that reveals the match's dice seed (docs/architecture.md section 8)."""
    return frame["type"] == "patch" and any(op["path"] == "/seed" for op in frame["ops"])


async def record_reconnect(server: Server) -> Transcript:
    t = Transcript(
        "reconnect",
        "A lost ack and a reconnect with resume_from and a safe retry; a gap noticed by a spectator.",
    )
    created = http(t, "POST", "/matches", server.http, scenario(turn_limit=5))
    _hide_tokens(t, created)
    live = f"ws://127.0.0.1:{server.port}/matches/{created['match_id']}/live"
    a = await Conn.open(t, "a#1", live)
    await a.send({"type": "hello", "token": created["tokens"]["a"]})
    await a.recv()
    s = await Conn.open(t, "spectator", live)
    await s.send({"type": "hello", "spectator": True})
    await s.recv()
    await a.ack(MOVE_A, "a-move")
    await s.catch_up(2)

    t.note("Side a sends an action and its connection dies before the answer is read.")
    await a.send({"type": "act", "action_id": "a-end-movement", "action": END})
    await s.catch_up(3)  # the server did apply it (the spectator saw seq 3)
    a.ws.transport.abort()
    t.note(
        "Side a reconnects, saying the seq it holds (2): the server sends only the missed patch. "
        "The ping's pong comes after it, so from the pong on the view is current."
    )
    a2 = await Conn.open(t, "a#2", live)
    await a2.send({"type": "hello", "token": created["tokens"]["a"], "resume_from": 2})
    await a2.send({"type": "ping", "nonce": "ready"})
    await a2.until(lambda f: f["type"] == "pong")
    t.note("The unanswered action is retried with the same action_id: applied once, ack duplicate.")
    await a2.ack(END, "a-end-movement")

    t.note("Two more actions; the spectator's copy of patch 4 is treated as lost (simulated).")
    await a2.ack(SHOOT, "a-shoot")
    await a2.ack(END, "a-end-shooting")
    await s.recv(note="treated as lost in transit: the spectator stays at seq 3")
    s.seq = 3
    await s.recv(note="seq 5 after seq 3: a gap")
    t.note("The spectator asks for everything after the seq it holds.")
    await s.send({"type": "resume", "from_seq": 3})
    await s.catch_up(5)
    for client in (a2, s):
        await client.close()
    return t


async def _again(recorder: Callable[[Server], Any], server: Server, tries: int = 10) -> Transcript:
    for _ in range(tries):
        try:
            transcript: Transcript = await recorder(server)
            return transcript
        except Restart:
            continue
    raise RuntimeError(f"{recorder.__name__}: the dice ended the match early {tries} times")


async def record(out: Path) -> list[Path]:
    with tempfile.TemporaryDirectory(prefix="hulldown-transcripts-") as tmp:
        server = Server(Path(tmp) / "data")
        server.start()
        try:
            transcripts = [await _again(record_match, server), await _again(record_reconnect, server)]
        finally:
            server.stop()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for transcript in transcripts:
        path = out / f"{transcript.name}.jsonl"
        path.write_text(transcript.text())
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "transcripts")
    args = parser.parse_args(argv)
    for path in asyncio.run(record(args.out)):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
