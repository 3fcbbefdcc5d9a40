"""Undo and takebacks at the player's table (docs/table.md; docs/architecture.md section 9), in
Chromium, both sides' tables open:

- the log marks the lines of undone actions as the spectator viewer does;
- Undo is offered exactly when the server would accept it, and when it is not, the table says why
  with the rule (nothing to undo, the opponent's action, dice revealed, the opponent acted since,
  the match is over);
- a takeback is asked for a state on the line of play, chosen from the page; while it is pending
  the requester's table says so, offers a withdrawal and nothing the server would refuse, and the
  opponent's table asks to grant or decline; after a grant both tables show GET /state.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser, Page

from hulldown.client import Client, create_match

from ..server_process import ServerProcess
from ..viewer.test_viewer_browser import END, MOVE, SHOOT
from ..viewer.test_viewer_undo_browser import harmless_duel, play
from .browser import board_matches_state, open_table, shot, state_of, wait_seq

UNDO_RULE = "docs/architecture.md, 9. Undo and takebacks: undo"


async def undo_offer(page: Page) -> dict[str, Any]:
    """The Undo button's state and the reason shown beside it (its code and text)."""
    offer: dict[str, Any] = await page.evaluate(
        """() => {
            const why = document.querySelector('#undo-why');
            return {
                enabled: !document.querySelector('#undo').disabled,
                code: why ? why.dataset.code : null,
                text: why ? why.textContent : null,
            };
        }"""
    )
    return offer


async def _both_tables(
    server: ServerProcess, browser: Browser
) -> tuple[dict[str, Any], Page, Page, list[str]]:
    """A harmless duel created, both sides' tables open on it; the console errors they collect."""
    created = await create_match(server.http, harmless_duel())
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    return created, a, b, errors


async def settle(page: Page, seq: int) -> None:
    await wait_seq(page, seq)
    await page.wait_for_function(f"document.body.dataset.seq === '{seq}'")


async def test_undo_is_offered_exactly_when_the_server_accepts_it_and_the_log_marks_it(
    server: ServerProcess, browser: Browser
) -> None:
    created, a, b, errors = await _both_tables(server, browser)
    match_id, tokens = created["match_id"], created["tokens"]

    # Nothing to undo yet: neither side is offered Undo, and both are told why.
    for page in (a, b):
        offer = await undo_offer(page)
        assert offer["enabled"] is False and offer["code"] == "nothing_to_undo", offer
        assert UNDO_RULE in offer["text"]

    async with Client(created["live_url"], token=tokens["a"]) as client_a:
        assert await play(client_a, MOVE) == 2
    for page in (a, b):
        await settle(page, 2)
    assert (await undo_offer(a))["enabled"] is True
    offer = await undo_offer(b)
    assert offer["enabled"] is False and offer["code"] == "not_your_action", offer
    assert "Move at seq 2" in offer["text"] and UNDO_RULE in offer["text"]

    # A undoes its move from the table: both logs keep the move's line, marked as undone.
    await a.click("#undo")
    for page in (a, b):
        await settle(page, 3)
        await page.wait_for_selector("#log li.log-entry.undone[data-seq='2']")
        mark = await page.text_content("#log li.log-entry[data-seq='2'] .undone-mark")
        assert mark == "undone at seq 3"
        assert await page.locator("#log li.log-entry.undone[data-seq='3']").count() == 0
    await shot(a, "play-undo-01-undone-line")

    # A moves again; B asks for a takeback and withdraws it: B acted after A's move, so A's
    # free undo is gone (the server says opponent_acted) and the table points to a takeback.
    async with (
        Client(created["live_url"], token=tokens["a"]) as client_a,
        Client(created["live_url"], token=tokens["b"]) as client_b,
    ):
        assert await play(client_a, MOVE) == 4
        assert await play(client_b, {"type": "takeback_request", "to_seq": 1}) == 5
        assert await play(client_b, {"type": "takeback_answer", "grant": False}) == 6
        await settle(a, 6)
        offer = await undo_offer(a)
        assert offer["enabled"] is False and offer["code"] == "opponent_acted", offer
        assert "takeback to seq 1" in offer["text"]
        refused = await client_a.act({"type": "undo"})
        assert getattr(refused, "code", None) == "opponent_acted"
        # A shot reveals dice: A may not undo it freely either.
        assert await play(client_a, END, SHOOT) == 8
        await settle(a, 8)
        offer = await undo_offer(a)
        assert offer["enabled"] is False and offer["code"] == "dice_revealed", offer
        assert "takeback to seq 7" in offer["text"]
        # The match is over: nothing to undo, nothing to ask.
        assert await play(client_b, {"type": "concede"}) == 9
    last = (await state_of(server.http, match_id, tokens["a"]))["seq"]  # the system's end events
    for page in (a, b):
        await settle(page, last)
        offer = await undo_offer(page)
        assert offer["enabled"] is False and offer["code"] == "match_ended", offer
        assert await page.is_disabled("#takeback-request")
    assert errors == []


