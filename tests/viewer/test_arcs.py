"""The viewer's fire-arc endpoint: the region is the geometry package's arc of the weapon's
mount intersected with its range from the hull, and it obeys the match's spectator access."""

from __future__ import annotations

import json
import math
from pathlib import Path

import httpx
import msgspec
from shapely.geometry import Point as ShapelyPoint
from shapely.geometry import Polygon

from hulldown.match.events import Event
from hulldown.match.reducer import evolve
from hulldown.match.scenario import match_created
from hulldown.match.state import MatchState, Mount, Options
from hulldown.rules.dice import FixedDice
from hulldown.web.viewer_arcs import arc_payload
from tests.scenarios import duel, lascannon, vehicle

from ..server_process import ServerProcess

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def state_with(*extra_units: object, edition: str = "40k7") -> MatchState:
    request = duel(edition)
    scenario = msgspec.structs.replace(request.scenario, units=(*request.scenario.units, *extra_units))
    created = match_created(request.edition, scenario, request.options, "c")
    return evolve(
        MatchState(match_id="m", edition=request.edition),
        Event(1, 0.0, "system", "c", created),
        FixedDice([]),
    )


def region(payload: dict[str, object]) -> Polygon:
    rings = payload["polygons"]
    assert isinstance(rings, list) and len(rings) == 1
    return Polygon(rings[0])


def test_turret_reaches_range_from_the_hull_all_round() -> None:
    """40k7 Vehicles: turrets fire all round; range is measured from the hull."""
    payload = arc_payload(state_with(), "predator-1", "lascannon")
    assert payload is not None and payload["range"] == 48 and payload["mount"] == "turret"
    shape = region(payload)
    # Predator hull 4.5 x 3.5 at (10, 24), heading 0: 48" beyond its front and rear edges.
    assert shape.contains(ShapelyPoint(10 + 2.25 + 47.9, 24))
    assert not shape.contains(ShapelyPoint(10 + 2.25 + 48.2, 24))
    assert shape.contains(ShapelyPoint(10 - 2.25 - 47.9, 24))


def test_hull_mount_is_a_45_degree_cone_each_side_of_its_facing() -> None:
    """40k7 Vehicles, "Vehicle weapons and line of sight": hull weapons swivel 45 degrees."""
    tank = vehicle("hull-1", "a", 20, 10, 90, weapons=(lascannon("hb", Mount(kind="hull", arc="front")),))
    payload = arc_payload(state_with(tank), "hull-1", "hb")
    assert payload is not None
    shape = region(payload)
    ahead = (20, 10 + 30)  # straight ahead (heading 90 = +y)
    at_40 = (20 + 30 * math.cos(math.radians(90 - 40)), 10 + 30 * math.sin(math.radians(90 - 40)))
    at_50 = (20 + 30 * math.cos(math.radians(90 - 50)), 10 + 30 * math.sin(math.radians(90 - 50)))
    assert shape.contains(ShapelyPoint(*ahead)) and shape.contains(ShapelyPoint(*at_40))
    assert not shape.contains(ShapelyPoint(*at_50))
    assert not shape.contains(ShapelyPoint(20, 10 - 5))  # behind


def test_unknown_weapon_has_no_arc() -> None:
    assert arc_payload(state_with(), "predator-1", "nope") is None
    assert arc_payload(state_with(), "nope", "lascannon") is None


def test_http_arcs_follow_private_spectator_access(server: ServerProcess) -> None:
    body = msgspec.json.encode(msgspec.structs.replace(duel(), options=Options(private_spectators=True)))
    created = httpx.post(f"{server.http}/matches", content=body, timeout=10).json()
    url = f"{server.http}/matches/{created['match_id']}/arcs"
    params = {"unit": "predator-1", "weapon": "lascannon"}
    denied = httpx.get(url, params=params, timeout=10)
    assert denied.status_code == 403 and denied.json()["error"]["code"] == "spectator_token_required"
    spectator = {"authorization": f"Bearer {created['spectator_token']}"}
    allowed = httpx.get(url, params=params, headers=spectator, timeout=10)
    assert allowed.status_code == 200 and allowed.json()["seq"] == 1
    in_query = httpx.get(url, params={**params, "token": created["spectator_token"]}, timeout=10)
    assert in_query.status_code == 400 and in_query.json()["error"]["code"] == "token_in_query"
    as_side = httpx.get(
        url,
        params={**params, "at": 1},
        headers={"authorization": f"Bearer {created['tokens']['a']}"},
        timeout=10,
    )
    assert as_side.status_code == 200
    missing = httpx.get(url, params={"unit": "predator-1", "weapon": "x"}, headers=spectator, timeout=10)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "unknown_weapon"
    for params_missing, named in (
        ({"weapon": "lascannon"}, "unit"),
        ({"unit": "predator-1"}, "weapon"),
        ({}, "unit"),
    ):
        unnamed = httpx.get(url, params=params_missing, headers=spectator, timeout=10)
        assert unnamed.status_code == 400 and unnamed.json()["error"]["code"] == "bad_parameter"
        assert unnamed.json()["error"]["message"].startswith(f"{named} must name"), params_missing
    bad_seq = httpx.get(url, params={**params, "at": 7}, headers=spectator, timeout=10)
    assert bad_seq.status_code == 404 and bad_seq.json()["error"]["code"] == "unknown_seq"
    # Not integers, though some pass str.isdigit ("²") or are too long for int(): a 400, no 500.
    for at in ("²", "9" * 5000, "-1", "one"):
        bad = httpx.get(url, params={**params, "at": at}, headers=spectator, timeout=10)
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_parameter", at


def test_http_arcs_draw_a_40k7_sponson_without_a_side_as_the_rules_shoot_it(server: ServerProcess) -> None:
    """The 40k7 rules shoot a sponson whose definition names no side as the right-hand one
    (rules/wh40k7/geo.py, ``geo_mount``); the arcs view resolves mounts with the same function.
    It answered 422 bad_geometry for the Predators' sponson heavy bolter of the 40k7 skirmish."""
    doc = json.loads((EXAMPLES / "40k7-skirmish.json").read_text())
    predators = next(u for u in doc["scenario"]["units"] if u["id"] == "predators")
    sponson = next(w for w in predators["weapons"] if w["id"] == "heavy-bolter")
    sponson["mount"].pop("side", None)  # the case asked about, whatever the example says
    assert sponson["mount"] == {"kind": "sponson"}
    created = httpx.post(f"{server.http}/matches", json=doc, timeout=20)
    assert created.status_code == 201, created.text
    url = f"{server.http}/matches/{created.json()['match_id']}/arcs"
    answer = httpx.get(url, params={"unit": "predators", "weapon": "heavy-bolter"}, timeout=10)
    assert answer.status_code == 200, answer.text
    payload = answer.json()
    assert payload["mount"] == "sponson" and payload["range"] == 36
    shape = region(payload)
    # The Predator (5 x 3.5" hull at (22, 16.5), heading 0: its right is -y): the right-hand half
    # of the table within 36" of the hull, not the left-hand one.
    assert shape.contains(ShapelyPoint(22, 16.5 - 10)) and shape.contains(ShapelyPoint(22 + 30, 16.5 - 1))
    assert not shape.contains(ShapelyPoint(22, 16.5 + 10))
    assert not shape.contains(ShapelyPoint(22 + 30, 16.5 + 1))
