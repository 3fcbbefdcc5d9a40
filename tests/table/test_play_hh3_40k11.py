"""Shorter plays through the player's table (docs/table.md) in Chromium, for the other editions;
after every step the board agrees with GET /matches/{id}/state.

hh3: disembarking by placing the models in the legal area the server draws (hh3 Transports: in base
contact with a facing that has an access point), a shot that sees two facings of a tank - its owner
picks the facing in the dialog (hh3 Vehicles, Which facing is hit) - and a Repair Test passed with
two statuses - its owner picks the status to remove in the dialog (hh3 Vehicles, Repair Test).

40k11: close-quarters shooting at a vehicle engaged with the shooter's own unit (40k11 Shooting:
Big Guns Never Tire / Pistols and units engaged with a Monster or Vehicle may shoot it).
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser

from hulldown.client import create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from tests.hh3.builders import squad, tank, transport, weapon

from ..server_process import ServerProcess
from .browser import board_matches_state, open_table, screen_point, shot, state_of, wait_seq


def hh3_match() -> CreateMatch:
    gun = weapon("las", strength=9, rng=48)
    shooters = squad("s", "a", [(25.0, 33.0)], gun=gun)
    carrier = transport("rhino-a", "a", 10.0, 10.0, 0.0, passengers=("p",))
    riders = squad("p", "a", [(10.0, 10.0), (10.0, 10.0)], embarked_in="rhino-a")
    target = tank("t", "b", 40.0, 24.0, 180.0, armour=(13, 12, 10), keywords=("auto_repair:1",))
    import msgspec

    target = msgspec.structs.replace(target, statuses={"pinned": 0, "suppressed": 0})
    return CreateMatch(
        edition="hh3",
        scenario=Scenario(units=(shooters, carrier, riders, target)),
        options=Options(turn_limit=10),
    )


async def _advance(
    pages: dict[str, Any], http: str, match_id: str, token: str, side: str, phase: str
) -> dict[str, Any]:
    for _ in range(20):
        state = await state_of(http, match_id, token)
        if state["active"] == side and state["phase"] == phase and state["pending"] is None:
            return state
        assert state["pending"] is None, state["pending"]
        page = pages[state["active"]]
        await page.click("#end-phase")
        await wait_seq(page, state["seq"] + 1)
    raise AssertionError(f"never reached side {side}'s {phase} phase")


async def test_hh3_disembark_facing_and_repair_through_the_ui(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, hh3_match())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    pages = {"a": a, "b": b}

    async def agree() -> dict[str, Any]:
        state: dict[str, Any] = {}
        for page in pages.values():
            state = await board_matches_state(page, server.http, match_id, token)
        return state

    # 1. Disembark in the Movement phase: the legal area is drawn; clicks place the models.
    await _advance(pages, server.http, match_id, token, "a", "movement")
    await a.click(".unit-card[data-unit='p'] .unit-title")
    await a.click("#disembark-place")
    await a.wait_for_selector("#board-overlay path.legal-area")
    # The Rhino's left facing (an access point) is the edge y = 11.5 from x 7.5 to 12.5; 32 mm
    # bases (radius 0.63 in) touch it with their centres at y = 12.13.
    # The first model is dragged out of the Rhino to its place, the second placed by a click.
    sx, sy = await screen_point(a, 10.0, 10.0)
    px, py = await screen_point(a, 9.0, 12.13)
    await a.mouse.move(sx, sy)
    await a.mouse.down()
    await a.mouse.move(px, py, steps=8)
    await a.mouse.up()
    # Leaving the second model out is offered (hh3: a model that cannot be placed is lost) and
    # refused, as it could stand by the door; the first model's placement stays for a retry.
    leave_out = a.locator("#disembark-partial")
    assert (await leave_out.text_content() or "").strip() == "Disembark, leaving 1 out"
    await leave_out.click()
    await a.wait_for_function(
        "![undefined, 'sending'].includes((hulldownTable.messages.disembark || {}).code)"
    )
    refused = await a.evaluate("hulldownTable.messages.disembark")
    assert refused["code"] == "model_placeable" and "p-2 can still be placed" in refused["text"], refused
    assert sorted(await a.evaluate("hulldownTable.placing.positions")) == ["p-1"]
    assert (await state_of(server.http, match_id, token))["units"]["p"]["embarked_in"] == "rhino-a"
    px, py = await screen_point(a, 10.5, 12.13)
    await a.mouse.click(px, py)
    assert await a.locator("#disembark-partial").count() == 0  # every model placed
    placed = await a.evaluate("hulldownTable.placing.positions")
    assert sorted(placed) == ["p-1", "p-2"]
    assert all(abs(y - 12.13) < 0.06 for _, y in placed.values())
    await shot(a, "play-hh3-01-disembark-area")
    before = (await state_of(server.http, match_id, token))["seq"]
    await a.click("#disembark")
    await a.wait_for_function(
        "![undefined, 'sending'].includes((hulldownTable.messages.disembark || {}).code)"
    )
    answer = await a.evaluate("hulldownTable.messages.disembark")
    assert answer["code"] == "ack", answer
    await wait_seq(a, before + 1)
    state = await agree()
    # The "done" answer survives the re-render that puts the unit on the table.
    done = a.locator(".message[data-section='disembark'][data-code='ack']")
    assert await done.count() == 1 and "done (seq" in (await done.text_content() or "")
    riders = state["units"]["p"]
    assert riders["embarked_in"] is None
    assert [m["pos"] for m in riders["models"].values()] == [list(placed["p-1"]), list(placed["p-2"])]

    # 2. A shot across the tank's front-left diagonal: its owner chooses the facing in the dialog.
    state = await _advance(pages, server.http, match_id, token, "a", "shooting")
    await a.click(".unit-card[data-unit='s'] .unit-title")
    await a.check("input.fire-weapon[data-weapon='s-1-gun']")
    await a.wait_for_selector(".target[data-target='t']")
    assert await a.get_attribute(".target[data-target='t']", "data-mark") == "in-range"
    await a.select_option("#fire-target-s-1-gun", "t")
    await a.click("#fire")
    await wait_seq(a, state["seq"] + 1)
    state = await agree()
    pending = state["pending"]
    assert (
        pending["side"] == "b"
        and pending["kind"] == "facing"
        and set(pending["options"]) == {"front", "side"}
    )
    await b.wait_for_selector("dialog#decision[open] button.option[data-choice='side']")
    assert await a.text_content("#waiting") == f"Waiting for side B: {pending['prompt']}"
    await shot(b, "play-hh3-02-facing-dialog")
    await b.click("dialog#decision button.option[data-choice='side']")
    await wait_seq(b, state["seq"] + 1)
    state = await agree()
    assert state["pending"] is None
    assert any("side" in e["text"].lower() for e in state["log"] if e["seq"] == state["seq"])

    # 3. Side B's End phase: Auto-repair (1) passes; with two statuses its owner picks one.
    await _advance(pages, server.http, match_id, token, "b", "end")
    state = await state_of(server.http, match_id, token)
    statuses = sorted(state["units"]["t"]["statuses"])
    assert len(statuses) >= 2
    await b.click("#end-phase")
    await wait_seq(b, state["seq"] + 1)
    state = await agree()
    pending = state["pending"]
    assert pending["kind"] == "repair" and sorted(pending["options"]) == statuses
    await b.wait_for_selector("dialog#decision[open]")
    await shot(b, "play-hh3-03-repair-dialog")
    await b.click(f"dialog#decision button.option[data-choice='{statuses[0]}']")
    await wait_seq(b, state["seq"] + 1)
    state = await agree()
    assert statuses[0] not in state["units"]["t"]["statuses"]
    assert errors == []


def forty_k_eleven_match() -> CreateMatch:
    from tests.wh40k11.builders import infantry, vehicle
    from tests.wh40k11.builders import weapon as w11

    squad = infantry(
        "squad",
        "a",
        [(44.63, 30.0)],  # base to hull: engaged with the tank (40k11 engagement range)
        weapons=(
            w11("pistol", "squad-1", rng=12, rules=("close_quarters",)),
            w11("rifle", "squad-1", rng=24),
        ),
    )
    return CreateMatch(
        edition="40k11",
        scenario=Scenario(units=(squad, vehicle("tank", "b", 40.0, 30.0))),
        options=Options(turn_limit=5),
    )


async def test_40k11_close_quarters_shooting_at_an_engaged_vehicle(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, forty_k_eleven_match())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    pages = {"a": a, "b": b}
    state = await _advance(pages, server.http, match_id, token, "a", "shooting")
    await a.click(".unit-card[data-unit='squad'] .unit-title")

    # The rifle has no [CLOSE-QUARTERS]: refused, shown where the player fired.
    await a.check("input.fire-weapon[data-weapon='rifle']")
    await a.wait_for_selector(".target[data-target='tank']")
    await a.select_option("#fire-target-rifle", "tank")
    await a.click("#fire")
    await a.wait_for_selector(".message[data-section='shoot'][data-code='close_quarters_only']")
    refused = await a.text_content(".message[data-section='shoot']")
    assert refused is not None and "[40k11" in refused
    assert (await state_of(server.http, match_id, token))["seq"] == state["seq"]
    await shot(a, "play-40k11-01-refused-rifle")

    # The pistol may: close-quarters shooting at the vehicle it is engaged with.
    await a.uncheck("input.fire-weapon[data-weapon='rifle']")
    await a.check("input.fire-weapon[data-weapon='pistol']")
    await a.wait_for_selector(".target[data-target='tank'][data-mark='in-range']")
    await a.select_option("#fire-target-pistol", "tank")
    await a.click("#fire")
    await wait_seq(a, state["seq"] + 1)
    for page in pages.values():
        state = await board_matches_state(page, server.http, match_id, token)
    shot_lines = [e for e in state["log"] if e["seq"] == state["seq"]]
    assert any(
        r["purpose"].startswith("hit") or "hit" in r["purpose"] for e in shot_lines for r in e["rolls"]
    )
    tank = state["units"]["tank"]
    wounds = tank["models"]["tank-m"]["wounds"]
    assert await b.text_content(".unit-card[data-unit='tank'] .vitals") == f"{wounds}/12 W"
    await shot(b, "play-40k11-02-close-quarters-shot")
    assert errors == []
