"""The move gesture's turns and adjustments at the player's table (docs/table.md), in Chromium.

- 40k7 Vehicles, Movement (pivoting): a vehicle turned without moving pivots - by dragging the
  rotate handle, or by the wheel while its model is held still; the wheel keeps turning a moving
  vehicle's final heading.
- 40k7 Movement (infantry, coherency): a squad is dragged, released with Alt to adjust, one model
  is then dragged alone, and Enter sends ONE move with every model's end point (``positions``).
"""

from __future__ import annotations

from typing import Any

import msgspec
from playwright.async_api import Browser, Page

from hulldown.client import create_match
from tests.scenarios import duel

from ..server_process import ServerProcess
from .browser import board_matches_state, open_table, screen_point, shot, wait_seq


async def _press_drag_release(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    sx, sy = await screen_point(page, *start)
    ex, ey = await screen_point(page, *end)
    await page.mouse.move(sx, sy)
    await page.mouse.down()
    await page.mouse.move(ex, ey, steps=8)
    await page.wait_for_function(
        "!document.querySelector('#board-overlay polyline.path.checking')", timeout=5000
    )
    await page.mouse.up()


def _events(state: dict[str, Any], since: int) -> list[dict[str, Any]]:
    return [e for e in state["log"] if e["seq"] > since]


async def test_a_vehicle_pivots_by_its_handle_and_by_the_wheel(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, duel())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    await a.click(".unit-card[data-unit='predator-1'] .unit-title")
    knob = a.locator("circle.rotate-handle[data-unit='predator-1']")
    await knob.wait_for()
    kx, ky = float(await knob.get_attribute("cx") or 0), float(await knob.get_attribute("cy") or 0)
    state = await board_matches_state(a, server.http, match_id, token)
    model = state["units"]["predator-1"]["models"]["predator-1-m"]
    x, y = model["pos"]
    assert ky == y and kx > x + 1.5  # ahead of the hull along heading 0
    # Drag the knob round to straight above the centre: heading 90, the model does not move.
    await _press_drag_release(a, (kx, ky), (x, y + 5.0))
    await wait_seq(a, 2)
    state = await board_matches_state(a, server.http, match_id, token)
    model = state["units"]["predator-1"]["models"]["predator-1-m"]
    assert model["pos"] == [x, y] and model["heading"] == 90.0
    await shot(a, "play-40k7-rotate-handle")
    await a.click("#undo")
    await wait_seq(a, 3)
    # Hold the model still and turn the wheel twice (15 degrees each): a pivot to 30.
    sx, sy = await screen_point(a, x, y)
    await a.mouse.move(sx, sy)
    await a.mouse.down()
    for _ in range(2):
        await a.mouse.wheel(0, -100)
    await a.wait_for_selector("#move-status.ok")
    await a.mouse.up()
    await wait_seq(a, 4)
    state = await board_matches_state(a, server.http, match_id, token)
    model = state["units"]["predator-1"]["models"]["predator-1-m"]
    assert model["pos"] == [x, y] and model["heading"] == 30.0
    await a.click("#undo")
    await wait_seq(a, 5)
    # A move with the wheel: it moves and faces the wheel's heading, not along its leg.
    ex, ey = await screen_point(a, x + 4.0, y)
    await a.mouse.move(sx, sy)
    await a.mouse.down()
    await a.mouse.move(ex, ey, steps=6)
    await a.mouse.wheel(0, 100)
    await a.wait_for_selector("#move-status.ok")
    await a.mouse.up()
    await wait_seq(a, 6)
    state = await board_matches_state(a, server.http, match_id, token)
    model = state["units"]["predator-1"]["models"]["predator-1-m"]
    assert model["pos"] == [x + 4.0, y] and model["heading"] == 345.0
    assert errors == []


async def test_a_squad_is_dragged_then_one_model_adjusted_in_one_move(
    server: ServerProcess, browser: Browser
) -> None:
    from hulldown.match.state import Model, Point, Profile, Unit

    request = duel()
    squad = Unit(
        id="squad",
        side="a",
        name="Tactical Squad",
        kind="infantry",
        profile=Profile(m=6, ws=4, bs=4, s=4, t=4, w=1, sv=3),
        models={f"m{i}": Model(id=f"m{i}", pos=Point(20.0 + 1.5 * i, 40.0), base_mm=32.0) for i in range(3)},
    )
    scenario = msgspec.structs.replace(request.scenario, units=(*request.scenario.units, squad))
    created = await create_match(server.http, msgspec.structs.replace(request, scenario=scenario))
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    await a.click(".unit-card[data-unit='squad'] .unit-title")
    # Drag the squad 3 in right and let go with Alt: nothing is sent, the ghosts stay.
    sx, sy = await screen_point(a, 21.5, 40.0)
    ex, ey = await screen_point(a, 24.5, 40.0)
    await a.mouse.move(sx, sy)
    await a.mouse.down()
    await a.mouse.move(ex, ey, steps=8)
    await a.keyboard.down("Alt")
    await a.mouse.up()
    await a.keyboard.up("Alt")
    await a.wait_for_selector("body[data-adjusting='squad']")
    await a.wait_for_selector("#move-status.ok")
    assert await a.get_attribute("body", "data-seq") == "1"
    # Adjust the last model alone: 1.5 in up (still coherent, within 6 in).
    await _press_drag_release(a, (26.0, 40.0), (26.0, 41.5))
    await a.wait_for_selector("#move-status.ok")
    assert await a.get_attribute("body", "data-seq") == "1"
    # Too far for one model: refused live, with the server's reason; then put it back.
    await _press_drag_release(a, (26.0, 41.5), (34.0, 41.5))
    await a.wait_for_selector("#move-status.rejected")
    status = await a.text_content("#move-status") or ""
    assert "refused" in status
    await _press_drag_release(a, (34.0, 41.5), (26.0, 41.5))
    await a.wait_for_selector("#move-status.ok")
    await shot(a, "play-40k7-squad-adjust")
    await a.keyboard.press("Enter")
    await wait_seq(a, 2)
    state = await board_matches_state(a, server.http, match_id, token)
    assert [m["pos"] for m in state["units"]["squad"]["models"].values()] == [
        [23.0, 40.0],
        [24.5, 40.0],
        [26.0, 41.5],
    ]
    moved = _events(state, 1)
    assert len(moved) == 1 and state["seq"] == 2  # ONE move action
    assert await a.get_attribute("body", "data-adjusting") is None
    assert errors == []
