"""A whole 40k7 match played only through the player's table (docs/table.md), in Debian's
Chromium: two browser contexts, one per side, and a spectator's viewer. Clicks, drags and
dialogs only; after every step each page's board agrees with GET /matches/{id}/state.

The duel: a Predator (side A, lascannon) and a Rhino that is a Skimmer (side B), so every shot at
it asks side B whether to Jink (40k7 Vehicles, Skimmers: Jink) - a decision answered in the
dialog. Steps: an illegal drag refused with the server's reason (40k7 Vehicles, Movement: 12 in),
a legal move with a waypoint, an undo, a move again, shots until one takes a Hull Point (the dice
are the server's), a takeback to before that shot granted from side B's banner, then side B
concedes. Screenshots of every step in test-artifacts/play-40k7-*.png.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from playwright.async_api import Browser, Page

from hulldown.client import create_match
from hulldown.match.state import Options
from tests.scenarios import duel
from tests.scenarios import rhino as rhino_unit

from ..server_process import ServerProcess
from .browser import (
    board_matches_state,
    drag,
    open_table,
    screen_point,
    shot,
    state_of,
    take_charge_proposal,
    wait_seq,
)

SHOT_ATTEMPTS = 12


def skimmer_duel() -> Any:
    request = duel()
    predator, rhino = request.scenario.units
    rhino = msgspec.structs.replace(rhino, keywords=("tank", "transport", "skimmer"))
    # A second Rhino far off: a Lascannon's penetrating hit may roll Explodes! (the dice are the
    # server's), and side B must keep a unit so the match does not end before the takeback.
    reserve = rhino_unit("rhino-2", "b", 62, 44, 180)
    scenario = msgspec.structs.replace(request.scenario, units=(predator, rhino, reserve))
    return msgspec.structs.replace(request, scenario=scenario, options=Options(turn_limit=30))


class Table:
    """The three pages of one match and the server they talk to."""

    def __init__(self, server: ServerProcess, created: dict[str, Any], pages: dict[str, Page]) -> None:
        self.http = server.http
        self.created = created
        self.match_id = created["match_id"]
        self.pages = pages

    async def state(self) -> dict[str, Any]:
        return await state_of(self.http, self.match_id, self.created["tokens"]["a"])

    async def agree(self) -> dict[str, Any]:
        state: dict[str, Any] = {}
        for page in self.pages.values():
            state = await board_matches_state(page, self.http, self.match_id, self.created["tokens"]["a"])
        return state

    async def click_and_wait(self, side: str, selector: str) -> dict[str, Any]:
        before = (await self.state())["seq"]
        await self.pages[side].click(selector)
        await wait_seq(self.pages[side], before + 1)
        return await self.agree()

    async def answer_pending(self, state: dict[str, Any], choice: str | None = None) -> dict[str, Any]:
        pending = state["pending"]
        page = self.pages[pending["side"]]
        other = self.pages["b" if pending["side"] == "a" else "a"]
        await page.wait_for_selector("dialog#decision[open]")
        waiting = await other.text_content("#waiting")
        assert waiting == f"Waiting for side {pending['side'].upper()}: {pending['prompt']}"
        option = choice or pending["options"][0]
        before = state["seq"]
        await page.click(f"dialog#decision button.option[data-choice='{option}']")
        await wait_seq(page, before + 1)
        return await self.agree()

    async def advance_to(self, side: str, phase: str) -> dict[str, Any]:
        """End phases (and answer decisions with their first option) through the UI until it is
        ``side``'s ``phase``."""
        state = await self.state()
        for _ in range(30):
            if state["ended"]:
                pytest.fail(f"the match ended while advancing: {state['end_reason']}")
            if state["pending"] is not None:
                state = await self.answer_pending(state)
                continue
            if state["active"] == side and state["phase"] == phase:
                return state
            state = await self.click_and_wait(state["active"], "#end-phase")
        pytest.fail(f"never reached side {side}'s {phase} phase")


