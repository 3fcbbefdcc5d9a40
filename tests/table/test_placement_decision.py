"""A decision in the middle of an action in the player's table (docs/decisions.md), in Chromium:
side a's shot (through the Python client) destroys a transport; side b's table opens the
decision dialog with the server's proposal, offers to take it or to place the models by hand
(test_placement_drag.py drags them), and the one click takes the proposal. hh3 Transport
sub-type, Emergency Disembarkation."""

from __future__ import annotations

import math

from playwright.async_api import Browser

from hulldown.client import Client, create_match
from hulldown.wire.protocol import Ack
from tests.live.test_midway_decision import _request

from ..server_process import ServerProcess
from .browser import board_matches_state, open_table, screen_point, state_of, wait_seq


async def test_the_owner_takes_the_proposal_in_the_dialog(server: ServerProcess, browser: Browser) -> None:
    created = await create_match(server.http, _request())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    async with Client(created["live_url"], token=created["tokens"]["a"]) as a:
        for _ in range(2):  # start -> movement -> shooting
            assert isinstance(await a.act({"type": "end_phase"}), Ack)
        shot = await a.act(
            {"type": "shoot", "unit": "shooter", "fire": [{"weapon": "lascannon", "target": "rhino"}]}
        )
        assert isinstance(shot, Ack), shot
    await wait_seq(b, shot.seq)
    state = await state_of(server.http, match_id, token)
    pending = state["pending"]
    assert pending["kind"] == "place_emergency_disembark" and pending["side"] == "b"
    await b.wait_for_selector("dialog#decision[open]")
    text = await b.text_content("dialog#decision p.placement")
    assert text == "Proposal: 3 of 3 models placed."
    assert await b.text_content("dialog#decision button.option[data-choice='place']") == "Place"
    assert (
        await b.text_content("dialog#decision button.option[data-choice='proposal']") == "Take the proposal"
    )
    await b.click("dialog#decision button.option[data-choice='proposal']")
    await wait_seq(b, shot.seq + 1)
    state = await board_matches_state(b, server.http, match_id, token)
    assert state["pending"] is None and state["units"]["rhino"]["destroyed"]
    placed = {mid: m["pos"] for mid, m in state["units"]["s"]["models"].items() if m["alive"]}
    assert placed == pending["placement"]["proposal"]
    assert errors == []


async def test_a_release_just_outside_the_thin_contact_strip_lands_on_it(
    server: ServerProcess, browser: Browser
) -> None:
    """hh3's area is a strip 0.05 in wide along the hull (base contact), finer than a screen
    pixel: a model released 0.15 in outside it is moved just inside, and the server accepts it."""
    created = await create_match(server.http, _request())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    async with Client(created["live_url"], token=token) as a:
        for _ in range(2):  # start -> movement -> shooting
            assert isinstance(await a.act({"type": "end_phase"}), Ack)
        shot = await a.act(
            {"type": "shoot", "unit": "shooter", "fire": [{"weapon": "lascannon", "target": "rhino"}]}
        )
        assert isinstance(shot, Ack), shot
    await wait_seq(b, shot.seq)
    state = await state_of(server.http, match_id, token)
    placement = state["pending"]["placement"]
    assert placement["limits"]["contact"] == 0.05
    (vehicle,) = state["units"]["rhino"]["models"].values()
    hull, (cx, cy) = vehicle["hull"], vehicle["pos"]
    radius = state["units"]["s"]["models"]["s-1"]["base_mm"] / 25.4 / 2
    top = cy + hull["width"] / 2  # heading 180: the hull is axis-aligned
    others = [p for mid, p in placement["proposal"].items() if mid != "s-1"]
    xs = [cx - hull["length"] / 2 + radius + 0.1 * k for k in range(int((hull["length"] - 2 * radius) / 0.1))]
    x = next(x for x in xs if all(math.dist((x, top + radius), o) > 2 * radius + 0.2 for o in others))
    release = (x, top + radius + 0.2)  # 0.15 in outside the strip
    await b.wait_for_selector("dialog#decision[open]")
    start = placement["proposal"]["s-1"]
    sx, sy = await screen_point(b, *start)
    ex, ey = await screen_point(b, *release)
    await b.mouse.move(sx, sy)
    await b.mouse.down()
    await b.mouse.move(ex, ey, steps=10)
    await b.mouse.up()
    ghost = b.locator("#board-overlay g.ghost[data-model='s-1']")
    assert "ok" in (await ghost.get_attribute("class") or "").split()
    await b.click("dialog#decision button.option[data-choice='place']")
    await wait_seq(b, shot.seq + 1)
    done = await board_matches_state(b, server.http, match_id, token)
    assert done["pending"] is None
    px, py = done["units"]["s"]["models"]["s-1"]["pos"]
    gap = py - top - radius  # the base's edge to the hull's top side
    assert 0 <= gap <= placement["limits"]["contact"] and abs(px - x) < 0.15, (px, py, gap)
    assert errors == []
