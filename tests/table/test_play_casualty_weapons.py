"""The Shoot section of a unit card offers only the weapons of models still alive (docs/table.md):
a casualty fires nothing (hh3 core, Shooting Attacks; the server refuses its weapon with
``model_dead``), so a weapon carried by a slain model is not offered. In Chromium, hh3."""

from __future__ import annotations

import msgspec
from playwright.async_api import Browser

from hulldown.client import create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from tests.hh3.builders import squad, weapon

from ..server_process import ServerProcess
from .browser import open_table, wait_seq


def _match() -> CreateMatch:
    gun = weapon("las", strength=3, ap=6, rng=30)
    troops = squad("s", "a", [(20.0, 24.0), (21.5, 24.0), (23.0, 24.0)], gun=gun)
    slain = msgspec.structs.replace(troops.models["s-2"], alive=False)
    troops = msgspec.structs.replace(troops, models={**troops.models, "s-2": slain})
    return CreateMatch(
        edition="hh3",
        scenario=Scenario(units=(troops, squad("e", "b", [(40.0, 24.0)], w=5))),
        options=Options(turn_limit=5),
    )


async def test_a_slain_models_weapon_is_not_offered_to_shoot(server: ServerProcess, browser: Browser) -> None:
    created = await create_match(server.http, _match())
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    for seq in (2, 3):  # Start, then Movement phase over: side a's Shooting phase
        await a.click("#end-phase")
        await wait_seq(a, seq)
    await a.wait_for_function("hulldownTable.view.phase === 'shooting'")
    await a.click(".unit-card[data-unit='s'] .unit-title")
    await a.wait_for_selector("input.fire-weapon")
    offered = await a.eval_on_selector_all("input.fire-weapon", "xs => xs.map(x => x.dataset.weapon)")
    assert offered == ["s-1-gun", "s-3-gun"]
    # What is offered is accepted: both living models fire.
    for weapon_id in offered:
        await a.check(f"input.fire-weapon[data-weapon='{weapon_id}']")
        await a.select_option(f"#fire-target-{weapon_id}", "e")
    await a.click("#fire")
    await a.wait_for_function("!['sending', undefined].includes((hulldownTable.messages.shoot || {}).code)")
    answer = await a.evaluate("hulldownTable.messages.shoot")
    assert answer["code"] == "ack", answer
    assert errors == []
