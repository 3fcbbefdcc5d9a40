"""The table's connection (docs/table.md, Sitting down; What the table shows), in Chromium: refused
tokens do not pile up clients - after two refusals the right token opens one websocket, and one
End phase click acts once; the header's connection field follows the socket's status, saying
"reconnecting" (not "live") while the socket is down."""

from __future__ import annotations

from playwright.async_api import Browser, WebSocket

from hulldown.client import create_match
from tests.scenarios import duel

from ..server_process import ServerProcess
from .browser import open_table, state_of, wait_seq


async def test_refused_tokens_leave_one_client(server: ServerProcess, browser: Browser) -> None:
    created = await create_match(server.http, duel())
    context = await browser.new_context()
    page = await context.new_page()
    sockets: list[WebSocket] = []
    page.on("websocket", lambda ws: sockets.append(ws))
    await page.goto(f"{server.http}/matches/{created['match_id']}/play")
    await page.wait_for_selector("#token-form:not([hidden])")
    for n, wrong in enumerate(("wrong-1", "wrong-2"), start=1):
        await page.fill("#token-input", wrong)
        await page.click("#token-submit")
        await page.wait_for_selector("#status.refused")
        await page.wait_for_selector("#token-form:not([hidden])")
        assert len(sockets) == n  # one websocket per sign-in
    await page.fill("#token-input", created["tokens"]["a"])
    await page.click("#token-submit")
    await page.wait_for_selector("#status.live")
    await page.wait_for_timeout(500)  # any further client would have opened its socket by now
    assert len(sockets) == 3
    assert [ws.is_closed() for ws in sockets] == [True, True, False]
    await page.click("#end-phase")
    await wait_seq(page, 2)
    await page.wait_for_timeout(500)
    state = await state_of(server.http, created["match_id"], created["tokens"]["a"])
    assert state["seq"] == 2  # acted once
    await context.close()


async def test_the_header_says_reconnecting_while_the_socket_is_down(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, duel())
    errors: list[str] = []
    _, page = await open_table(browser, created["play_urls"]["a"], errors)
    assert await page.text_content("#info #mode") == "live"
    await page.evaluate("hulldownTable.client.backoff.initial = 1500; hulldownTable.client.dropConnection()")
    await page.wait_for_selector("#status.reconnecting")
    assert await page.text_content("#info #mode") == "reconnecting"
    assert await page.get_attribute("#info #mode", "class") == "mode offline"
    await page.wait_for_selector("#status.live", timeout=10_000)
    assert await page.text_content("#info #mode") == "live"
    assert await page.get_attribute("#info #mode", "class") == "mode live"
    assert errors == []
