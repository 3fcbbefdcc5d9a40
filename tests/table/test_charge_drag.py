"""Placing the chargers by hand (docs/decisions.md, ``place_chargers``), in Chromium: side a's
squad charges (through the Python client); its table draws each charger's legal area (even-odd)
with the models at the server's proposal (the straight move, every model in base contact).
The player drags one model away from the enemy: it stays inside its area (green) but the server
refuses it - it could have reached base contact - with the numbers, and nothing changes; then
drags it round the enemy model it touches, dropping it a little onto that base: the table snaps
it back into base contact, Place puts it there, and the board matches GET /state.
40k7 The Assault Phase, Charge: Move Chargers."""

from __future__ import annotations

import math
from typing import Any

from playwright.async_api import Browser
from shapely import Point as ShapelyPoint
from shapely import Polygon

from hulldown.client import Client, create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.wire.protocol import Ack
from tests.wh40k7.builders import infantry

from ..server_process import ServerProcess
from .browser import (
    board_matches_state,
    drag_straight,
    ghost_of,
    open_table,
    state_of,
    wait_seq,
)
from .browser import shot as screenshot

R = 25.0 / 25.4 / 2  # a 25 mm base
CONTACT = 0.05  # 40k7 base contact tolerance (rules/wh40k7/geo.py CONTACT_EPS)
ATTEMPTS = 6  # 2D6 >= 4.52" fails one time in six: a new match each time
MODEL = "m-2"
SHORT = (24.0, 25.2)  # well inside m-2's area, 1" from the enemy: contact was possible
# Dropped 0.1" onto e-2 (at (26, 25)), 150 degrees round it: the table snaps it to touching.
ONTO = (26 + (2 * R - 0.1) * math.cos(math.radians(150)), 25 + (2 * R - 0.1) * math.sin(math.radians(150)))


def _request() -> CreateMatch:
    return CreateMatch(
        edition="40k7",
        scenario=Scenario(
            units=(
                infantry("m", "a", [(20, 23), (20.5, 24), (20.3, 25)]),  # m-2 reaches contact on any 5+
                infantry("e", "b", [(26, 23), (26, 24), (26, 25)]),
            )
        ),
        options=Options(turn_limit=0),
    )


def _inside(point: tuple[float, float], shapes: list[Any]) -> bool:
    """Even-odd over every ring, as the area is drawn."""
    rings = [ring for shape in shapes for ring in shape]
    return sum(Polygon(ring).contains(ShapelyPoint(point)) for ring in rings) % 2 == 1


async def _charged(server: ServerProcess) -> tuple[dict[str, Any], int] | None:
    """A match where side a's charge succeeded: (the created match, the charge's seq)."""
    created = await create_match(server.http, _request())
    async with Client(created["live_url"], token=created["tokens"]["a"]) as a:
        while a.view.data["phase"] != "assault":
            assert isinstance(await a.act({"type": "end_phase"}), Ack)
        charge = await a.act({"type": "charge", "unit": "m", "target": "e"})
        assert isinstance(charge, Ack), charge
        pending = a.view.data["pending"]
    return (created, charge.seq) if pending is not None else None


async def test_the_charging_player_drags_a_charger_and_places(
    server: ServerProcess, browser: Browser
) -> None:
    for _ in range(ATTEMPTS):
        found = await _charged(server)
        if found is not None:
            break
    assert found is not None, f"every charge failed in {ATTEMPTS} matches"
    created, seq = found
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    await wait_seq(a, seq)
    state = await state_of(server.http, match_id, token)
    pending = state["pending"]
    assert pending["kind"] == "place_chargers" and pending["side"] == "a", pending
    placement = pending["placement"]
    assert placement["models"] == ["m-0", "m-1", "m-2"]
    assert placement["limits"]["coherency"] == 2.0 and placement["limits"]["enemy_gap"] == 1.0

    # The other side waits.
    await wait_seq(b, seq)
    assert await b.text_content("#waiting") == f"Waiting for side A: {pending['prompt']}"
    assert await b.locator("#board-overlay path.legal-area").count() == 0

    # Side a: every charger's area drawn even-odd, the models at the proposal, each inside it.
    await a.wait_for_selector("dialog#decision[open]")
    areas = a.locator("#board-overlay path.legal-area[fill-rule='evenodd']")
    assert await areas.count() == 3
    for mid, (x, y) in placement["proposal"].items():
        ghost = await ghost_of(a, mid)
        assert ghost["x"] == x and ghost["y"] == y and "ok" in ghost["cls"].split(), (mid, ghost)
        assert _inside((x, y), placement["area"][mid]), mid
    start = tuple(placement["proposal"][MODEL])

    # Away from the enemy, inside its area (green): refused, it could have reached base contact.
    assert _inside(SHORT, placement["area"][MODEL])
    await drag_straight(a, start, SHORT)
    ghost = await ghost_of(a, MODEL)
    assert "ok" in ghost["cls"].split(), ghost
    await a.click("dialog#decision button.option[data-choice='place']")
    refusal = a.locator("dialog#decision div.message.rejected[data-section='decision']")
    await refusal.wait_for()
    await screenshot(a, "charge-refused")
    assert await refusal.get_attribute("data-code") == "contact_possible"
    text = await refusal.text_content() or ""
    assert f"model {MODEL}" in text, text
    after = await state_of(server.http, match_id, token)
    assert after["seq"] == seq and after["pending"]["id"] == pending["id"]
    assert after["units"]["m"]["models"][MODEL]["pos"] == state["units"]["m"]["models"][MODEL]["pos"]

    # Round e-2 and a little onto its base: snapped back into base contact, and placed.
    await drag_straight(a, (ghost["x"], ghost["y"]), ONTO)
    ghost = await ghost_of(a, MODEL)
    assert "ok" in ghost["cls"].split(), ghost
    gap = math.hypot(ghost["x"] - 26, ghost["y"] - 25) - 2 * R
    assert 0 <= gap <= CONTACT, (ghost, gap)
    await screenshot(a, "charge-drag")
    await a.click("dialog#decision button.option[data-choice='place']")
    await wait_seq(a, seq + 1)
    done = await board_matches_state(a, server.http, match_id, token)
    assert done["pending"] is None and "charged_into:e" in done["units"]["m"]["turn_flags"]
    placed = done["units"]["m"]["models"]
    assert placed[MODEL]["pos"] == [ghost["x"], ghost["y"]]  # exactly where the table showed it
    for mid, pos in placement["proposal"].items():
        if mid != MODEL:
            assert placed[mid]["pos"] == pos, mid
    assert not await a.locator("dialog#decision[open]").count()
    assert errors == []
