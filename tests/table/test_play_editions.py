"""Each edition as its own rules write it at the player's table (docs/table.md "What the table
shows"), real Chromium against a real server.

- The unit card shows the edition's own characteristics, only those the state carries (before,
  every card read the 40k7 statline: a 40k11 vehicle "S 0 ... I 0" with no OC, AP "AP2"): 40k7
  a model's WS BS S T W I A Ld Sv, a vehicle's BS and armour; hh3 M .. Ld Cl Int Sv Inv, a
  vehicle's M BS and armour; 40k11 M T Sv W Ld OC (the `oc:X` keyword, else its kind's default:
  docs/missions.md), its weapons Range A BS/WS S AP D with AP as -X.
- The header says how long the game lasts (before, "last turn 5" in a 40k7 mission whose length is
  random): 40k7 Random Game Length "last turn 5-7" with the rolls, 40k11 counting battle rounds.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
import pytest
from playwright.async_api import Browser, Page

from hulldown.client import Client
from hulldown.match.definition import to_document
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Edition, Options, Unit
from hulldown.wire.protocol import Ack
from tests.hh3 import builders as hh3
from tests.scenarios import predator
from tests.wh40k7 import builders as k7
from tests.wh40k11 import builders as k11

from ..server_process import ServerProcess
from .browser import open_table, set_up_by_api, wait_seq


def _create(
    server: ServerProcess, edition: Edition, units: tuple[Unit, ...], mission: str = ""
) -> dict[str, Any]:
    doc = to_document(CreateMatch(edition=edition, scenario=Scenario(units=units), options=Options()))
    if mission:
        doc["mission"] = {"id": mission, "deployment": "dawn_of_war"}
    response = httpx.post(f"{server.http}/matches", content=msgspec.json.encode(doc), timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def _card(page: Page, unit: str) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """The selected unit's characteristics (label, value) and its first weapon's cells."""
    await page.click(f"#units li[data-unit='{unit}'] .unit-title")
    await page.wait_for_selector(f"#unit-panel .card[data-unit='{unit}']")
    stats: list[tuple[str, str]] = await page.eval_on_selector_all(
        f"#unit-panel .card[data-unit='{unit}'] .profile .stat",
        "ss => ss.map(s => [s.querySelector('b').textContent, s.textContent.slice(s.querySelector('b').textContent.length).trim()])",
    )
    cells: dict[str, str] = await page.evaluate(
        f"""() => {{
            const row = document.querySelector("#unit-panel .card[data-unit='{unit}'] .weapon-table tr");
            const out = {{}};
            if (row) for (const td of row.querySelectorAll('td[data-col]')) out[td.dataset.col] = td.textContent;
            return out;
        }}"""
    )
    return [(k, v) for k, v in stats], cells


def _stats(text: str) -> list[tuple[str, str]]:
    """``"WS 4 | Sv 3+"`` -> ``[("WS", "4"), ("Sv", "3+")]``."""
    return [(k, v) for k, v in (part.split(" ", 1) for part in text.split(" | "))]


K7_CARDS = {
    "predator-1": (_stats("BS 4"), {"Range": '48"', "S": "S 9", "AP": "AP 2", "Type": "heavy"}),
    "tac": (_stats("WS 4 | BS 4 | S 4 | T 4 | W 1 | I 4 | A 1 | Ld 8 | Sv 3+ | Inv -"), {}),
}
HH3_CARDS = {
    "t": (_stats('M 10" | BS 4'), {"Range": '48"', "S": "S 9", "AP": "AP 2", "Type": "heavy 2"}),
    "s": (
        _stats('M 7" | WS 4 | BS 4 | S 4 | T 4 | W 1 | I 4 | A 1 | Ld 7 | Cl 8 | Int 7 | Sv 3+ | Inv -'),
        {},
    ),
}
K11_CARDS = {
    "tank": (
        _stats('M 10" | T 10 | Sv 3+ | W 12 | Ld 7+ | OC 4 | Inv - | BS 3+ | WS 4+'),
        {"Range": '36"', "A": "A 2", "BS": "BS 3+", "S": "S 9", "AP": "AP -2", "D": "D 3"},
    ),
    "guard": (
        _stats('M 6" | T 4 | Sv 3+ | W 1 | Ld 7+ | OC 2 (the default for infantry) | Inv - | BS 3+ | WS 3+'),
        {},
    ),
    # 40k11 random characteristics as the datasheet prints them, not the average kept in
    # shots/damage; abilities in brackets (docs/match-definition.md, 40k11 weapon rules).
    "kannon": (
        _stats('M 6" | T 4 | Sv 3+ | W 1 | Ld 7+ | OC 2 (the default for infantry) | Inv - | BS 3+ | WS 3+'),
        {
            "A": "A D6+3",
            "D": "D D6",
            "Rules": "[RAPID FIRE 1], [TWIN-LINKED], [ANTI-INFANTRY 4+], [CLOSE-QUARTERS], "
            "[SUSTAINED HITS D3], [IGNORES COVER], [INDIRECT FIRE], [HAZARDOUS], [ONE SHOT]",
        },
    ),
}


def _units(edition: str) -> tuple[Unit, ...]:
    if edition == "40k7":
        return (
            predator("predator-1", "a", 10, 24),
            k7.infantry("tac", "a", [(20, 10)]),
            k7.infantry("e", "b", [(60, 40)]),
        )
    if edition == "hh3":
        gun = hh3.weapon("las", strength=9, ap=2, shots=2, rng=48)
        return (
            hh3.tank("t", "a", 10, 24, weapons=(gun,)),
            hh3.squad("s", "a", [(20, 10)]),
            hh3.squad("e", "b", [(60, 40)]),
        )
    cannon = k11.weapon("cannon", "tank-m", rng=36, s=9, ap=2, d=3, shots=2)
    tank = k11.vehicle("tank", "a", 10, 24, weapons=(cannon,), keywords=("vehicle", "oc:4"))
    rules = (
        *("attacks:d6+3", "damage:d6", "rapid_fire:1", "twin_linked", "anti:infantry:4", "close_quarters"),
        *("sustained_hits:d3", "ignores_cover", "indirect_fire", "hazardous", "one_shot"),
    )
    kannon = k11.weapon("kannon", "kannon-1", rng=36, s=8, shots=7, d=4, rules=rules)
    crew = k11.infantry("kannon", "a", [(30, 10)], weapons=(kannon,))
    return (tank, k11.infantry("guard", "a", [(20, 10)]), crew, k11.infantry("e", "b", [(60, 40)]))


@pytest.mark.parametrize("edition", ["40k7", "hh3", "40k11"])
async def test_the_unit_card_reads_each_editions_statline(
    server: ServerProcess, browser: Browser, edition: Edition
) -> None:
    created = _create(server, edition, _units(edition))
    errors: list[str] = []
    _, page = await open_table(browser, created["play_urls"]["a"], errors)
    expected = {"40k7": K7_CARDS, "hh3": HH3_CARDS, "40k11": K11_CARDS}[edition]
    for unit, (stats, weapon) in expected.items():
        shown, cells = await _card(page, unit)
        assert shown == stats, (unit, shown)
        for column, text in weapon.items():
            assert cells[column] == text, (unit, column, cells)
    assert errors == []


async def test_the_header_says_how_long_the_game_lasts(server: ServerProcess, browser: Browser) -> None:
    # 40k7 Crusade: the game may end after turn 5 on a roll, else after 6, else 7.
    created = _create(
        server, "40k7", (k7.infantry("tac", "a", [(20, 30)]), k7.infantry("foe", "b", [(50, 30)])), "crusade"
    )
    deploys = {
        "a": [{"type": "deploy", "unit": "tac", "positions": {"tac-0": [20.0, 6.0]}}],
        "b": [{"type": "deploy", "unit": "foe", "positions": {"foe-0": [50.0, 42.0]}}],
    }
    view = await set_up_by_api(created["live_url"], created["tokens"], deploys)
    errors: list[str] = []
    _, page = await open_table(browser, created["play_urls"]["a"], errors)
    await wait_seq(page, view["seq"])
    assert await page.inner_text("#turn") == "Turn 1"
    length = await page.inner_text("#setup-step")
    assert length.startswith(
        "last turn 5-7 (random: after turn 5 a D6 of 3+ plays turn 6, after turn 6 a D6 of 4+ plays turn 7)"
    ), length
    assert length.endswith("40k7 rulebook, Random Game Length")
    # 40k11 counts battle rounds; with no mission, the match's turn limit is the last.
    created = _create(server, "40k11", _units("40k11"))
    _, page = await open_table(browser, created["play_urls"]["a"], errors)
    assert await page.inner_text("#turn") == "Battle round 1"
    assert await page.inner_text("#game-length") == "last battle round 5 (the match's turn limit)"
    assert errors == []


async def test_a_spent_one_shot_weapon_is_named_on_the_chip_and_the_board(
    server: ServerProcess, browser: Browser
) -> None:
    # 40k11 core rules, One Shot: the fired weapon is kept as the status `one_shot:<weapon id>`
    # (docs/rules-notes.md); the unit list's chip and the board's label name the weapon.
    missile = k11.weapon("seeker", "crew-1", rng=72, s=14, ap=3, d=6, rules=("one_shot",))
    crew = k11.infantry("crew", "a", [(30, 10)], weapons=(missile,))
    created = _create(server, "40k11", (crew, k11.infantry("e", "b", [(40, 40)])))
    async with Client(created["live_url"], token=created["tokens"]["a"]) as a:
        for _ in range(2):  # command, movement: to the Shooting phase
            assert isinstance(await a.act({"type": "end_phase"}), Ack)
        shot = await a.act({"type": "shoot", "unit": "crew", "fire": [{"weapon": "seeker", "target": "e"}]})
        assert isinstance(shot, Ack), shot
    errors: list[str] = []
    _, page = await open_table(browser, created["play_urls"]["a"], errors)
    await wait_seq(page, shot.seq)
    chips = await page.eval_on_selector_all(
        "#units li[data-unit='crew'] .statuses .status", "ss => ss.map(s => s.textContent)"
    )
    assert chips == ["seeker fired (One Shot)"]
    label = await page.text_content("#board text.status-label[data-unit='crew']")
    assert label == "seeker fired (One Shot)"
    await page.click("#units li[data-unit='crew'] .unit-title")
    line = page.locator("#unit-panel .card[data-unit='crew'] li.status-line[data-status='one_shot:seeker']")
    assert await line.inner_text() == "seeker fired: [ONE SHOT], it cannot be fired again this battle"
    assert errors == []
