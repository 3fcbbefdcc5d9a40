"""``hulldown roster FILE.ros|FILE.rosz --edition E``: import a BattleScribe / New Recruit roster.

Prints the units (the ``units`` of a match definition, docs/match-definition.md) as JSON on
standard output and the import report on standard error (docs/roster-import.md). Exit status 0,
or 1 with one line ``hulldown roster: ...`` on standard error when the file cannot be read or
imported.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..match.state import SIDES
from ..roster.editions import EDITIONS
from ..roster.importer import import_roster
from ..roster.xmltree import RosterError
from .input_files import UnreadableInput, read_bytes

EXIT_OK = 0
EXIT_ERROR = 1


def add_roster_command(subparsers: Any) -> None:
    """Register ``hulldown roster`` on the CLI's sub-command parsers."""
    parser = subparsers.add_parser(
        "roster", help="import a BattleScribe / New Recruit roster (.ros, .rosz): units JSON on stdout"
    )
    parser.add_argument("file", help="the roster file (.ros or .rosz; '-' reads standard input)")
    parser.add_argument("--edition", required=True, choices=sorted(EDITIONS), help="the edition it is for")
    parser.add_argument("--side", default="a", choices=SIDES, help="the side its units play (default a)")
    parser.add_argument("--compact", action="store_true", help="print compact JSON")
    parser.set_defaults(handler=_roster)


def _roster(args: argparse.Namespace) -> int:
    try:
        result = import_roster(read_bytes(args.file), args.edition, args.side)
    except (UnreadableInput, RosterError) as exc:
        print(f"hulldown roster: {exc}", file=sys.stderr)
        return EXIT_ERROR
    print(json.dumps(result.units, indent=None if args.compact else 2, ensure_ascii=False))
    print(
        f"{result.roster_name}: {len(result.units)} units, {len(result.report)} report lines", file=sys.stderr
    )
    for line in result.report_lines():
        print(line, file=sys.stderr)
    return EXIT_OK
