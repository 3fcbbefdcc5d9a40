"""Deciding an action in one trip to the rules pool: validate, fold, hash and encode.

The live runtime used to make two trips per action (validate, then fold), each a hand-over to a
worker thread and back. :func:`decide` does the whole pure part at once, so an action costs
one trip (``live/rules_pool.py``); what it returns is appended as it is. The state hash and the
encoded event are made there too: the event written to the stream carries the dice the fold
revealed and the hash of the state it was folded onto (``h3``, match/hashing.py; ``hulldown
verify`` checks both). The hash of the state it makes is not waited for: the runtime works it
out once the event is appended and its patch sent, for the next event to carry.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from msgspec.structs import replace

from ..match.actions import Action
from ..match.events import Event, encode_event
from ..match.history import StateAt, evolve_with_history
from ..match.rejection import Rejection
from ..match.state import MatchState, Side
from ..match.validate import validate
from ..rules.dice import Dice, drawn_faces


@dataclass(slots=True)
class Decided:
    """An event ready to append: the event with its dice and hash, the state it makes, its bytes.

    ``patch`` is the encoded view patch from the state it was decided on to ``after``, filled in
    while the append is in flight and sent only once Redis confirmed it."""

    event: Event
    after: MatchState
    payload: bytes
    fold_seconds: float
    patch: str | None = None


def decide(
    base: MatchState,
    side: Side,
    action: Action,
    event: Event,
    dice: Dice,
    line_at: StateAt | None,
    restore: StateAt,
    base_hash: str,
) -> Rejection | Decided:
    """Validate ``action`` by ``side`` on ``base`` (earlier states of the line of play through
    ``line_at``, for takebacks); if legal, fold ``event`` (its body is ``action``)."""
    rejection = validate(base, side, action, line_at)
    if rejection is not None:
        return rejection
    return fold_for_append(base, event, dice, restore, base_hash)


def fold_for_append(base: MatchState, event: Event, dice: Dice, restore: StateAt, base_hash: str) -> Decided:
    """Fold ``event`` onto ``base`` (history-aware: an undo or takeback restores through
    ``restore``) and encode it with the dice it drew and ``base_hash``, the h3 hash of
    ``base`` (``hashing.base_hash``)."""
    start = time.perf_counter()
    after = evolve_with_history(base, event, dice, restore)
    fold_seconds = time.perf_counter() - start
    event = replace(event, rolls=drawn_faces(dice), state_hash=base_hash)
    return Decided(event, after, encode_event(event), fold_seconds)
