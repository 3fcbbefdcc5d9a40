"""Events: the stream's vocabulary. A player's action plus the facts the server adds.

``seq`` is the stream version (1, 2, 3...), ``at`` the server time, ``by`` the side or
``system``, ``action_id`` the client's idempotency key and ``v`` the schema version. Old payloads
are upgraded by upcaster functions, never by editing history (docs/architecture.md section 3).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import msgspec

from ..missions.model import Mission
from .actions import Action
from .rules_version import UNRECORDED
from .state import Battlefield, Edition, Options, Terrain, Unit

SCHEMA_VERSION = 1

Actor = Literal["a", "b", "system"]


class MatchCreated(msgspec.Struct, gc=False, frozen=True, tag="match_created", tag_field="type"):
    """The first event of every match: the scenario, the public dice commitment and the rules
    version the match is created under (docs/architecture.md, 3. Events and state: rules
    versions; a log written before versions were recorded has none and reads 0)."""

    edition: Edition
    battlefield: Battlefield
    terrain: tuple[Terrain, ...]
    units: tuple[Unit, ...]
    options: Options
    commitment: str
    first: Literal["a", "b"] = "a"
    mission: Mission | None = None
    rules_version: int = UNRECORDED


class SeedRevealed(msgspec.Struct, gc=False, frozen=True, tag="seed_revealed", tag_field="type"):
    """The match seed, revealed when the match ends so anyone can verify every roll."""

    seed: str


class MatchEnded(msgspec.Struct, gc=False, frozen=True, tag="match_ended", tag_field="type"):
    winner: Literal["a", "b"] | None
    reason: str


EventBody = Action | MatchCreated | SeedRevealed | MatchEnded


class Event(msgspec.Struct, gc=False, frozen=True):
    """One entry of a match's stream."""

    seq: int
    at: float
    by: Actor
    action_id: str
    body: EventBody
    v: int = SCHEMA_VERSION
    # Written by the server when it appends (docs/architecture.md section 8): the faces of the dice
    # this event revealed, in die order, and the hash of the state before it (h3; the creation's:
    # the h2 hash of the state after it; match/hashing.py); ``hulldown verify`` checks both.
    rolls: tuple[int, ...] = ()
    state_hash: str = ""


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Event)
_raw_decoder = msgspec.json.Decoder(dict[str, Any])

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

# UPCASTERS[v] turns a payload of schema version v into version v + 1.
UPCASTERS: dict[int, Upcaster] = {}


def encode_event(event: Event) -> bytes:
    return _encoder.encode(event)


def decode_event(payload: bytes) -> Event:
    """Decode a stored event, upgrading payloads written by older schema versions."""
    try:
        event = _decoder.decode(payload)
    except msgspec.ValidationError:
        raw = _raw_decoder.decode(payload)
        return msgspec.convert(upcast(raw), Event)
    if event.v == SCHEMA_VERSION:
        return event
    return msgspec.convert(upcast(_raw_decoder.decode(payload)), Event)


def upcast(raw: dict[str, Any]) -> dict[str, Any]:
    """Apply the upcaster chain to a raw payload until it reaches :data:`SCHEMA_VERSION`."""
    version = int(raw.get("v", 1))
    while version < SCHEMA_VERSION:
        raw = UPCASTERS[version](raw)
        version += 1
        raw["v"] = version
    return raw
