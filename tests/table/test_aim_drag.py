"""Aiming a blast marker and a template by hand (docs/decisions.md), in Chromium: side a's shot
(sent through the Python client) pauses on the firer's aiming decision; side a's table draws the
legal area with the marker (or the template) at the server's proposal; the firer drags the
marker's hole outside the area (red), presses Aim and the dialog shows the server's refusal with
its numbers while the state stays as it was; then drags it inside (green) and Aim places it there
before it scatters. A template is turned by the knob at its wide end, then taken as proposed.
Side b's table says "Waiting for side A". 40k7 Weapons, Blast; 40k7 Weapons, Template."""

from __future__ import annotations

import math

from playwright.async_api import Browser

from hulldown.client import Client, create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.wire.protocol import Ack
from tests.wh40k7.builders import infantry, weapon

from ..server_process import ServerProcess
from .browser import (
    board_matches_state,
    drag_straight,
    open_table,
    overlay_item,
    state_of,
    wait_seq,
)
from .browser import shot as screenshot

# Releasing with the mouse lands within a screen pixel or so of the spot aimed at (~0.07 in).
POSITION_TOLERANCE_IN = 0.15
BETWEEN_BASES = (40.0, 23.0)  # 1" from two target models' centres: 0.51" off each base
OVER_A_BASE = (40.0, 22.2)  # on the base of the model at (40, 22)


def _request(fire: str) -> CreateMatch:
    frag = weapon("frag", "Frag launcher", 30, 4, 6, rules=("blast",))
    flamer = weapon("fl", "Heavy flamer", 8, 5, 4, rules=("template",))
    units = (
        infantry("g", "a", [(10.0, 24.0)], weapons=[(0, frag if fire == "frag" else flamer)]),
        infantry(
            "e",
            "b",
            [(40.0, 22.0), (40.0, 24.0), (40.8, 26.0)]
            if fire == "frag"
            else [(16.0, 24.0), (16.0, 25.2), (14.0, 18.0)],
        ),
        infantry("f", "a", [(40.0, 27.6)] if fire == "frag" else [(15.5, 22.0)]),
    )
    return CreateMatch(edition="40k7", scenario=Scenario(units=units), options=Options(turn_limit=0))


async def _paused(server: ServerProcess, browser: Browser, fire: str, errors: list[str]):  # type: ignore[no-untyped-def]
    created = await create_match(server.http, _request(fire))
    match_id, token = created["match_id"], created["tokens"]["a"]
    _, a_page = await open_table(browser, created["play_urls"]["a"], errors)
    _, b_page = await open_table(browser, created["play_urls"]["b"], errors)
    async with Client(created["live_url"], token=token) as a:
        while a.view.data["phase"] != "shooting":
            assert isinstance(await a.act({"type": "end_phase"}), Ack)
        shot = await a.act({"type": "shoot", "unit": "g", "fire": [{"weapon": fire, "target": "e"}]})
        assert isinstance(shot, Ack), shot
    await wait_seq(a_page, shot.seq)
    await wait_seq(b_page, shot.seq)
    state = await state_of(server.http, match_id, token)
    return match_id, token, a_page, b_page, shot.seq, state


