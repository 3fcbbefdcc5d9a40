"""Undo, takebacks and the history-aware reducer (docs/architecture.md section 9). Pure.

Undo is an event, never a deletion. Undoing restores the *exact* game state as of an earlier seq
by asking ``state_at(seq)`` for it (a snapshot plus a fold in the live server, an in-memory
checkpoint plus a fold in :mod:`match.timeline`), never by hand-written inverse operations.

What an undo restores and what it carries over:

- Restored (the *game*): everything but the fields in :data:`BOOKKEEPING`, including
  ``line`` (the latest game action on the line of play, so several undos in a row walk back
  action by action) and ``pending`` decisions.
- Carried over (the *stream*): ``seq`` (the stream never rewinds: the next event is appended
  at ``seq + 1`` and rolls dice bound to that new seq), the combat log (the undone actions'
  lines stay in it, followed by the undo's own line), ``acted`` and ``last_undo``.

:func:`game_hash` hashes the game part only, so ``game_hash(after undo) ==
game_hash(state_at(target))`` while ``reducer.state_hash`` (everything) keeps telling every seq
apart.

Rules (docs/architecture.md section 9): a side may undo its own last action at once while it
revealed no dice and the opponent has not acted since (no event by the other side after it).
Anything else is a takeback: ``TakebackRequest(to_seq)`` names a state on the line of play; the
opponent grants or declines it (``TakebackAnswer``); only a grant restores. While a request is
pending, the match waits for the answer (the requester may withdraw it by answering
``grant=false``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import msgspec
from msgspec.structs import replace

from ..rules.dice import Dice
from . import doc_refs
from .actions import PLAY_ACTION_KINDS, Action, TakebackAnswer, TakebackRequest, Undo
from .context import ApplyContext
from .events import Event
from .hashing import state_hash
from .reducer import evolve, logged, play
from .rejection import Rejection, reject
from .state import LOG_WINDOW, LineStep, LogEntry, MatchState, Side, UndoMark, other_side
from .victory import apply_victory

RULE = doc_refs.UNDO
TAKEBACK_RULE = doc_refs.TAKEBACK

StateAt = Callable[[int], MatchState]

# The actions that make up the line of play (undoable) are every edition's play actions.
# Undo/takebacks are about the line; Concede and system events end or annotate the match.
_GAME_ACTION_KINDS: frozenset[type] = frozenset(PLAY_ACTION_KINDS)
_HISTORY_KINDS: frozenset[type] = frozenset({Undo, TakebackRequest, TakebackAnswer})

# Fields an undo carries over from the current state instead of restoring them.
BOOKKEEPING = ("seq", "log", "log_count", "acted", "last_undo")


_names: dict[type, str] = {}


def action_name(action: object) -> str:
    """The wire tag of an action ("move", "shoot"...)."""
    kind = type(action)
    name = _names.get(kind)
    if name is None:
        tag = action.__struct_config__.tag if isinstance(action, msgspec.Struct) else None
        name = _names[kind] = tag if isinstance(tag, str) else kind.__name__.lower()
    return name


# An action as a player names it (the table's words, web/static/js/option-label.js ACTION_LABELS):
# "after your End Phase", not "after your end_phase".
ACTION_LABELS: dict[str, str] = {
    "move": "Move",
    "pivot": "Pivot",
    "shoot": "Shooting",
    "charge": "Charge",
    "fight": "Fight",
    "challenge": "Challenge",
    "embark": "Embark",
    "disembark": "Disembark",
    "abandon": "Abandon",
    "join": "Join",
    "leave": "Leave",
    "manifest": "Psychic Power",
    "end_phase": "End Phase",
    "decide": "Decision",
    "roll_off": "Roll-off",
    "place_marker": "Objective Marker",
    "deploy": "Deployment",
    "reserve": "Reserves",
    "deep_strike": "Deep Strike",
}


def action_label(name: str) -> str:
    """An action's wire tag as a player reads it ("end_phase" -> "End Phase")."""
    return ACTION_LABELS.get(name) or name.replace("_", " ").title()


def game_part(state: MatchState) -> MatchState:
    """The state with its stream bookkeeping blanked: what an undo restores exactly."""
    return replace(state, seq=0, log=(), log_count=0, acted={}, last_undo=None)


def game_hash(state: MatchState) -> str:
    """The h2 hash (match/hashing.py) of the game part (see :data:`BOOKKEEPING`): equal before
    and after an undo."""
    return state_hash(game_part(state))


# ---- the pending takeback (MatchState.takeback: str -> str) ----------------------------------


def takeback_by(state: MatchState) -> Side | None:
    """The side whose takeback request is pending, if any."""
    by = state.takeback.get("by")
    return "a" if by == "a" else "b" if by == "b" else None


def takeback_to(state: MatchState) -> int:
    return int(state.takeback.get("to_seq", "0"))


# ---- validation ---------------------------------------------------------------------------


