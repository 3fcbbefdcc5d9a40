"""The 40k11 player's table (docs/table.md) in Chromium: the Advance is declared from the unit's
card (the server rolls the D6; 40k11 core, Advance), then dragged with the kind "advance"; and the
table offers only what the rules accept - Embark (40k11 core rules, Transports; refused until the
unit has moved), no weapon of a removed model (refused `no_firer`), no Snap Shots box."""

from __future__ import annotations

from typing import Any

import msgspec
from playwright.async_api import Browser

from hulldown.client import create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options

from ..server_process import ServerProcess
from .browser import board_matches_state, drag, open_table, state_of, wait_seq
from .test_play_hh3_40k11 import _advance


def forty_k_eleven_match() -> CreateMatch:
    from tests.wh40k11.builders import infantry, vehicle, weapon

    squad = infantry(
        "s",
        "a",
        [(20.0, 24.0), (21.5, 24.0)],
        weapons=(
            weapon("pistol", "s-1", rng=12, rules=("close_quarters",)),
            weapon("claw", "s-1", rng=0, kind="melee"),
            weapon("rifle", "s-2", rng=24),
            weapon("knife", "s-2", rng=0, kind="melee"),
        ),
    )
    # s-1 was removed as a casualty: its pistol and claw are not on the battlefield.
    dead = msgspec.structs.replace(squad.models["s-1"], alive=False, wounds=0)
    squad = msgspec.structs.replace(squad, models={**squad.models, "s-1": dead})
    truck = vehicle("truck", "a", 10.0, 10.0, keywords=("vehicle", "frame", "transport"))
    truck = msgspec.structs.replace(truck, profile=msgspec.structs.replace(truck.profile, capacity=10))
    enemy = infantry("e", "b", [(60.0, 44.0)])
    # Just out of the rifle's 24 in: its base edge 24.03 in from s-2's.
    far = infantry("far", "b", [(21.5 + 0.63 + 24.03 + 0.63, 24.0)])
    return CreateMatch(
        edition="40k11",
        scenario=Scenario(units=(squad, truck, enemy, far)),
        options=Options(turn_limit=5),
    )


async def _tables(server: ServerProcess, browser: Browser) -> tuple[dict[str, Any], str, str, list[str]]:
    created = await create_match(server.http, forty_k_eleven_match())
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    return {"a": a, "b": b}, created["match_id"], created["tokens"]["a"], errors


async def test_40k11_advance_is_declared_then_dragged(server: ServerProcess, browser: Browser) -> None:
    pages, match_id, token, errors = await _tables(server, browser)
    a = pages["a"]
    state = await _advance(pages, server.http, match_id, token, "a", "movement")
    await a.click(".unit-card[data-unit='s'] .unit-title")
    # Declaring the Advance rolls the D6 (logged); the card says how far the unit may now move.
    await a.click("#advance")
    await wait_seq(a, state["seq"] + 1)
    state = await board_matches_state(a, server.http, match_id, token)
    flags = state["units"]["s"]["turn_flags"]
    assert "advanced" in flags, flags
    roll = int(next(f for f in flags if f.startswith("advance_roll=")).split("=")[1])
    assert any("Advances: rolls" in e["text"] for e in state["log"] if e["seq"] == state["seq"])
    advanced = a.locator("#advanced")
    assert await advanced.get_attribute("data-roll") == str(roll)
    assert f'may move up to {6 + roll}"' in (await advanced.text_content() or "")
    assert await a.evaluate("hulldownTable.moveKind") == "advance"
    # The drag goes further than M: an Advance move, accepted.
    end = 24.0 + 6.0 + roll - 0.2
    await drag(a, (21.5, 24.0), [], (21.5, end))
    await wait_seq(a, state["seq"] + 1)
    state = await board_matches_state(a, server.http, match_id, token)
    assert state["units"]["s"]["models"]["s-2"]["pos"] == [21.5, round(end, 2)]
    assert "Advances" in state["log"][-1]["text"]
    assert errors == []


async def test_40k11_table_offers_only_what_the_rules_accept(server: ServerProcess, browser: Browser) -> None:
    pages, match_id, token, errors = await _tables(server, browser)
    a = pages["a"]
    await _advance(pages, server.http, match_id, token, "a", "movement")
    await a.click(".unit-card[data-unit='s'] .unit-title")
    await a.wait_for_selector("section[data-action='move']")
    # A friendly transport with room stands on the table: 40k11 core rules, Transports offers
    # Embark; the server refuses it until the unit has made its move (`not_moved`).
    assert await a.locator("section[data-action='embark']").count() == 1
    await a.click("#embark")
    await a.wait_for_function("![undefined, 'sending'].includes((hulldownTable.messages.embark || {}).code)")
    refused = await a.evaluate("hulldownTable.messages.embark")
    assert refused["code"] == "not_moved", refused

    await _advance(pages, server.http, match_id, token, "a", "shooting")
    await a.click(".unit-card[data-unit='s'] .unit-title")
    await a.wait_for_selector("section[data-action='shoot']")
    offered = await a.eval_on_selector_all("input.fire-weapon", "els => els.map(e => e.dataset.weapon)")
    assert offered == ["rifle"]  # the removed s-1's pistol is not offered
    assert await a.locator("input.fire-snap").count() == 0  # no Snap Shots in 40k11
    # The target list never says a unit out of range stands at the range itself.
    await a.check("input.fire-weapon[data-weapon='rifle']")
    line = a.locator(".target[data-target='far']")
    await line.wait_for()
    assert await line.get_attribute("data-mark") == "out-of-range"
    text = await line.text_content() or ""
    assert float(text.split(": ")[1].split(" in of ")[0]) > 24, text

    await _advance(pages, server.http, match_id, token, "a", "fight")
    await a.click(".unit-card[data-unit='s'] .unit-title")
    await a.wait_for_selector("#fight-weapon")
    weapons = await a.eval_on_selector_all("#fight-weapon option", "els => els.map(e => e.value)")
    assert weapons == ["", "knife"]  # not the removed s-1's claw
    assert (await state_of(server.http, match_id, token))["seq"] > 0
    assert errors == []
