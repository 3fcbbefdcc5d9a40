"""Helpers of the player's-table browser tests: open a side's table, drag on the board, and
compare what the board shows with GET /matches/{id}/state."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, BrowserContext, Page

from hulldown.client import Client
from hulldown.wire import protocol

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


async def open_table(browser: Browser, url: str, errors: list[str]) -> tuple[BrowserContext, Page]:
    """A fresh browser context (its own sessionStorage: one person at one table)."""
    context = await browser.new_context(viewport={"width": 1500, "height": 950})
    page = await context.new_page()
    page.on("pageerror", lambda exc: errors.append(f"{url.split('#')[0]}: {exc}"))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    await page.goto(url)
    await page.wait_for_selector("#status.live")
    return context, page


async def state_of(http: str, match_id: str, token: str) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=10) as client:
        response = await client.get(
            f"{http}/matches/{match_id}/state", headers={"authorization": f"Bearer {token}"}
        )
        view: dict[str, Any] = response.json()["view"]
        return view


async def wait_seq(page: Page, seq: int) -> None:
    await page.wait_for_function(f"Number(document.body.dataset.seq) >= {seq}", timeout=10_000)


async def take_charge_proposal(page: Page) -> None:
    """A successful charge pauses on the charge move (``place_chargers``, docs/decisions.md): the
    charging side's table opens the decision dialog with the models at the proposal; press "Take
    the proposal" and wait until the table has the answer."""
    await page.wait_for_selector("dialog#decision[open] button.option[data-choice='proposal']")
    seq = int(await page.get_attribute("body", "data-seq") or "0")
    await page.click("dialog#decision button.option[data-choice='proposal']")
    await wait_seq(page, seq + 1)


async def board_matches_state(page: Page, http: str, match_id: str, token: str) -> dict[str, Any]:
    """The page is at the server's seq and draws every model where the state has it, with the
    state's Hull Points; units removed as casualties or waiting in reserve are not drawn. Returns
    the state."""
    for _ in range(100):
        state = await state_of(http, match_id, token)
        shown = await page.get_attribute("body", "data-seq")
        if shown == str(state["seq"]):
            break
        await asyncio.sleep(0.05)
    assert shown == str(state["seq"]), (shown, state["seq"])
    drawn: dict[str, Any] = await page.evaluate(
        """() => {
            const out = {};
            for (const g of document.querySelectorAll('#board-units g.unit')) {
                out[g.dataset.unit] = {hp: Number(g.dataset.hp), models: {}};
                for (const m of g.querySelectorAll('g.model')) {
                    out[g.dataset.unit].models[m.dataset.model] =
                        [Number(m.dataset.x), Number(m.dataset.y), Number(m.dataset.heading)];
                }
            }
            return out;
        }"""
    )
    off_table = (state.get("mission") or {}).get("off_table", {})
    for unit in state["units"].values():
        in_reserve = off_table.get(unit["id"]) in ("reserve", "arriving")
        if unit["embarked_in"] or in_reserve or (unit["destroyed"] and not unit["wreck"]):
            assert unit["id"] not in drawn, f"{unit['id']} should not be drawn"
            continue
        assert drawn[unit["id"]]["hp"] == unit["hp"], unit["id"]
        for model in unit["models"].values():
            if model["alive"] or unit["wreck"]:
                x, y, heading = drawn[unit["id"]]["models"][model["id"]]
                assert (x, y, heading) == (model["pos"][0], model["pos"][1], model["heading"]), model["id"]
    return state


async def end_phases(created: dict[str, Any], count: int) -> None:
    """Both sides of the match ``created`` (POST /matches' answer) end ``count`` phases in turn,
    over their live sockets."""
    async with (
        Client(created["live_url"], token=created["tokens"]["a"]) as a,
        Client(created["live_url"], token=created["tokens"]["b"]) as b,
    ):
        for _ in range(count):
            view = a.view.data
            assert view is not None
            player = a if view["active"] == "a" else b
            answer = await player.act({"type": "end_phase"})
            assert isinstance(answer, protocol.Ack)
            await a.wait_seq(answer.seq)


