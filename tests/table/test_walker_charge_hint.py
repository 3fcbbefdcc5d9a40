"""A Walker's charge at the player's table (docs/decisions.md, Charge moves; docs/table.md), real
Chromium against a real server. The place_chargers dialog told the charging player "Outside its
area: walker-m" for the server's own proposal: a Walker's area is drawn as the circle round its hull
(smaller than the truth), so its proposal in base contact lies beyond it, yet the proposal is
always accepted. The hint says the model is at the proposal, and the proposal is taken."""

from __future__ import annotations

from playwright.async_api import Browser

from tests.wh40k7.builders import dreadnought

from ..server_process import ServerProcess
from .browser import board_matches_state, take_charge_proposal
from .test_play_40k7 import table_in_assault


async def test_a_walkers_proposal_is_not_called_outside_its_area(
    server: ServerProcess, browser: Browser
) -> None:
    # The Rhino (side B) at x = 40 faces -x: its rear at x = 42.25; the Walker's front 1.5 in away.
    walker = dreadnought("walker", "a", 45.0, 24, 180, name="Dreadnought")
    errors: list[str] = []
    created, a = await table_in_assault(server, browser, walker, errors)
    await a.click(".unit-card[data-unit='walker'] .unit-title")
    await a.select_option("#charge-target", "rhino-1")
    await a.click("#charge")
    await a.wait_for_selector("dialog#decision[open] button.option[data-choice='proposal']")
    hint = a.locator("dialog#decision .placement-hint")
    assert await hint.get_attribute("data-outside") == ""
    assert await hint.get_attribute("data-at-proposal") == "walker-m"
    text = await hint.inner_text()
    assert "Outside its area" not in text and "At the proposal, beyond the drawn area" in text, text
    await take_charge_proposal(a)
    state = await board_matches_state(a, server.http, created["match_id"], created["tokens"]["a"])
    assert "charged" in state["units"]["walker"]["turn_flags"]
    assert errors == []
