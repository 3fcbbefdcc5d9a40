"""A unit arriving from reserve at the player's table (docs/missions.md "Reserves and arrivals",
docs/table.md), real Chromium against a real server.

40k11 core rules, Strategic Reserves: from battle round 2 a unit in reserve may arrive, set up in
its side's Movement phase; one not set up then stays in Strategic Reserves and may arrive later.
Before, the card of a unit arriving read "in Reserves - until removed", "Place" was offered in
every phase of its side's turn though the server refuses it outside the Movement phase, and a unit
not set up stayed "arriving" for the rest of the game.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
from playwright.async_api import Browser, Page

from hulldown.client import Client
from hulldown.match.definition import to_document
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.wire import protocol
from tests.wh40k11 import builders as k11

from ..server_process import ServerProcess
from .browser import open_table, wait_seq


async def _select(page: Page, unit: str) -> None:
    await page.click(f"#units li[data-unit='{unit}'] .unit-title")
    await page.wait_for_selector(f"#unit-panel .card[data-unit='{unit}']")


async def _status(page: Page, unit: str) -> str:
    line = page.locator(f"#unit-panel .card[data-unit='{unit}'] li.status-line[data-status='reserves']")
    return await line.inner_text()


async def _chips(page: Page, unit: str) -> list[str]:
    """The status chips of the unit in the unit list."""
    chips: list[str] = await page.eval_on_selector_all(
        f"#units li[data-unit='{unit}'] .statuses .status", "ss => ss.map(s => s.textContent)"
    )
    return chips


async def test_a_40k11_unit_arriving_from_strategic_reserves(server: ServerProcess, browser: Browser) -> None:
    units = (
        k11.infantry("ta", "a", [(10.0, 6.0)]),
        k11.infantry("ra", "a", [(20.0, 6.0)]),
        k11.infantry("tb", "b", [(10.0, 42.0)]),
        k11.infantry("rb", "b", [(20.0, 42.0)]),
    )
    doc = to_document(CreateMatch(edition="40k11", scenario=Scenario(units=units), options=Options()))
    doc["mission"] = {"id": "take_and_hold"}
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(doc), timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    tokens = created["tokens"]
    async with (
        Client(created["live_url"], token=tokens["a"]) as a,
        Client(created["live_url"], token=tokens["b"]) as b,
    ):
        clients = {"a": a, "b": b}

        async def act(side: str, action: dict[str, Any]) -> dict[str, Any]:
            answer = await clients[side].act(action)
            assert isinstance(answer, protocol.Ack), answer
            for other in clients.values():
                await other.wait_seq(answer.seq)
            view: dict[str, Any] = a.view.data
            return view

        view = await act("a", {"type": "roll_off"})
        pending = view["pending"]
        view = await act(pending["side"], {"type": "decide", "decision": pending["id"], "choice": "first"})
        # The side deploying first takes zone A (along y = 0), the other zone B.
        first = view["mission"]["deploying"]
        queue = {
            s: [
                {
                    "type": "deploy",
                    "unit": f"t{s}",
                    "positions": {f"t{s}-1": [10.0, 6.0 if s == first else 42.0]},
                },
                {"type": "reserve", "unit": f"r{s}"},
            ]
            for s in ("a", "b")
        }
        while view["mission"]["step"] != "battle":
            assert view["pending"] is None, view["pending"]
            side = view["mission"]["deploying"]
            view = await act(side, queue[side].pop(0))
        # To the Command phase of battle round 2 of the side taking the first turn.
        for _ in range(20):
            if view["turn"] == 2:
                break
            assert view["pending"] is None, view["pending"]
            view = await act(view["active"], {"type": "end_phase"})
        side = view["active"]
        unit = "ra" if side == "a" else "rb"
        assert (view["turn"], view["phase"]) == (2, "command")
        assert view["mission"]["off_table"][unit] == "arriving"

        errors: list[str] = []
        _, page = await open_table(browser, created["play_urls"][side], errors)
        await wait_seq(page, view["seq"])
        await _select(page, unit)
        # The card says it is arriving, not "in Reserves - until removed".
        assert await _status(page, unit) == (
            "arriving from Reserves - placed in this Movement phase, else it stays in Strategic Reserves"
        )
        # The unit list's chip says so too, not "reserves".
        assert await _chips(page, unit) == ["arriving"]
        section = page.locator("section[data-action='setup'][data-where='arriving']")
        assert 'arriving: place it within 6" of a table edge your zone touches' in await section.inner_text()
        # Not in the Command phase: the server would refuse it (not_movement_phase).
        assert await page.locator("#place").count() == 0

        view = await act(side, {"type": "end_phase"})
        assert view["phase"] == "movement"
        await wait_seq(page, view["seq"])
        await _select(page, unit)
        await page.wait_for_selector("#place")

        # The Movement phase ends without it: it stays in Strategic Reserves.
        view = await act(side, {"type": "end_phase"})
        assert view["mission"]["off_table"][unit] == "reserve"
        await wait_seq(page, view["seq"])
        await _select(page, unit)
        await page.wait_for_selector("section[data-action='setup'][data-where='reserve']")
        assert await _status(page, unit) == "in Reserves - until removed"
        assert await _chips(page, unit) == ["reserves"]
        assert "is in reserve." in await page.locator("section[data-action='setup']").inner_text()
        assert await page.locator("#place").count() == 0
        assert errors == []
