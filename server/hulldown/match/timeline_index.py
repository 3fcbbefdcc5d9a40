"""The structs of a match's timeline index (match/timeline.py): where every turn, player turn and
phase starts, every game action, and what was undone. Kept apart from the timeline itself, which
has no structs of its own (bench/compiled_fold.py: a module defining msgspec structs cannot be
compiled, the timeline's bookkeeping can)."""

from __future__ import annotations

import msgspec

from .state import Side


class PhaseStart(msgspec.Struct, frozen=True):
    """A phase of a player turn began at ``seq`` (the state as of ``seq`` is its first state)."""

    seq: int
    turn: int
    player_turn: int
    side: Side
    phase: str
    undone_by: int | None = None


class UndoneAction(msgspec.Struct, frozen=True):
    """A game action later taken back: ``undone_by`` is the undo or granted takeback."""

    seq: int
    by: Side
    action: str
    undone_by: int


class ActionEntry(msgspec.Struct, frozen=True):
    """A game action: where it sits on the line of play and whether it was undone."""

    seq: int
    by: Side
    action: str
    dice: int
    parent: int
    undone_by: int | None = None


class TimelineIndex(msgspec.Struct, frozen=True):
    """The seq where every turn, player turn and phase starts, and every game action, up to
    ``seq``. Undone branches are marked (``undone_by``), never hidden."""

    match_id: str
    seq: int
    turns: list[PhaseStart]
    player_turns: list[PhaseStart]
    phases: list[PhaseStart]
    actions: list[ActionEntry]
