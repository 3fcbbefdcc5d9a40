"""The player's table in small windows (docs/table.md), in Chromium: below 900 px wide the board
stands above the side column, full width. At 375x667 (a phone) and 800x600 the board keeps its
table's proportions at nearly the window's width, the page never scrolls sideways (also with a
unit card and its weapons open), and the board is usable: a click on a unit selects it.
Screenshots in test-artifacts/layout-*.png."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser

from hulldown.client import create_match
from tests.scenarios import duel

from ..server_process import ServerProcess
from .browser import screen_point, shot


async def _measure(page: Any) -> dict[str, Any]:
    measured: dict[str, Any] = await page.evaluate(
        """() => {
            const r = document.querySelector('#board').getBoundingClientRect();
            return {board: [r.width, r.height], inner: innerWidth,
                    scroll: document.documentElement.scrollWidth};
        }"""
    )
    return measured


@pytest.mark.parametrize("size", [(375, 667), (800, 600)])
async def test_the_board_stays_usable_in_a_small_window(
    server: ServerProcess, browser: Browser, size: tuple[int, int]
) -> None:
    created = await create_match(server.http, duel())
    errors: list[str] = []
    context = await browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = await context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    await page.goto(created["play_urls"]["a"])
    await page.wait_for_selector("#status.live")

    m = await _measure(page)
    width, height = m["board"]
    assert width >= 0.9 * m["inner"], m  # nearly the window's width
    assert height == pytest.approx(width * 50 / 74, rel=0.05), m  # the 72x48 table and its margin
    assert m["scroll"] <= m["inner"], m  # no sideways scrolling

    # The board answers a click: the Predator is selected, its card (weapons and all) shown.
    x, y = await screen_point(page, 10, 24)
    await page.mouse.click(x, y)
    await page.wait_for_selector("#unit-panel .card[data-unit='predator-1']")
    assert "selected" in (await page.get_attribute("#board g.unit[data-unit='predator-1']", "class") or "")
    m = await _measure(page)
    assert m["scroll"] <= m["inner"], m
    await shot(page, f"layout-{size[0]}x{size[1]}")
    assert errors == []
    await context.close()
