"""Forced Snap Shots in the shoot controls of the player's table (docs/table.md, Shoot), in
Chromium. 40k7 The Shooting Phase, Snap Shots: an infantry unit that moved may fire its Heavy
weapon only as Snap Shots. Ticking the Heavy bolter says so and ticks its snap; ticking the Boltgun
next keeps the Heavy bolter's forced Snap Shots, so the odds line and Fire send it with `snap` and
the server accepts the shot. Selecting another unit forgets them."""

from __future__ import annotations

from playwright.async_api import Browser, Page

from hulldown.client import Client, create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.wire.protocol import Ack
from tests.wh40k7.builders import infantry, weapon

from ..server_process import ServerProcess
from .browser import board_matches_state, open_table, state_of, wait_seq

TOUGH = 20  # Wounds per target model: nothing is slain, so nothing else is asked


def _request() -> CreateMatch:
    heavy_bolter = weapon("hb", "Heavy bolter", 36, 5, 4, type="heavy", shots=3)
    boltgun = weapon("bg", "Boltgun", 24, 4, 5, type="rapid_fire")
    squad = infantry("s", "a", [(10, 24), (11, 24)], weapons=[(0, heavy_bolter), (1, boltgun)])
    target = infantry("e", "b", [(30, 24), (31, 24)], w=TOUGH)
    return CreateMatch(
        edition="40k7", scenario=Scenario(units=(squad, target)), options=Options(turn_limit=0)
    )


# The Heavy bolter's row after moving: ticked, marked snap, and saying why.
HEAVY_BOLTER_FORCED = {
    "ticked": True,
    "snap": True,
    "forced": " Snap Shots forced: Heavy weapon after moving",
}


async def _rows(page: Page) -> dict[str, dict[str, object]]:
    rows: dict[str, dict[str, object]] = await page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.weapon-row')].map((r) => [r.dataset.weapon, {
            ticked: r.querySelector('.fire-weapon').checked, snap: r.querySelector('.fire-snap').checked,
            forced: (r.querySelector('.forced') || {}).textContent || null}]))"""
    )
    return rows


async def test_a_second_weapon_keeps_the_first_ones_forced_snap_shots(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, _request())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    async with Client(created["live_url"], token=token) as client:
        for _ in range(4):
            if (await state_of(server.http, match_id, token))["phase"] == "movement":
                break
            assert isinstance(await client.act({"type": "end_phase"}), Ack)
        moved = await client.act({"type": "move", "unit": "s", "path": [[13, 24]]})
        assert isinstance(moved, Ack), moved
        shooting = await client.act({"type": "end_phase"})
        assert isinstance(shooting, Ack), shooting
    await wait_seq(a, shooting.seq)
    assert (await state_of(server.http, match_id, token))["phase"] == "shooting"
    await a.click(".unit-card[data-unit='s'] .unit-title")

    await a.check("input.fire-weapon[data-weapon='hb']")
    await a.wait_for_selector(".weapon-row[data-weapon='hb'] .forced")
    await a.select_option("#fire-target-hb", "e")
    rows = await _rows(a)
    assert rows["hb"] == HEAVY_BOLTER_FORCED

    # The Boltgun is measured too (its targets are listed); the Heavy bolter stays forced.
    await a.check("input.fire-weapon[data-weapon='bg']")
    await a.wait_for_function("hulldownTable.targets.e && hulldownTable.targets.e.weapon === 'bg'")
    await a.select_option("#fire-target-bg", "e")
    rows = await _rows(a)
    assert rows["hb"] == HEAVY_BOLTER_FORCED
    assert rows["bg"] == {"ticked": True, "snap": False, "forced": None}
    await a.wait_for_selector("#odds-shoot[data-state='ok']", timeout=20_000)

    await a.click("#fire")
    await a.wait_for_selector(".message[data-section='shoot'][data-code]:not([data-code='sending'])")
    assert await a.get_attribute(".message[data-section='shoot']", "data-code") == "ack", (
        await a.text_content(".message[data-section='shoot']")
    )
    await wait_seq(a, shooting.seq + 1)
    state = await board_matches_state(a, server.http, match_id, token)
    fired = [e for e in state["log"] if e["seq"] == shooting.seq + 1]
    assert fired and "snap" in " ".join(e["text"].lower() for e in fired), [e["text"] for e in fired]

    # Another unit selected: the forced Snap Shots of the squad's weapons are forgotten.
    await a.click(".unit-card[data-unit='e'] .unit-title")
    assert await a.evaluate("hulldownTable.forced") == {}
    assert errors == []