async def test_a_whole_40k7_match_through_the_ui(server: ServerProcess, browser: Browser) -> None:
    created = await create_match(server.http, skimmer_duel())
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    _, b = await open_table(browser, created["play_urls"]["b"], errors)
    _, watcher = await open_table(browser, created["spectator_url"], errors)
    table = Table(server, created, {"a": a, "b": b, "spectator": watcher})
    assert await a.text_content("#side-badge") == "you are side A"
    assert "#token" not in a.url  # read, kept for the tab, and taken out of the address bar
    await table.agree()

    # 1. An illegal drag: 30 in is more than a vehicle's 12 in. Refused where the player let go,
    #    with the server's reason and measured numbers; nothing happens.
    await a.click(".unit-card[data-unit='predator-1'] .unit-title")
    card = await a.text_content("#unit-panel .armour[data-unit='predator-1']")
    assert card == "Armour: front 13 · side 11 · rear 10 · 3/3 HP"
    await drag(a, (10, 24), [], (40, 30))
    await a.wait_for_selector(".message[data-section='move'][data-code='too_far']")
    status = await a.get_attribute("#move-status", "data-code")
    assert status == "too_far"
    assert await a.get_attribute("#move-status", "data-allowance") == "12"
    refused = await a.text_content(".message[data-section='move']")
    assert refused is not None and "> 12 in allowed" in refused and "[40k7 Vehicles, Movement]" in refused
    assert await a.get_attribute("#board-overlay polyline.path", "data-state") == "rejected"
    state = await table.agree()
    assert state["seq"] == 1
    await shot(a, "play-40k7-01-refused-drag")

    # 2. A legal move with a waypoint: green while dragging, acted on release.
    await drag(a, (10, 24), [(12, 26)], (14, 26))
    await wait_seq(a, 2)
    state = await table.agree()
    predator = state["units"]["predator-1"]["models"]["predator-1-m"]
    assert predator["pos"] == [14.0, 26.0] and state["units"]["predator-1"]["moved"] == pytest.approx(
        4.83, abs=0.01
    )
    await shot(a, "play-40k7-02-moved")

    # 3. Undo (free: the move revealed no dice).
    state = await table.click_and_wait("a", "#undo")
    assert state["units"]["predator-1"]["models"]["predator-1-m"]["pos"] == [10.0, 24.0]
    await shot(a, "play-40k7-03-undone")

    # 4. Move again, end the Movement phase.
    await drag(a, (10, 24), [], (14, 24))
    await wait_seq(a, state["seq"] + 1)
    await table.agree()
    state = await table.click_and_wait("a", "#end-phase")
    assert state["phase"] == "shooting"

    # 5. Shoot until a shot takes a Hull Point. Aiming marks the target with the server's facts.
    shot_seq = 0
    for attempt in range(SHOT_ATTEMPTS):
        await a.click(".unit-card[data-unit='predator-1'] .unit-title")
        await a.check("input.fire-weapon[data-weapon='lascannon']")
        target = a.locator(".target[data-target='rhino-1']")
        await target.wait_for()
        assert await target.get_attribute("data-mark") == "in-range"
        assert await target.get_attribute("data-facing") == "front"  # the Rhino faces the Predator
        assert await target.get_attribute("data-armour") == "11"
        assert "mark in-range" in (await a.get_attribute("#board g.unit[data-unit='rhino-1']", "class") or "")
        await a.select_option("#fire-target-lascannon", "rhino-1")
        before = (await table.state())["seq"]
        await a.click("#fire")
        await a.wait_for_selector(".message[data-section='shoot'][data-code]:not([data-code='sending'])")
        assert await a.get_attribute(".message[data-section='shoot']", "data-code") == "ack", (
            await a.text_content(".message[data-section='shoot']")
        )
        await wait_seq(a, before + 1)
        state = await table.agree()
        assert state["pending"] is not None and state["pending"]["kind"] == "jink"
        if attempt == 0:
            await shot(b, "play-40k7-04-jink-dialog")
            await shot(a, "play-40k7-04-waiting-for-b")
        state = await table.answer_pending(state, "no")
        if state["units"]["rhino-1"]["hp"] < 3:
            shot_seq = before + 1
            break
        await table.click_and_wait("a", "#end-phase")  # this Shooting phase is spent
        state = await table.advance_to("a", "shooting")
    assert shot_seq, f"no shot took a Hull Point in {SHOT_ATTEMPTS} tries"
    hp_rows = [e for e in state["log"] if e["seq"] == shot_seq + 1]
    assert hp_rows and any(r["purpose"] == "to hit" for e in hp_rows for r in e["rolls"])
    await shot(watcher, "play-40k7-05-hull-point-lost")

    # 6. A takeback to before that shot, granted from side B's banner.
    await a.select_option("#takeback-seq", str(shot_seq - 1))
    state = await table.click_and_wait("a", "#takeback-request")
    assert state["takeback"] == {"by": "a", "to_seq": str(shot_seq - 1), "seq": str(state["seq"])}
    await b.wait_for_selector("#takeback-ask")
    assert await watcher.get_attribute("#takeback-banner", "data-to") == str(shot_seq - 1)
    await shot(b, "play-40k7-06-takeback-banner")
    state = await table.click_and_wait("b", "#takeback-grant")
    assert state["units"]["rhino-1"]["hp"] == 3 and state["takeback"] == {}
    assert state["phase"] == "shooting" and state["active"] == "a"

    # 7. Side B concedes (two clicks: the first arms the button).
    await b.click("#concede")
    assert await b.text_content("#concede") == "Really concede?"
    await table.click_and_wait("b", "#concede")
    state = await table.agree()
    for _ in range(50):  # the seed reveal follows the end
        if state["seed"]:
            break
        state = await table.agree()
    assert state["ended"] and state["winner"] == "a"
    await watcher.wait_for_selector("#ended")
    assert "side A wins" in (await watcher.text_content("#ended") or "")
    await shot(watcher, "play-40k7-07-conceded")
    assert await a.evaluate("hulldownTable.errors") == []
    assert errors == []


