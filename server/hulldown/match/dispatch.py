"""One dispatch table per edition: which handler validates and which applies each kind of play.

Every edition builds one :class:`DispatchTable` and declares, once, for each kind of play action
(``PLAY_ACTION_KINDS``) either its two handlers (``on``) or that it does not support it
(``unsupported``), and for each pending decision it raises the function that resumes play
after the answer (``decision``). The actions every edition shares (undo, takebacks, concession)
are handled in one place before any table is asked: ``match/validate.py`` and ``match/history.py``
check them, ``match/reducer.py`` folds them.

Adding an action kind means adding it to ``PLAY_ACTION_KINDS`` and to each table (a table that
leaves a kind neither handled nor unsupported is reported by ``missing()``, which
``tests/architecture/test_dispatch.py`` checks); adding an edition means one more table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from msgspec.structs import replace

from .actions import PLAY_ACTION_KINDS, Decide, Move, PlayAction
from .context import ApplyContext
from .rejection import Rejection, reject
from .state import Decision, MatchState, Side

A = TypeVar("A", bound=PlayAction)

Validator = Callable[[MatchState, Side, A], Rejection | None]
Applier = Callable[[MatchState, Side, A, ApplyContext], MatchState]
Resume = Callable[[MatchState, Decision, str, ApplyContext], MatchState]
"""Resume play after ``side`` answered a pending decision with ``choice``."""

UNSUPPORTED = "unsupported_action"
"""The code of every kind a table declares ``unsupported`` (the rejection catalogue lists each
declaration with its rule and message)."""


def sideless(check: Callable[[MatchState, A], Rejection | None]) -> Validator[A]:
    """A validator for a rule that does not need to know which side acts."""
    return lambda state, side, action: check(state, action)


def sideless_apply(apply: Callable[[MatchState, A, ApplyContext], MatchState]) -> Applier[A]:
    """An applier for a rule that does not need to know which side acts."""
    return lambda state, side, action, ctx: apply(state, action, ctx)


@dataclass(frozen=True)
class _Handlers:
    validate: Callable[[MatchState, Side, Any], Rejection | None]
    apply: Callable[[MatchState, Side, Any, ApplyContext], MatchState]


@dataclass(frozen=True)
class _Unsupported:
    rejection: Rejection


class DispatchTable:
    """An edition's rules behind one interface: ``validate`` (pure, before append) and ``apply``
    (the reducer's part, total: it must not raise for any action ``validate`` accepted)."""

    def __init__(self, edition: str, phases: tuple[str, ...], turn_rule: str) -> None:
        self.edition = edition
        self.phases = phases
        self._turn_rule = turn_rule
        self._entries: dict[type, _Handlers | _Unsupported] = {}
        # The appliers of the handled kinds, for ``apply`` (one lookup per action folded).
        self._appliers: dict[type, Callable[[MatchState, Side, Any, ApplyContext], MatchState]] = {}
        self._decisions: dict[str, Resume] = {}
        # The kinds of move (``Move.kind``) the edition has; declared with :meth:`move_kinds`.
        self._move_kinds: frozenset[str] = frozenset()

    # -- declaring ---------------------------------------------------------------------------

    def on(self, kind: type[A], validate: Validator[A], apply: Applier[A]) -> None:
        """``kind`` is validated by ``validate`` and applied by ``apply``."""
        self._declare(kind, _Handlers(validate, apply))

    def unsupported(self, kind: type[PlayAction], rule: str, message: str) -> None:
        """``kind`` does not exist in this edition: refused as ``unsupported_action``."""
        self._declare(kind, _Unsupported(Rejection(code=UNSUPPORTED, rule=rule, message=message)))

    def move_kinds(self, kinds: Iterable[str]) -> None:
        """The kinds of ``Move`` the edition has (its validation refuses any other)."""
        self._move_kinds = frozenset(kinds)

    def has(self, action: PlayAction) -> bool:
        """Whether the edition has this kind of action at all - in some phase, for some unit (a
        unit's card lists only those: match/options.py)."""
        if isinstance(action, Move):
            return action.kind in self._move_kinds
        entry = self._entries.get(type(action))
        return entry is not None and not isinstance(entry, _Unsupported)

    def decision(self, kind: str, resume: Resume) -> None:
        """A pending decision of ``kind`` is answered by a ``decide`` action, then ``resume`` runs."""
        if kind in self._decisions:
            raise ValueError(f"{self.edition}: decision {kind!r} declared twice")
        self._decisions[kind] = resume

    def _declare(self, kind: type, entry: _Handlers | _Unsupported) -> None:
        if kind is Decide:
            raise ValueError(f"{self.edition}: decide is dispatched by decision kind (use decision())")
        if kind in self._entries:
            raise ValueError(f"{self.edition}: {kind.__name__} declared twice")
        self._entries[kind] = entry
        if isinstance(entry, _Handlers):
            self._appliers[kind] = entry.apply

    def missing(self) -> list[str]:
        """The play action kinds this table neither handles nor declares unsupported."""
        return [k.__name__ for k in PLAY_ACTION_KINDS if k is not Decide and k not in self._entries]

    @property
    def decision_kinds(self) -> tuple[str, ...]:
        return tuple(self._decisions)

    # -- dispatching -------------------------------------------------------------------------

    def validate(self, state: MatchState, side: Side, action: PlayAction) -> Rejection | None:
        """Check ``action`` against the state; ``None`` means legal. Never mutates."""
        if isinstance(action, Decide):
            # The generic layer (match/validate.py) has checked the decision's id, side and
            # options; here only whether this edition knows the decision.
            pending = state.pending
            if pending is None or pending.kind not in self._decisions:
                return reject(
                    "no_decision_pending", self._turn_rule, f"there is no {self.edition} decision to answer"
                )
            return None
        entry = self._entries.get(type(action))
        if entry is None:
            return reject(
                "unsupported_action",
                self._turn_rule,
                f"{type(action).__name__} is not handled in {self.edition}",
            )
        if isinstance(entry, _Unsupported):
            return entry.rejection
        return entry.validate(state, side, action)

    def apply(self, state: MatchState, side: Side, action: PlayAction, ctx: ApplyContext) -> MatchState:
        """Apply a validated action. Total: an action this edition does not know changes nothing."""
        applier = self._appliers.get(type(action))
        if applier is not None:
            return applier(state, side, action, ctx)
        if isinstance(action, Decide):
            pending = state.pending
            if pending is None:
                return state
            resume = self._decisions.get(pending.kind)
            if resume is None:
                ctx.log(f"Unknown decision {pending.kind!r} cleared.", self._turn_rule)
                return replace(state, pending=None)
            return resume(state, pending, action.choice, ctx)
        return state  # a kind the edition does not support, or none it knows
