"""The command line: ``hulldown serve | replay | verify | simulate | roster | odds``.

``hulldown serve`` exits 2 when its command line or a setting in the environment cannot be used
(argparse's usage error for a flag; one line naming the variable for the environment).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import __version__
from ..web.settings import (
    LOG_FORMATS,
    PORT_BOUNDS,
    SNAPSHOT_EVERY_BOUNDS,
    Bounds,
    SettingError,
    Settings,
    whole_number,
)
from .history import add_commands as add_history_commands
from .logging_setup import LOG_LEVELS, configure_logging
from .odds import add_odds_command
from .roster import add_roster_command
from .simulate import add_simulate_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hulldown", description="Live game-state server for tabletop wargames."
    )
    parser.add_argument("--version", action="version", version=f"hulldown {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the server (embedded Redis unless REDIS_URL is set)")
    serve.add_argument("--host", default=None, help="listen address (HULLDOWN_HOST, default 127.0.0.1)")
    serve.add_argument(
        "--port",
        type=bounded_int(PORT_BOUNDS),
        default=None,
        help="listen port, 0..65535 (HULLDOWN_PORT, default 8000)",
    )
    serve.add_argument(
        "--data-dir", type=Path, default=None, help="embedded Redis data dir (HULLDOWN_DATA_DIR)"
    )
    serve.add_argument(
        "--redis-url", default=None, help="use this Redis instead of the embedded one (REDIS_URL)"
    )
    serve.add_argument(
        "--snapshot-every",
        type=bounded_int(SNAPSHOT_EVERY_BOUNDS),
        default=None,
        help="snapshot every K events, K >= 1 (HULLDOWN_SNAPSHOT_EVERY, default 100)",
    )
    serve.add_argument("--log-level", choices=LOG_LEVELS, default="info")
    serve.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default=None,
        help="text lines or one JSON object per line (HULLDOWN_LOG_FORMAT, default text); tokens are scrubbed",
    )
    serve.set_defaults(handler=_serve)
    add_history_commands(commands)
    add_simulate_command(commands)
    add_roster_command(commands)
    add_odds_command(commands)
    return parser


def bounded_int(bounds: Bounds) -> Callable[[str], int]:
    """An argparse ``type``: a whole number within ``bounds``, else a usage error saying so."""

    def convert(text: str) -> int:
        value = whole_number(text, bounds)
        if value is None:
            raise argparse.ArgumentTypeError(f"expected a whole number {bounds.describe()}, got {text!r}")
        return value

    return convert


EXIT_BAD_SETTING = 2  # as argparse's usage errors


def _serve(args: argparse.Namespace) -> int:
    from .serve import serve

    try:
        settings = Settings.from_env(
            host=args.host,
            port=args.port,
            data_dir=args.data_dir,
            redis_url=args.redis_url,
            snapshot_every=args.snapshot_every,
        )
    except SettingError as exc:
        print(f"hulldown serve: {exc}", file=sys.stderr)
        return EXIT_BAD_SETTING
    if args.log_format is not None:
        settings = dataclasses.replace(settings, log_format=args.log_format)
    configure_logging(args.log_level, settings.log_format)
    return serve(settings, log_level=args.log_level)


# The exit status of a command whose reader went away (``hulldown replay ... | head``): that of
# a command killed by SIGPIPE, as other command-line tools end then (128 + 13).
EXIT_READER_GONE = 141


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = args.handler
    try:
        result: int = handler(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # Nobody reads the rest: end quietly (no traceback), and keep Python's own flush of
        # stdout at exit from failing again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_READER_GONE
    return result