async def test_a_takeback_is_asked_from_the_page_withdrawn_then_granted(
    server: ServerProcess, browser: Browser
) -> None:
    created, a, b, errors = await _both_tables(server, browser)
    match_id, tokens = created["match_id"], created["tokens"]
    async with Client(created["live_url"], token=tokens["a"]) as client_a:
        assert await play(client_a, MOVE, {"type": "undo"}, MOVE, END, SHOOT) == 6
    for page in (a, b):
        await settle(page, 6)

    # The targets offered are the states on the line of play (the parents of the line's actions,
    # newest first): the shot's (5), the end of the phase's (4) and the move's (1: applied right
    # after the undo, it records the state the undo restored). Seq 2 (the undone move) and seq 3
    # (the undo) are not on the line.
    await a.wait_for_selector("#takeback-seq option[value='1']", state="attached")
    offered = await a.eval_on_selector_all("#takeback-seq option", "os => os.map(o => o.value)")
    assert offered == ["5", "4", "1"]
    # Each target names the action it follows as a player reads it, never by its wire tag.
    labels = await a.eval_on_selector_all("#takeback-seq option", "os => os.map(o => o.textContent)")
    assert labels[:2] == ["seq 5 (after your End Phase)", "seq 4 (after your Move)"], labels
    assert not any("_" in label for label in labels), labels
    await a.select_option("#takeback-seq", "4")
    await a.click("#takeback-request")
    for page in (a, b):
        await settle(page, 7)

    # Pending: A's table says so and offers only the withdrawal (and Concede); B's asks.
    await a.wait_for_selector("#takeback-mine")
    assert "seq 4" in (await a.text_content("#takeback-mine") or "")
    for selector in ("#undo", "#end-phase", "#takeback-request"):
        assert await a.is_disabled(selector), selector
    assert await a.is_enabled("#takeback-withdraw") and await a.is_enabled("#concede")
    await a.click(".unit-card[data-unit='predator-1'] .unit-title")
    await a.wait_for_selector("#unit-panel .takeback-wait")
    assert await a.locator("#unit-panel section.action").count() == 0
    await b.wait_for_selector("#takeback-ask")
    assert await b.is_disabled("#takeback-request")
    assert await b.locator("#takeback-withdraw").count() == 0
    await shot(a, "play-undo-02-takeback-pending")

    # A withdraws it: both tables are back to the game, B's question gone.
    await a.click("#takeback-withdraw")
    for page in (a, b):
        await settle(page, 8)
    await b.wait_for_selector("#takeback-ask", state="detached")
    await a.wait_for_selector("#takeback-mine", state="detached")
    assert await a.is_enabled("#takeback-request")
    assert (await state_of(server.http, match_id, tokens["a"]))["takeback"] == {}

    # Asked again and granted by B: both tables show the state as of seq 4 (after the move).
    await a.select_option("#takeback-seq", "4")
    await a.click("#takeback-request")
    await b.wait_for_selector("#takeback-grant")
    await b.click("#takeback-grant")
    for page, side in ((a, "a"), (b, "b")):
        await settle(page, 10)
        state = await board_matches_state(page, server.http, match_id, tokens[side])
        assert state["takeback"] == {} and state["phase"] == "movement"
        assert await page.text_content("#phase") == state["phase"]
        for undone in (5, 6):
            line = f"#log li.log-entry[data-seq='{undone}']"
            await page.wait_for_selector(f"{line}.undone")
            assert await page.text_content(f"{line} .undone-mark") == "undone at seq 10"
    await shot(b, "play-undo-03-granted")
    assert errors == []


async def test_an_offered_undo_leaves_no_stray_text_in_the_controls(
    server: ServerProcess, browser: Browser
) -> None:
    """Where Undo is offered there is no reason to show beside it: the controls hold the buttons,
    the takeback line and the message, and no text node of their own (no stray "null")."""
    created, a, _b, errors = await _both_tables(server, browser)
    async with Client(created["live_url"], token=created["tokens"]["a"]) as client_a:
        assert await play(client_a, MOVE) == 2
    await settle(a, 2)
    assert (await undo_offer(a))["enabled"] is True
    loose: list[str] = await a.evaluate(
        """() => [...document.querySelector('#controls').childNodes]
            .filter(n => n.nodeType === Node.TEXT_NODE).map(n => n.textContent)"""
    )
    assert loose == []
    assert "null" not in (await a.inner_text("#controls"))
    assert errors == []