async def log_shown(page: Page) -> list[list[Any]]:
    """The log lines the page shows, as ``[n, text]``."""
    shown: list[list[Any]] = await page.eval_on_selector_all(
        "#log li.log-entry",
        "ls => ls.map(l => [Number(l.dataset.n), l.querySelector('.log-text').textContent])",
    )
    return shown


def log_expected(earlier: dict[str, Any], state: dict[str, Any]) -> list[list[Any]]:
    """``[n, text]`` of the lines ``GET /log`` gave (``earlier``), then the view's window."""
    return [[e["n"], e["text"]] for e in earlier["entries"]] + [
        [e["n"], e["text"]] for e in state["view"]["log"]
    ]


async def screen_point(page: Page, x: float, y: float) -> tuple[float, float]:
    point: list[float] = await page.evaluate(f"hulldownTable.board.toScreen({x}, {y})")
    return point[0], point[1]


async def drag(
    page: Page, start: tuple[float, float], waypoints: list[tuple[float, float]], end: tuple[float, float]
) -> None:
    """Press on the board at table point ``start``, move through ``waypoints`` (each added with
    a Shift+release), release at ``end``."""
    sx, sy = await screen_point(page, *start)
    await page.mouse.move(sx, sy)
    await page.mouse.down()
    for wx, wy in waypoints:
        px, py = await screen_point(page, wx, wy)
        await page.mouse.move(px, py, steps=8)
        await page.keyboard.down("Shift")
        await page.mouse.up()
        await page.keyboard.up("Shift")
        await page.mouse.down()
    ex, ey = await screen_point(page, *end)
    await page.mouse.move(ex, ey, steps=10)
    # Let the live check answer before letting go (the path turns green or red).
    await page.wait_for_function(
        "!document.querySelector('#board-overlay polyline.path.checking')", timeout=5000
    )
    await page.mouse.up()


async def drag_straight(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Press on the board at table point ``start``, move straight to ``end`` and release (a
    decision's ghost or marker: nothing to wait for before letting go)."""
    sx, sy = await screen_point(page, *start)
    ex, ey = await screen_point(page, *end)
    await page.mouse.move(sx, sy)
    await page.mouse.down()
    await page.mouse.move(ex, ey, steps=10)
    await page.mouse.up()


async def overlay_item(page: Page, selector: str) -> dict[str, Any]:
    """The board overlay's first ``selector`` as drawn: its class, its table ``x`` and ``y`` and its
    ``angle`` (None where it has none); None when nothing matches."""
    found: dict[str, Any] = await page.evaluate(
        f"""() => {{
            const g = document.querySelector("#board-overlay {selector}");
            return g ? {{cls: g.getAttribute('class'), x: Number(g.dataset.x), y: Number(g.dataset.y),
                         angle: g.dataset.angle === undefined ? null : Number(g.dataset.angle)}} : null;
        }}"""
    )
    return found


async def ghost_of(page: Page, model: str) -> dict[str, Any]:
    """The ghost of ``model`` a placement decision draws (``overlay_item``)."""
    return await overlay_item(page, f"g.ghost[data-model='{model}']")


async def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


async def set_up_by_api(
    live_url: str, tokens: dict[str, str], deploys: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """A 40k7 mission's set-up over the websocket, side a deploying first (zone A, along y = 0):
    ``deploys[side]`` are that side's ``deploy`` / ``reserve`` actions in order; side b declines
    to Seize the Initiative. Returns the view at the start of turn 1."""
    from hulldown.client import Client
    from hulldown.wire import protocol

    async with Client(live_url, token=tokens["a"]) as a, Client(live_url, token=tokens["b"]) as b:
        clients = {"a": a, "b": b}

        async def act(side: str, action: dict[str, Any]) -> None:
            answer = await clients[side].act(action)
            assert isinstance(answer, protocol.Ack), answer
            for other in clients.values():
                await other.wait_seq(answer.seq)

        await act("a", {"type": "roll_off"})
        pending = a.view.data["pending"]
        order = "first" if pending["side"] == "a" else "second"
        await act(pending["side"], {"type": "decide", "decision": pending["id"], "choice": order})
        for side in ("a", "b"):
            for action in deploys[side]:
                await act(side, action)
        seize = b.view.data["pending"]
        await act("b", {"type": "decide", "decision": seize["id"], "choice": "decline"})
        view: dict[str, Any] = a.view.data
        return view
