"""The decision dialog of the player's table (docs/table.md, Decisions), in Chromium.

A modal decision stays answerable: Esc does not close it for good (40k7 Vehicles, Skimmers: Jink,
asked of side B when side A shoots at its skimmer) - the dialog is still (or again) open after
every Esc, and its button answers. A decision answered on the board (an allocation: 40k7 The
Shooting Phase, Allocate Wounds: Closest Models, the models standing in the table's top right
quarter) opens a non-modal dialog that stands off the board at every window size: the dialog and
the board do not overlap, every ringed model is the board's at its centre, and a click on one
answers. Screenshots in test-artifacts/decision-dialog-*.png."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest
from playwright.async_api import Browser, Page

from hulldown.client import Client, create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.wire.protocol import Ack
from tests.scenarios import duel
from tests.wh40k7.builders import infantry, weapon

from ..server_process import ServerProcess
from .browser import board_matches_state, open_table, screen_point, shot, state_of, wait_seq

TOUGH = 40  # Wounds per target model: thirty S4 shots cannot slay one, so nothing else is asked


def _skimmer_duel() -> CreateMatch:
    request = duel()
    predator, rhino = request.scenario.units
    rhino = msgspec.structs.replace(rhino, keywords=("tank", "transport", "skimmer"))
    scenario = msgspec.structs.replace(request.scenario, units=(predator, rhino))
    return msgspec.structs.replace(request, scenario=scenario, options=Options(turn_limit=30))


def _top_right_allocation() -> CreateMatch:
    # Thirty BS5 shots (2+) at S4 vs T4 (4+), no armour: no wound at all once in ten million. The
    # target's two front models stand exactly as far from the gun, in the top right of the table.
    gun = weapon("gun", "Storm gun", 24, 4, None, type="assault", shots=30)
    shooter = infantry("s", "a", [(52, 41)], bs=5, weapons=[(0, gun)])
    targets = infantry("t", "b", [(62, 40), (62, 42), (65, 41)], w=TOUGH, sv=None)
    return CreateMatch(
        edition="40k7", scenario=Scenario(units=(shooter, targets)), options=Options(turn_limit=0)
    )


async def _dialog_open(page: Page) -> bool:
    is_open: bool = await page.evaluate("document.querySelector('dialog#decision').open")
    return is_open


async def _still_open(page: Page) -> None:
    """The dialog is open a moment after an Esc (kept open, or opened again straight away)."""
    await asyncio.sleep(0.3)
    await page.wait_for_function("document.querySelector('dialog#decision').open", timeout=2000)


async def test_esc_does_not_take_the_decision_away(server: ServerProcess, browser: Browser) -> None:
    created = await create_match(server.http, _skimmer_duel())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    async with Client(created["live_url"], token=token) as a:
        assert isinstance(await a.act({"type": "end_phase"}), Ack)  # 40k7: to the Shooting phase
        fired = await a.act(
            {"type": "shoot", "unit": "predator-1", "fire": [{"weapon": "lascannon", "target": "rhino-1"}]}
        )
        assert isinstance(fired, Ack), fired
    await wait_seq(b, fired.seq)
    pending = (await state_of(server.http, match_id, token))["pending"]
    assert pending["kind"] == "jink" and pending["side"] == "b"
    await b.wait_for_selector("dialog#decision[open]")
    assert await b.get_attribute("dialog#decision", "data-modal") == "yes"

    # Esc before any click on the page, then Esc after a click in the dialog, twice in a row (a
    # second Esc without a click between cannot be prevented in Chromium: the dialog reopens).
    await b.keyboard.press("Escape")
    await _still_open(b)
    await b.click("dialog#decision p.prompt")
    for _ in range(2):
        await b.keyboard.press("Escape")
        await _still_open(b)
    assert await b.get_attribute("dialog#decision", "data-decision") == pending["id"]
    await shot(b, "decision-dialog-after-esc")

    # Still the same decision, answered from the dialog.
    assert (await state_of(server.http, match_id, token))["seq"] == fired.seq
    await b.click("dialog#decision button.option[data-choice='no']")
    await wait_seq(b, fired.seq + 1)
    state = await board_matches_state(b, server.http, match_id, token)
    assert state["pending"] is None
    assert not await _dialog_open(b)
    assert errors == []


@pytest.mark.parametrize("size", [(1280, 800), (800, 600), (375, 667)])
async def test_the_board_dialog_stands_off_the_board(
    server: ServerProcess, browser: Browser, size: tuple[int, int]
) -> None:
    created = await create_match(server.http, _top_right_allocation())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    await b.set_viewport_size({"width": size[0], "height": size[1]})
    async with Client(created["live_url"], token=token) as a:
        for _ in range(4):
            if (await state_of(server.http, match_id, token))["phase"] == "shooting":
                break
            assert isinstance(await a.act({"type": "end_phase"}), Ack)
        fired = await a.act({"type": "shoot", "unit": "s", "fire": [{"weapon": "gun", "target": "t"}]})
        assert isinstance(fired, Ack), fired
    await wait_seq(b, fired.seq)
    state = await state_of(server.http, match_id, token)
    pending = state["pending"]
    assert pending["kind"] == "allocate_wound" and pending["options"] == ["t-0", "t-1"]
    await b.wait_for_selector("dialog#decision[open]")
    assert await b.get_attribute("dialog#decision", "data-modal") == "no"
    await b.evaluate("window.scrollTo(0, 0)")  # the board in view
    layout: dict[str, Any] = await b.evaluate(
        """(ids) => {
            const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
            const out = {dialog: box(document.querySelector('dialog#decision')),
                         board: box(document.querySelector('#board')), under: {}};
            for (const id of ids) {
                const [l, t, r, b] = box(document.querySelector(`#board-overlay circle.pick-target[data-model='${id}']`));
                const hit = document.elementFromPoint((l + r) / 2, (t + b) / 2);
                out.under[id] = hit && hit.closest('dialog') ? 'dialog' : hit && hit.closest('#board') ? 'board' : String(hit && hit.tagName);
            }
            return out;
        }""",
        pending["options"],
    )
    await shot(b, f"decision-dialog-{size[0]}x{size[1]}")
    dl, dt, dr, db = layout["dialog"]
    bl, bt, br, bb = layout["board"]
    overlap = dl < br and bl < dr and dt < bb and bt < db
    assert not overlap, f"the dialog {layout['dialog']} covers the board {layout['board']}"
    assert layout["under"] == {"t-0": "board", "t-1": "board"}

    # A click on the second tied model, where the board draws it, answers the decision.
    x, y = await screen_point(b, *state["units"]["t"]["models"]["t-1"]["pos"])
    await b.mouse.click(x, y)
    await wait_seq(b, fired.seq + 1)
    done = await board_matches_state(b, server.http, match_id, token)
    assert done["pending"] is None
    assert 0 < done["units"]["t"]["models"]["t-1"]["wounds"] < TOUGH
    assert not await _dialog_open(b)
    assert errors == []
