"""``hulldown replay MATCH`` (docs/architecture.md section 10): the log turn by turn with every dice
roll and its outcome, readable by a player; undone actions are shown and marked."""

from __future__ import annotations

import subprocess
import sys

import httpx

from tests.live.test_end_to_end import END, MOVE, SHOOT, connect_all
from tests.server_process import ServerProcess
from tests.undo.live_helpers import create


async def test_replay_prints_turns_events_log_lines_and_every_roll(
    server: ServerProcess, redis_url: str, key_prefix: str
) -> None:
    created = create(server)
    match_id = created["match_id"]
    a, b, spectator = await connect_all(server, created)
    await a.act(MOVE, "m1")  # 2
    await a.act(END, "e1")  # 3
    await a.act({"type": "undo"}, "u1")  # 4
    await a.act(END, "e2")  # 5
    await a.act(SHOOT, "s1")  # 6
    for k in range(2):
        await a.act(END, f"e{k + 3}")  # 7, 8
    await b.act({"type": "concede"}, "gg")  # 9, seed revealed at 10
    await a.wait_seq(10)
    for client in (a, b, spectator):
        await client.close()

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "hulldown.cli",
            "replay",
            match_id,
            "--redis-url",
            redis_url,
            "--prefix",
            key_prefix,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    text = result.stdout
    assert lines[0].startswith(f"Match {match_id} (40k7), dice commitment ")
    assert "== Turn 1, side a (player turn 1) ==" in lines
    assert "== Turn 1, side b (player turn 2) ==" in lines
    assert "  #2 side a: move predator-1 to (14, 24), facing 0°" in lines
    assert "  #3 side a: end_phase   [undone by #4]" in lines
    assert "  #4 side a: undo   [back to the state as of #2; undoes #3]" in lines
    assert (
        "      Side a undoes its end_phase (seq 3): the state as of seq 2 is restored. "
        "[docs/architecture.md, 9. Undo and takebacks: undo]" in lines
    )
    assert "  #6 side a: predator-1 shoots lascannon at rhino-1" in lines

    # Every die the shot logged is printed with its purpose and face, in die order.
    events = httpx.get(f"{server.http}/matches/{match_id}/events", timeout=10).json()["events"]
    shot = events[5]
    shot_block = text[text.index("  #6 side a") : text.index("  #7 side a")]
    printed = [line.strip() for line in shot_block.splitlines() if line.strip().startswith("die ")]
    assert [int(line.split(" rolled ")[1].split()[0]) for line in printed] == shot["rolls"]
    assert printed[0].startswith("die 0: to hit (")
    assert lines[-1] == "Result: side a wins (concession)."
