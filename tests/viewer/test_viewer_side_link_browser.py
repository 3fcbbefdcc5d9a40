"""The viewer opened from a side's link (``/matches/{id}/view#side_token=...``, client-protocol/SPEC.md
section 4) in a real headless Chromium: every HTTP read carries the side's token, the older log
lines paged in by "show older" too."""

from __future__ import annotations

import httpx
import msgspec
from playwright.async_api import Browser

from hulldown.client import create_match
from hulldown.match.state import Options
from tests.scenarios import duel

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
