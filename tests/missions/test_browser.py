"""The mission in the browser viewer (docs/missions.md), real headless Chromium: the deployment
zones and objective markers are drawn, the score and who holds each marker are shown, and the
set-up step follows the actions two players make over the websocket. Saves
test-artifacts/missions.png."""

from __future__ import annotations

import httpx
import msgspec
from playwright.async_api import Browser

from hulldown.client import Client
from hulldown.wire.protocol import Ack

from ..server_process import ServerProcess
from ..viewer.test_viewer_browser import ARTIFACTS, browser, open_page  # noqa: F401 (fixture)
from .test_over_the_wire import _definition


async def test_zones_markers_score_and_control_are_drawn(server: ServerProcess, browser: Browser) -> None:  # noqa: F811
    doc = _definition({"id": "the_heart_of_battle", "deployment": "dawn_of_war"})
    created = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(doc), timeout=10).json()
    errors: list[str] = []
    page = await open_page(browser, created["spectator_url"], errors)
    await page.wait_for_selector("#board-markers circle.marker[data-marker='o1']")
    assert await page.locator("#board-zones polygon.zone").count() == 2
    assert await page.locator("#board-markers circle.marker").count() == 3
    assert (await page.locator("#score").inner_text()) == "VP A 0 : 0 B"
    assert "set-up: roll off" in await page.locator("#setup-step").inner_text()
    url = created["live_url"]
    async with Client(url, token=created["tokens"]["a"]) as a, Client(url, token=created["tokens"]["b"]) as b:
        rolled = await a.act({"type": "roll_off"})
        assert isinstance(rolled, Ack)
        await a.wait_seq(rolled.seq)
        pending = a.view.data["pending"]
        chooser = a if pending["side"] == "a" else b
        answered = await chooser.act({"type": "decide", "decision": pending["id"], "choice": "first"})
        assert isinstance(answered, Ack)
        side = pending["side"]
        await page.wait_for_selector(f"#board-zones polygon[data-zone='A'][data-side='{side}']")
        assert "set-up: deploy" in await page.locator("#setup-step").inner_text()
        unit, models = ("tac-a", ["tac-a-1", "tac-a-2"]) if side == "a" else ("tac-b", ["tac-b-1"])
        placed = await chooser.act(
            {
                "type": "deploy",
                "unit": unit,
                "positions": {m: [20.0 + 2 * k, 6.0] for k, m in enumerate(models)},
            }
        )
        assert isinstance(placed, Ack), placed
        await page.wait_for_selector(f"body[data-seq='{placed.seq}']")
        model = page.locator(f"#board-units g.model[data-model='{models[0]}']")
        assert await model.get_attribute("data-y") == "6"
        # Control is shown once the battle begins (nothing holds a marker during set-up).
        assert await page.locator("#control li").count() == 0
        other = b if chooser is a else a
        unit, models = ("tac-b", ["tac-b-1"]) if side == "a" else ("tac-a", ["tac-a-1", "tac-a-2"])
        placed = await other.act(
            {
                "type": "deploy",
                "unit": unit,
                "positions": {m: [20.0 + 2 * k, 42.0] for k, m in enumerate(models)},
            }
        )
        assert isinstance(placed, Ack), placed
        await other.wait_seq(placed.seq)
        seize = other.view.data["pending"]
        declined = await other.act({"type": "decide", "decision": seize["id"], "choice": "decline"})
        assert isinstance(declined, Ack)
        await page.wait_for_selector(f"body[data-seq='{declined.seq}']")
    assert await page.locator("#control li").count() == 3
    assert 'no unit within 3"' in await page.locator("#control li[data-marker='o1']").inner_text()
    assert "last turn 4" in await page.locator("#setup-step").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / "missions.png"))
    assert errors == []