async def test_a_squad_moves_together_and_ctrl_drag_moves_one_model(
    server: ServerProcess, browser: Browser
) -> None:
    """40k7 Movement: every model of an infantry unit moves (up to 6 in, coherency 2 in): a drag
    moves the unit by the dragged model's displacement; Ctrl+drag adjusts one model only."""
    from hulldown.match.state import Model, Point, Profile, Unit

    request = duel()
    squad = Unit(
        id="squad",
        side="a",
        name="Tactical Squad",
        kind="infantry",
        profile=Profile(m=6, ws=4, bs=4, s=4, t=4, w=1, sv=3),
        models={f"m{i}": Model(id=f"m{i}", pos=Point(20.0 + 1.5 * i, 40.0), base_mm=32.0) for i in range(3)},
    )
    scenario = msgspec.structs.replace(request.scenario, units=(*request.scenario.units, squad))
    created = await create_match(server.http, msgspec.structs.replace(request, scenario=scenario))
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    await a.click(".unit-card[data-unit='squad'] .unit-title")
    await drag(a, (21.5, 40.0), [], (24.5, 40.0))  # grab the middle model: all three move 3 in
    await wait_seq(a, 2)
    state = await board_matches_state(a, server.http, created["match_id"], created["tokens"]["a"])
    assert [m["pos"] for m in state["units"]["squad"]["models"].values()] == [
        [23.0, 40.0],
        [24.5, 40.0],
        [26.0, 40.0],
    ]
    await a.click("#undo")
    await wait_seq(a, 3)
    await a.keyboard.down("Control")
    await drag(a, (23.0, 40.0), [], (23.0, 41.5))  # only m2 steps forward
    await a.keyboard.up("Control")
    await wait_seq(a, 4)
    state = await board_matches_state(a, server.http, created["match_id"], created["tokens"]["a"])
    assert [m["pos"] for m in state["units"]["squad"]["models"].values()] == [
        [20.0, 40.0],
        [21.5, 40.0],
        [23.0, 41.5],
    ]
    await shot(a, "play-40k7-squad-ctrl-drag")
    assert errors == []


