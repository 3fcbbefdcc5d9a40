"""The committed example transcripts (client-protocol/transcripts) are real and current: every
frame decodes strictly as the protocol's types, each connection's patches rebuild the same views,
the retried action is acknowledged as a duplicate, and every logged die of the match re-derives
from the seed revealed at its end. The recorder also runs against today's server."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hulldown.client.patch import apply_patch
from hulldown.rules.dice import derive_die
from hulldown.wire import protocol

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "client-protocol" / "transcripts"


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def frames(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if "frame" in line]


def check_transcript(lines: list[dict[str, Any]]) -> dict[str, tuple[int, Any]]:
    """Decode every frame and follow every connection's view; returns conn -> (seq, view)."""
    assert lines[0]["protocol"] == protocol.PROTOCOL_VERSION
    assert [line.get("i") for line in lines[1:]] == list(range(1, len(lines)))
    views: dict[str, tuple[int, Any]] = {}
    for line in frames(lines):
        text = json.dumps(line["frame"])
        if line["dir"] == "send":
            protocol.client_decoder.decode(text)
            continue
        message = protocol.server_decoder.decode(text)
        conn = line["conn"].split("#")[0]  # a#2 is client a after a reconnect
        if isinstance(message, protocol.Welcome | protocol.Resync):
            views[conn] = (message.seq, message.view)
        elif isinstance(message, protocol.Patch):
            seq, view = views[conn]
            if "lost in transit" in line.get("note", "") or message.seq <= seq:
                continue
            if message.seq > seq + 1:  # a client skips it and resumes (the recorder notes it)
                assert "gap" in line.get("note", ""), f"unexpected gap at line {line['i']}"
                continue
            assert message.seq == seq + 1, f"{conn}: patch {message.seq} applied at {seq} (line {line['i']})"
            views[conn] = (message.seq, apply_patch(view, message.ops))
    return views


@pytest.mark.parametrize("name", ["match.jsonl", "reconnect.jsonl"])
def test_committed_transcript_decodes_and_rebuilds_one_view(name: str) -> None:
    views = check_transcript(load(COMMITTED / name))
    final = max(seq for seq, _ in views.values())
    finals = [view for seq, view in views.values() if seq == final]
    assert len(finals) >= 2 and all(view == finals[0] for view in finals)
    assert all(view["seq"] == seq for seq, view in views.values())


def test_match_transcript_is_a_full_match_whose_dice_verify() -> None:
    lines = load(COMMITTED / "match.jsonl")
    views = check_transcript(lines)
    _seq, view = views["spectator"]
    assert view["ended"] and view["end_reason"] == "turn_limit" and view["seed"]
    codes = {line["frame"].get("code") for line in frames(lines) if line["dir"] == "recv"}
    assert {"not_your_turn", "spectators_cannot_act"} <= codes
    seed = bytes.fromhex(view["seed"])
    assert hashlib.sha256(seed).hexdigest() == view["commitment"]
    rolls = [(entry["seq"], roll) for entry in view["log"] for roll in entry["rolls"]]
    assert rolls, "the shot rolled no dice"
    for event_seq, roll in rolls:
        assert derive_die(seed, view["match_id"], event_seq, roll["i"]) == roll["value"]


def test_reconnect_transcript_resumes_and_retries_safely() -> None:
    lines = load(COMMITTED / "reconnect.jsonl")
    sent = [line for line in frames(lines) if line["dir"] == "send"]
    hellos = [line["frame"] for line in sent if line["frame"]["type"] == "hello"]
    assert any(h.get("resume_from") == 2 for h in hellos)
    acts = [line["frame"]["action_id"] for line in sent if line["frame"]["type"] == "act"]
    assert acts.count("a-end-movement") == 2
    acks = [line["frame"] for line in frames(lines) if line["frame"]["type"] == "ack"]
    retried = [a for a in acks if a["action_id"] == "a-end-movement"]
    assert retried == [{"type": "ack", "action_id": "a-end-movement", "seq": 3, "duplicate": True}]
    reconnected = [line["frame"] for line in frames(lines) if line["conn"] == "a#2" and line["dir"] == "recv"]
    assert reconnected[0] == {**reconnected[0], "type": "patch", "seq": 3}  # resumed, no new welcome
    assert not any(f["type"] == "welcome" for f in reconnected)
    assert any(line["frame"] == {"type": "resume", "from_seq": 3} for line in sent)


def test_recorder_runs_against_the_current_server(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "client-protocol" / "record_transcripts.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    for name in ("match.jsonl", "reconnect.jsonl"):
        fresh = load(tmp_path / name)
        check_transcript(fresh)
        committed = load(COMMITTED / name)
        shape = [(line.get("conn"), line.get("dir"), line.get("frame", {}).get("type")) for line in fresh]
        assert shape == [
            (line.get("conn"), line.get("dir"), line.get("frame", {}).get("type")) for line in committed
        ], f"{name}: the recorded exchange changed; run client-protocol/record_transcripts.py and commit"
