"""A pure match driver for the undo tests: validate (with the line of play) then fold with the
history-aware reducer, exactly as the live runtime does, but in memory."""

from __future__ import annotations

from typing import Any

from hulldown.match.actions import Action, EndPhase, Move
from hulldown.match.dice_binding import event_nonce
from hulldown.match.events import Event
from hulldown.match.rejection import Rejection
from hulldown.match.scenario import CreateMatch, match_created
from hulldown.match.state import MatchState, Point, Side
from hulldown.match.timeline import Timeline
from hulldown.match.validate import validate
from hulldown.rules.dice import SeededDice, commitment
from tests.scenarios import duel

MATCH = "undo-test"
SEED = bytes(range(32))


def dice_for(event: Event) -> SeededDice:
    return SeededDice(SEED, MATCH, event.seq, event_nonce(event))


class Driver:
    """One match in memory. ``act`` validates like the server and appends on success."""

    def __init__(self, create: CreateMatch | None = None) -> None:
        request = create or duel()
        self.timeline = Timeline(MATCH, dice_for, checkpoint_every=4, recent=2)
        body = match_created(request.edition, request.scenario, request.options, commitment(SEED))
        self.timeline.push(Event(seq=1, at=0.0, by="system", action_id="create", body=body))

    @property
    def state(self) -> MatchState:
        return self.timeline.state

    def act(self, side: Side, action: Action) -> Rejection | None:
        rejection = validate(self.state, side, action, state_at=self.timeline.state_at)
        if rejection is not None:
            return rejection
        seq = self.state.seq + 1
        self.timeline.push(Event(seq=seq, at=float(seq), by=side, action_id=f"x{seq}", body=action))
        return None

    def ok(self, side: Side, action: Action) -> int:
        """Act and insist it was accepted; returns the event's seq."""
        rejection = self.act(side, action)
        assert rejection is None, rejection
        return self.state.seq

    def rejected(self, side: Side, action: Action) -> Rejection:
        seq = self.state.seq
        rejection = self.act(side, action)
        assert rejection is not None, f"{action} was accepted"
        assert self.state.seq == seq
        return rejection

    def log_texts(self) -> list[str]:
        return [entry.text for entry in self.state.log]

    def event_rolls(self, seq: int) -> list[Any]:
        return [r for entry in self.state.log if entry.seq == seq for r in entry.rolls]


def predator_move(x: float = 14.0) -> Move:
    return Move(unit="predator-1", path=(Point(x, 24.0),), heading=0.0)


def rhino_move(x: float = 36.0) -> Move:
    return Move(unit="rhino-1", path=(Point(x, 24.0),), heading=180.0)


END = EndPhase()
