"""``hulldown replay``: a match's log, turn by turn, with every dice roll and its outcome. Pure.

The log is folded with the history-aware reducer (``match/timeline.py``); each event prints as a
numbered line (who did what), followed by the combat log lines it wrote and the dice each line
carries. Undone actions stay in the story, marked with the event that undid them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import msgspec

from ..match.actions import Decide, Fire, Move, Pivot, Shoot, TakebackAnswer, TakebackRequest
from ..match.events import Event, MatchCreated, MatchEnded, SeedRevealed
from ..match.gc_pause import collections_paused
from ..match.state import LogEntry, LogRoll
from ..match.timeline import DiceFor, Timeline


def describe(event: Event) -> str:
    """One line saying who did what."""
    body = event.body
    who = "system" if event.by == "system" else f"side {event.by}"
    tag = type(body).__struct_config__.tag
    match body:
        case MatchCreated():
            return f"{who}: match created ({body.edition}, {len(body.units)} units), side {body.first} first"
        case Move():
            end = body.path[-1] if body.path else None
            where = f" to ({end.x:g}, {end.y:g})" if end is not None else ""
            facing = f", facing {body.heading:g}°" if body.heading is not None else ""
            kind = "" if body.kind == "normal" else f" ({body.kind})"
            return f"{who}: move{kind} {body.unit}{where}{facing}"
        case Pivot():
            return f"{who}: pivot {body.unit} to {body.heading:g}°"
        case Shoot():
            return f"{who}: {body.unit} shoots " + ", ".join(_fire(f) for f in body.fire)
        case Decide():
            placed = "".join(f", {mid} at ({p.x:g}, {p.y:g})" for mid, p in sorted(body.place.items()))
            return f"{who}: decides {body.decision} -> {body.choice}{placed}"
        case TakebackRequest():
            return f"{who}: asks to take back to seq {body.to_seq}"
        case TakebackAnswer():
            return f"{who}: {'grants' if body.grant else 'declines'} the takeback"
        case SeedRevealed():
            return f"{who}: seed revealed ({body.seed})"
        case MatchEnded():
            return f"{who}: match ended ({body.reason})"
        case _:
            fields = {k: v for k, v in msgspec.to_builtins(body).items() if k != "type"}
            detail = " ".join(f"{k}={v}" for k, v in fields.items())
            return f"{who}: {tag}" + (f" {detail}" if detail else "")


def _fire(fire: Fire) -> str:
    return f"{fire.weapon} at {fire.target}" + (" (snap)" if fire.snap else "")


def roll_text(roll: LogRoll) -> str:
    need = f" ({roll.target})" if roll.target else ""
    outcome = f" -> {roll.outcome}" if roll.outcome else ""
    return f"die {roll.i}: {roll.purpose}{need} rolled {roll.value}{outcome}"


def render(
    match_id: str, events: Sequence[Event], dice_for: DiceFor, *, start: int = 1, end: int | None = None
) -> Iterator[str]:
    """The replay text, line by line (events ``start..end`` are printed). The whole log is
    folded first, so an action shows the undo that later took it back."""
    timeline = Timeline(match_id, dice_for)
    where: list[tuple[int, int, str, str]] = []
    with collections_paused():  # a whole log folded in a row (match/gc_pause.py)
        for event in events:
            after = timeline.push(event)
            where.append((after.turn, after.player_turn, after.active, after.phase))
    shown: tuple[int, int, str, str] | None = None
    for event, position in zip(events, where, strict=True):
        if event.seq < start or (end is not None and event.seq > end):
            continue
        if isinstance(event.body, MatchCreated):
            yield f"Match {match_id} ({event.body.edition}), dice commitment {event.body.commitment}"
        turn, player_turn, side, phase = position
        if shown is None or position[:3] != shown[:3]:
            yield ""
            yield f"== Turn {turn}, side {side} (player turn {player_turn}) =="
        if shown is None or position != shown:
            yield f"-- {phase} phase --"
        shown = position
        yield from _event_lines(timeline, event)
    final = timeline.state
    if final.ended and (end is None or end >= final.seq):
        winner = f"side {final.winner} wins" if final.winner else "a draw"
        yield ""
        yield f"Result: {winner} ({final.end_reason})."


def _event_lines(timeline: Timeline, event: Event) -> Iterator[str]:
    mark = ""
    undone_by = timeline.undone_by.get(event.seq)
    if undone_by is not None:
        mark = f"   [undone by #{undone_by}]"
    restored = timeline.restores.get(event.seq)
    if restored is not None:
        undone = sorted(s for s, u in timeline.undone_by.items() if u == event.seq)
        mark = f"   [back to the state as of #{restored}; undoes {', '.join(f'#{s}' for s in undone)}]"
    yield f"  #{event.seq} {describe(event)}{mark}"
    entries: tuple[LogEntry, ...] = timeline.entries.get(event.seq, ())
    for entry in entries:
        rule = f" [{entry.rule}]" if entry.rule else ""
        yield f"      {entry.text}{rule}"
        for roll in entry.rolls:
            yield f"        {roll_text(roll)}"
