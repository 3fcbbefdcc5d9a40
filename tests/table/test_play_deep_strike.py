"""40k7 Deep Strike at the player's table (docs/table.md, docs/missions.md "Reserves and
arrivals"), real Chromium against a real server.

40k7 rulebook, Deep Strike: a unit with the rule arriving from reserve may be aimed at a point;
it scatters 2D6" unless the scatter die shows a hit, and a model off the table, on impassable
terrain, on a friend or within 1" of an enemy is a Mishap (D6: 1-2 destroyed, 3-6 back to
Ongoing Reserves). Before, an arriving Deep Striker could only be placed from its table edge.

The dice are the server's own, so the points are chosen for an outcome every roll gives: one
Deep Striker aimed at the open middle of the table (12" from anything: it lands wherever it
scatters), one aimed at the middle of a wide impassable piece (every scatter ends on it: a
Mishap).
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
from playwright.async_api import Browser, Page

from hulldown.client import Client
from hulldown.match.definition import to_document
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options, Point, Profile, Side, Terrain, Unit
from hulldown.wire import protocol
from tests.builders import based_models, multi_model_unit

from ..server_process import ServerProcess
from .browser import board_matches_state, open_table, screen_point, set_up_by_api, shot, state_of, wait_seq

MARINE = Profile(m=6, ws=4, bs=4, s=4, t=4, w=1, i=4, a=1, ld=8, sv=3)
# An impassable piece well inside the table: aimed at (15, 24), every scatter (up to 12") of the
# two models (32 mm bases, placed 1.26" apart along +x) ends on it.
CRATER = Terrain(
    id="crater", points=(Point(0, 11), Point(31, 11), Point(31, 37), Point(0, 37)), kinds=("impassable",)
)
OPEN_MIDDLE = (50.0, 24.0)  # 12" from every model and piece, whatever the scatter
ON_THE_CRATER = (15.0, 24.0)


def _squad(uid: str, side: Side, x: float, y: float, keywords: tuple[str, ...] = ()) -> Unit:
    models = based_models(uid, [(x, y), (x + 1.5, y)], base_mm=32.0)
    return multi_model_unit(
        uid, side, models, kind="infantry", profile=MARINE, weapons={}, name=uid, keywords=keywords
    )


async def _to_both_arriving(live_url: str, tokens: dict[str, str]) -> dict[str, Any]:
    """End phases until side a's Movement phase with both Deep Strikers arriving (a 3+ from turn
    2, every unit from turn 4: 40k7 rulebook, Reserves; one that is not placed goes back)."""
    async with Client(live_url, token=tokens["a"]) as a, Client(live_url, token=tokens["b"]) as b:
        clients = {"a": a, "b": b}
        for _ in range(60):
            view = a.view.data
            off = view["mission"]["off_table"]
            if (view["active"], view["phase"]) == ("a", "movement") and off == {
                "ds1": "arriving",
                "ds2": "arriving",
            }:
                return view
            assert view["pending"] is None and view["turn"] <= 4, view["pending"]
            answer = await clients[view["active"]].act({"type": "end_phase"})
            assert isinstance(answer, protocol.Ack), answer
            await a.wait_seq(answer.seq)
            await b.wait_seq(answer.seq)
    raise AssertionError("the Deep Strikers never arrived together")


async def _select(page: Page, unit: str) -> None:
    await page.click(f"#units li[data-unit='{unit}'] .unit-title")
    await page.wait_for_selector(f"#unit-panel .card[data-unit='{unit}']")


async def _click_table(page: Page, x: float, y: float) -> None:
    sx, sy = await screen_point(page, x, y)
    await page.mouse.move(sx, sy, steps=4)
    await page.mouse.click(sx, sy)


async def test_a_40k7_unit_deep_strikes_from_the_table(server: ServerProcess, browser: Browser) -> None:
    units = (
        _squad("tac", "a", 40.0, 30.0),
        _squad("ds1", "a", 20.0, 30.0, ("deep_strike",)),
        _squad("ds2", "a", 25.0, 30.0, ("deep_strike",)),
        _squad("foe", "b", 40.0, 20.0),
    )
    doc = to_document(
        CreateMatch(edition="40k7", scenario=Scenario(units=units, terrain=(CRATER,)), options=Options())
    )
    doc["mission"] = {"id": "crusade", "deployment": "dawn_of_war"}
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(doc), timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    tokens, match_id = created["tokens"], created["match_id"]
    deploys = {
        "a": [
            {"type": "deploy", "unit": "tac", "positions": {"tac-0": [50.0, 6.0], "tac-1": [51.5, 6.0]}},
            {"type": "reserve", "unit": "ds1"},
            {"type": "reserve", "unit": "ds2"},
        ],
        "b": [{"type": "deploy", "unit": "foe", "positions": {"foe-0": [50.0, 42.0], "foe-1": [51.5, 42.0]}}],
    }
    await set_up_by_api(created["live_url"], tokens, deploys)
    view = await _to_both_arriving(created["live_url"], tokens)

    errors: list[str] = []
    _, page = await open_table(browser, created["play_urls"]["a"], errors)
    await wait_seq(page, view["seq"])
    await _select(page, "ds1")
    section = page.locator("section[data-action='setup'][data-where='arriving']")
    assert 'place it from your table edge (within 6" of it, not within 1" of an enemy), or Deep Strike' in (
        await section.inner_text()
    )
    await page.click("#deep-strike")
    await page.wait_for_selector("#deep-strike-armed")
    # The scatter's reach follows the pointer.
    sx, sy = await screen_point(page, 36.0, 24.0)
    await page.mouse.move(sx, sy, steps=4)
    reach = page.locator("#board-overlay g.deep-strike circle.scatter-reach")
    assert await reach.get_attribute("r") == "12"
    # Aimed off the battlefield (the board's margin): refused with the rule, nothing changes and
    # the board stays armed.
    await _click_table(page, -0.6, 24.0)
    refused = page.locator("section[data-action='setup'] .message.rejected")
    await refused.wait_for()
    assert "aim the Deep Strike at a point on the battlefield [40k7 rulebook, Deep Strike]" in (
        await refused.inner_text()
    )
    assert await page.get_attribute("body", "data-seq") == str(view["seq"])
    assert await page.locator("#deep-strike-armed").count() == 1

    # Aimed at the open middle: the server's answer - the scatter die and where it landed.
    await _click_table(page, *OPEN_MIDDLE)
    result = page.locator("#deep-strike-result[data-state='landed']")
    await result.wait_for()
    text = await result.inner_text()
    assert "Deep Strike aimed at (50.0, 24.0)" in text
    assert "Deep Strike scatter die" in text and "ds1 Deep Strikes and lands at (" in text
    state = await board_matches_state(page, server.http, match_id, tokens["a"])
    assert "ds1" not in state["mission"]["off_table"]
    lead = state["units"]["ds1"]["models"]["ds1-0"]["pos"]
    drawn = page.locator("#board-overlay g.deep-strike")
    landing = [float(v) for v in (await drawn.get_attribute("data-landing") or "").split(",")]
    assert abs(landing[0] - lead[0]) <= 0.05 and abs(landing[1] - lead[1]) <= 0.05, (landing, lead)
    assert f"({lead[0]:.1f}, {lead[1]:.1f})" in text
    await shot(page, "table-deep-strike")

    # Aimed at the middle of the impassable crater: a Mishap whatever the dice.
    await _select(page, "ds2")
    await page.click("#deep-strike")
    await _click_table(page, *ON_THE_CRATER)
    mishap = page.locator(
        "#deep-strike-result[data-state='destroyed'], #deep-strike-result[data-state='reserve']"
    )
    await mishap.wait_for()
    text = await mishap.inner_text()
    assert "a Mishap!" in text and "Deep Strike Mishap" in text
    state = await board_matches_state(page, server.http, match_id, tokens["a"])
    if await mishap.get_attribute("data-state") == "destroyed":
        assert state["units"]["ds2"]["destroyed"] and "Mishap: destroyed" in text
    else:
        assert state["mission"]["off_table"]["ds2"] == "reserve" and "back to Ongoing Reserves" in text
    assert (await state_of(server.http, match_id, tokens["a"]))["seq"] == view["seq"] + 2
    assert errors == []
