"""The apply context of an odds play: the reducer's own ``ApplyContext`` whose rolls are answered
by the engine's :class:`~.dice_sources.Script`, one branch per group of faces the rules cannot
tell apart (``face_classes``, docs/odds.md), and whose decisions taken in the middle of the
action (docs/decisions.md) are answered with the server's proposal and noted, so the answer
lists them."""

from __future__ import annotations

from collections.abc import Callable

from ..match.context import ApplyContext
from ..match.decisions import Check, Recorded, proposal_of
from ..match.state import Answer, Decision, Edition, LogRoll, LogValue
from .dice_sources import Branches, Script, choices
from .face_classes import EXCHANGEABLE, KEYED_EXCHANGEABLE, SIX_FACES, face_classes


class Proposing:
    """The answerer of an odds play: every decision taken in the middle of the action (placing
    models, allocating a wound, aiming, a challenge; docs/decisions.md) takes the server's
    proposal, as with ``auto_decide``; ``asked`` keeps each decision so answered, in the order
    asked. ``given``: the answers the match already has for the first decisions of an action it
    paused on (match/suspend.py), handed out first by the reducer's own answerer (``Recorded``)."""

    def __init__(self, given: tuple[Answer, ...] = ()) -> None:
        self.asked: list[Decision] = []
        self._given_left = len(given)
        self._recorded = Recorded(given, auto=True)

    def answer(self, decision: Decision, check: Check) -> Answer:
        if self._given_left > 0:
            self._given_left -= 1
            return self._recorded.answer(decision, check)
        self.asked.append(decision)
        return proposal_of(decision)


class OddsContext(ApplyContext):
    """``faces`` and ``answers``: what an action the match paused on has drawn and been answered
    so far (match/suspend.py); its rolls hand out those faces first, with no branch."""

    def __init__(
        self,
        edition: Edition,
        seq: int,
        script: Script,
        first_log_n: int,
        faces: tuple[int, ...] = (),
        answers: tuple[Answer, ...] = (),
    ) -> None:
        self.midway = Proposing(answers)
        super().__init__(seq, script, first_log_n, self.midway)
        self._faces = faces
        self._faces_used = 0
        self._edition = edition
        self._script = script
        # The batch of exchangeable rolls the last roll belongs to (face_classes.EXCHANGEABLE).
        self._batch: tuple[str, str, Branches, object] | None = None
        self._exchangeable = EXCHANGEABLE.get(edition, frozenset()) if script.equal_faces else frozenset()
        self._keyed = KEYED_EXCHANGEABLE.get(edition, frozenset()) if script.equal_faces else frozenset()
        self.batch_keys = bool(self._keyed)

    def roll(
        self,
        purpose: str,
        target: str = "",
        judge: Callable[[int], str] | None = None,
        batch: object = None,
    ) -> int:
        if self._faces_used < len(self._faces):  # drawn already by the match: one branch
            value = self._faces[self._faces_used]
            self._faces_used += 1
            self._batch = None
            outcome = judge(value) if judge is not None else ""
            self._pending_rolls.append(
                LogRoll(i=self._faces_used - 1, value=value, purpose=purpose, target=target, outcome=outcome)
            )
            return value
        script = self._script
        branches = script.offered()
        if branches is None:
            branches = face_classes(self._edition, purpose, judge) if script.equal_faces else SIX_FACES
        # Whether the roll may continue a batch: a judged roll of a purpose in EXCHANGEABLE, or in
        # KEYED_EXCHANGEABLE with a batch key (face_classes).
        joins = judge is not None and (
            purpose in self._exchangeable or (batch is not None and purpose in self._keyed)
        )
        if joins or self._batch is not None:
            key = (purpose, target, branches, batch)
            continues = key == self._batch
            self._batch = key if joins else None
        else:
            continues = False
        value = script.pick(branches, continues)
        outcome = judge(value) if judge is not None else ""
        i = len(self._faces) + len(script.path) - 1
        self._pending_rolls.append(LogRoll(i=i, value=value, purpose=purpose, target=target, outcome=outcome))
        return value

    def uniform(self, n: int, purpose: str, draw: Callable[[], int]) -> int:
        """A random choice the rules draw by re-rolling (``ApplyContext.uniform``) is one roll of
        ``n`` branches, 1/n each: the rules' re-rolls would make the tree endless, and a re-roll
        only redraws the choice (docs/odds.md, "Random choices"). The log shows it as one roll of
        the choice's number. A paused action's own dice (``faces``) are read by its ``draw``."""
        if self._faces_used < len(self._faces):
            return draw()
        self._batch = None
        value = self._script.pick(choices(n))
        i = len(self._faces) + len(self._script.path) - 1
        self._pending_rolls.append(LogRoll(i=i, value=value, purpose=purpose, target=f"1-{n}", outcome=""))
        return value - 1

    def log(self, text: str, rule: str = "", **values: LogValue) -> None:
        self._batch = None  # a line ends a batch of rolls
        super().log(text, rule, **values)
