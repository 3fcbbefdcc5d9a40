"""Objective markers placed by the players at their tables (docs/missions.md, docs/table.md), real
Chromium against a real server: hh3 Take and Hold with ``place_markers``; after the roll-off the
side to place clicks the table; a click too near the edge is refused with the server's reason;
the two markers are placed in turn and drawn; the deployment roll-off's decision follows.

hh3 Core Missions, Take and Hold: two 3 VP markers, 12" from every edge and 18" apart, placed by
the players in turn after a roll-off.
"""

from __future__ import annotations

import httpx
import msgspec
from playwright.async_api import Browser

from hulldown.match.definition import to_document
from hulldown.match.scenario import CreateMatch, Scenario
from tests.hh3 import builders as hh3

from ..server_process import ServerProcess
from .browser import open_table, screen_point, shot, state_of, wait_seq

PIXEL_IN = 0.15  # a click lands on a whole screen pixel: about 0.07" at this window size


async def test_markers_are_placed_by_clicks_in_turn(server: ServerProcess, browser: Browser) -> None:
    units = (hh3.squad("tac-a", "a", [(10.0, 6.0)]), hh3.squad("tac-b", "b", [(10.0, 42.0)]))
    doc = to_document(CreateMatch(edition="hh3", scenario=Scenario(units=units)))
    doc["mission"] = {"id": "take_and_hold", "place_markers": True}
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(doc), timeout=10)
    assert response.status_code == 201, response.text
    created = response.json()
    match_id, tokens = created["match_id"], created["tokens"]
    errors: list[str] = []
    _, page_a = await open_table(browser, created["play_urls"]["a"], errors)
    _, page_b = await open_table(browser, created["play_urls"]["b"], errors)
    pages = {"a": page_a, "b": page_b}
    await page_a.click("#roll-off")
    await wait_seq(page_a, 2)
    state = await state_of(server.http, match_id, tokens["a"])
    first = state["mission"]["deploying"]
    second = "b" if first == "a" else "a"
    placer = pages[first]
    await placer.wait_for_selector("#placing-markers[data-left='2']")
    assert "place an objective marker (2 left)" in await placer.locator("#placing-markers").inner_text()
    # Too near the edge: refused with the server's reason, nothing appended.
    x, y = await screen_point(placer, 6.0, 24.0)
    await placer.mouse.click(x, y)
    message = placer.locator("#setup .message[data-section='setup']")
    await placer.wait_for_selector("#setup .message.rejected[data-code='marker_near_edge']")
    assert "hh3 Core Missions, Objectives" in await message.inner_text()
    assert (await state_of(server.http, match_id, tokens["a"]))["seq"] == 2
    x, y = await screen_point(placer, 24.0, 24.0)
    await placer.mouse.click(x, y)
    await wait_seq(placer, 3)
    other = pages[second]
    await other.wait_for_selector("#board-markers circle.marker[data-marker='m1']")
    await other.wait_for_selector("#placing-markers[data-left='1']")
    x, y = await screen_point(other, 48.0, 24.0)
    await other.mouse.click(x, y)
    await wait_seq(other, 4)
    state = await state_of(server.http, match_id, tokens["a"])
    markers = {m["id"]: m["pos"] for m in state["mission"]["mission"]["objectives"]}
    # Where the clicks landed, to a screen pixel (a fraction of an inch).
    assert sorted(markers) == ["m1", "m2"]
    for mid, (ex, ey) in {"m1": (24.0, 24.0), "m2": (48.0, 24.0)}.items():
        assert abs(markers[mid][0] - ex) < PIXEL_IN and abs(markers[mid][1] - ey) < PIXEL_IN, markers
    assert state["mission"]["step"] == "deploy_order" and state["pending"]["kind"] == "deploy_order"
    for page in pages.values():
        assert await page.locator("#board-markers circle.marker").count() == 2
    chooser = pages[state["pending"]["side"]]
    await chooser.wait_for_selector("dialog#decision[open] button.option[data-choice='first']")
    await shot(other, "play-setup-markers")
    assert errors == []
