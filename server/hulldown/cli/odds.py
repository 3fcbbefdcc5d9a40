"""``hulldown odds FILE``: the odds of the last action of a ``simulate`` file, after the other
actions are played (docs/odds.md). The same engine and numbers as ``POST /matches/{id}/odds``;
``--json`` prints the answer as that route does, else a readable table.

Exit status 0, or 1 with ``{"error": ...}`` on standard output when the file cannot be read or
is invalid (its last action included), a flag is out of range, or the action is rejected."""

from __future__ import annotations

import argparse
import json
from typing import Any

import msgspec

from ..match.rejection import Rejection
from ..match.state import MatchState
from ..odds import DEFAULT_SAMPLES, MAX_EXACT_PLAYS, OddsAnswer, OddsOptions, Prob, UnitOdds, compute_odds
from .input_files import UnreadableInput, read_json_object
from .simulate import ACTION_ERRORS, EXIT_ERROR, EXIT_OK, read_action, read_simulation, run_scenario

MAX_SAMPLES = 100_000


def odds_of_file(data: dict[str, Any], options: OddsOptions) -> dict[str, Any]:
    """Play every action of the file but the last, then give the odds of the last one. The whole
    file, the last action included, is read as strictly as ``simulate`` reads it."""
    definition = read_simulation(data)
    if isinstance(definition, dict):
        return definition
    actions = list(definition.actions)
    if not actions:
        return {"error": "invalid simulation file: the odds are asked about its last action, and it has none"}
    last = actions[-1]
    played = run_scenario({**data, "actions": actions[:-1], "stop_on_rejection": True})
    if "error" in played:  # the file refused, with its problems and their paths (docs/simulate.md)
        return {key: played[key] for key in ("error", "problems") if key in played}
    rejected = [e for e in played["events"] if "rejected" in e]
    if rejected:
        return {"error": f"action {rejected[0]['index']} is rejected: {rejected[0]['rejected']['message']}"}
    state = msgspec.convert(played["final_state"], MatchState)
    try:
        side, action = read_action(last, state)
    except ACTION_ERRORS as exc:
        return {"error": f"action {len(actions) - 1}: {exc}"}
    answer = compute_odds(state, side, action, options)
    if isinstance(answer, Rejection):
        return {"error": answer.message, "rejection": msgspec.to_builtins(answer)}
    result: dict[str, Any] = msgspec.to_builtins(answer)
    return result


def _pct(p: Prob | None) -> str:
    if p is None:
        return "-"
    text = f"{100 * p.p:.1f}%"
    return f"{text} ±{100 * p.se:.1f}" if p.se else text


def render_table(answer: OddsAnswer) -> str:
    """The answer as a table a person reads in a terminal."""
    how = (
        f"exact, {answer.plays} plays"
        if answer.method == "exact"
        else f"sampled, {answer.samples} samples (± one standard error)"
    )
    lines = [
        f"Odds of {answer.action['type']} by side {answer.by} at seq {answer.seq} ({how}; policy {answer.policy})"
    ]
    lines += [f"  {s}" for s in answer.summary]
    header = ("unit", "start", "no effect", "glancing", "penetrating", "destroyed", "expected lost")
    rows = [header]
    for u in answer.units:
        lost = f"{u.expected_lost:.2f} {u.measure}" + (
            f" ±{u.expected_lost_se:.2f}" if u.expected_lost_se else ""
        )
        rows.append(
            (
                u.unit,
                f"{u.start} {u.measure}",
                _pct(u.no_effect),
                _pct(u.glancing),
                _pct(u.penetrating),
                _pct(u.destroyed),
                lost,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines.append("")
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    for u in answer.units:
        lines.extend(_details(u))
    for d in answer.decisions:
        chosen = ", ".join(f"{o} {_pct(p)}" for o, p in d.chosen.items())
        lines.append(
            f"decision {d.kind} (side {d.side}, {d.rule}) raised {_pct(d.raised)}: {d.policy}, chose {chosen}"
        )
    if answer.still_pending.p > 0:
        lines.append(f"a decision is still pending after the action: {_pct(answer.still_pending)}")
    return "\n".join(lines)


def _details(u: UnitOdds) -> list[str]:
    out = [f"{u.unit}: final {u.measure} " + ", ".join(f"{k}: {_pct(p)}" for k, p in u.final.items())]
    if u.damage_results:
        out.append(
            f"{u.unit}: damage results " + ", ".join(f"{k}: {_pct(p)}" for k, p in u.damage_results.items())
        )
    if u.statuses:
        out.append(
            f"{u.unit}: statuses gained " + ", ".join(f"{k}: {_pct(p)}" for k, p in u.statuses.items())
        )
    if u.reaches is not None:
        out.append(f"{u.unit}: reaches its target {_pct(u.reaches)}")
    return out


def add_odds_command(subparsers: Any) -> None:
    """Register ``hulldown odds FILE`` on the CLI's sub-command parsers."""
    parser = subparsers.add_parser(
        "odds", help="the odds of the last action of a simulate file, after the others are played"
    )
    parser.add_argument("file", help="the simulation file (JSON; '-' reads standard input)")
    parser.add_argument(
        "--json", action="store_true", help="print the answer as JSON (as POST /matches/{id}/odds)"
    )
    parser.add_argument("--method", choices=("auto", "exact", "sampled"), default="auto")
    parser.add_argument(
        "--samples",
        type=int,
        default=DEFAULT_SAMPLES,
        help="the most samples of a sampled answer (it stops once every standard error is at most 1%%)",
    )
    parser.add_argument(
        "--max-plays", type=int, default=MAX_EXACT_PLAYS, help="leaves the exact walk may visit"
    )
    parser.add_argument(
        "--choose",
        action="append",
        default=[],
        metavar="KIND=OPTION",
        help="fix the answer to a decision kind",
    )
    parser.set_defaults(handler=_odds)


def _error(message: str) -> int:
    print(json.dumps({"error": message}))
    return EXIT_ERROR


def _choices(items: list[str]) -> dict[str, str]:
    """``--choose KIND=OPTION`` flags as a map; ValueError naming a malformed one."""
    choices: dict[str, str] = {}
    for item in items:
        kind, sep, option = item.partition("=")
        if not sep or not kind or not option:
            raise ValueError(f"--choose takes KIND=OPTION, got {item!r}")
        choices[kind] = option
    return choices


def _odds(args: argparse.Namespace) -> int:
    try:
        data = read_json_object(args.file)
    except UnreadableInput as exc:
        return _error(str(exc))
    try:
        choices = _choices(args.choose)
    except ValueError as exc:
        return _error(str(exc))
    if not 1 <= args.samples <= MAX_SAMPLES or args.max_plays < 1:
        return _error(f"--samples must be 1 .. {MAX_SAMPLES} and --max-plays at least 1")
    options = OddsOptions(method=args.method, samples=args.samples, max_plays=args.max_plays, choices=choices)
    result = odds_of_file(data, options)
    if "error" in result or args.json:
        print(json.dumps(result, indent=2))
    else:
        print(render_table(msgspec.convert(result, OddsAnswer)))
    return EXIT_ERROR if "error" in result else EXIT_OK
