"""Reading ahead (web/ws_protocol.py, ``RECEIVE_BACKLOG``; docs/architecture.md section 6): the
server reads a socket's next messages while the app handles one, and pauses reading only once
``RECEIVE_BACKLOG`` of them wait or one larger than ``READ_AHEAD_BYTES`` does. Over a real
``hulldown serve``: a burst of several backlogs' worth of messages in one write is answered
completely and in order (reading paused and resumed on the way), and the connection goes on
acting afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hulldown.match.state import Options
from hulldown.web.ws_protocol import READ_AHEAD_BYTES, RECEIVE_BACKLOG
from tests.live.test_end_to_end import MOVE
from tests.live.test_fanout import RawFrames
from tests.server_process import ServerProcess, server_with_env
from tests.spectators.test_spectators import create

BURST = 3 * RECEIVE_BACKLOG + 1


@pytest.fixture
def unlimited_server(redis_url: str, key_prefix: str, tmp_path: Path) -> Iterator[ServerProcess]:
    with server_with_env(redis_url, key_prefix, tmp_path, {"HULLDOWN_RATE": "100000"}) as process:
        yield process


async def test_a_burst_past_the_backlog_is_answered_in_order(unlimited_server: ServerProcess) -> None:
    created = create(unlimited_server, Options())
    player = await RawFrames.connect(unlimited_server, f"/matches/{created['match_id']}/live")
    await player.send({"type": "hello", "token": created["tokens"]["a"]})
    await player.message("welcome")

    # Small pings, and one past READ_AHEAD_BYTES in the middle (reading pauses behind it too).
    sent = [f"n{k}" if k != RECEIVE_BACKLOG // 2 else "L" * (2 * READ_AHEAD_BYTES) for k in range(BURST)]
    await player.send_at_once([{"type": "ping", "nonce": nonce} for nonce in sent])
    nonces = [(await player.message("pong"))[1]["nonce"] for _ in range(BURST)]
    assert nonces == sent

    # Reading resumed: an act after the burst is read, applied and acknowledged.
    await player.send({"type": "act", "action_id": "after-burst", "action": MOVE})
    _, ack = await player.message("ack")
    assert ack["action_id"] == "after-burst" and ack["seq"] == 2


async def test_acts_in_one_burst_are_applied_one_by_one(unlimited_server: ServerProcess) -> None:
    """Acts read ahead wait their turn: each is decided on the state the one before made."""
    created = create(unlimited_server, Options())
    player = await RawFrames.connect(unlimited_server, f"/matches/{created['match_id']}/live")
    await player.send({"type": "hello", "token": created["tokens"]["a"]})
    await player.message("welcome")
    acts = [{"type": "act", "action_id": f"e{k}", "action": {"type": "end_phase"}} for k in range(3)]
    await player.send_at_once(acts)
    acks = [(await player.message("ack"))[1] for _ in acts]
    assert [(a["action_id"], a["seq"]) for a in acks] == [("e0", 2), ("e1", 3), ("e2", 4)]
