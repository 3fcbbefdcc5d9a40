"""Events: strict codecs, tags, schema versions and upcasters (docs/architecture.md section 3)."""

from __future__ import annotations

import msgspec
import pytest

from hulldown.match import events
from hulldown.match.actions import EndPhase, Fire, Move, Shoot
from hulldown.match.events import SCHEMA_VERSION, Event, decode_event, encode_event
from hulldown.match.state import Point
from hulldown.wire.protocol import client_decoder


def test_every_action_round_trips_with_its_tag() -> None:
    for body in (
        Move(unit="u", path=(Point(1.0, 2.0),), heading=90.0),
        Shoot(unit="u", fire=(Fire(weapon="w", target="t"),)),
        EndPhase(),
    ):
        event = Event(seq=3, at=1.5, by="a", action_id="x", body=body)
        payload = encode_event(event)
        assert msgspec.json.decode(payload)["body"]["type"] == body.__struct_config__.tag
        assert decode_event(payload) == event


def test_unknown_fields_and_types_are_refused() -> None:
    with pytest.raises(msgspec.ValidationError, match="unknown field"):
        client_decoder.decode(b'{"type":"act","action_id":"1","action":{"type":"end_phase","extra":1}}')
    with pytest.raises(msgspec.ValidationError, match="Invalid value 'teleport'"):
        client_decoder.decode(b'{"type":"act","action_id":"1","action":{"type":"teleport"}}')
    with pytest.raises(msgspec.ValidationError, match="Expected `str`"):
        client_decoder.decode(b'{"type":"act","action_id":1,"action":{"type":"end_phase"}}')


def test_old_payloads_are_upcast_not_rewritten(monkeypatch: pytest.MonkeyPatch) -> None:
    """A payload written at schema v0 passes through the upcaster chain to the current version."""

    def v0_to_v1(raw: dict[str, object]) -> dict[str, object]:
        body = dict(raw["body"])  # type: ignore[call-overload]
        body["path"] = [body.pop("to")]  # v0 moves had a single destination
        return {**raw, "body": body}

    monkeypatch.setitem(events.UPCASTERS, 0, v0_to_v1)
    old = (
        b'{"seq":2,"at":0.0,"by":"a","action_id":"m","v":0,"body":{"type":"move","unit":"u","to":[3.0,4.0]}}'
    )
    event = decode_event(old)
    assert event.v == SCHEMA_VERSION
    assert event.body == Move(unit="u", path=(Point(3.0, 4.0),))
