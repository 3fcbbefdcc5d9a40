"""The performance goals, met or not, from one run's result files (prints JSON lines).

    python goals.py results/RUN.jsonl [--latency LATENCY.jsonl] [--replay REPLAY.jsonl]

``RUN.jsonl``: what ``run.sh`` printed (hulldown and Colyseus with the patch sent at once, at
N = 0, 100 and 1000; with ``ROUNDS`` > 1 a configuration's k-th line at an N belongs to round k).
``--latency``: ``bench/latency.py`` output lines (its floors, measured from idle); ``--replay``:
``bench/replay.py`` output lines. Each goal is judged per round or per run and is met only where
every round or run meets it; a goal whose inputs are missing is reported as not judged. The
first line sums up (``all_met`` only when every goal was judged and met); then one line per
goal, with every round's or run's figures.

The goals (each compares figures taken in the same run):

- last spectator at N=100 and at N=1000: p50 and p99 below Colyseus';
- mover p50 at N=0 within MOVER_OVER_FLOOR_MS of the floor (a lean Redis append plus a websocket
  echo, from idle), judged against the echo from a server in a process of its own
  (``mover_p50_minus_process_floor_ms``), the other floor shown beside it; both servers' mover
  p50 in each round of the harness run are listed beside it, not judged (the floors are not
  measured in that run);
- server CPU per action at N=0 under CPU_PER_ACTION_US, and per spectator socket (the N=1000
  CPU less the N=0 CPU, over 1000) under CPU_PER_SOCKET_US;
- cold fold of 100,000 events at COLD_FOLD_EVENTS_PER_S or more;
- no growth with the size of the match: ``bench/latency.py --extra-units 24`` runs alternating
  with runs without (in the ``--latency`` file; a line's ``extra_units`` tells them apart): the
  median over the pairs of the server CPU per action with the extra units over that without
  at most 1 + GROWTH_TOLERANCE, and the same for the mover's p50. Runs of the same code minutes
  apart differ by a tenth and more on the 2-core machine (690-900 us per act on 2026-12-07), so
  a smaller growth cannot be told from noise.

Reads files, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from typing import Any

PEER = ("colyseus", "broadcastpatch-immediate")
HULLDOWN = ("hulldown", "default")
MOVER_OVER_FLOOR_MS = 0.3
CPU_PER_ACTION_US = 800
CPU_PER_SOCKET_US = 12
COLD_FOLD_EVENTS_PER_S = 100_000
GROWTH_TOLERANCE = 0.10
LARGE_N = 1000

Row = dict[str, Any]


def read_lines(path: str) -> list[Row]:
    with open(path) as lines:
        return [json.loads(line) for line in lines if line.strip()]


def rounds_of(rows: list[Row]) -> list[dict[tuple[str, str, int], Row]]:
    """The runs by round: a configuration's k-th result at an N is round k's."""
    seen: dict[tuple[str, str, int], int] = defaultdict(int)
    rounds: list[dict[tuple[str, str, int], Row]] = []
    for row in rows:
        if "error" in row:
            continue
        key = (row["peer"], row["variant"], row["spectators"])
        k = seen[key]
        seen[key] += 1
        while len(rounds) <= k:
            rounds.append({})
        rounds[k][key] = row
    return rounds


def ms(summary: Row) -> list[float]:
    return [round(summary["p50"] / 1000, 2), round(summary["p99"] / 1000, 2)]


def spectators_goal(rounds: list[dict[tuple[str, str, int], Row]], n: int) -> Row:
    judged = []
    for k, runs in enumerate(rounds, start=1):
        ours, theirs = runs.get((*HULLDOWN, n)), runs.get((*PEER, n))
        if ours is None or theirs is None:
            continue
        mine, peer = ours["latency_us"]["last_spectator"], theirs["latency_us"]["last_spectator"]
        judged.append(
            {
                "round": k,
                "hulldown_p50_p99_ms": ms(mine),
                "colyseus_p50_p99_ms": ms(peer),
                "met": mine["p50"] < peer["p50"] and mine["p99"] < peer["p99"],
            }
        )
    return verdict(judged)


def cpu_goals(rounds: list[dict[tuple[str, str, int], Row]]) -> tuple[Row, Row]:
    per_action, per_socket = [], []
    for k, runs in enumerate(rounds, start=1):
        idle, large = runs.get((*HULLDOWN, 0)), runs.get((*HULLDOWN, LARGE_N))
        if idle is None:
            continue
        cpu = idle["server"]["cpu_us_per_move"]
        peer = runs.get((*PEER, 0))
        per_action.append(
            {
                "round": k,
                "server_cpu_us": cpu,
                "colyseus_cpu_us": peer["server"]["cpu_us_per_move"] if peer else None,
                "met": cpu < CPU_PER_ACTION_US,
            }
        )
        if large is not None:
            socket = (large["server"]["cpu_us_per_move"] - cpu) / LARGE_N
            peer_large = runs.get((*PEER, LARGE_N))
            peer_socket = (
                (peer_large["server"]["cpu_us_per_move"] - peer["server"]["cpu_us_per_move"]) / LARGE_N
                if peer and peer_large
                else None
            )
            per_socket.append(
                {
                    "round": k,
                    "us_per_socket": round(socket, 2),
                    "colyseus_us_per_socket": None if peer_socket is None else round(peer_socket, 2),
                    "met": socket < CPU_PER_SOCKET_US,
                }
            )
    return verdict(per_action), verdict(per_socket)


def mover_goal(rounds: list[dict[tuple[str, str, int], Row]], latency: list[Row]) -> Row:
    floors = []
    for run in latency:
        floor = run["floor_ms"]
        over_process = run["mover_p50_minus_process_floor_ms"]
        floors.append(
            {
                "mover_p50_ms": run["latency_ms"]["mover"]["p50"],
                "over_process_floor_ms": over_process,
                "over_in_process_echo_floor_ms": run["mover_p50_minus_floor_ms"],
                "lean_append_p50_ms": floor["redis_xadd_lean"]["p50"],
                "met": over_process <= MOVER_OVER_FLOOR_MS,
            }
        )
    beside = []
    for k, runs in enumerate(rounds, start=1):
        ours, theirs = runs.get((*HULLDOWN, 0)), runs.get((*PEER, 0))
        if ours is None or theirs is None:
            continue
        beside.append(
            {
                "round": k,
                "hulldown_p50_ms": round(ours["latency_us"]["mover"]["p50"] / 1000, 2),
                "colyseus_p50_ms": round(theirs["latency_us"]["mover"]["p50"] / 1000, 2),
            }
        )
    return {**verdict(floors), "beside_colyseus": beside}


def growth_goal(latency: list[Row]) -> Row:
    """The runs with extra units against those without, paired in the order they ran."""
    plain = [run for run in latency if not run.get("extra_units")]
    larger = [run for run in latency if run.get("extra_units")]
    pairs = list(zip(plain, larger, strict=False))
    if not pairs:
        return verdict([])
    runs = [
        {
            "extra_units": big["extra_units"],
            "server_cpu_us": [small["server_cpu_us_per_action"], big["server_cpu_us_per_action"]],
            "mover_p50_ms": [small["latency_ms"]["mover"]["p50"], big["latency_ms"]["mover"]["p50"]],
        }
        for small, big in pairs
    ]
    cpu = statistics.median(b["server_cpu_us_per_action"] / a["server_cpu_us_per_action"] for a, b in pairs)
    mover = statistics.median(
        b["latency_ms"]["mover"]["p50"] / a["latency_ms"]["mover"]["p50"] for a, b in pairs
    )
    return {
        "met": cpu <= 1 + GROWTH_TOLERANCE and mover <= 1 + GROWTH_TOLERANCE,
        "median_cpu_ratio": round(cpu, 3),
        "median_mover_ratio": round(mover, 3),
        "runs": runs,
    }


def cold_fold_goal(replay: list[Row]) -> Row:
    return verdict(
        [
            {
                "events_per_s": run["cold_replay_events_per_s"],
                "met": run["cold_replay_events_per_s"] >= COLD_FOLD_EVENTS_PER_S,
            }
            for run in replay
        ]
    )


def verdict(judged: list[Row]) -> Row:
    if not judged:
        return {"met": None, "runs": []}
    return {"met": all(j["met"] for j in judged), "runs": judged}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("run")
    parser.add_argument("--latency", help="bench/latency.py output (JSON lines)")
    parser.add_argument("--replay", help="bench/replay.py output (JSON lines)")
    args = parser.parse_args()
    rows = read_lines(args.run)
    latency = read_lines(args.latency) if args.latency else []
    rounds = rounds_of(rows)
    per_action, per_socket = cpu_goals(rounds)
    goals = {
        "last_spectator_n100": spectators_goal(rounds, 100),
        "last_spectator_n1000": spectators_goal(rounds, LARGE_N),
        "mover_n0": mover_goal(rounds, [run for run in latency if not run.get("extra_units")]),
        "server_cpu_per_action_n0": per_action,
        "server_cpu_per_spectator_socket": per_socket,
        "cold_fold": cold_fold_goal(read_lines(args.replay) if args.replay else []),
        "no_growth_with_match_size": growth_goal(latency),
    }
    other = [row["other_cpu_cores"] for row in rows if "other_cpu_cores" in row]
    summary = {
        "rounds": len(rounds),
        "other_cpu_cores_max": max(other) if other else None,
        "errors": [row for row in rows if "error" in row],
        "all_met": all(goal["met"] for goal in goals.values()),
        "met": [name for name, goal in goals.items() if goal["met"]],
        "not_met": [name for name, goal in goals.items() if goal["met"] is False],
        "not_judged": [name for name, goal in goals.items() if goal["met"] is None],
    }
    print(json.dumps(summary))
    for name, goal in goals.items():
        print(json.dumps({"goal": name, **goal}))


if __name__ == "__main__":
    main()
