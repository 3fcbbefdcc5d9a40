"""The player's table offers only what the rules can accept (docs/table.md, "Acting"), real
Chromium against a real server.

- A unit off the table - held in Reserve, arriving, still to deploy - is no target, transport or
  friend to pick: the server refuses every action naming it (``not_on_table``, docs/missions.md:
  "no unit off the table may act or be targeted"), and measured at the off-table point it read
  "1432 in of 48 · out of range".
- "Abandon a squadron member" is offered for a 40k7 squadron member in the Movement phase only
  (40k7 Vehicle Squadrons), never for a squad of infantry, nor in another phase or edition, where
  the server refuses it every time.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
from msgspec.structs import replace
from playwright.async_api import Browser, Page

from hulldown.client import Client
from hulldown.match.definition import to_document
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options, Profile, Side, Unit
from hulldown.wire import protocol
from tests.builders import based_models, multi_model_unit
from tests.scenarios import predator, rhino

from ..server_process import ServerProcess
from .browser import open_table, wait_seq

MARINE = Profile(m=6, ws=4, bs=4, s=4, t=4, w=1, i=4, a=1, ld=8, sv=3)


def _squad(uid: str, side: Side, y: float) -> Unit:
    models = based_models(uid, [(20.0, y), (21.5, y), (23.0, y)], base_mm=32.0)
    return multi_model_unit(
        uid, side, models, kind="infantry", profile=MARINE, weapons={}, name="Tactical Squad"
    )


def _create(doc: dict[str, Any], server: ServerProcess) -> dict[str, Any]:
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(doc), timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def _ack(client: Client, action: dict[str, Any]) -> None:
    answer = await client.act(action)
    assert isinstance(answer, protocol.Ack), answer


def _view(client: Client) -> dict[str, Any]:
    view = client.view.data
    assert view is not None
    return view


async def _select(page: Page, unit: str) -> None:
    await page.click(f"#units li[data-unit='{unit}'] .unit-title")
    await page.wait_for_selector(f"#unit-panel .card[data-unit='{unit}']")


async def test_a_unit_in_reserve_is_not_offered_as_a_target(server: ServerProcess, browser: Browser) -> None:
    units = (
        predator("predator-1", "a", 10, 24),
        rhino("rhino-1", "b", 40, 24, 180),
        rhino("rhino-2", "b", 50, 24, 180),
    )
    doc = to_document(CreateMatch(edition="40k7", scenario=Scenario(units=units), options=Options()))
    doc["mission"] = {"id": "crusade", "deployment": "dawn_of_war"}
    created = _create(doc, server)
    tokens = created["tokens"]
    async with (
        Client(created["live_url"], token=tokens["a"]) as a,
        Client(created["live_url"], token=tokens["b"]) as b,
    ):
        clients = {"a": a, "b": b}
        # Set-up through the API: side a deploys first (zone A, along y = 0), side b deploys
        # rhino-1 in zone B and holds rhino-2 in Reserve, then declines to Seize.
        await _ack(a, {"type": "roll_off"})
        pending = _view(a)["pending"]
        order = "first" if pending["side"] == "a" else "second"
        await _ack(clients[pending["side"]], {"type": "decide", "decision": pending["id"], "choice": order})
        await b.wait_seq(a.view.seq if pending["side"] == "a" else b.view.seq)
        await a.wait_seq(b.view.seq)
        await _ack(
            a,
            {
                "type": "deploy",
                "unit": "predator-1",
                "positions": {"predator-1-m": [20.0, 6.0]},
                "heading": 90.0,
            },
        )
        await b.wait_seq(a.view.seq)
        await _ack(
            b,
            {"type": "deploy", "unit": "rhino-1", "positions": {"rhino-1-m": [40.0, 42.0]}, "heading": 270.0},
        )
        await _ack(b, {"type": "reserve", "unit": "rhino-2"})
        seize = _view(b)["pending"]
        await _ack(b, {"type": "decide", "decision": seize["id"], "choice": "decline"})
        await a.wait_seq(b.view.seq)
        await _ack(a, {"type": "end_phase"})  # Movement phase over: a's Shooting phase
        view = _view(a)
        assert view["phase"] == "shooting" and view["active"] == "a"
        assert view["mission"]["off_table"] == {"rhino-2": "reserve"}
        seq = view["seq"]

    errors: list[str] = []
    _, page = await open_table(browser, created["play_urls"]["a"], errors)
    await wait_seq(page, seq)
    await _select(page, "predator-1")
    await page.wait_for_selector("#fire-target-lascannon")
    offered = await page.eval_on_selector_all("#fire-target-lascannon option", "os => os.map(o => o.value)")
    assert offered == ["", "rhino-1"]  # rhino-2 is in Reserve: not a target
    # Ticking the weapon measures it against the enemies on the table only.
    await page.check("input.fire-weapon[data-weapon='lascannon']")
    await page.wait_for_selector("ul.targets li.target[data-target='rhino-1']")
    assert await page.locator("ul.targets li.target").count() == 1
    assert errors == []


async def test_abandon_is_offered_to_a_squadron_member_in_the_movement_phase_only(
    server: ServerProcess, browser: Browser
) -> None:
    units = (
        _squad("squad-a", "a", 30.0),
        replace(predator("predator-1", "a", 10, 24), squadron="predator-1"),
        replace(predator("predator-2", "a", 10, 18), squadron="predator-1"),
        rhino("rhino-1", "b", 60, 24, 180),
    )
    created = _create(
        to_document(CreateMatch(edition="40k7", scenario=Scenario(units=units), options=Options())), server
    )
    errors: list[str] = []
    _, page = await open_table(browser, created["play_urls"]["a"], errors)
    await _select(page, "predator-2")
    assert await page.locator("section[data-action='abandon']").count() == 1  # Movement phase
    await _select(page, "squad-a")
    await page.wait_for_selector("section[data-action='move']")
    assert await page.locator("section[data-action='abandon']").count() == 0  # not a squadron
    await page.click("#end-phase")
    await wait_seq(page, 2)
    await _select(page, "predator-2")
    await page.wait_for_selector("section[data-action='shoot']")
    assert await page.locator("section[data-action='abandon']").count() == 0  # the Shooting phase
    assert errors == []
