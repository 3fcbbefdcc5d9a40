"""``hulldown odds FILE``: the odds of the last action of a ``simulate`` file, after the other
actions are played (docs/odds.md). The same engine and numbers as ``POST /matches/{id}/odds``;
``--json`` prints the answer as that route does, else a readable table."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from ..match.actions import Action
from ..match.rejection import Rejection
from ..match.state import MatchState, Side
from ..odds import DEFAULT_SAMPLES, MAX_EXACT_PLAYS, OddsAnswer, OddsOptions, Prob, UnitOdds, compute_odds
from .simulate import run_scenario


def odds_of_file(data: dict[str, Any], options: OddsOptions) -> dict[str, Any]:
    """Play every action of the file but the last, then give the odds of the last one."""
    actions = data.get("actions", [])
    if not isinstance(actions, list) or not actions:
        return {"error": "invalid simulation file: the odds are asked about its last action, and it has none"}
    last = actions[-1]
    played = run_scenario({**data, "actions": actions[:-1], "stop_on_rejection": True})
    if "error" in played:
        return {"error": played["error"]}
    rejected = [e for e in played["events"] if "rejected" in e]
    if rejected:
        return {"error": f"action {rejected[0]['index']} is rejected: {rejected[0]['rejected']['message']}"}
    state = msgspec.convert(played["final_state"], MatchState)
    try:
        side, action = _last_action(last, state)
    except (msgspec.ValidationError, KeyError, TypeError) as exc:
        return {"error": f"action {len(actions) - 1}: {exc}"}
    answer = compute_odds(state, side, action, options)
    if isinstance(answer, Rejection):
        return {"error": answer.message, "rejection": msgspec.to_builtins(answer)}
    result: dict[str, Any] = msgspec.to_builtins(answer)
    return result


def _last_action(entry: dict[str, Any], state: MatchState) -> tuple[Side, Action]:
    """As ``simulate`` reads an action: ``{"by": "a", "action": {...}}`` or flat, and a ``decide``
    without ``decision`` answers the pending one."""
    by = entry.get("by", state.pending.side if state.pending is not None else state.active)
    body = dict(entry["action"]) if "action" in entry else {k: v for k, v in entry.items() if k != "by"}
    if body.get("type") == "decide" and "decision" not in body and state.pending is not None:
        body["decision"] = state.pending.id
    side: Side = "a" if by == "a" else "b"
    return side, msgspec.convert(body, Action)


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


def _odds(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        print(json.dumps({"error": f"not JSON: {exc}"}))
        return 1
    choices: dict[str, str] = {}
    for item in args.choose:
        kind, sep, option = item.partition("=")
        if not sep or not kind or not option:
            print(json.dumps({"error": f"--choose takes KIND=OPTION, got {item!r}"}))
            return 1
        choices[kind] = option
    if not 1 <= args.samples <= 100_000 or args.max_plays < 1:
        print(json.dumps({"error": "--samples must be 1 .. 100000 and --max-plays at least 1"}))
        return 1
    options = OddsOptions(method=args.method, samples=args.samples, max_plays=args.max_plays, choices=choices)
    result = odds_of_file(data, options)
    if "error" in result or args.json:
        print(json.dumps(result, indent=2))
    else:
        print(render_table(msgspec.convert(result, OddsAnswer)))
    return 1 if "error" in result else 0
