"""Which dice an event rolls: bound to the match seed, the event's seq and the actor's nonce
(docs/architecture.md section 8). Shared by the live server, replays and ``hulldown verify``."""

from __future__ import annotations

from ..rules.dice import Dice, NoDice, SeededDice
from .events import Event


def event_nonce(event: Event) -> str:
    """The acting player's optional entropy contribution carried by the action."""
    nonce = getattr(event.body, "nonce", "")
    return nonce if isinstance(nonce, str) else ""


def event_dice(seed: bytes | None, match_id: str, event: Event) -> Dice:
    """The dice source of ``event``; without the seed (a viewer's replay) no die can be drawn."""
    if seed is None:
        return NoDice()
    return SeededDice(seed, match_id, event.seq, event_nonce(event))
