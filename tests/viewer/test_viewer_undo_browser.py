"""Undone actions in the spectator viewer, in a real headless Chromium (docs/table.md, "The
viewer's fixes"): the jump list of a live viewer stays the server's index after an undo, and
the log and the replay mark what an undo or a takeback took back."""

from __future__ import annotations

import contextlib
from typing import Any

import httpx
import msgspec
from playwright.async_api import Browser, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from hulldown.client import Client, create_match
from hulldown.match.scenario_types import CreateMatch
from hulldown.wire import protocol
from tests.scenarios import duel

from ..server_process import ServerProcess
from .test_viewer_browser import END, MOVE, SHOOT, browser, open_page

__all__ = ["browser"]

UNDO = {"type": "undo"}


def harmless_duel() -> CreateMatch:
    """The duel with a Strength 1 Lascannon: its shot rolls dice (to hit, then against the
    Rhino's armour) but can never hurt the Rhino, so the match goes on whatever the dice."""
    request = duel()
    weapons = request.scenario.units[0].weapons
    weak = {wid: msgspec.structs.replace(w, strength=1) for wid, w in weapons.items()}
    predator = msgspec.structs.replace(request.scenario.units[0], weapons=weak)
    units = (predator, *request.scenario.units[1:])
    return msgspec.structs.replace(request, scenario=msgspec.structs.replace(request.scenario, units=units))


async def index_of(server: ServerProcess, match_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=10) as http:
        index: dict[str, Any] = (await http.get(f"{server.http}/matches/{match_id}/index")).json()
        return index


async def open_live(browser: Browser, url: str, errors: list[str]) -> Page:
    page = await open_page(browser, url, errors)
    await page.wait_for_selector("#status.live")
    await page.wait_for_selector("#jump option[value='1']", state="attached")
    return page


async def play(client: Client, *actions: dict[str, Any]) -> int:
    seq = 0
    for action in actions:
        answer = await client.act(action)
        assert isinstance(answer, protocol.Ack), answer
        seq = answer.seq
    return seq


async def test_live_jump_list_after_an_undo_is_the_servers_index(
    server: ServerProcess, browser: Browser
) -> None:
    """Undoing the end of the Movement phase is no new phase start: the live viewer's jump list
    lists the undone Shooting phase as undone and no Movement phase at the undo's seq, as
    GET /index and a fresh page do."""
    created = await create_match(server.http, duel())
    errors: list[str] = []
    page = await open_live(browser, created["spectator_url"], errors)
    async with Client(created["live_url"], token=created["tokens"]["a"]) as a:
        last = await play(a, MOVE, END, UNDO, UNDO, MOVE, END)
    assert last == 7
    await page.wait_for_selector(f"body[data-seq='{last}']")
    index = await index_of(server, created["match_id"])
    expected = ["jump to turn / phase…"] + [
        f"Turn {p['turn']} · side {p['side'].upper()} · {p['phase']} (seq {p['seq']})"
        + (f" (undone at seq {p['undone_by']})" if p["undone_by"] else "")
        for p in index["phases"]
    ]
    assert "Turn 1 · side A · shooting (seq 3) (undone at seq 4)" in expected
    with contextlib.suppress(PlaywrightTimeout):  # the assertion below shows what differs
        await page.wait_for_function(
            "n => document.querySelectorAll('#jump option').length === n", arg=len(expected), timeout=5000
        )
    shown = await page.eval_on_selector_all("#jump option", "os => os.map(o => o.textContent)")
    assert shown == expected
    fresh = await open_live(browser, created["spectator_url"], errors)
    assert await fresh.eval_on_selector_all("#jump option", "os => os.map(o => o.textContent)") == expected
    assert errors == []


async def test_log_and_replay_mark_what_an_undo_and_a_takeback_took_back(
    server: ServerProcess, browser: Browser
) -> None:
    """The lines of an undone move and of a shot taken back stay in the log (docs/architecture.md
    section 9) but are marked with the undo's seq, live and in the replay; a replayed state that
    was later taken back says so beside "replay at seq"."""
    created = await create_match(server.http, harmless_duel())
    match_id = created["match_id"]
    errors: list[str] = []
    page = await open_live(browser, created["spectator_url"], errors)
    async with (
        Client(created["live_url"], token=created["tokens"]["a"]) as a,
        Client(created["live_url"], token=created["tokens"]["b"]) as b,
    ):
        assert await play(a, MOVE, UNDO, MOVE, END, SHOOT) == 6
        assert await play(a, {"type": "takeback_request", "to_seq": 5}) == 7
        last = await play(b, {"type": "takeback_answer", "grant": True})
    assert last == 8
    await page.wait_for_selector(f"body[data-seq='{last}']")
    index = await index_of(server, match_id)
    undone = {str(x["seq"]): str(x["undone_by"]) for x in index["actions"] if x["undone_by"]}
    assert undone == {"2": "3", "6": "8"}

    async def marks() -> list[list[str | None]]:
        found: list[list[str | None]] = await page.eval_on_selector_all(
            "#log li.log-entry",
            "ls => ls.map(l => [l.dataset.seq, l.dataset.undoneBy || null,"
            " l.querySelector('.undone-mark') ? l.querySelector('.undone-mark').textContent : null])",
        )
        return found

    def expected(upto: int) -> list[list[str | None]]:
        out: list[list[str | None]] = []
        for entry in (e for e in log if e["seq"] <= upto):
            by = undone.get(str(entry["seq"]))
            out.append([str(entry["seq"]), by, f"undone at seq {by}" if by else None])
        return out

    async with httpx.AsyncClient(timeout=10) as http:
        log = (await http.get(f"{server.http}/matches/{match_id}/log")).json()["entries"]
    assert any(e["seq"] == 6 for e in log) and any(e["seq"] == 2 for e in log)
    with contextlib.suppress(PlaywrightTimeout):  # the assertion below shows what differs
        await page.wait_for_selector("#log li.log-entry.undone[data-seq='6']", timeout=5000)
    assert await marks() == expected(last)
    assert await page.text_content("#mode") == "live"

    # Replay: the shot's state (seq 6) and the request's (seq 7) were taken back at seq 8.
    for seq, suffix in (
        (6, " (undone at seq 8)"),
        (7, " (undone at seq 8)"),
        (5, ""),
        (2, " (undone at seq 3)"),
    ):
        await page.eval_on_selector(
            "#scrub", f"s => {{ s.value = '{seq}'; s.dispatchEvent(new Event('input')); }}"
        )
        await page.wait_for_selector(f"body[data-seq='{seq}'][data-mode='replay']")
        assert await page.text_content("#mode") == f"replay at seq {seq}{suffix}"
        assert await marks() == expected(seq)
    assert errors == []
