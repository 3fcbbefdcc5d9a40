"""The slowest actions of one harness run, lined up with the server's trace of the same run.

    HULLDOWN_BENCH_TRACE=/tmp/t.jsonl node bench.js --peer hulldown --variant default \\
        --spectators 1000 --samples-file /tmp/s.jsonl
    python trace_tail.py /tmp/t.jsonl /tmp/s.jsonl [--worst 20] [--latency last_spectator]

For each of the ``--worst`` actions by ``--latency`` (a key of the samples file: mover,
opponent, first_spectator, last_spectator), and for ten around the median, prints one JSON line:
the latency and, in ms after the client's send, when the server had the act's frame (``recv``),
began and ended its broadcast (``bcast0``, ``bcast1``) and was done with the act (``acted``),
with the garbage collections and follow-up work (the next act's hash, a snapshot's save) that
started before the action's latency ended. A diagnostic: it reads files, asserts nothing.
"""

from __future__ import annotations

import argparse
import bisect
import json
from typing import Any

# A sample's t0 (bench.js, before the act is sent) and the trace's client_send (the same clock,
# stamped while the act is built) are this close at most.
MATCH_WINDOW_NS = 2_000_000
MEDIAN_ROWS = 10


def read_trace(path: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The trace's action lines (by client send time), collection lines and follow-up lines."""
    actions, collections, follow_ups = [], [], []
    with open(path) as lines:
        for line in lines:
            row = json.loads(line)
            if "gc" in row:
                collections.append(row)
            elif "follow" in row:
                follow_ups.append(row)
            elif "client_send" in row:
                actions.append(row)
    actions.sort(key=lambda row: row["client_send"])
    return actions, collections, follow_ups


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("trace")
    parser.add_argument("samples")
    parser.add_argument("--worst", type=int, default=20)
    parser.add_argument("--latency", default="last_spectator")
    args = parser.parse_args()
    actions, collections, follow_ups = read_trace(args.trace)
    sends = [row["client_send"] for row in actions]
    with open(args.samples) as lines:
        samples = [json.loads(line) for line in lines if line.strip()]
    samples = [s for s in samples if args.latency in s]
    samples.sort(key=lambda s: -s[args.latency])

    def action_of(t0: int) -> dict[str, Any] | None:
        k = bisect.bisect_left(sends, t0)
        if k < len(sends) and sends[k] - t0 < MATCH_WINDOW_NS:
            return actions[k]
        return None

    def line(sample: dict[str, Any], rank: str) -> dict[str, Any]:
        t0 = int(sample["t0"])
        end = t0 + int(sample[args.latency] * 1000)
        action = action_of(t0) or {}

        def ms(t: int) -> float:
            return round((t - t0) / 1e6, 2)

        stamps = {key: ms(action[key]) for key in ("recv", "bcast0", "bcast1", "acted") if key in action}
        return {
            "rank": rank,
            args.latency: round(sample[args.latency] / 1000, 2),
            **stamps,
            "gc": [
                [c["gc"], ms(c["t"]), round(c["ns"] / 1e6, 2)] for c in collections if t0 <= c["t"] <= end
            ],
            "follow_up": [
                [f["follow"], ms(f["t"]), round(f["ns"] / 1e6, 2)] for f in follow_ups if t0 <= f["t"] <= end
            ],
        }

    matched = sum(1 for s in samples if action_of(int(s["t0"])) is not None)
    print(json.dumps({"samples": len(samples), "matched_in_trace": matched}))
    for k, sample in enumerate(samples[: args.worst]):
        print(json.dumps(line(sample, f"worst {k + 1}")))
    middle = len(samples) // 2 - MEDIAN_ROWS // 2
    for sample in samples[max(0, middle) : max(0, middle) + MEDIAN_ROWS]:
        print(json.dumps(line(sample, "median")))


if __name__ == "__main__":
    main()
