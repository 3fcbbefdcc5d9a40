"""A wrecked or destroyed unit at the player's table (docs/table.md), real Chromium against a real
server. 40k7 Vehicles, Wrecked Vehicles: a wreck is left on the table and does nothing more. Its
card and its chip in the unit list listed the statuses it had when it fell ("Crew Stunned",
"Immobilised") as if they still held; they now say it is wrecked (or destroyed) and list none.
A vehicle still in the game keeps its statuses on both.
"""

from __future__ import annotations

import msgspec
from playwright.async_api import Browser, Page

from hulldown.client import create_match
from tests.scenarios import duel, rhino

from ..server_process import ServerProcess
from .browser import open_table

LIVE_STATUSES = {"stunned": 0, "immobilised": 0}


async def _select(page: Page, unit: str) -> None:
    await page.click(f"#units li[data-unit='{unit}'] .unit-title")
    await page.wait_for_selector(f"#unit-panel .card[data-unit='{unit}']")


async def test_a_wreck_and_a_destroyed_vehicle_list_no_live_statuses(
    server: ServerProcess, browser: Browser
) -> None:
    request = duel()
    wreck = msgspec.structs.replace(
        rhino("wreck", "b", 62.0, 8.0), destroyed=True, wreck=True, hp=0, statuses=LIVE_STATUSES
    )
    gone = msgspec.structs.replace(
        rhino("gone", "b", 60.0, 40.0), destroyed=True, hp=0, statuses=LIVE_STATUSES
    )
    alive = msgspec.structs.replace(rhino("alive", "b", 50.0, 30.0), statuses=LIVE_STATUSES)
    scenario = msgspec.structs.replace(request.scenario, units=(*request.scenario.units, wreck, gone, alive))
    created = await create_match(server.http, msgspec.structs.replace(request, scenario=scenario))
    errors: list[str] = []
    _, page = await open_table(browser, created["play_urls"]["b"], errors)

    for unit, fate, text in (("wreck", "wreck", "Wrecked"), ("gone", "destroyed", "Destroyed")):
        chip = f"#units li[data-unit='{unit}'] .statuses"
        assert await page.locator(f"{chip} .flag.{fate}").count() == 1
        assert await page.locator(f"{chip} .status").count() == 0, await page.inner_text(chip)
        await _select(page, unit)
        card = page.locator(f"#unit-panel .card[data-unit='{unit}']")
        assert await card.locator(f".fate[data-fate='{fate}']").inner_text() == (
            "Wrecked: left on the table as a wreck" if fate == "wreck" else text
        )
        assert await card.locator("li.status-line").count() == 0
        assert "Stunned" not in await card.inner_text() and "Immobilised" not in await card.inner_text()

    # A vehicle still in the game lists them, on its chip and on its card.
    chips = await page.eval_on_selector_all(
        "#units li[data-unit='alive'] .statuses .status", "ss => ss.map(s => s.textContent)"
    )
    assert sorted(chips) == ["immobilised", "stunned"]
    await _select(page, "alive")
    card = page.locator("#unit-panel .card[data-unit='alive']")
    assert await card.locator("li.status-line").count() == 2
    assert await card.locator(".fate").count() == 0
    assert errors == []
