"""A decision in the middle of an action in the player's table (docs/decisions.md), in Chromium:
side a's shot (through the Python client) destroys a transport; side b's table opens the
decision dialog with the server's proposal, offers to take it or to place the models by hand
(test_placement_drag.py drags them), and the one click takes the proposal. hh3 Transport
sub-type, Emergency Disembarkation."""

from __future__ import annotations

from playwright.async_api import Browser

from hulldown.client import Client, create_match
from hulldown.wire.protocol import Ack
from tests.live.test_midway_decision import _request

from ..server_process import ServerProcess
from .browser import board_matches_state, open_table, state_of, wait_seq


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
