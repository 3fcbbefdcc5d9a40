"""The viewer opened from a side's link (``/matches/{id}/view#side_token=...``, client-protocol/SPEC.md
section 4) in a real headless Chromium: every HTTP read carries the side's token, the older log
lines paged in by "show older" too."""

from __future__ import annotations

import json

import httpx
import msgspec
from playwright.async_api import Browser

from hulldown.client import Client, create_match
from hulldown.match.state import Options
from hulldown.wire import protocol
from tests.scenarios import duel

from ..cli.helpers import EXAMPLES
from ..server_process import ServerProcess
from ..table.browser import end_phases, log_expected, log_shown
from .test_viewer_browser import browser, open_page

__all__ = ["browser"]


async def test_side_link_pages_in_older_log_lines_of_a_private_match(
    server: ServerProcess, browser: Browser
) -> None:
    options = Options(turn_limit=30, private_spectators=True)
    created = await create_match(server.http, msgspec.structs.replace(duel(), options=options))
    match_id, token = created["match_id"], created["tokens"]["a"]
    await end_phases(created, 60)  # more lines than the view's window of 50
    errors: list[str] = []
    url = f"{server.http}/matches/{match_id}/view#side_token={token}"
    page = await open_page(browser, url, errors)
    await page.wait_for_selector("#status.live")
    headers = {"authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(timeout=10, headers=headers) as http:
        state = (await http.get(f"{server.http}/matches/{match_id}/state")).json()
        first = state["view"]["log"][0]["n"]
        assert first > 0
        older = min(50, first)
        log = (
            await http.get(
                f"{server.http}/matches/{match_id}/log", params={"from": first - older, "limit": older}
            )
        ).json()
    await page.click("#log-older")
    await page.wait_for_function(
        "() => document.querySelector('#log li.log-entry[data-n]') && "
        "(hulldownViewer.errors.length || hulldownViewer.earlierLog.length)"
    )
    assert await page.evaluate("hulldownViewer.errors") == []
    assert await log_shown(page) == log_expected(log, state)
    assert errors == []


async def test_a_side_link_reads_that_sides_pending_decision_as_its_own(
    server: ServerProcess, browser: Browser
) -> None:
    """The viewer opened from a side's link is that side's view (client-protocol/SPEC.md section 4):
    the decision pending for that side reads "Your decision", as at the player's table; for the
    other side's link it reads "Waiting for side ...". Both links said "Waiting for side ..."."""
    definition = json.loads((EXAMPLES / "hh3-heart-of-battle.json").read_text())
    created = await create_match(server.http, definition)
    match_id, tokens = created["match_id"], created["tokens"]
    async with Client(created["live_url"], token=tokens["a"]) as a:
        assert isinstance(await a.act({"type": "roll_off"}), protocol.Ack)
        pending = a.view.data["pending"] if a.view.data else None
    assert pending is not None  # the winner of the roll-off chooses the order of deployment
    chooser, other = pending["side"], "b" if pending["side"] == "a" else "a"
    for side, expected in ((chooser, "Your decision: "), (other, f"Waiting for side {chooser.upper()}: ")):
        errors: list[str] = []
        page = await open_page(
            browser, f"{server.http}/matches/{match_id}/view#side_token={tokens[side]}", errors
        )
        await page.wait_for_selector("#status.live")
        await page.wait_for_selector("#pending")
        text = await page.text_content("#pending") or ""
        assert text.startswith(expected), (side, text)
        assert errors == []
        await page.close()
