"""Instructions per cold-folded event, counted by valgrind's callgrind (independent of machine load).

The match of ``bench/replay.py`` (40k7, pivots and phase changes) is built once and its stored
payloads written to a file; then the cold fold (decode + ``fold_history``) of its first ``--first``
events runs under ``valgrind --tool=callgrind`` twice, for ``--first`` and ``--first + --more``
events. The difference of the two totals, divided by ``--more``, is the cost of one event past
the start-up (imports, reading the file), which both runs share.

    python bench/fold_instructions.py --events 20000 --first 500 --more 2000

Two counts of the same tree differ by up to 5% (see NO_ADDRESS_RANDOMISATION below). To count
another checkout's fold, run its copy of this script with ``PYTHONPATH=<checkout>/server``.

Prints one JSON object. Not a test: nothing is asserted. Needs ``valgrind`` on the PATH; one run
takes about a minute.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

# Identity caches and dicts are keyed by addresses and string hashes, so the count depends on
# where objects land: the runs get a fixed PYTHONHASHSEED and, where ``setarch`` exists, no
# address-space randomisation. Two counts of the same tree still differ by up to 5% on this
# machine (8% without these), so only a larger change reads off a single pair of runs.
NO_ADDRESS_RANDOMISATION = (
    ["setarch", platform.machine(), "-R"] if shutil.which("setarch") is not None else []
)


def fold(payloads_file: Path, count: int) -> None:
    """Fold the first ``count`` stored payloads from nothing (what callgrind counts)."""
    from replay import cold_replay

    payloads = msgspec.msgpack.decode(payloads_file.read_bytes(), type=list[bytes])
    cold_replay(payloads[:count])


def counted(payloads_file: Path, count: int, out: Path) -> int:
    """The instructions callgrind counts for a whole process folding ``count`` events."""
    cmd = [
        *NO_ADDRESS_RANDOMISATION,
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        sys.executable,
        __file__,
        "--fold",
        str(payloads_file),
        str(count),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    run = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no total:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=20_000, help="events of the built match")
    parser.add_argument("--first", type=int, default=500)
    parser.add_argument("--more", type=int, default=2000)
    parser.add_argument("--fold", nargs=2, metavar=("FILE", "COUNT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fold is not None:
        fold(Path(args.fold[0]), int(args.fold[1]))
        return
    from replay import build

    payloads, _, _ = build(max(args.events, args.first + args.more), snapshot_every=100)
    with tempfile.TemporaryDirectory(prefix="hulldown-fold-ic-") as tmp:
        stored = Path(tmp) / "payloads.msgpack"
        stored.write_bytes(msgspec.msgpack.encode(payloads))
        low = counted(stored, args.first, Path(tmp) / "low.out")
        high = counted(stored, args.first + args.more, Path(tmp) / "high.out")
    print(
        json.dumps(
            {
                "bench": "fold_instructions",
                "events_counted": args.more,
                "after_events": args.first,
                "instructions_per_event": round((high - low) / args.more),
            }
        )
    )


if __name__ == "__main__":
    main()