async def table_in_assault(
    server: ServerProcess, browser: Browser, extra: Any, errors: list[str]
) -> tuple[dict[str, Any], Page]:
    """A duel with ``extra`` added to side A's army, side A's table open and its Movement and
    Shooting phases ended: the Assault phase."""
    request = duel()
    scenario = msgspec.structs.replace(request.scenario, units=(*request.scenario.units, extra))
    created = await create_match(server.http, msgspec.structs.replace(request, scenario=scenario))
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    for seq in (2, 3):  # end the Movement and Shooting phases
        await a.click("#end-phase")
        await wait_seq(a, seq)
    return created, a


async def fight_answer(a: Page) -> tuple[dict[str, Any], int]:
    """Press Fight; the table's answer (an ack expected) and the seq of the fight."""
    await a.click("#fight")
    await a.wait_for_function("!['sending', undefined].includes((hulldownTable.messages.fight || {}).code)")
    fought = await a.evaluate("hulldownTable.messages.fight")
    assert fought["code"] == "ack", fought
    return fought, int(fought["text"].removeprefix("done (seq ").rstrip(")"))


async def test_a_charge_and_a_fight_through_the_table(server: ServerProcess, browser: Browser) -> None:
    """40k7 Assault phase from the table: a squad 1.5 in from a Rhino charges it (2D6 always
    reaches 1.5 in; a Rhino without weapons has no Overwatch) and fights it (40k7 Vehicles and
    Close Combat: attacks against a vehicle's rear armour)."""
    from hulldown.match.state import Model, Point, Profile, Unit, Weapon

    squad = Unit(
        id="squad",
        side="a",
        name="Assault Squad",
        kind="infantry",
        profile=Profile(m=6, ws=4, bs=4, s=4, t=4, w=1, i=4, a=2, sv=3),
        models={f"m{i}": Model(id=f"m{i}", pos=Point(36.6, 22.0 + 1.5 * i), base_mm=32.0) for i in range(3)},
        weapons={
            "krak": Weapon(
                id="krak", name="Krak grenade", model="m0", range=0, strength=6, ap=4, type="melee"
            )
        },
    )
    errors: list[str] = []
    created, a = await table_in_assault(server, browser, squad, errors)
    match_id, token = created["match_id"], created["tokens"]["a"]
    await a.click(".unit-card[data-unit='squad'] .unit-title")
    # What the unit may do comes from the server (GET /options: validation decides each kind).
    await a.wait_for_selector("#phase-actions[data-state='known']")
    listed = (await a.get_attribute("#phase-actions", "data-open") or "").split()
    print("assault options", listed)
    assert "charge" in listed and "fight" in listed, listed
    assert "move:normal" not in listed and "shoot" not in listed, listed
    assert "This assault phase: " in (await a.text_content("#phase-actions") or "")
    closed = await a.get_attribute(".closed-option[data-kind='move:normal']", "data-code")
    assert closed == "wrong_phase", closed
    await a.select_option("#charge-target", "rhino-1")
    await a.click("#charge")
    await a.wait_for_selector(".message[data-section='charge'][data-code='ack']")
    # 40k7 Charge, Move Chargers: the charging player places the chargers; take the proposal.
    await take_charge_proposal(a)
    state = await board_matches_state(a, server.http, match_id, token)
    assert "charged" in state["units"]["squad"]["turn_flags"]
    await a.wait_for_selector(f"#phase-actions[data-state='known'][data-seq='{state['seq']}']")
    listed = (await a.get_attribute("#phase-actions", "data-open") or "").split()
    print("after the charge", listed)
    assert "charge" not in listed and "fight" in listed, listed
    await shot(a, "play-40k7-charge")
    await a.select_option("#fight-target", "rhino-1")
    _, fight_seq = await fight_answer(a)
    state = await board_matches_state(a, server.http, match_id, token)
    blows = [r for e in state["log"] if e["seq"] == fight_seq for r in e["rolls"]]
    assert blows and blows[0]["purpose"] == "close combat to hit"
    assert errors == []


