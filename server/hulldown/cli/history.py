"""``hulldown verify MATCH`` and ``hulldown replay MATCH`` (docs/architecture.md sections 8 and 10).

verify: re-derives every logged roll from the revealed seed, checks the commitment and refolds
the log; prints which roll, event or commitment fails, the match's rules version and a state
divergence that a rules change since its creation explains (not a failure); exit status 0
(verified), 1 (a check failed), 2 (the seed is not revealed yet or the match is unknown, an id
no match can have included), 3 (the store could not be read: Redis unreachable, a bad
``--redis-url``, a data dir that is not a usable directory). A progress bar on stderr for long matches.

replay: the log turn by turn with every dice roll and its outcome; exit status 0, 2 (the match
is unknown) or 3 (the store could not be read).

Every error is one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import msgspec

from ..match.dice_binding import event_nonce
from ..match.events import Event
from ..match.rules_version import describe
from ..rules.dice import Dice, FixedDice, NoDice, SeededDice
from ..web.settings import env_text
from .offline import MatchLog, StoreUnreadable, UnknownMatch, UnreadableEvent, read_match_log
from .progress import ProgressBar
from .replay import render
from .verify import NotRevealed, Report, verify_events

PROGRESS_FROM = 1000  # events: below this a verify is quick and shows no bar

EXIT_OK = 0  # verified (verify) or printed (replay)
EXIT_CHECK_FAILED = 1  # verify: a roll, event or the commitment does not verify; an event does not decode
EXIT_NOT_VERIFIABLE = 2  # the match is unknown, or (verify) its seed is not revealed yet
EXIT_STORE_UNREADABLE = 3  # the store could not be reached or read
EXIT_USAGE = 2  # replay: arguments that ask for nothing (as argparse's usage errors)


def add_commands(commands: Any) -> None:
    """Register the subcommands on the CLI's subparsers."""
    verify = commands.add_parser("verify", help="verify a finished match's dice against its commitment")
    _common(verify)
    verify.add_argument("--json", action="store_true", help="print the full report as JSON")
    bar = verify.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress", dest="progress", action="store_true", default=None, help="always show a bar"
    )
    bar.add_argument("--no-progress", dest="progress", action="store_false", help="never show a bar")
    verify.set_defaults(handler=_verify)

    replay = commands.add_parser("replay", help="print a match's log turn by turn with every roll")
    _common(replay)
    replay.add_argument("--from", dest="start", type=int, default=1, help="first seq to print")
    replay.add_argument("--to", dest="end", type=int, default=None, help="last seq to print")
    replay.set_defaults(handler=_replay)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("match_id", metavar="MATCH")
    parser.add_argument("--redis-url", default=None, help="the server's Redis (REDIS_URL)")
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="the embedded Redis data dir (HULLDOWN_DATA_DIR)"
    )
    parser.add_argument("--prefix", default=None, help="Redis key prefix (HULLDOWN_KEY_PREFIX)")


def _read(args: argparse.Namespace) -> MatchLog:
    # An empty variable counts as unset (docs/operations.md), as for ``hulldown serve``.
    url = args.redis_url or env_text("REDIS_URL", "")
    data_dir = args.data_dir or Path(env_text("HULLDOWN_DATA_DIR", "hulldown-data"))
    prefix = args.prefix or env_text("HULLDOWN_KEY_PREFIX", "hulldown")
    return read_match_log(url, data_dir, prefix, args.match_id)


def _read_or_explain(args: argparse.Namespace, command: str) -> MatchLog | int:
    """The match's log, or the exit status after one line on stderr saying why there is none."""
    try:
        return _read(args)
    except UnknownMatch as exc:
        print(f"hulldown {command}: {exc}", file=sys.stderr)
        return EXIT_NOT_VERIFIABLE
    except StoreUnreadable as exc:
        print(f"hulldown {command}: {exc}", file=sys.stderr)
        return EXIT_STORE_UNREADABLE
    except UnreadableEvent as exc:
        print(f"hulldown {command}: {exc}", file=sys.stderr)
        return EXIT_CHECK_FAILED


def _verify(args: argparse.Namespace) -> int:
    log = _read_or_explain(args, "verify")
    if isinstance(log, int):
        return log
    show = args.progress if args.progress is not None else len(log.events) >= PROGRESS_FROM
    bar = ProgressBar(f"verifying {log.match_id}") if show else None
    try:
        report = verify_events(log.match_id, log.events, progress=bar.update if bar else None)
    except NotRevealed as exc:
        print(f"hulldown verify: {exc} (the match is at seq {len(log.events)})", file=sys.stderr)
        return EXIT_NOT_VERIFIABLE
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        print(msgspec.json.encode(report).decode())
    else:
        print("\n".join(summary(report)))
    return EXIT_OK if report.ok else EXIT_CHECK_FAILED


def summary(report: Report) -> list[str]:
    """The human verdict."""
    lines = [
        f"match {report.match_id}: {report.events} events, {report.rolls} logged dice",
        f"commitment {report.commitment}",
        f"seed       {report.seed} (revealed at seq {report.revealed_at})",
        "faces      " + "  ".join(f"{face}:{n}" for face, n in report.faces.items()),
        f"rules      {describe(report.rules_version)} (this server: {describe(report.server_rules_version)})",
    ]
    changed = report.rules_changed
    if changed is not None:
        lines.append(f"RULES CHANGED (not a failure): {changed.message}")
        lines.extend(f"  {line}" for line in changed.changes)
    if report.ok:
        lines.append(
            "VERIFIED: the seed matches the commitment, every roll re-derives from it, the log refolds."
            if changed is None
            else "VERIFIED: the seed matches the commitment, every roll re-derives from it; the log "
            "refolds until the rules change above."
        )
        return lines
    lines.append(f"FAILED: {report.failures_total} problem(s)")
    lines.extend(f"  [{f.kind}] {f.message}" for f in report.failures)
    if report.failures_total > len(report.failures):
        lines.append(f"  ... and {report.failures_total - len(report.failures)} more")
    return lines


def _replay(args: argparse.Namespace) -> int:
    if args.end is not None and args.end < args.start:  # it printed nothing and said nothing
        print(
            f"hulldown replay: --to {args.end} is before --from {args.start}: nothing to print",
            file=sys.stderr,
        )
        return EXIT_USAGE
    log = _read_or_explain(args, "replay")
    if isinstance(log, int):
        return log
    seed = bytes.fromhex(log.meta["seed"]) if "seed" in log.meta else None

    def dice_for(event: Event) -> Dice:
        # The faces the server logged with the event; the seed only for events without them.
        if event.rolls:
            return FixedDice(event.rolls)
        if seed is not None:
            return SeededDice(seed, log.match_id, event.seq, event_nonce(event))
        return NoDice()

    for line in render(log.match_id, log.events, dice_for, start=args.start, end=args.end):
        print(line)
    return EXIT_OK
