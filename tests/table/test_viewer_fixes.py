"""The viewer's table tools and the fixes a new user asked for (docs/table.md), in Chromium:
the ruler and the line-of-sight tool against the server's numbers; labels that do not overlap;
no labels for units removed as casualties; wound maxima from the starting wounds; older log lines
paged from GET /log; the scrubber not saying "live" while reconnecting."""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
import pytest
from playwright.async_api import Browser, Page

from hulldown.client import create_match
from hulldown.match.state import Model, Options, Point, Profile, Unit
from tests.scenarios import duel, rhino

from ..server_process import ServerProcess
from .browser import end_phases, log_expected, log_shown, shot
from .test_tools import walled


async def open_viewer(browser: Browser, url: str, errors: list[str]) -> Page:
    page = await browser.new_page(viewport={"width": 1400, "height": 900})
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    await page.goto(url)
    await page.wait_for_selector("#status.live")
    return page


async def click_model(page: Page, x: float, y: float) -> None:
    point: list[float] = await page.evaluate(f"hulldownViewer.tools.board.toScreen({x}, {y})")
    await page.mouse.click(point[0], point[1])


async def test_ruler_and_line_of_sight_tools_show_the_servers_numbers(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, walled("40k7"))
    base = f"{server.http}/matches/{created['match_id']}"
    errors: list[str] = []
    page = await open_viewer(browser, created["spectator_url"], errors)
    async with httpx.AsyncClient(timeout=10) as http:
        ruler = (await http.get(f"{base}/ruler", params={"from": "predator-1-m", "to": "rhino-1-m"})).json()
        sight = (await http.get(f"{base}/sight", params={"from": "predator-1-m", "to": "rhino-1-m"})).json()
    await page.click("#tool-ruler")
    await click_model(page, 10.0, 24.0)
    await click_model(page, 40.0, 24.0)
    await page.wait_for_selector("#tool-result[data-distance]")
    assert await page.get_attribute("#tool-result", "data-distance") == str(ruler["distance"])
    assert await page.text_content("#tool-result") == "predator-1-m → rhino-1-m: 25.5 in"
    assert await page.get_attribute("#board-overlay polyline.ruler", "data-state") == "measure"
    await page.click("#tool-ruler")  # off
    await page.click("#tool-sight")
    await click_model(page, 10.0, 24.0)
    await click_model(page, 40.0, 24.0)
    await page.wait_for_selector("#tool-result[data-visible]")
    for key, attribute in (
        ("visible", "data-visible"),
        ("facing", "data-facing"),
        ("armour", "data-armour"),
        ("hidden_share", "data-hidden-share"),
        ("obscured", "data-obscured"),
    ):
        value = sight[key]
        expected = str(value).lower() if isinstance(value, bool) else str(value)
        assert await page.get_attribute("#tool-result", attribute) == expected, key
    assert await page.text_content("#tool-result") == (
        "predator-1-m → rhino-1-m: visible · 25.5 in · hits front (AV11) · hidden 50% · obscured"
    )
    await shot(page, "tools-line-of-sight")
    assert errors == []


def _label_boxes(page: Page) -> Any:
    return page.eval_on_selector_all(
        "#board-labels text.unit-label, #board-labels text.status-label",
        "ts => ts.map(t => { const r = t.getBoundingClientRect(); return [t.dataset.unit, t.getAttribute('class'), r.left, r.top, r.right, r.bottom]; })",
    )


async def test_labels_do_not_overlap_and_removed_units_have_none(
    server: ServerProcess, browser: Browser
) -> None:
    request = duel()
    # Three Rhinos in a row 5 in apart (their labels would overlap side by side), one of them with statuses; a destroyed one (removed,
    # no wreck) and a wreck.
    crowd = [rhino(f"r{i}", "b", 48.0 + 5.0 * i, 20.0) for i in range(3)]  # labels 6.6 in wide
    crowd[1] = msgspec.structs.replace(crowd[1], statuses={"shaken": 2, "stunned": 0})
    gone = msgspec.structs.replace(rhino("gone", "b", 60.0, 40.0), destroyed=True, hp=0)
    wreck = msgspec.structs.replace(rhino("wreck", "b", 62.0, 8.0), destroyed=True, wreck=True, hp=0)
    scenario = msgspec.structs.replace(request.scenario, units=(*request.scenario.units, *crowd, gone, wreck))
    created = await create_match(server.http, msgspec.structs.replace(request, scenario=scenario))
    errors: list[str] = []
    page = await open_viewer(browser, created["spectator_url"], errors)
    await page.wait_for_selector("#board text.unit-label[data-unit='r2']")
    boxes = await _label_boxes(page)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = a[4] <= b[2] or b[4] <= a[2] or a[5] <= b[3] or b[5] <= a[3]
            assert apart, f"labels overlap: {a} and {b}"
    assert await page.query_selector("#board text.unit-label[data-unit='gone']") is None
    assert await page.query_selector("#board g.unit[data-unit='gone']") is None
    assert (await page.text_content("#board text.unit-label[data-unit='wreck']") or "").endswith(" wreck")
    await shot(page, "viewer-labels")
    assert errors == []


