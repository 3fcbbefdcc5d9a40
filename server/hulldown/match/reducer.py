"""The reducer: ``evolve(state, event, dice) -> state``, pure and total (docs/architecture.md
sections 1 and 3).

The reducer never rejects: every event in a stream was validated before it was appended, and
replaying history can never fail. Rules that need dice draw them from the event's dice source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import cast

from msgspec.structs import replace

from ..rules.dice import Dice
from . import doc_refs
from .actions import Concede, PlayAction, TakebackAnswer, TakebackRequest, Undo
from .context import ApplyContext
from .editions import rules_for
from .events import Event, MatchCreated, MatchEnded, SeedRevealed
from .hashing import state_hash as _h2_state_hash
from .mission_flow import after_action
from .setup import SETUP_PHASE, initial_mission
from .state import LOG_WINDOW, LogEntry, MatchState, Side, other_side
from .suspend import apply_play
from .victory import CONCESSION


def initial_state(match_id: str, created: MatchCreated) -> MatchState:
    """The state a MatchCreated event establishes (seq 1)."""
    first_phase = rules_for(created.edition).phases[0]
    units = tuple(created.units)
    mission = initial_mission(created.mission, units) if created.mission is not None else None
    return MatchState(
        match_id=match_id,
        edition=created.edition,
        seq=1,
        active=created.first,
        battlefield=created.battlefield,
        terrain={t.id: t for t in created.terrain},
        units={u.id: u for u in created.units},
        options=created.options,
        commitment=created.commitment,
        first=created.first,
        # docs/missions.md: a named mission starts with the set-up phase
        phase=SETUP_PHASE if mission is not None else first_phase,
        mission=mission,
    )


def evolve(state: MatchState, event: Event, dice: Dice, ctx: ApplyContext | None = None) -> MatchState:
    """Fold one event into the state. Total for every event a stream can hold. ``ctx``: the
    context to apply it in (``evolve_logged`` reads the lines it collected), else a new one."""
    body = event.body
    if ctx is None:
        ctx = ApplyContext(event.seq, dice, state.log_count)
    if type(body) not in _STREAM_KINDS:
        new = play(state, event, ctx)
    else:
        match body:
            case MatchCreated():
                return initial_state(state.match_id, body)
            case SeedRevealed():
                ctx.log("The dice seed is revealed: every roll can now be verified.", doc_refs.DICE)
                new = replace(state, seed=body.seed)
            case MatchEnded():
                ctx.log(f"Match over: {body.reason}.", "")
                new = replace(
                    state,
                    ended=True,
                    winner=body.winner,
                    end_reason=body.reason,
                    pending=None,
                    suspended=None,
                    takeback={},  # the match is over: no request is left to answer
                )
            case Concede():
                side: Side = "a" if event.by == "a" else "b"
                ctx.log(f"Side {side} concedes.", "")
                new = replace(
                    state,
                    ended=True,
                    winner=other_side(side),
                    end_reason=CONCESSION,
                    pending=None,
                    suspended=None,
                    takeback={},
                )
            case _:
                # Undo and takebacks need the earlier state; the history-aware fold handles them
                # (match/history.py). Here they only record themselves.
                ctx.log(f"{type(body).__name__} by side {event.by}.", doc_refs.UNDO)
                new = state
    log, log_count = logged(new, ctx)
    return replace(new, seq=event.seq, log=log, log_count=log_count)


def logged(new: MatchState, ctx: ApplyContext) -> tuple[tuple[LogEntry, ...], int]:
    """The log window and log count of ``new`` once the lines ``ctx`` collected are written
    (rolls not yet logged flushed to a last line first): what an event's state carries."""
    ctx.flush()
    entries = ctx.entries
    if not entries:
        return new.log, new.log_count
    return window(new.log, entries), new.log_count + len(entries)


def play(state: MatchState, event: Event, ctx: ApplyContext) -> MatchState:
    """A play action (every event but the stream's own, ``_STREAM_KINDS``) applied by the
    edition's dispatch table, pausing on a decision taken in its middle (match/suspend.py), then
    the mission's steps after it. The lines it wrote are in ``ctx``: the caller stamps the seq
    and the log on the state (``evolve``; ``history.evolve_with_history`` in the same copy as
    the line of play)."""
    new = apply_play(state, "a" if event.by == "a" else "b", cast(PlayAction, event.body), ctx)
    if state.mission is not None and new.suspended is None:
        new = after_action(state, new, ctx)
    return new


def evolve_logged(state: MatchState, event: Event, dice: Dice) -> tuple[MatchState, list[LogEntry]]:
    """``evolve``, also returning every log line the event wrote - all of them, even when they are
    more than the state's window of LOG_WINDOW lines keeps (``hulldown simulate``)."""
    ctx = ApplyContext(event.seq, dice, state.log_count)
    new = evolve(state, event, dice, ctx)
    return new, ctx.entries


# The events the reducer folds itself (one set lookup tells a play action from them).
_STREAM_KINDS: frozenset[type] = frozenset(
    {MatchCreated, SeedRevealed, MatchEnded, Concede, Undo, TakebackRequest, TakebackAnswer}
)


def window(log: tuple[LogEntry, ...], entries: list[LogEntry]) -> tuple[LogEntry, ...]:
    """The log window once ``entries`` are appended: its last LOG_WINDOW lines (one copy)."""
    if len(entries) >= LOG_WINDOW:
        return tuple(entries[-LOG_WINDOW:])
    drop = len(log) + len(entries) - LOG_WINDOW
    return (log[drop:] if drop > 0 else log) + tuple(entries)


DiceFor = Callable[[Event], Dice]


def fold(
    match_id: str, events: Iterable[Event], dice_for: DiceFor, start: MatchState | None = None
) -> MatchState:
    """Fold a log of events from ``start`` (or from nothing: the first event must create the match).

    Plain ``evolve`` only: undos, takebacks and victory checks need the history-aware fold,
    ``match.timeline.fold_history`` (what the live server, replay and verify use).
    """
    state = start if start is not None else MatchState(match_id=match_id, edition="40k7", seq=0)
    for event in events:
        state = evolve(state, event, dice_for(event))
    return state


def state_hash(state: MatchState) -> str:
    """The canonical state hash (format h2, match/hashing.py) every new event carries, to check
    any replay against the live run. O(change): unchanged sub-trees reuse their digests."""
    return _h2_state_hash(state)