async def test_the_firer_drags_the_marker_within_its_area_and_aims(
    server: ServerProcess, browser: Browser
) -> None:
    errors: list[str] = []
    match_id, token, a, b, seq, state = await _paused(server, browser, "frag", errors)
    pending = state["pending"]
    assert pending["kind"] == "aim_blast" and pending["side"] == "a", pending
    aim = pending["aim"]
    assert aim["proposal"] == [40.0, 24.0] and aim["limits"]["radius"] == 1.5

    # The waiting side draws no aim.
    assert await b.text_content("#waiting") == f"Waiting for side A: {pending['prompt']}"
    assert await b.locator("#board-overlay g.aim-marker").count() == 0

    # The firer: the hole's area (even-odd) and the marker at the proposal.
    await a.wait_for_selector("dialog#decision[open]")
    assert await a.locator("#board-overlay path.legal-area[fill-rule='evenodd']").count() == 1
    marker = await overlay_item(a, "g.aim-marker")
    assert (marker["x"], marker["y"]) == (40.0, 24.0) and "ok" in marker["cls"].split(), marker
    assert await a.text_content("dialog#decision button.option[data-choice='aim']") == "Aim"
    assert (
        await a.text_content("dialog#decision button.option[data-choice='proposal']") == "Take the proposal"
    )

    # Between two bases: red while held; the server refuses with the numbers; nothing changes.
    await drag_straight(a, (40.0, 24.0), BETWEEN_BASES)
    marker = await overlay_item(a, "g.aim-marker")
    assert "rejected" in marker["cls"].split(), marker
    assert abs(marker["x"] - BETWEEN_BASES[0]) < POSITION_TOLERANCE_IN
    assert abs(marker["y"] - BETWEEN_BASES[1]) < POSITION_TOLERANCE_IN
    assert await a.get_attribute("dialog#decision p.aim-hint", "data-state") == "rejected"
    await a.click("dialog#decision button.option[data-choice='aim']")
    refusal = a.locator("dialog#decision div.message.rejected[data-section='decision']")
    await refusal.wait_for()
    await screenshot(a, "aim-refused")
    assert await refusal.get_attribute("data-code") == "not_over_target"
    text = await refusal.text_content() or ""
    assert "limit 0" in text and "distance 0.5" in text, text
    after = await state_of(server.http, match_id, token)
    assert after["seq"] == seq and after["pending"]["id"] == pending["id"]

    # Over a base: green, and Aim places the hole there before it scatters.
    await drag_straight(a, (marker["x"], marker["y"]), OVER_A_BASE)
    marker = await overlay_item(a, "g.aim-marker")
    assert "ok" in marker["cls"].split(), marker
    await screenshot(a, "aim-drag")
    await a.click("dialog#decision button.option[data-choice='aim']")
    await wait_seq(a, seq + 1)
    done = await board_matches_state(a, server.http, match_id, token)
    assert done["pending"] is None and done["suspended"] is None
    line = next(e for e in done["log"] if "lands at" in e["text"])
    assert line["values"]["aim"] == [marker["x"], marker["y"]]  # exactly where the table showed it
    assert abs(marker["x"] - OVER_A_BASE[0]) < POSITION_TOLERANCE_IN
    assert abs(marker["y"] - OVER_A_BASE[1]) < POSITION_TOLERANCE_IN
    assert await a.locator("#board-overlay g.aim-marker").count() == 0
    assert not await a.locator("dialog#decision[open]").count()
    assert errors == []


async def test_the_firer_turns_the_template_then_takes_the_proposal(
    server: ServerProcess, browser: Browser
) -> None:
    errors: list[str] = []
    match_id, token, a, _, seq, state = await _paused(server, browser, "fl", errors)
    pending = state["pending"]
    assert pending["kind"] == "aim_template" and pending["side"] == "a", pending
    aim = pending["aim"]
    await a.wait_for_selector("dialog#decision[open]")
    template = await overlay_item(a, "g.aim-template")
    assert (template["x"], template["y"]) == tuple(aim["proposal"]) and "ok" in template["cls"].split()
    assert abs(template["angle"]) < 0.05 or abs(template["angle"] - 360) < 0.05  # toward (16, 24)

    # Turned toward the far model (56 deg to the right): not a legal direction (it would cover
    # one model where two can be covered): red.
    toward = (14.0, 18.0)
    await drag_straight(a, (template["x"], template["y"]), toward)
    template = await overlay_item(a, "g.aim-template")
    expected = math.degrees(math.atan2(toward[1] - 24.0, toward[0] - 10.0)) % 360
    assert "rejected" in template["cls"].split() and abs(template["angle"] - expected) < 1.5, template
    await screenshot(a, "aim-template-turned")

    # Take the proposal: the template is laid toward the nearest model, as the server proposed.
    await a.click("dialog#decision button.option[data-choice='proposal']")
    await wait_seq(a, seq + 1)
    done = await board_matches_state(a, server.http, match_id, token)
    assert done["pending"] is None
    assert any(e["text"] == "g's Heavy flamer: the template covers 2 models." for e in done["log"])
    assert await a.locator("#board-overlay g.aim-template").count() == 0
    assert errors == []
