"""A match's whole history in memory: the history-aware fold, the state at any seq, undone
branches and the turn/phase index (docs/architecture.md sections 9 and 10). Pure.

:class:`Timeline` folds events one by one with ``history.evolve_with_history``. It keeps every
event, a checkpoint state every ``checkpoint_every`` seqs and a small cache of recent states, so
``state_at(seq)`` is a checkpoint plus a short refold - the in-memory twin of the store's
snapshots. Undo targets are resolved through the same ``state_at``.

While folding it records what replays and ``hulldown verify`` need: which actions were undone
and by which event (``undone_by``), the seq where every turn, player turn and phase starts, and
the dice every event drew - unless made with ``indexed=False``, as ``fold_history`` makes it,
whose caller wants the final state alone.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable

from msgspec.structs import replace

from ..rules.dice import Dice, drawn_faces
from .context import ApplyContext
from .events import Event
from .gc_pause import collections_paused
from .history import StateAt, evolve_with_history
from .state import LineStep, LogEntry, MatchState
from .timeline_index import ActionEntry, PhaseStart, TimelineIndex, UndoneAction

DiceFor = Callable[[Event], Dice]

# The recent states ``fold_history`` keeps: enough for a run of undos (n undos in a row reach
# back 2n states); a state further back (a takeback to an earlier turn) is refolded from the
# checkpoint before it, as it is beyond a live timeline's 256. Each state is the same either way.
FOLD_RECENT = 16


class Timeline:
    """Every event of one match, folded; earlier states on demand."""

    def __init__(
        self,
        match_id: str,
        dice_for: DiceFor,
        *,
        start: MatchState | None = None,
        before: StateAt | None = None,
        checkpoint_every: int = 64,
        recent: int = 256,
        indexed: bool = True,
    ) -> None:
        self.match_id = match_id
        # False: only the states are kept (``fold_history``): no index, no dice drawn, no lines.
        self.indexed = indexed
        self.dice_for = dice_for
        self.state = start if start is not None else MatchState(match_id=match_id, edition="40k7", seq=0)
        self.base = self.state.seq
        self._before = before
        self._every = max(1, checkpoint_every)
        self._recent_size = max(1, recent)
        self.events: list[Event] = []
        self._checkpoints: dict[int, MatchState] = {self.base: self.state}
        self._checkpoint_seqs: list[int] = [self.base]
        # The last ``recent`` states pushed (consecutive seqs, the newest last: the oldest leaves
        # as one comes in), and an LRU of earlier states ``state_at`` refolded.
        self._recent: deque[MatchState] = deque(maxlen=self._recent_size)
        self._refolded: OrderedDict[int, MatchState] = OrderedDict()
        self.line: list[LineStep] = []
        self.undone_by: dict[int, int] = {}
        self.undone: list[UndoneAction] = []
        self.restores: dict[int, int] = {}
        self.phases: list[PhaseStart] = []
        self.drawn: dict[int, tuple[int, ...]] = {}
        self.steps: dict[int, LineStep] = {}
        self.entries: dict[int, tuple[LogEntry, ...]] = {}

    @property
    def seq(self) -> int:
        return self.state.seq

    # ---- folding -------------------------------------------------------------------------

    def push(self, event: Event) -> MatchState:
        """Fold the next event (its seq must be ``seq + 1``)."""
        before = self.state
        seq = event.seq
        if seq != before.seq + 1:
            raise ValueError(f"event seq {seq} does not follow seq {before.seq}")
        dice = self.dice_for(event)
        ctx = ApplyContext(seq, dice, before.log_count)
        after = evolve_with_history(before, event, dice, self.state_at, ctx)
        self.events.append(event)
        self.state = after
        self._recent.append(after)
        if seq % self._every == 0:
            self._checkpoints[seq] = after
            self._checkpoint_seqs.append(seq)
        if not self.indexed:
            return after
        if dice.rolls:
            self.drawn[seq] = drawn_faces(dice)
        self._record(before, after, seq)
        count = after.log_count - before.log_count
        if count > 0:
            self.entries[seq] = _written(ctx.entries, after.log, count)
        return after

    def next_state(self, state: MatchState) -> MatchState:
        """Fold the event after ``state`` onto it (a replay cursor's step)."""
        event = self.events[state.seq - self.base]
        return evolve_with_history(state, event, self.dice_for(event), self.state_at)

    def extend(self, events: Iterable[Event]) -> MatchState:
        """Fold the events in order, the cyclic collector paused meanwhile (match/gc_pause.py)."""
        with collections_paused():
            for event in events:
                self.push(event)
        return self.state

    def _record(self, before: MatchState, after: MatchState, seq: int) -> None:
        """The index's part of folding the event at ``seq``: the line of play, the undone
        actions, the phase starts."""
        mark = after.last_undo
        if mark is not None and mark is not before.last_undo and mark.seq == seq:
            self._record_undo(mark.to, seq)
            return
        step = after.line
        if step is not None and step.seq == seq:
            self.line.append(step)
            self.steps[seq] = step
        if (
            after.phase != before.phase
            or after.active != before.active
            or after.player_turn != before.player_turn
            or after.turn != before.turn
            or not self.phases
        ):
            self.phases.append(PhaseStart(seq, after.turn, after.player_turn, after.active, after.phase))

    def _record_undo(self, to: int, seq: int) -> None:
        """The event at ``seq`` restored the state as of ``to``: the actions after it are undone."""
        self.restores[seq] = to
        while self.line and self.line[-1].seq > to:
            step = self.line.pop()
            self.undone_by[step.seq] = seq
            self.undone.append(UndoneAction(step.seq, step.by, step.action, seq))
        for k in range(len(self.phases) - 1, -1, -1):
            entry = self.phases[k]
            if entry.seq <= to:
                break
            if entry.undone_by is None:
                self.phases[k] = replace(entry, undone_by=seq)

    # ---- earlier states ------------------------------------------------------------------

    def _remember(self, state: MatchState) -> None:
        self._refolded[state.seq] = state
        self._refolded.move_to_end(state.seq)
        while len(self._refolded) > self._recent_size:
            self._refolded.popitem(last=False)

    def state_at(self, seq: int) -> MatchState:
        """The state as of ``seq`` (after the event at ``seq``)."""
        if seq == self.state.seq:
            return self.state
        back = self.state.seq - seq  # how many pushes ago (0: the current state)
        if 0 < back < len(self._recent):
            return self._recent[-1 - back]
        cached = self._refolded.get(seq)
        if cached is not None:
            return cached
        if seq < self.base:
            if self._before is None:
                raise KeyError(f"seq {seq} is before this timeline's start ({self.base})")
            return self._before(seq)
        if seq > self.state.seq:
            raise KeyError(f"seq {seq} is beyond the last event ({self.state.seq})")
        k = bisect.bisect_right(self._checkpoint_seqs, seq) - 1
        state = self._checkpoints[self._checkpoint_seqs[k]]
        for event in self.events[state.seq - self.base : seq - self.base]:
            state = evolve_with_history(state, event, self.dice_for(event), self.state_at)
        self._remember(state)
        return state

    # ---- the index -----------------------------------------------------------------------

    def player_turns(self) -> list[PhaseStart]:
        """The first phase of every player turn (undone ones keep their mark)."""
        return _starts(self.phases, lambda p: p.player_turn)

    def turns(self) -> list[PhaseStart]:
        """The first phase of every game turn."""
        return _starts(self.phases, lambda p: p.turn)

    def index(self, upto: int | None = None) -> TimelineIndex:
        """The index as it stood at ``upto`` (default: now): later undos are not yet known."""
        last = self.state.seq if upto is None else min(upto, self.state.seq)

        def seen(mark: int | None) -> int | None:
            return mark if mark is not None and mark <= last else None

        phases = [replace(p, undone_by=seen(p.undone_by)) for p in self.phases if p.seq <= last]
        actions = [
            ActionEntry(s.seq, s.by, s.action, s.dice, s.parent, seen(self.undone_by.get(s.seq)))
            for s in self.steps.values()
            if s.seq <= last
        ]
        return TimelineIndex(
            match_id=self.match_id,
            seq=last,
            turns=_starts(phases, lambda p: p.turn),
            player_turns=_starts(phases, lambda p: p.player_turn),
            phases=phases,
            actions=actions,
        )


def _starts(phases: list[PhaseStart], key: Callable[[PhaseStart], int]) -> list[PhaseStart]:
    """Entries whose ``key`` differs from the entry before them on their own branch: the
    previous entry of the same undone branch, else the latest entry still on the line."""
    found: list[PhaseStart] = []
    last_on_line: PhaseStart | None = None
    previous: PhaseStart | None = None
    for entry in phases:
        if entry.undone_by is not None and previous is not None and previous.undone_by == entry.undone_by:
            before: PhaseStart | None = previous
        else:
            before = last_on_line
        if before is None or key(before) != key(entry):
            found.append(entry)
        if entry.undone_by is None:
            last_on_line = entry
        previous = entry
    return found


def _written(rules_lines: list[LogEntry], window: tuple[LogEntry, ...], count: int) -> tuple[LogEntry, ...]:
    """The ``count`` log lines an event wrote: the lines the rules wrote through its context
    (all of them, even more than the window keeps), then those written after them (the victory
    line, an undo's or a takeback's line), the last ones of the window."""
    after_rules = count - len(rules_lines)
    if after_rules <= 0:
        return tuple(rules_lines)
    return (*rules_lines, *window[len(window) - after_rules :])


def fold_history(
    match_id: str, events: Iterable[Event], dice_for: DiceFor, start: MatchState | None = None
) -> MatchState:
    """The canonical fold of a match log: undos and takebacks restore earlier states exactly.
    Only the final state is wanted: the timeline keeps what finding earlier states needs (the
    events, checkpoint and recent states) and no index (``indexed=False``: no line of play,
    phase starts, dice drawn or lines written, which nothing here would read).
    The collector stays paused until the timeline, which only this fold uses, is freed: the
    collection that follows a pause then has the final state to look at, not every event and
    state the timeline kept (match/gc_pause.py). It keeps FOLD_RECENT recent states, not 256: a
    state it lets go of is freed while its memory is still in the processor's caches."""
    with collections_paused():
        return Timeline(match_id, dice_for, start=start, indexed=False, recent=FOLD_RECENT).extend(events)