def check_pending_takeback(state: MatchState, side: Side, action: Action) -> Rejection | None:
    """While a takeback request is pending only its answer moves the match on (and Concede,
    which validate lets through before this)."""
    requester = takeback_by(state)
    if requester is None or isinstance(action, TakebackAnswer):
        return None
    return reject(
        "takeback_pending",
        TAKEBACK_RULE,
        f"side {requester} asked to take the match back to seq {takeback_to(state)}; "
        f"side {other_side(requester)} must grant or decline it first",
        by=requester,
        to_seq=takeback_to(state),
    )


def check_undo(state: MatchState, side: Side) -> Rejection | None:
    """May ``side`` undo the last action at once (docs/architecture.md section 9)?"""
    last = state.line
    if last is None:
        return reject("nothing_to_undo", RULE, "there is no action to undo")
    if last.by != side:
        return reject(
            "not_your_action",
            RULE,
            f"the last action ({action_label(last.action)} at seq {last.seq}) was side {last.by}'s; "
            "a side may only undo its own last action",
            seq=last.seq,
            by=last.by,
        )
    if last.dice > 0:
        return reject(
            "dice_revealed",
            RULE,
            f"your {action_label(last.action)} at seq {last.seq} revealed {last.dice} dice; "
            f"ask for a takeback to seq {last.parent} (the opponent must agree)",
            seq=last.seq,
            dice=last.dice,
            to_seq=last.parent,
        )
    opponent = other_side(side)
    since = state.acted.get(opponent, 0)
    if since > last.seq:
        return reject(
            "opponent_acted",
            RULE,
            f"side {opponent} acted at seq {since}, after your {action_label(last.action)} at seq {last.seq}; "
            f"ask for a takeback to seq {last.parent} (the opponent must agree)",
            seq=last.seq,
            opponent_seq=since,
            to_seq=last.parent,
        )
    return None


def line_targets(state: MatchState, state_at: StateAt, down_to: int) -> list[int]:
    """The states an undo chain passes through, newest first, while they are >= ``down_to``:
    the parent of the last action, then the parent of the action before it, and so on."""
    found: list[int] = []
    current = state
    while current.line is not None and current.line.parent >= down_to:
        parent = current.line.parent
        found.append(parent)
        if parent == down_to:
            break
        current = state_at(parent)
    return found


def check_takeback_request(
    state: MatchState, side: Side, to_seq: int, state_at: StateAt | None
) -> Rejection | None:
    """A takeback may go back to any state on the line of play, into earlier turns too. Without
    ``state_at`` only the cheap checks run (the live runtime always passes it)."""
    if state.line is None:
        return reject("nothing_to_undo", TAKEBACK_RULE, "there is no action to take back")
    if not 1 <= to_seq <= state.line.parent:
        return reject(
            "bad_takeback_target",
            TAKEBACK_RULE,
            f"to_seq must name a state before the last action (1..{state.line.parent}), got {to_seq}",
            to_seq=to_seq,
            latest=state.line.parent,
        )
    if state_at is None:
        return None
    targets = line_targets(state, state_at, to_seq)
    if not targets or targets[-1] != to_seq:
        shown = ", ".join(str(s) for s in targets[-4:]) or "none"
        return reject(
            "not_on_line",
            TAKEBACK_RULE,
            f"seq {to_seq} is not a state on the current line of play (it is inside an action or "
            f"in an undone branch); the line passes through seqs {shown} down to {to_seq}",
            to_seq=to_seq,
        )
    return None


def check_takeback_answer(state: MatchState, side: Side, grant: bool) -> Rejection | None:
    requester = takeback_by(state)
    if requester is None:
        return reject("no_takeback_pending", TAKEBACK_RULE, "there is no takeback request to answer")
    if requester == side and grant:
        return reject(
            "own_takeback",
            TAKEBACK_RULE,
            f"side {side} asked for this takeback; side {other_side(side)} must grant it "
            "(you may withdraw it with grant=false)",
        )
    return None


def check_history_action(
    state: MatchState, side: Side, action: Undo | TakebackRequest | TakebackAnswer, state_at: StateAt | None
) -> Rejection | None:
    """Validate an undo or takeback action (validate.py calls this after its generic checks)."""
    match action:
        case Undo():
            return check_undo(state, side)
        case TakebackRequest():
            return check_takeback_request(state, side, action.to_seq, state_at)
        case TakebackAnswer():
            return check_takeback_answer(state, side, action.grant)


# ---- the history-aware reducer ------------------------------------------------------------


def needed_seq(state: MatchState, event: Event) -> int | None:
    """The earlier seq whose state folding ``event`` onto ``state`` restores, if any. The live
    runtime loads it (asynchronously) before calling :func:`evolve_with_history`."""
    body = event.body
    if isinstance(body, Undo):
        return state.line.parent if state.line is not None else None
    if isinstance(body, TakebackAnswer) and body.grant:
        requester = takeback_by(state)
        if requester is not None and event.by == other_side(requester):
            return takeback_to(state)
    return None