async def test_a_smash_attack_is_offered_to_a_unit_with_smash_only(
    server: ServerProcess, browser: Browser
) -> None:
    """40k7 Special Rules, Smash: a model with Smash may make a single Smash Attack instead of its
    attacks, the player's choice. The fight controls offered no way to make one. A Walker whose
    entry lists Smash stands against the Rhino's rear (its front at x = 42.25, the Rhino's rear):
    its card offers "Smash Attack" (GET /options lists fight:smash open) and the fight sent is a
    Smash Attack; the Predator, which has no Smash, is offered none."""
    from tests.wh40k7.builders import dreadnought

    walker = dreadnought("walker", "a", 43.5, 24, 180, name="Smash Walker", keywords=("walker", "smash"))
    errors: list[str] = []
    created, a = await table_in_assault(server, browser, walker, errors)
    match_id, token = created["match_id"], created["tokens"]["a"]
    await a.click(".unit-card[data-unit='predator-1'] .unit-title")
    await a.wait_for_selector("#phase-actions[data-state='known']")
    assert "fight:smash" not in (await a.get_attribute("#phase-actions", "data-open") or "").split()
    assert await a.query_selector("#fight-smash") is None
    await a.click(".unit-card[data-unit='walker'] .unit-title")
    await a.wait_for_selector("#phase-actions[data-state='known']")
    listed = (await a.get_attribute("#phase-actions", "data-open") or "").split()
    assert "fight" in listed and "fight:smash" in listed, listed
    await a.select_option("#fight-target", "rhino-1")
    await a.check("#fight-smash")
    _, fight_seq = await fight_answer(a)
    state = await board_matches_state(a, server.http, match_id, token)
    texts = [e["text"] for e in state["log"] if e["seq"] == fight_seq]
    assert any("Smash Attack at S10 AP2" in t for t in texts), texts
    hits = [
        r
        for e in state["log"]
        if e["seq"] == fight_seq
        for r in e["rolls"]
        if r["purpose"] == "close combat to hit"
    ]
    assert len(hits) == 1, hits  # one Smash Attack, not the Walker's attacks
    await shot(a, "play-40k7-smash")
    assert errors == []


async def test_the_kind_of_move_changes_inside_the_gesture(server: ServerProcess, browser: Browser) -> None:
    """While dragging, F makes the move a Flat Out (40k7: made in the Shooting phase - the server
    refuses it in the Movement phase) and N makes it a normal move again; the live check follows."""
    created = await create_match(server.http, duel())
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    await a.click(".unit-card[data-unit='predator-1'] .unit-title")
    sx, sy = await screen_point(a, 10.0, 24.0)
    ex, ey = await screen_point(a, 15.0, 24.0)
    await a.mouse.move(sx, sy)
    await a.mouse.down()
    await a.mouse.move(ex, ey, steps=6)
    await a.wait_for_selector("#move-status[data-band='combat'].ok")
    await a.keyboard.press("f")
    await a.wait_for_selector("#move-status[data-band='flat_out'].rejected")
    checked = await check_action(
        server.http,
        created,
        {"type": "move", "unit": "predator-1", "path": [[15.0, 24.0]], "heading": 0.0, "kind": "flat_out"},
    )
    assert await a.get_attribute("#move-status", "data-code") == checked["rejected"]["code"]
    assert await a.get_attribute("#board-overlay polyline.path", "data-state") == "rejected"
    await a.keyboard.press("n")
    await a.wait_for_selector("#move-status[data-band='combat'].ok")
    await a.mouse.up()
    await wait_seq(a, 2)
    state = await board_matches_state(a, server.http, created["match_id"], created["tokens"]["a"])
    assert state["units"]["predator-1"]["models"]["predator-1-m"]["pos"] == [15.0, 24.0]
    assert errors == []


async def check_action(http: str, created: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    import httpx

    async with httpx.AsyncClient(timeout=10) as client:
        response = await client.post(
            f"{http}/matches/{created['match_id']}/check",
            json={"action": action},
            headers={"authorization": f"Bearer {created['tokens']['a']}"},
        )
        body: dict[str, Any] = response.json()
        return body
