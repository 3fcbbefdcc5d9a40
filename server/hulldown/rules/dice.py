"""Dice that nobody can bias (docs/architecture.md section 8).

Die ``i`` of the event at ``seq`` is ``HMAC-SHA256(seed, f"{match}:{seq}:{i}:{nonce}")`` turned
into a D6 by rejection sampling, so dice are bound to the stream position. Tests inject fixed dice
through the same :class:`Dice` interface the reducer uses.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from typing import Protocol

import msgspec

# Bytes >= 252 are rejected so every face keeps exactly 42 of the 252 accepted byte values.
_ACCEPT_BELOW = 252


class Roll(msgspec.Struct, frozen=True):
    """One die as it was rolled: its index within the event and its face."""

    i: int
    value: int


class Dice(Protocol):
    """The dice source of one event. ``d6`` draws the next die; ``rolls`` lists all drawn."""

    def d6(self) -> int: ...

    @property
    def rolls(self) -> Sequence[Roll]: ...


class DiceExhausted(Exception):
    """A fixed dice source was asked for more dice than the test supplied."""


def drawn_faces(dice: Dice) -> tuple[int, ...]:
    """The faces ``dice`` handed out so far, in order (what an event records as its rolls)."""
    return tuple(r.value for r in dice.rolls)


def d3_face(d6: int) -> int:
    """A D3 read from a D6: ceil(D6 / 2) (docs/rules-notes.md, All editions, Dice)."""
    return (d6 + 1) // 2


def derive_die(seed: bytes, match_id: str, seq: int, i: int, nonce: str = "") -> int:
    """Derive die ``i`` of event ``seq`` from the match seed (docs/architecture.md section 8)."""
    message = f"{match_id}:{seq}:{i}:{nonce}".encode()
    block = 0
    while True:
        data = message if block == 0 else message + f":{block}".encode()
        digest = hmac.new(seed, data, hashlib.sha256).digest()
        for byte in digest:
            if byte < _ACCEPT_BELOW:
                return byte % 6 + 1
        block += 1


def commitment(seed: bytes) -> str:
    """The public commitment to a match seed: ``sha256(seed)`` in hex."""
    return hashlib.sha256(seed).hexdigest()


class SeededDice:
    """Dice for one event, derived from the match seed and the event's position in the stream."""

    __slots__ = ("_match_id", "_nonce", "_rolls", "_seed", "_seq")  # one per event folded

    def __init__(self, seed: bytes, match_id: str, seq: int, nonce: str = "") -> None:
        self._seed = seed
        self._match_id = match_id
        self._seq = seq
        self._nonce = nonce
        self._rolls: list[Roll] = []

    def d6(self) -> int:
        i = len(self._rolls)
        value = derive_die(self._seed, self._match_id, self._seq, i, self._nonce)
        self._rolls.append(Roll(i, value))
        return value

    @property
    def rolls(self) -> Sequence[Roll]:
        return tuple(self._rolls)


class FixedDice:
    """Dice with faces given in advance, for worked examples and tests."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        for face in self._faces:
            if not 1 <= face <= 6:
                raise ValueError(f"a D6 face must be 1-6, got {face}")
        self._rolls: list[Roll] = []

    def d6(self) -> int:
        i = len(self._rolls)
        if i >= len(self._faces):
            raise DiceExhausted(f"fixed dice ran out after {i} dice")
        value = self._faces[i]
        self._rolls.append(Roll(i, value))
        return value

    @property
    def rolls(self) -> Sequence[Roll]:
        return tuple(self._rolls)

    @property
    def remaining(self) -> int:
        return len(self._faces) - len(self._rolls)


class NoDice:
    """The dice source for events that must not roll (validation, undo, system events)."""

    def d6(self) -> int:
        raise DiceExhausted("this event may not roll dice")

    @property
    def rolls(self) -> Sequence[Roll]:
        return ()