def evolve_with_history(
    state: MatchState, event: Event, dice: Dice, state_at: StateAt, ctx: ApplyContext | None = None
) -> MatchState:
    """Fold one event, resolving undos and takebacks through ``state_at``. Total, like
    ``reducer.evolve``, which it wraps: it also keeps the line of play and checks victory.
    ``ctx``: the context the reducer applies the event in (its ``entries`` are then every line
    the rules wrote, even more than the log window keeps), else a new one."""
    body = event.body
    by = event.by
    kind = type(body)
    if kind in _GAME_ACTION_KINDS and by != "system":
        return _game_action(state, event, by, dice, ctx)
    if kind not in _HISTORY_KINDS:
        new = evolve(state, event, dice, ctx)
        if by == "system":
            return new
        return replace(new, acted={**new.acted, by: event.seq})
    match body:
        case Undo():
            new = _undo(state, event, state_at)
        case TakebackRequest():
            new = _request(state, event, body.to_seq)
        case TakebackAnswer():
            new = _answer(state, event, body.grant, state_at)
    if by != "system":
        new = replace(new, acted={**new.acted, by: event.seq})
    return new


def _game_action(
    state: MatchState, event: Event, by: Side, dice: Dice, ctx: ApplyContext | None
) -> MatchState:
    """A player's game action (the common event): ``reducer.evolve``'s fold of a play action,
    with its seq, log lines, line of play and ``acted`` stamped on in one copy, then the victory
    check on that state (its line, if any, follows the action's)."""
    seq = event.seq
    if ctx is None:
        ctx = ApplyContext(seq, dice, state.log_count)
    new = play(state, event, ctx)
    step = LineStep(seq, by, action_name(event.body), len(dice.rolls), origin(state))
    log, log_count = logged(new, ctx)
    acted = {**new.acted, by: seq}
    return apply_victory(replace(new, seq=seq, log=log, log_count=log_count, line=step, acted=acted))


def origin(state: MatchState) -> int:
    """The seq an action applied to ``state`` records as its parent: right after an undo, the
    restored seq (same game), so the line of play runs through the states players saw."""
    mark = state.last_undo
    if mark is not None and mark.seq == state.seq:
        return mark.to
    return state.seq


def _log(state: MatchState, seq: int, text: str, rule: str) -> MatchState:
    """Append one log line for an event handled here (the reducer's window rules)."""
    entry = LogEntry(n=state.log_count, seq=seq, text=text, rule=rule)
    log = (*state.log, entry)
    if len(log) > LOG_WINDOW:
        log = log[-LOG_WINDOW:]
    return replace(state, seq=seq, log=log, log_count=state.log_count + 1)


def restore(current: MatchState, target: MatchState) -> MatchState:
    """The game part of ``target`` with the stream bookkeeping of ``current``."""
    return replace(
        target,
        seq=current.seq,
        log=current.log,
        log_count=current.log_count,
        acted=current.acted,
        last_undo=current.last_undo,
    )


def _undo(state: MatchState, event: Event, state_at: StateAt) -> MatchState:
    last = state.line
    if last is None:  # never validated; recorded so the fold stays total
        return _log(state, event.seq, f"Side {event.by} asks to undo, but there is nothing to undo.", RULE)
    side: Side = last.by
    restored = restore(state, state_at(last.parent))
    restored = replace(restored, last_undo=UndoMark(seq=event.seq, to=last.parent, by=side, kind="undo"))
    text = (
        f"Side {side} undoes its {last.action} (seq {last.seq}): "
        f"the state as of seq {last.parent} is restored."
    )
    return _log(restored, event.seq, text, RULE)


def _request(state: MatchState, event: Event, to_seq: int) -> MatchState:
    side: Side = "a" if event.by == "a" else "b"
    pending = {"by": side, "to_seq": str(to_seq), "seq": str(event.seq)}
    text = (
        f"Side {side} asks to take the match back to seq {to_seq}; "
        f"side {other_side(side)} may grant or decline."
    )
    return _log(replace(state, takeback=pending), event.seq, text, TAKEBACK_RULE)


def _answer(state: MatchState, event: Event, grant: bool, state_at: StateAt) -> MatchState:
    requester = takeback_by(state)
    if requester is None:
        return _log(state, event.seq, f"Side {event.by} answers, but no takeback is pending.", TAKEBACK_RULE)
    to_seq = takeback_to(state)
    answered: Literal["granted", "declined", "withdrawn"] = (
        "withdrawn" if event.by == requester else "granted" if grant else "declined"
    )
    if answered != "granted":
        cleared = replace(state, takeback={})
        who = f"side {requester} withdraws" if answered == "withdrawn" else f"side {event.by} declines"
        return _log(cleared, event.seq, f"Takeback to seq {to_seq}: {who} it.", TAKEBACK_RULE)
    restored = restore(state, state_at(to_seq))
    restored = replace(
        restored, takeback={}, last_undo=UndoMark(seq=event.seq, to=to_seq, by=requester, kind="takeback")
    )
    text = f"Side {event.by} grants side {requester}'s takeback: the state as of seq {to_seq} is restored."
    return _log(restored, event.seq, text, TAKEBACK_RULE)
