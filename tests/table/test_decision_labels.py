"""The decision dialog's option buttons are readable (docs/table.md, Decisions), in Chromium: an
option that names a weapon, a model or a unit of the view is shown by name (static/js/
option-label.js), while its data-choice and the choice sent stay the raw option.

40k7 Death or Glory (40k7 Vehicles, Tanks: Tank Shock): side a's Rhino Tank Shocks a Fearless
squad (no Morale die), whose owner chooses "none" or a model and weapon - "e-0/krak" is shown as
"Tactical Squad e-0: Krak grenade". hh3 Volley Attacks (hh3 Vehicles, Combat): side a's squad
charges side b's tank, whose owner chooses the weapons one at a time - "hb" is shown as "Heavy
bolter (hb)"; the answer sent is "hb" (the decision asked again records it as chosen). Both decisions are asked
before any die is rolled. Screenshots in test-artifacts/decision-labels-*.png."""

from __future__ import annotations

import msgspec
from playwright.async_api import Browser, Page

from hulldown.client import Client, create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.wire.protocol import Ack
from tests.hh3 import builders as hh3
from tests.wh40k7 import builders as k7

from ..server_process import ServerProcess
from .browser import open_table, shot, state_of, wait_seq


async def _labels(page: Page) -> dict[str, str]:
    labels: dict[str, str] = await page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('dialog#decision button.option')]
            .map((b) => [b.dataset.choice, b.textContent]))"""
    )
    return labels


def _death_or_glory() -> CreateMatch:
    krak = k7.weapon("krak", "Krak grenade", 6, 6, 4, type="assault")
    squad = k7.infantry(
        "e", "b", [(18, 24), (18, 25.2)], name="Tactical Squad", weapons=[(0, krak)], keywords=("fearless",)
    )
    return CreateMatch(
        edition="40k7",
        scenario=Scenario(units=(k7.rhino("t", "a", 10, 24), squad)),
        options=Options(turn_limit=0),
    )


async def test_death_or_glory_options_name_the_model_and_weapon(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, _death_or_glory())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    async with Client(created["live_url"], token=token) as a:
        shocked = await a.act({"type": "move", "unit": "t", "path": [[18.0, 24.0]], "kind": "tank_shock"})
        assert isinstance(shocked, Ack), shocked
    await wait_seq(b, shocked.seq)
    pending = (await state_of(server.http, match_id, token))["pending"]
    assert pending["kind"] == "death_or_glory" and pending["side"] == "b"
    assert {"none", "e-0/krak", "e-0/close_combat"} <= set(pending["options"])
    await b.wait_for_selector("dialog#decision[open] button.option")
    labels = await _labels(b)
    await shot(b, "decision-labels-death-or-glory")
    assert set(labels) == set(pending["options"])  # data-choice: the raw options
    assert labels["none"] == "none"
    assert labels["e-0/krak"] == "Tactical Squad e-0: Krak grenade"
    assert labels["e-0/close_combat"] == "Tactical Squad e-0: close combat"
    assert errors == []


def _volley() -> CreateMatch:
    fist = hh3.weapon("fist", strength=4, ap=None, kind="melee", rng=0)
    # 3 in back: their Set-up Move (I4 + M7 = 11: 3 in; hh3 core, Charge Procedure) brings them to 30
    chargers = hh3.squad("s", "a", [(27, 24), (27, 25.5)], ws=4, a=1, melee=fist)
    bolter = msgspec.structs.replace(
        hh3.weapon("hb", strength=5, ap=4, rng=36, kind="assault"), name="Heavy bolter"
    )
    flamer = msgspec.structs.replace(hh3.weapon("fl", strength=4, ap=5, rng=8, kind="assault"), name="Flamer")
    target = hh3.tank("v", "b", 36, 24, 180, armour=(13, 12, 10), weapons=[bolter, flamer])
    return CreateMatch(
        edition="hh3", scenario=Scenario(units=(chargers, target)), options=Options(turn_limit=0)
    )


async def test_volley_options_name_the_weapon_and_send_its_id(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, _volley())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    async with Client(created["live_url"], token=token) as a:
        for _ in range(6):
            if (await state_of(server.http, match_id, token))["phase"] == "assault":
                break
            assert isinstance(await a.act({"type": "end_phase"}), Ack)
        charged = await a.act({"type": "charge", "unit": "s", "target": "v"})
        assert isinstance(charged, Ack), charged
    await wait_seq(b, charged.seq)
    pending = (await state_of(server.http, match_id, token))["pending"]
    assert pending["kind"] == "volley" and pending["options"] == ["all", "none", "fl", "hb"]
    await b.wait_for_selector("dialog#decision[open] button.option[data-choice='hb']")
    labels = await _labels(b)
    await shot(b, "decision-labels-volley")
    assert labels == {"all": "all", "none": "none", "hb": "Heavy bolter (hb)", "fl": "Flamer (fl)"}

    await b.click("dialog#decision button.option[data-choice='hb']")
    await wait_seq(b, charged.seq + 1)
    again = (await state_of(server.http, match_id, token))["pending"]
    assert again["kind"] == "volley" and again["context"]["chosen"] == "hb"  # the raw id was sent
    await b.wait_for_selector(f"dialog#decision[open][data-decision='{again['id']}']")
    assert await _labels(b) == {"all": "all", "done": "done", "fl": "Flamer (fl)"}
    assert errors == []
