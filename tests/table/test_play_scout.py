"""A 40k7 Scout redeploy at the player's table (docs/missions.md, docs/table.md), real Chromium
against a real server: the set-up is played over the websocket up to the Scout step; side a
answers "redeploy" in the decision dialog, a drag too far is refused with the server's reason,
a drag within 6" is accepted, and the board equals GET /state after each step.

40k7 rulebook, Special Rules, Scout: after deployment a Scout unit may redeploy, each Infantry
model within 6" of where it stands, more than 12" from every enemy unit.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
from playwright.async_api import Browser

from hulldown.client import Client
from hulldown.match.definition import to_document
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.wire.protocol import Ack
from tests.wh40k7 import builders as k7

from ..server_process import ServerProcess
from .browser import board_matches_state, drag, open_table, shot, wait_seq


def _definition() -> dict[str, Any]:
    units = (
        k7.infantry("scouts", "a", [(10.0, 6.0), (12.0, 6.0)], keywords=("scout",)),
        k7.infantry("foe", "b", [(36.0, 42.0)]),
    )
    doc = to_document(CreateMatch(edition="40k7", scenario=Scenario(units=units), options=Options()))
    doc["mission"] = {"id": "crusade", "deployment": "dawn_of_war"}  # zone A: y <= 12
    return doc


async def test_a_scout_redeploys_by_drag_at_the_table(server: ServerProcess, browser: Browser) -> None:
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(_definition()), timeout=10)
    assert response.status_code == 201, response.text
    created = response.json()
    match_id, tokens, url = created["match_id"], created["tokens"], created["live_url"]
    async with Client(url, token=tokens["a"]) as a, Client(url, token=tokens["b"]) as b:
        sides = {"a": a, "b": b}
        rolled = await a.act({"type": "roll_off"})
        assert isinstance(rolled, Ack)
        await a.wait_seq(rolled.seq)
        pending = a.view.data["pending"]
        winner = pending["side"]
        # The roll-off winner deploys second, so side a (with the Scouts) deploys in the zone the
        # order gives it; side a always answers for its own units.
        choice = "first" if winner == "a" else "second"
        answered = await sides[winner].act({"type": "decide", "decision": pending["id"], "choice": choice})
        assert isinstance(answered, Ack)
        await a.wait_seq(answered.seq)
        assert a.view.data["mission"]["zones"]["a"] == "A"
        placed = await a.act(
            {
                "type": "deploy",
                "unit": "scouts",
                "positions": {"scouts-0": [10.0, 6.0], "scouts-1": [12.0, 6.0]},
            }
        )
        assert isinstance(placed, Ack), placed
        placed = await b.act({"type": "deploy", "unit": "foe", "positions": {"foe-0": [36.0, 42.0]}})
        assert isinstance(placed, Ack), placed
        await a.wait_seq(placed.seq)
        assert a.view.data["pending"]["kind"] == "scout_redeploy"
        seq = placed.seq
    errors: list[str] = []
    _, page = await open_table(browser, created["play_urls"]["a"], errors)
    await board_matches_state(page, server.http, match_id, tokens["a"])
    await page.click("dialog#decision[open] button.option[data-choice='redeploy']")
    await wait_seq(page, seq + 1)
    await page.click(".unit-card[data-unit='scouts'] .unit-title")
    card = page.locator("section[data-action='setup']")
    await card.wait_for()
    assert "redeploys (Scout): drag it" in await card.inner_text()
    # 7" up: too far for Infantry (6"): refused with the server's reason, nothing appended.
    await drag(page, (10.0, 6.0), [], (10.0, 13.0))
    await page.wait_for_selector("#move-status.rejected[data-code='scout_too_far']")
    assert "40k7 rulebook, Special Rules, Scout" in await page.locator("#move-status").inner_text()
    state = await board_matches_state(page, server.http, match_id, tokens["a"])
    assert state["seq"] == seq + 1
    # 5" up: accepted; the whole unit moves with the model held.
    await drag(page, (10.0, 6.0), [], (10.0, 11.0))
    await wait_seq(page, seq + 2)
    state = await board_matches_state(page, server.http, match_id, tokens["a"])
    assert state["units"]["scouts"]["models"]["scouts-0"]["pos"] == [10.0, 11.0]
    assert state["units"]["scouts"]["models"]["scouts-1"]["pos"] == [12.0, 11.0]
    assert state["mission"]["no_charge"] == {"scouts": 2}
    await shot(page, "play-setup-scout")
    assert errors == []