async def test_wound_maxima_come_from_the_starting_wounds(server: ServerProcess, browser: Browser) -> None:
    """A model that started with 8 wounds on a profile that says W1 shows 8/8 (and, once hurt,
    4/8 - not 4/4 as the profile would make it)."""
    request = duel()
    brute = Unit(
        id="brute",
        side="b",
        name="Brute",
        kind="monster",
        profile=Profile(m=6, ws=4, bs=4, s=6, t=6, sv=3),  # w left at its default of 1
        models={"brute-m": Model(id="brute-m", pos=Point(40.0, 40.0), base_mm=60.0, wounds=8)},
    )
    scenario = msgspec.structs.replace(request.scenario, units=(*request.scenario.units, brute))
    created = await create_match(server.http, msgspec.structs.replace(request, scenario=scenario))
    page = await open_viewer(browser, created["spectator_url"], [])
    await page.wait_for_function("hulldownViewer.tools.board.startWounds !== null")
    assert await page.text_content(".unit-card[data-unit='brute'] .vitals") == "8/8 W"
    hurt = await page.evaluate(
        """async () => {
            const { unitVitals } = await import('/static/js/board.js');
            const unit = {profile: {hp: 0, w: 1}, models: {'brute-m': {id: 'brute-m', alive: true, wounds: 4}}};
            return [unitVitals(unit, hulldownViewer.tools.board.startWounds), unitVitals(unit)];
        }"""
    )
    assert hurt == [{"kind": "W", "now": 4, "max": 8}, {"kind": "W", "now": 4, "max": 4}]


async def test_older_log_lines_are_paged_in(server: ServerProcess, browser: Browser) -> None:
    created = await create_match(server.http, msgspec.structs.replace(duel(), options=Options(turn_limit=30)))
    await end_phases(created, 60)  # more lines than the view's window of 50
    page = await open_viewer(browser, created["spectator_url"], [])
    state = (
        await httpx.AsyncClient(timeout=10).get(f"{server.http}/matches/{created['match_id']}/state")
    ).json()
    first = state["view"]["log"][0]["n"]
    assert first > 0
    await page.wait_for_selector("#log-older")
    assert (await page.text_content("#log-note") or "").startswith(f"{first} earlier lines")
    await page.click("#log-older")
    older = min(50, first)
    await page.wait_for_selector(f"#log li.log-entry[data-n='{first - older}']")
    log = (
        await httpx.AsyncClient(timeout=10).get(
            f"{server.http}/matches/{created['match_id']}/log", params={"from": first - older, "limit": older}
        )
    ).json()
    assert await log_shown(page) == log_expected(log, state)


async def test_the_scrubber_does_not_say_live_while_reconnecting(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, duel())
    page = await open_viewer(browser, created["spectator_url"], [])
    assert (await page.text_content("#scrub-label") or "").startswith("live · seq 1")
    await page.evaluate(
        "hulldownViewer.connection.backoff.initial = 1500; hulldownViewer.connection.dropConnection()"
    )
    await page.wait_for_selector("#scrub-label[data-connection='reconnecting']")
    label = await page.text_content("#scrub-label")
    assert label == "reconnecting (last seq seen) · seq 1"
    await page.wait_for_selector("#scrub-label[data-connection='live']", timeout=10_000)
    assert (await page.text_content("#scrub-label") or "").startswith("live · seq 1")


@pytest.mark.parametrize("side", ["a", "b"])
async def test_the_table_asks_for_a_token_and_keeps_it_for_the_tab(
    server: ServerProcess, browser: Browser, side: str
) -> None:
    created = await create_match(server.http, duel())
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(f"{server.http}/matches/{created['match_id']}/play")
    await page.wait_for_selector("#token-form:not([hidden])")
    await page.fill("#token-input", created["tokens"][side])
    await page.click("#token-submit")
    await page.wait_for_selector("#status.live")
    assert await page.text_content("#side-badge") == f"you are side {side.upper()}"
    await page.reload()  # the tab remembers it
    await page.wait_for_selector("#status.live")
    assert await page.text_content("#side-badge") == f"you are side {side.upper()}"
    other = await context.new_page()  # another tab of the same person asks again
    await other.goto(f"{server.http}/matches/{created['match_id']}/play")
    await other.wait_for_selector("#token-form:not([hidden])")
    await context.close()


async def test_zoom_pan_and_hover_cards(server: ServerProcess, browser: Browser) -> None:
    created = await create_match(server.http, duel())
    page = await open_viewer(browser, created["spectator_url"], [])
    card = await page.text_content("#board g.unit[data-unit='rhino-1'] > title")
    assert card == "Rhino (rhino-1, side B)\n3/3 HP\narmour 11/11/10"
    full = await page.get_attribute("#board", "viewBox")
    assert full == "-1 -1 74 50"
    x, y = await page.evaluate("hulldownViewer.tools.board.toScreen(40, 24)")
    await page.mouse.move(x, y)
    await page.mouse.wheel(0, -300)
    await page.wait_for_function("document.querySelector('#board').getAttribute('viewBox') !== '-1 -1 74 50'")
    box = [float(v) for v in (await page.get_attribute("#board", "viewBox") or "").split()]
    assert box[2] < 74
    # Zoomed about the pointer: the Rhino's centre is still under it, and the board's
    # coordinates still convert both ways.
    after = await page.evaluate("hulldownViewer.tools.board.toScreen(40, 24)")
    assert after == pytest.approx([x, y], abs=2.0)
    table_point = await page.evaluate(f"hulldownViewer.tools.board.toTable({x}, {y})")
    assert table_point == pytest.approx([40.0, 24.0], abs=0.1)
    await page.mouse.move(x, y)
    await page.mouse.down(button="middle")
    await page.mouse.move(x + 100, y, steps=5)
    await page.mouse.up(button="middle")
    panned = await page.evaluate("hulldownViewer.tools.board.toScreen(40, 24)")
    assert panned[0] == pytest.approx(x + 100, abs=3.0)
    await page.dblclick("#board")
    assert await page.get_attribute("#board", "viewBox") == full
