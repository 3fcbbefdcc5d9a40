"""What the reducer hands an edition's rules while applying one event, and the edition interface.

:class:`ApplyContext` gives the rules the event's dice (every die is recorded with its purpose,
target and outcome) and collects the log lines the event produces.
"""

from __future__ import annotations

from collections.abc import Callable

from ..rules.dice import Dice
from .decisions import Answerer, Check, Proposer, Suspend
from .state import Answer, Decision, LogEntry, LogRoll, LogValue

_PROPOSER = Proposer()  # it keeps nothing between answers: one serves every context


class ApplyContext:
    """Dice and log for one event being applied. Pure: it only records."""

    # Whether the rolls' ``batch`` keys are read (the odds engine's context): the rules need not
    # work them out otherwise.
    batch_keys = False
    # One is made for every event folded: slots make it and its attributes cheaper.
    __slots__ = ("_dice", "_first_n", "_next_n", "_pending_rolls", "answerer", "asked", "entries", "seq")

    def __init__(self, seq: int, dice: Dice, first_log_n: int, answerer: Answerer | None = None) -> None:
        self.seq = seq
        self._dice = dice
        self._first_n = first_log_n
        self._next_n = first_log_n
        self._pending_rolls: list[LogRoll] = []
        self.entries: list[LogEntry] = []
        self.answerer: Answerer = answerer if answerer is not None else _PROPOSER
        # How many decisions this fold of the event has asked so far (unique decision ids).
        self.asked = 0

    @property
    def dice(self) -> Dice:
        return self._dice

    def use_dice(self, dice: Dice) -> None:
        """Roll from ``dice`` from now on (match/suspend.py: the faces already drawn, then the
        event's own dice)."""
        self._dice = dice

    def decide(
        self, decision: Decision, check: Check, detail: Callable[[Decision], Decision] | None = None
    ) -> Answer:
        """The answer to a decision taken here, in the middle of the action (docs/decisions.md).
        ``check`` says whether an answer is legal (a rejection with the numbers, or None).
        ``detail`` completes the decision a player is shown (its legal area, costly to compute):
        it is called only when the action pauses on it, never when the proposal or a recorded
        answer is taken (the odds engine, ``auto_decide``, a fold of the log)."""
        self.asked += 1
        try:
            return self.answerer.answer(decision, check)
        except Suspend as paused:
            if detail is None:
                raise
            raise Suspend(detail(paused.decision)) from None

    def discard_replayed(self) -> None:
        """Forget the lines and rolls written so far: they replay what an earlier event of
        this action already wrote (match/suspend.py)."""
        self.entries = []
        self._pending_rolls = []
        self._next_n = self._first_n

    def roll(
        self,
        purpose: str,
        target: str = "",
        judge: Callable[[int], str] | None = None,
        batch: object = None,
    ) -> int:
        """Roll one D6 for ``purpose`` (e.g. "armour penetration"), record it and return it.

        ``target`` describes what the roll needs ("4+", "vs AV13"); ``judge`` turns the face
        into an outcome word for the log. ``batch``: rolls in a row with equal keys (not None)
        are exchangeable - the rules use only how many came out each way - for the odds engine
        (odds/face_classes.py); the reducer's dice ignore it.
        """
        value = self._dice.d6()
        i = len(self._dice.rolls) - 1
        outcome = judge(value) if judge is not None else ""
        self._pending_rolls.append(LogRoll(i=i, value=value, purpose=purpose, target=target, outcome=outcome))
        return value

    def uniform(self, n: int, purpose: str, draw: Callable[[], int]) -> int:
        """A choice among ``n`` equally likely ones (0 to n - 1, at most 36) that the rules draw
        with ``draw`` from this context's rolls, re-rolling the faces that fall outside the
        choices (rejection sampling: any number of dice). The reducer calls ``draw``; the odds
        engine's context takes one branch per choice instead, each with probability 1 / n
        (docs/odds.md, "Random choices"): the re-rolls would make its tree of dice endless."""
        return draw()

    def set_outcome(self, outcome: str) -> None:
        """Set the outcome of the most recent roll (when it is known only after more rolls)."""
        if self._pending_rolls:
            last = self._pending_rolls[-1]
            self._pending_rolls[-1] = LogRoll(
                i=last.i, value=last.value, purpose=last.purpose, target=last.target, outcome=outcome
            )

    def set_outcomes(self, count: int, outcome: str) -> None:
        """Set the outcome of the ``count`` most recent rolls: the dice of one roll made of
        several dice (two for Ordnance penetration, a D6 added by Melta) all carry its result."""
        for k in range(max(0, len(self._pending_rolls) - count), len(self._pending_rolls)):
            last = self._pending_rolls[k]
            self._pending_rolls[k] = LogRoll(
                i=last.i, value=last.value, purpose=last.purpose, target=last.target, outcome=outcome
            )

    def log(self, text: str, rule: str = "", **values: LogValue) -> None:
        """Add a log line; it carries every roll made since the previous line and the numbers
        the rules used (``values``, e.g. ``facing="front", target=4``)."""
        # ``values`` is this call's own dict (keyword arguments): the line keeps it as it is.
        pending = self._pending_rolls
        if pending:
            self.entries.append(LogEntry(self._next_n, self.seq, text, rule, tuple(pending), values))
            self._pending_rolls = []
        else:
            self.entries.append(LogEntry(self._next_n, self.seq, text, rule, (), values))
        self._next_n += 1

    def flush(self) -> None:
        """Attach rolls not yet logged to a final line so no die goes unrecorded."""
        if self._pending_rolls:
            self.log("dice rolled")
