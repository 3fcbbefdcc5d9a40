"""The set-up phase at the player's table (docs/missions.md, docs/table.md), real Chromium against
a real server: the roll-off and the choice of deployment order are answered in the table, each
unit is dragged (or placed) into the side's zone with the live check, a vehicle is turned by the
wheel while it is dragged, a unit is held in reserve, a drag outside the zone is refused with the
server's reason, a deployment is undone, Seize the Initiative is declined, and the battle begins
with the score and who holds each marker shown. After every step the board equals GET /state.

40k7 rulebook, Deployment: the roll-off winner chooses to deploy first or second; each side
deploys its whole army wholly within its zone (Dawn of War: 12" from its long edge); units may be
held in Reserve; the side that deployed first goes first unless the other Seizes the Initiative.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
from playwright.async_api import Browser, Page

from hulldown.match.definition import to_document
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options, Profile
from tests.builders import based_models, multi_model_unit
from tests.scenarios import predator, rhino

from ..server_process import ServerProcess
from .browser import board_matches_state, drag, open_table, screen_point, shot, state_of, wait_seq

ZONE_DEPTH = 12.0  # Dawn of War (40k7): each zone is 12" deep from its long edge


def _definition() -> dict[str, Any]:
    marine = Profile(m=6, ws=4, bs=4, s=4, t=4, w=1, i=4, a=1, ld=8, sv=3)
    squad_a = multi_model_unit(
        "squad-a",
        "a",
        based_models("squad-a", [(20.0, 30.0), (21.5, 30.0), (23.0, 30.0)], base_mm=32.0),
        kind="infantry",
        profile=marine,
        weapons={},
        name="Tactical Squad A",
    )
    squad_b = multi_model_unit(
        "squad-b",
        "b",
        based_models("squad-b", [(50.0, 30.0), (51.5, 30.0)], base_mm=32.0),
        kind="infantry",
        profile=marine,
        weapons={},
        name="Tactical Squad B",
    )
    units = (predator("predator-1", "a", 10, 24), rhino("rhino-1", "b", 40, 24, 180), squad_a, squad_b)
    doc = to_document(CreateMatch(edition="40k7", scenario=Scenario(units=units), options=Options()))
    doc["mission"] = {"id": "crusade", "deployment": "dawn_of_war"}
    return doc


def _zone_y(side_zone: str, depth: float) -> float:
    """A y this far inside the zone (A along y = 0, B along y = 48)."""
    return depth if side_zone == "A" else 48.0 - depth


async def _decide(page: Page, choice: str) -> None:
    button = page.locator(f"dialog#decision[open] button.option[data-choice='{choice}']")
    await button.wait_for()
    await button.click()


async def test_a_whole_set_up_is_played_at_the_tables(server: ServerProcess, browser: Browser) -> None:
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(_definition()), timeout=10)
    assert response.status_code == 201, response.text
    created = response.json()
    match_id, tokens = created["match_id"], created["tokens"]
    errors: list[str] = []
    _, page_a = await open_table(browser, created["play_urls"]["a"], errors)
    _, page_b = await open_table(browser, created["play_urls"]["b"], errors)
    pages = {"a": page_a, "b": page_b}
    http = server.http

    # The score is shown from the start, with the set-up step; the zones are drawn.
    assert (await page_a.locator("#score").inner_text()) == "VP A 0 : 0 B"
    assert await page_a.locator("#board-zones polygon.zone").count() == 2
    assert await page_a.locator("#setup[data-step='roll_off']").count() == 1
    await board_matches_state(page_a, http, match_id, tokens["a"])

    # The roll-off, from the table; its winner chooses to deploy first in its own dialog.
    await page_a.click("#roll-off")
    await wait_seq(page_a, 2)
    state = await board_matches_state(page_a, http, match_id, tokens["a"])
    winner = state["pending"]["side"]
    loser = "b" if winner == "a" else "a"
    assert any(entry["rolls"] for entry in state["log"])  # the roll-off's dice are in the log
    await _decide(pages[winner], "first")
    await wait_seq(pages[winner], 3)
    state = await board_matches_state(pages[winner], http, match_id, tokens[winner])
    assert state["mission"]["zones"] == {winner: "A", loser: "B"}
    assert state["mission"]["deploying"] == winner
    first = pages[winner]
    await first.wait_for_selector("#board-zones polygon.zone.mine[data-zone='A']")
    assert "you deploy (zone A)" in await first.locator("#deploying").inner_text()
    await board_matches_state(pages[loser], http, match_id, tokens[loser])

    squad = f"squad-{winner}"
    vehicle = "predator-1" if winner == "a" else "rhino-1"
    squad_models = state["units"][squad]["models"]
    held = sorted(squad_models)[0]
    hx, hy = squad_models[held]["pos"]
    in_zone_y = _zone_y("A", 4.0)

    # A drag to the middle of the table: red while dragged, refused on release with the
    # server's reason; nothing is appended.
    await drag(first, (hx, hy), [], (hx, 24.0))
    status = first.locator("#move-status")
    await first.wait_for_selector("#move-status.rejected[data-code='outside_zone']")
    assert "not wholly within the deployment zone" in await status.inner_text()
    assert "40k7 rulebook, Deployment" in await status.inner_text()
    assert (
        "not wholly within the deployment zone"
        in await first.locator(".message[data-section='setup']").first.inner_text()
    )
    state = await board_matches_state(first, http, match_id, tokens[winner])
    assert state["seq"] == 3 and state["mission"]["off_table"][squad] == "undeployed"
    await shot(first, "play-setup-refused")

    # The squad dragged into the zone: every model keeps its place relative to the one held.
    await drag(first, (hx, hy), [], (hx, in_zone_y))
    await wait_seq(first, 4)
    state = await board_matches_state(first, http, match_id, tokens[winner])
    placed = state["units"][squad]["models"]
    for mid, model in squad_models.items():
        assert placed[mid]["pos"] == [model["pos"][0], round(model["pos"][1] - hy + in_zone_y, 2)]
    assert squad not in state["mission"]["off_table"]
    await board_matches_state(pages[loser], http, match_id, tokens[loser])

    # Undo: the squad is to deploy again, drawn where it waited; then it is deployed again.
    await first.click("#undo")
    await wait_seq(first, 5)
    state = await board_matches_state(first, http, match_id, tokens[winner])
    assert state["mission"]["off_table"][squad] == "undeployed"
    assert state["units"][squad]["models"][held]["pos"] == [hx, hy]
    assert await first.locator(f"#board-units g.unit.undeployed[data-unit='{squad}']").count() == 1
    await drag(first, (hx, hy), [], (hx, in_zone_y))
    await wait_seq(first, 6)
    await board_matches_state(first, http, match_id, tokens[winner])

    # The vehicle dragged into the zone and turned by the wheel (two notches: +30 degrees).
    vx, vy = state["units"][vehicle]["models"][f"{vehicle}-m"]["pos"]
    start_heading = state["units"][vehicle]["models"][f"{vehicle}-m"]["heading"]
    sx, sy = await screen_point(first, vx, vy)
    ex, ey = await screen_point(first, 30.0, _zone_y("A", 6.0))
    await first.mouse.move(sx, sy)
    await first.mouse.down()
    await first.mouse.move(ex, ey, steps=8)
    for _ in range(2):
        await first.mouse.wheel(0, -100)
    await first.wait_for_selector("#move-status.ok")
    await first.mouse.up()
    await wait_seq(first, 7)
    state = await board_matches_state(first, http, match_id, tokens[winner])
    model = state["units"][vehicle]["models"][f"{vehicle}-m"]
    assert model["pos"] == [30.0, _zone_y("A", 6.0)]
    assert model["heading"] == (start_heading + 30.0) % 360
    # The whole army is down: the other side deploys now, in zone B.
    assert state["mission"]["deploying"] == loser
    second = pages[loser]
    await second.wait_for_selector(f"#deploying[data-side='{loser}']")
    assert "you deploy (zone B)" in await second.locator("#deploying").inner_text()

    # The second side holds its squad in reserve (not drawn any more) and places its vehicle
    # with "Place" and a click inside its zone.
    other_squad = f"squad-{loser}"
    other_vehicle = "rhino-1" if vehicle == "predator-1" else "predator-1"
    await second.click(f"#to-deploy li[data-unit='{other_squad}'] a")
    await second.click("#reserve")
    await wait_seq(second, 8)
    state = await board_matches_state(second, http, match_id, tokens[loser])
    assert state["mission"]["off_table"][other_squad] == "reserve"
    assert await second.locator(f"#board-units g.unit[data-unit='{other_squad}']").count() == 0
    await second.click(f"#to-deploy li[data-unit='{other_vehicle}'] a")
    await second.click("#place")
    px, py = await screen_point(second, 40.0, _zone_y("B", 6.0))
    await second.mouse.move(px, py, steps=6)
    await second.wait_for_selector("#move-status.ok")
    await second.mouse.down()
    await second.mouse.up()
    await wait_seq(second, 9)
    state = await board_matches_state(second, http, match_id, tokens[loser])
    assert state["units"][other_vehicle]["models"][f"{other_vehicle}-m"]["pos"] == [40.0, _zone_y("B", 6.0)]

    # Deployment is over: the side that deployed first goes first; the other declines to Seize.
    assert state["pending"]["kind"] == "seize_initiative" and state["pending"]["side"] == loser
    await _decide(second, "decline")
    await wait_seq(second, 10)
    for side, page in pages.items():
        state = await board_matches_state(page, http, match_id, tokens[side])
    assert state["mission"]["step"] == "battle" and state["active"] == winner and state["turn"] == 1
    markers = state["mission"]["mission"]["objectives"]
    for page in pages.values():
        assert await page.locator("#control li").count() == len(markers)
        assert (await page.locator("#score").inner_text()) == "VP A 0 : 0 B"
        assert await page.locator("#board-markers circle.marker").count() == len(markers)
    await shot(first, "play-setup-battle")
    final = await state_of(http, match_id, tokens["a"])
    assert final["seq"] == 10
    assert errors == []
