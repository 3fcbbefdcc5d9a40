"""Actions that pause on a decision in their middle, and their resumption (docs/decisions.md).

Where a rule says a player decides in the middle of an action (the owner of a destroyed
transport's passengers places them, ...), the rules ask ``ctx.decide``. In a live match nobody
has answered yet, so the fold raises :class:`~.decisions.Suspend`; :func:`apply_play` then
keeps the state *before* the action, with the decision pending and the action itself in
``state.suspended`` (its JSON, its actor, every die it drew so far, the answers so far).

The ``decide`` that answers it folds the action again from that state, with the answers so far
plus the new one: the dice it drew before are drawn again from ``suspended.faces`` (the same
faces, in the same order, so the same effects in the same order), then new dice come from the
``decide`` event's own dice source (match/dice_binding.py: bound to its seq). The lines and rolls
the first events already wrote are not written again. The log holds every answer, so fold,
replay, verify and undo stay pure folds of the log. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from msgspec.structs import replace

from ..rules.dice import Dice, DiceExhausted, NoDice, Roll, drawn_faces
from . import doc_refs
from .actions import Decide, PlayAction
from .context import ApplyContext
from .decisions import UNANSWERED, Checked, Recorded, Suspend
from .editions import EDITIONS, rules_for
from .rejection import Rejection, reject
from .state import Answer, MatchState, Side, Suspended

_action_decoder = msgspec.json.Decoder(PlayAction)


class ReplayedDice:
    """``faces`` first (the dice an earlier event of the action drew), then ``dice``.

    ``rolls`` lists only the dice drawn from ``dice``: those are the ones this event reveals
    and logs; ``drawn`` lists every face handed out."""

    __slots__ = ("_dice", "_drawn", "_faces")  # one per play action folded

    def __init__(self, faces: Sequence[int], dice: Dice) -> None:
        self._faces = tuple(faces)
        self._dice = dice
        self._drawn: list[int] = []

    def d6(self) -> int:
        k = len(self._drawn)
        value = self._faces[k] if k < len(self._faces) else self._dice.d6()
        self._drawn.append(value)
        return value

    @property
    def rolls(self) -> Sequence[Roll]:
        return self._dice.rolls

    @property
    def drawn(self) -> tuple[int, ...]:
        return tuple(self._drawn)


def apply_play(state: MatchState, side: Side, action: PlayAction, ctx: ApplyContext) -> MatchState:
    """The reducer's step for a play action: the edition applies it, pausing on a decision taken
    in its middle; a ``decide`` answering such a decision resumes the paused action."""
    suspended = state.suspended
    if isinstance(action, Decide) and suspended is not None:
        start = replace(state, pending=suspended.before, suspended=None)
        answers = (*suspended.answers, answer_of(action))
        return _fold(start, suspended.by, decode_action(suspended.action), ctx, suspended.faces, answers)
    return _fold(state, side, action, ctx, (), ())


def answer_of(action: Decide) -> Answer:
    return Answer(choice=action.choice, place=action.place, aim=action.aim)


def decode_action(text: str) -> PlayAction:
    return _action_decoder.decode(text)


def _fold(
    start: MatchState,
    side: Side,
    action: PlayAction,
    ctx: ApplyContext,
    faces: tuple[int, ...],
    answers: tuple[Answer, ...],
) -> MatchState:
    # The faces an earlier event of the action drew come first; with none (the common case)
    # the event's own dice serve as they are.
    replayed = ReplayedDice(faces, ctx.dice) if faces else None
    if replayed is not None:
        ctx.use_dice(replayed)
    # The callback makes a reference cycle (ctx -> answerer -> ctx) that only the garbage
    # collector frees: it is only made when there are recorded answers to hand out.
    auto = start.options.auto_decide
    ctx.answerer = Recorded(answers, auto, resumed=ctx.discard_replayed) if answers else UNANSWERED[auto]
    try:
        return EDITIONS[start.edition].apply(start, side, action, ctx)
    except Suspend as paused:
        decision = paused.decision
        ctx.log(
            f"Waiting for side {decision.side}: {decision.prompt}",
            decision.rule,
            decision=decision.id,
            kind=decision.kind,
        )
        return replace(
            start,
            pending=decision,
            suspended=Suspended(
                action=msgspec.json.encode(action).decode(),
                by=side,
                # The event's own dice serve one event (rules/dice.py): their faces are this fold's.
                faces=replayed.drawn if replayed is not None else drawn_faces(ctx.dice),
                answers=answers,
                before=start.pending,
            ),
        )


def check_answer(state: MatchState, action: Decide) -> Rejection | None:
    """Is ``action`` a legal answer to the decision ``state`` is paused on? The paused action is
    folded again, without new dice, up to that decision, whose rules check the answer there."""
    suspended = state.suspended
    if suspended is None:
        return None
    start = replace(state, pending=suspended.before, suspended=None)
    answers = (*suspended.answers, answer_of(action))
    ctx = ApplyContext(state.seq + 1, ReplayedDice(suspended.faces, NoDice()), state.log_count)
    ctx.answerer = Recorded(answers, auto=False, trial=True)
    try:
        rules_for(start.edition).apply(start, suspended.by, decode_action(suspended.action), ctx)
    except Checked as checked:
        return checked.problem
    except (Suspend, DiceExhausted):
        pass
    # The paused action did not reach its decision again: the rules are not deterministic.
    return reject(
        "decision_not_reached",
        doc_refs.DECISIONS,
        "the paused action no longer reaches this decision; nothing was changed",
    )
