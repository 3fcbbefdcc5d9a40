"""During the other side's turn a unit card offers no action (docs/table.md): the server refuses
every action of the side not playing (``not_your_turn``, docs/rules-notes.md, All editions: Turn
structure), so the card lists the kinds under "not now" with that reason, its phase line says
whose turn it is (not "end the phase": only that side may), and it has no Move, Shoot or other
action section. In Chromium, hh3 (side a's Shooting phase, side b's table)."""

from __future__ import annotations

from playwright.async_api import Browser

from hulldown.client import create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from tests.hh3.builders import squad, tank, weapon

from ..server_process import ServerProcess
from .browser import open_table, wait_seq


def _match() -> CreateMatch:
    gun = weapon("las", strength=9, rng=48)
    return CreateMatch(
        edition="hh3",
        scenario=Scenario(
            units=(
                squad("s", "a", [(20.0, 24.0)], gun=gun),
                tank("t", "b", 40.0, 24.0, 180.0, armour=(13, 12, 10), weapons=[gun]),
            )
        ),
        options=Options(turn_limit=5),
    )


async def test_the_side_not_playing_is_offered_no_action(server: ServerProcess, browser: Browser) -> None:
    created = await create_match(server.http, _match())
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    for seq in (2, 3):  # side a ends its Start and Movement phases
        await a.click("#end-phase")
        await wait_seq(a, seq)
    await wait_seq(b, 3)
    await b.wait_for_function("hulldownTable.view.phase === 'shooting'")

    await b.click(".unit-card[data-unit='t'] .unit-title")
    await b.wait_for_selector("#phase-actions[data-state='known']")
    line = await b.text_content("#phase-actions > div")
    assert line == "This shooting phase: nothing (it is side A's turn)", line
    codes = await b.eval_on_selector_all(
        "#phase-actions li.closed-option", "ls => ls.map(l => l.dataset.code)"
    )
    assert codes and set(codes) == {"not_your_turn"}, codes
    assert await b.locator("#unit-panel section.action").count() == 0
    assert await b.locator("#fire, #pivot, #charge, #fight").count() == 0

    # Side a, whose turn it is, is offered its unit's actions as before.
    await a.click(".unit-card[data-unit='s'] .unit-title")
    await a.wait_for_selector("#unit-panel section.action[data-action='shoot'] #fire")
    assert errors == []
