"""Set-up at the player's table, a transport and its passengers (docs/missions.md "Set-up, as
actions", docs/table.md), real Chromium against a real server: a squad still to deploy is offered
"Start embarked in <transport>" only for the transports of its side the server would let it into
(POST /check of the embark), starts embarked in one, is listed as embarked and is deployed with
it; a vehicle placed with "Place" takes the heading typed beside the button. After every step
the board equals GET /state.

40k7 Vehicles, Transports: an Infantry unit up to the Transport Capacity, one unit per transport;
a unit that starts the game embarked is deployed with its transport.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
from msgspec.structs import replace
from playwright.async_api import Browser, Page

from hulldown.match.definition import to_document
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options, Profile, Side, Unit
from tests.builders import based_models, multi_model_unit
from tests.scenarios import rhino

from ..server_process import ServerProcess
from .browser import board_matches_state, drag, open_table, screen_point, wait_seq

MARINE = Profile(m=6, ws=4, bs=4, s=4, t=4, w=1, i=4, a=1, ld=8, sv=3)


def _transport(uid: str, side: Side, x: float, name: str, capacity: int) -> Unit:
    unit = rhino(uid, side, x, 24.0 if side == "a" else 30.0)
    return replace(unit, name=name, profile=replace(unit.profile, capacity=capacity))


def _squad(side: Side, x: float) -> Unit:
    uid = f"squad-{side}"
    y = 20.0 if side == "a" else 34.0
    return multi_model_unit(
        uid,
        side,
        based_models(uid, [(x, y), (x + 1.5, y), (x + 3.0, y)], base_mm=32.0),
        kind="infantry",
        profile=MARINE,
        weapons={},
        name=f"Tactical Squad {side.upper()}",
    )


def _definition() -> dict[str, Any]:
    """Each side: a Rhino (room for 10), a Razorback (room for 2: too small for the three-man
    squad) and a Tactical Squad, all still to deploy."""
    units: list[Unit] = []
    sides: tuple[tuple[Side, float], ...] = (("a", 10.0), ("b", 40.0))
    for side, x in sides:
        units += [
            _transport(f"rhino-{side}", side, x, "Rhino", 10),
            _transport(f"razorback-{side}", side, x + 8.0, "Razorback", 2),
            _squad(side, x + 16.0),
        ]
    doc = to_document(CreateMatch(edition="40k7", scenario=Scenario(units=tuple(units)), options=Options()))
    doc["mission"] = {"id": "crusade", "deployment": "dawn_of_war"}
    return doc


async def _to_deployment(server: ServerProcess, browser: Browser) -> tuple[dict[str, Any], str, Page]:
    """Both tables open, rolled off from the table; the winner deploys first (zone A, along y = 0)."""
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(_definition()), timeout=10)
    assert response.status_code == 201, response.text
    created = response.json()
    errors: list[str] = []
    pages = {side: (await open_table(browser, created["play_urls"][side], errors))[1] for side in ("a", "b")}
    await pages["a"].click("#roll-off")
    await wait_seq(pages["a"], 2)
    state = await board_matches_state(pages["a"], server.http, created["match_id"], created["tokens"]["a"])
    winner = state["pending"]["side"]
    first = pages[winner]
    button = first.locator("dialog#decision[open] button.option[data-choice='first']")
    await button.wait_for()
    await button.click()
    await wait_seq(first, 3)
    await first.wait_for_selector(f"#deploying[data-side='{winner}']")
    return created, winner, first


async def test_a_squad_starts_embarked_in_a_transport_that_can_take_it(
    server: ServerProcess, browser: Browser
) -> None:
    created, side, page = await _to_deployment(server, browser)
    match_id, token, http = created["match_id"], created["tokens"][side], server.http
    squad, transport = f"squad-{side}", f"rhino-{side}"

    # Only the Rhino is offered: the server refuses the Razorback (3 places needed, 2 free).
    await page.click(f"#to-deploy li[data-unit='{squad}'] a")
    await page.wait_for_selector("#start-embarked[data-state='known']")
    offered = page.locator("#start-embarked button.start-embarked")
    assert await offered.count() == 1
    assert await offered.get_attribute("data-transport") == transport
    assert (await offered.inner_text()) == "Start embarked in Rhino"

    await offered.click()
    await wait_seq(page, 4)
    state = await board_matches_state(page, http, match_id, token)
    assert state["units"][squad]["embarked_in"] == transport
    assert state["units"][transport]["passengers"] == [squad]
    assert state["mission"]["off_table"][squad] == "undeployed"
    assert "starts embarked in Rhino" in state["log"][-1]["text"]
    # Listed as embarked (not as a unit to place), and on the transport's line.
    line = page.locator(f"#to-deploy li.embarked[data-unit='{squad}'][data-embarked-in='{transport}']")
    assert "embarked in Rhino" in await line.inner_text()
    assert "with Tactical Squad" in await page.locator(f"#to-deploy li[data-unit='{transport}']").inner_text()
    assert (
        "starts embarked in Rhino"
        in await page.locator("#unit-panel section[data-action='setup']").inner_text()
    )
    assert await page.locator("#unit-panel #place").count() == 0
    # The units list names the transport, not only its id (it read "embarked in rhino-a").
    flag = page.locator(f"#units li.unit-card[data-unit='{squad}'] .flag.embarked")
    assert await flag.inner_text() == f"embarked in Rhino ({transport})"

    # The Rhino is deployed: the squad comes with it, still embarked.
    rx, ry = state["units"][transport]["models"][f"{transport}-m"]["pos"]
    await drag(page, (rx, ry), [], (20.0, 6.0))
    await wait_seq(page, 5)
    state = await board_matches_state(page, http, match_id, token)
    assert transport not in state["mission"]["off_table"]
    assert squad not in state["mission"]["off_table"]
    assert state["units"][squad]["embarked_in"] == transport


async def test_a_vehicle_placed_with_place_takes_the_heading_typed(
    server: ServerProcess, browser: Browser
) -> None:
    created, side, page = await _to_deployment(server, browser)
    match_id, token, http = created["match_id"], created["tokens"][side], server.http
    vehicle = f"rhino-{side}"
    state = await board_matches_state(page, http, match_id, token)
    assert state["units"][vehicle]["models"][f"{vehicle}-m"]["heading"] != 135.0

    await page.click(f"#to-deploy li[data-unit='{vehicle}'] a")
    await page.fill("#place-heading", "135")
    await page.click("#place")
    px, py = await screen_point(page, 30.0, 6.0)
    await page.mouse.move(px, py, steps=6)
    await page.wait_for_selector("#move-status.ok")
    # The models follow the pointer already turned to it.
    ghost = page.locator(f".ghost[data-model='{vehicle}-m']").first
    assert await ghost.get_attribute("data-heading") == "135"
    await page.mouse.down()
    await page.mouse.up()
    await wait_seq(page, 4)
    state = await board_matches_state(page, http, match_id, token)
    model = state["units"][vehicle]["models"][f"{vehicle}-m"]
    assert model["pos"] == [30.0, 6.0]
    assert model["heading"] == 135.0
