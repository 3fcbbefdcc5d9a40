"""The hh3 Paragon actions at the player's table (docs/table.md) in Chromium: a Paragon joins a
unit, the same turn its leave is refused with the rule shown, and a challenge declined in the
other side's decision dialog Disgraces its Paragon (hh3 Model Types, Paragon; hh3 core,
Challenge Sub-Phase). After every step the board agrees with GET /matches/{id}/state."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace
from playwright.async_api import Browser, Page

from hulldown.client import create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options, Profile, Unit
from tests.hh3.builders import squad

from ..server_process import ServerProcess
from .browser import board_matches_state, open_table, shot, state_of, wait_seq

CENTURION = Profile(m=7, ws=5, bs=5, s=4, t=4, w=2, i=5, a=3, ld=10, cool=10, intelligence=9, sv=2)


def _joined(unit: Unit, mid: str) -> Unit:
    model = replace(unit.models[mid], kind="paragon", profile=CENTURION, wounds=CENTURION.w)
    return replace(unit, models={**unit.models, mid: model})


def paragon_match() -> CreateMatch:
    cap = squad("cap", "a", [(14.0, 10.0)], kind="paragon")
    cap = replace(
        cap, name="Centurion", profile=CENTURION, models={"cap-1": replace(cap.models["cap-1"], wounds=2)}
    )
    tacticals = squad("t", "a", [(10.0, 10.0), (11.5, 10.0)])
    # s and e stand in base contact (32 mm bases, 0.01 in apart), each with a joined Paragon.
    s = _joined(squad("s", "a", [(30.0, 30.0), (30.0, 31.3)]), "s-2")
    e = _joined(squad("e", "b", [(31.27, 30.0), (31.27, 31.3)]), "e-2")
    return CreateMatch(
        edition="hh3",
        scenario=Scenario(units=(cap, tacticals, s, e)),
        options=Options(turn_limit=10),
    )


async def _advance(
    pages: dict[str, Page], http: str, match_id: str, token: str, phase: str
) -> dict[str, Any]:
    for _ in range(20):
        state = await state_of(http, match_id, token)
        if state["active"] == "a" and state["phase"] == phase and state["pending"] is None:
            return state
        page = pages[state["active"]]
        await page.click("#end-phase")
        await wait_seq(page, state["seq"] + 1)
    raise AssertionError(f"never reached side a's {phase} phase")


async def _answer(page: Page, section: str) -> dict[str, Any]:
    await page.wait_for_function(
        f"![undefined, 'sending'].includes((hulldownTable.messages['{section}'] || {{}}).code)"
    )
    answer: dict[str, Any] = await page.evaluate(f"hulldownTable.messages['{section}']")
    return answer


async def test_join_leave_and_a_declined_challenge_through_the_ui(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, paragon_match())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    pages = {"a": a, "b": b}

    # 1. The Centurion joins the tacticals (1.24 in away, within coherency).
    state = await _advance(pages, server.http, match_id, token, "movement")
    await a.click(".unit-card[data-unit='cap'] .unit-title")
    await a.wait_for_selector("#phase-actions[data-state='known']")
    assert "join" in ((await a.get_attribute("#phase-actions", "data-open")) or "").split()
    await a.select_option("#join-target", "t")
    await a.click("#join")
    assert (await _answer(a, "join"))["code"] == "ack"
    await wait_seq(a, state["seq"] + 1)
    state = await board_matches_state(a, server.http, match_id, token)
    assert "cap" not in state["units"] and state["units"]["t"]["models"]["cap-1"]["kind"] == "paragon"
    await shot(a, "play-paragon-01-joined")

    # 2. Leaving in the same turn is refused; the rule is shown under the control.
    await a.click(".unit-card[data-unit='t'] .unit-title")
    await a.select_option("#leave-model", "cap-1")
    await a.click("#leave")
    refused = await _answer(a, "leave")
    assert refused["code"] == "joined_this_turn" and "hh3 Model Types, Paragon" in refused["text"]
    assert (await state_of(server.http, match_id, token))["seq"] == state["seq"]

    # 3. The Assault phase: s-2 challenges e; side b declines in the dialog; e-2 is Disgraced.
    state = await _advance(pages, server.http, match_id, token, "assault")
    await a.click(".unit-card[data-unit='s'] .unit-title")
    await a.select_option("#challenge-model", "s-2")
    await a.select_option("#challenge-target", "e")
    await a.click("#challenge")
    await wait_seq(a, state["seq"] + 1)
    state = await state_of(server.http, match_id, token)
    pending = state["pending"]
    assert pending["kind"] == "accept_challenge" and pending["side"] == "b"
    assert pending["options"] == ["decline", "e-2"] and pending["proposal"] == "e-2"
    await b.wait_for_selector("dialog#decision[open] button.option[data-choice='decline']")
    await shot(b, "play-paragon-02-challenge-dialog")
    await b.click("dialog#decision button.option[data-choice='decline']")
    await wait_seq(b, state["seq"] + 1)
    for page in pages.values():
        state = await board_matches_state(page, server.http, match_id, token)
    assert state["pending"] is None and "disgraced:e-2" in state["units"]["e"]["turn_flags"]
    assert any("e-2 of e is Disgraced" in e["text"] for e in state["log"])
    assert errors == []
