"""The apply context of an odds play: the reducer's own ``ApplyContext`` whose rolls are answered
by the engine's :class:`~.dice_sources.Script`, one branch per group of faces the rules cannot
tell apart (``face_classes``, docs/odds.md)."""

from __future__ import annotations

from collections.abc import Callable

from ..match.context import ApplyContext
from ..match.state import Edition, LogRoll
from .dice_sources import Script
from .face_classes import SIX_FACES, face_classes


class OddsContext(ApplyContext):
    def __init__(self, edition: Edition, seq: int, script: Script, first_log_n: int) -> None:
        super().__init__(seq, script, first_log_n)
        self._edition = edition
        self._script = script

    def roll(self, purpose: str, target: str = "", judge: Callable[[int], str] | None = None) -> int:
        branches = face_classes(self._edition, purpose, judge) if self._script.equal_faces else SIX_FACES
        value = self._script.pick(branches)
        outcome = judge(value) if judge is not None else ""
        i = len(self._script.path) - 1
        self._pending_rolls.append(LogRoll(i=i, value=value, purpose=purpose, target=target, outcome=outcome))
        return value
