"""Choosing the model that takes a wound by clicking it on the board (docs/table.md, docs/
decisions.md ``allocate_wound``), in Chromium. 40k7 The Shooting Phase, Allocate Wounds: Closest
Models: side a's gun (through the Python client) wounds a unit whose two front models stand
exactly as far from it; side b's table rings the two models on the board, a click on a model of
the unit that is not among them is refused with the server's reason, and a click on the second
tied model answers: GET /state then shows every wound on it (it stays the closest until slain)."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser

from hulldown.client import Client, create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.wire.protocol import Ack
from tests.wh40k7.builders import infantry, weapon

from ..server_process import ServerProcess
from .browser import board_matches_state, open_table, screen_point, state_of, wait_seq

TOUGH = 40  # Wounds per target model: thirty S4 shots cannot slay one, so nothing else is asked


def _request() -> CreateMatch:
    # Thirty BS5 shots (2+) at S4 vs T4 (4+), no armour: no wound at all once in ten million.
    gun = weapon("gun", "Storm gun", 24, 4, None, type="assault", shots=30)
    shooter = infantry("s", "a", [(10, 24)], bs=5, weapons=[(0, gun)])
    targets = infantry("t", "b", [(20, 23), (20, 25), (23, 24)], w=TOUGH, sv=None)
    return CreateMatch(
        edition="40k7", scenario=Scenario(units=(shooter, targets)), options=Options(turn_limit=0)
    )


async def _to_shooting(a: Client, http: str, match_id: str, token: str) -> None:
    for _ in range(4):
        if (await state_of(http, match_id, token))["phase"] == "shooting":
            return
        assert isinstance(await a.act({"type": "end_phase"}), Ack)
    raise AssertionError("the Shooting phase never came")


async def test_the_owner_clicks_the_model_that_takes_the_wound(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, _request())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    async with Client(created["live_url"], token=token) as a:
        await _to_shooting(a, server.http, match_id, token)
        shot = await a.act({"type": "shoot", "unit": "s", "fire": [{"weapon": "gun", "target": "t"}]})
        assert isinstance(shot, Ack), shot
    await wait_seq(b, shot.seq)
    state = await state_of(server.http, match_id, token)
    pending = state["pending"]
    assert pending["kind"] == "allocate_wound" and pending["side"] == "b"
    assert pending["options"] == ["t-0", "t-1"] and pending["proposal"] == "t-0"
    await b.wait_for_selector("dialog#decision[open]")
    # The two tied models are ringed on the board; the dialog is not modal (the board is clicked).
    rings = b.locator("#board-overlay circle.pick-target")
    assert sorted([await r.get_attribute("data-model") or "" for r in await rings.all()]) == ["t-0", "t-1"]
    assert await b.get_attribute("dialog#decision", "data-modal") == "no"
    hint = await b.text_content("dialog#decision p.pick-hint")
    assert hint is not None and "t-0, t-1" in hint

    async def click_model(mid: str) -> None:
        model: dict[str, Any] = state["units"]["t"]["models"][mid]
        x, y = await screen_point(b, *model["pos"])
        await b.mouse.click(x, y)

    # t-2 stands further back: the server refuses it, the dialog shows why, nothing changes.
    await click_model("t-2")
    await b.wait_for_selector("dialog#decision .message[data-code='invalid_choice']")
    refused = await b.text_content("dialog#decision .message")
    assert refused is not None and "t-0, t-1" in refused
    assert (await state_of(server.http, match_id, token))["seq"] == shot.seq
    # t-1 answers: every wound of the attack goes to it (40k7 Closest Models: it stays the closest).
    await click_model("t-1")
    await wait_seq(b, shot.seq + 1)
    done = await board_matches_state(b, server.http, match_id, token)
    assert done["pending"] is None and done["suspended"] is None
    wounds = {mid: m["wounds"] for mid, m in done["units"]["t"]["models"].items()}
    assert wounds["t-0"] == TOUGH and wounds["t-2"] == TOUGH
    assert 0 < wounds["t-1"] < TOUGH
    assert await b.locator("#board-overlay circle.pick-target").count() == 0
    assert not await b.is_visible("dialog#decision[open]")
    assert errors == []
