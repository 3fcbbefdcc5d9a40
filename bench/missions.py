"""What a mission costs per action (docs/missions.md): the same random playthrough of each
edition's test armies, played once from a set-up with the edition's standard mission, and the
time of the objective-control refresh the reducer runs after every battle action. Prints one
JSON object; nothing is asserted.

    python bench/missions.py --repeat 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT))

from tests.missions.driver import Game, created, play_game, standard  # noqa: E402
from tests.missions.test_playthrough import CASES  # noqa: E402

from hulldown.match.mission_flow import refresh_control  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    out: dict[str, object] = {}
    for edition, (units, mission_id, deployment, battle) in CASES.items():
        per_action: list[float] = []
        refresh: list[float] = []
        events = 0
        for r in range(args.repeat):
            game = Game(
                created(edition, units(), standard(edition, mission_id, deployment)), dice_seed=b"bench"
            )  # type: ignore[arg-type]
            start = time.perf_counter()
            play_game(game, battle, seed=r, max_steps=3000, end_early=0.1)
            elapsed = time.perf_counter() - start
            events = len(game.log) - 1
            per_action.append(elapsed / max(events, 1))
            t0 = time.perf_counter()
            for _ in range(200):
                refresh_control(game.state)
            refresh.append((time.perf_counter() - t0) / 200)
        out[edition] = {
            "mission": mission_id,
            "events_last_game": events,
            "ms_per_event_incl_candidates_median": round(statistics.median(per_action) * 1000, 3),
            "control_refresh_ms_median": round(statistics.median(refresh) * 1000, 4),
        }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
