"""Who answers a decision taken in the middle of an action (docs/decisions.md). Pure.

The rules ask ``ApplyContext.decide(decision, check)`` at the point where the rule says a player
decides (places models, chooses ...). An :class:`Answerer` gives the answer:

- :class:`Proposer` answers every decision with the server's proposal: the odds engine, and any
  rules code run outside the reducer, use it (the answer is then exactly today's automatic
  choice);
- :class:`Recorded` is the reducer's: it hands out the answers the match's log recorded so far,
  in order; past them it proposes (``auto_decide``) or raises :class:`Suspend`, which
  ``match/suspend.py`` turns into a pending decision.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from msgspec.structs import replace

from .rejection import Rejection, reject
from .state import Answer, Decision, Shape

Check = Callable[[Answer], Rejection | None]


class Suspend(Exception):
    """The action cannot go on until ``decision`` is answered."""

    def __init__(self, decision: Decision) -> None:
        super().__init__(decision.id)
        self.decision = decision


class Checked(Exception):
    """A trial fold reached the decision being answered and checked the answer (``problem``:
    the rejection, or None when the answer is legal)."""

    def __init__(self, problem: Rejection | None) -> None:
        super().__init__(problem.code if problem is not None else "ok")
        self.problem = problem


def check_wound_taker(options: tuple[str, ...], given: Answer, rule: str) -> Rejection | None:
    """An ``allocate_wound`` answer must name one of the models the edition's rule ``rule``
    allows to take the wound (``invalid_choice`` otherwise, naming them)."""
    if given.choice in options:
        return None
    return reject(
        "invalid_choice",
        rule,
        f"{given.choice!r} cannot take this wound: allowed {', '.join(options)}",
        choice=given.choice,
    )


def with_areas(decision: Decision, areas: dict[str, tuple[Shape, ...]]) -> Decision:
    """A placement decision with the legal area of each model added: costly to draw, so done only
    for a decision the match pauses on to show it (``ApplyContext.decide``'s ``detail``), never
    when a proposal or a recorded answer is taken (a fold of the log, ``auto_decide``, the odds)."""
    placement = decision.placement
    if placement is None:
        return decision
    return replace(decision, placement=replace(placement, area=areas))


def proposal_of(decision: Decision) -> Answer:
    """The answer that takes the server's proposal."""
    return Answer(choice=decision.proposal)


class Answerer(Protocol):
    def answer(self, decision: Decision, check: Check) -> Answer: ...


class Proposer:
    """Answers every decision with its proposal (the policy of the odds engine)."""

    def answer(self, decision: Decision, check: Check) -> Answer:
        return proposal_of(decision)


class Recorded(Proposer):
    """The recorded answers, in order; then the proposal (``auto``) or a suspension.

    ``resumed`` is called when the last recorded answer is handed out: everything the fold did
    before it was already done by the event that paused (its log lines are not written again).
    ``trial``: the last answer is the one being validated: check it and stop the fold there.
    """

    def __init__(
        self,
        answers: tuple[Answer, ...],
        auto: bool,
        resumed: Callable[[], None] = lambda: None,
        trial: bool = False,
    ) -> None:
        self._answers = answers
        self._auto = auto
        self._resumed = resumed
        self._trial = trial
        self._next = 0

    def answer(self, decision: Decision, check: Check) -> Answer:
        i = self._next
        self._next += 1
        if i < len(self._answers):
            given = self._answers[i]
            if i < len(self._answers) - 1:
                return given
            if self._trial:
                raise Checked(check(given))
            self._resumed()
            # Validated before append; a log that was not (hand-edited) still folds: the
            # proposal stands in for an answer the rules refuse.
            return given if check(given) is None else proposal_of(decision)
        if self._auto:
            return proposal_of(decision)
        raise Suspend(decision)


class Unanswered(Proposer):
    """:class:`Recorded` with no answer recorded: the proposal (``auto``) or a suspension. It
    keeps no count, so one of each serves every fold (:data:`UNANSWERED`)."""

    def __init__(self, auto: bool) -> None:
        self._auto = auto

    def answer(self, decision: Decision, check: Check) -> Answer:
        if self._auto:
            return proposal_of(decision)
        raise Suspend(decision)


UNANSWERED = {True: Unanswered(True), False: Unanswered(False)}
