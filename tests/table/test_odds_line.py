"""The odds line of the player's table (docs/table.md, docs/odds.md) in Debian's Chromium: the
shoot, charge and fight controls show what the selected action will probably do, asked of
POST /matches/{id}/odds before the player confirms, and the line is what the route answers for
the same action. Changing the target changes the line; an illegal selection shows the rejection;
a slow answer to an older selection never overwrites the newer one, and the table keeps one odds
request in flight (the server's 429 odds_busy never shows in the console). Screenshots in
test-artifacts/odds-*.png.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import msgspec
from playwright.async_api import Browser, Page, Request, Response, Route

from hulldown.client import Client, create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options
from hulldown.wire.protocol import Ack
from tests.scenarios import duel, rhino
from tests.wh40k7.builders import infantry, weapon

from ..server_process import ServerProcess
from .browser import open_table, shot, state_of, take_charge_proposal, wait_seq

# web/static/js/odds-line.js: a selection is asked after this many ms of quiet.
ODDS_DEBOUNCE_MS = 250
SLOW_ANSWER_S = 1.5


def three_rhinos() -> Any:
    """The duel's Predator (10, 24) and Rhino (40, 24, facing it), a second Rhino turned away
    (its rear towards the Predator: AV10) and a third 59 in away, beyond the lascannon's 48 in."""
    request = duel()
    units = (*request.scenario.units, rhino("rhino-2", "b", 30, 38, 0), rhino("rhino-3", "b", 66, 44, 180))
    return msgspec.structs.replace(request, scenario=msgspec.structs.replace(request.scenario, units=units))


async def odds_of(server: ServerProcess, created: dict[str, Any], action: dict[str, Any]) -> httpx.Response:
    async with httpx.AsyncClient(timeout=30) as client:
        return await client.post(
            f"{server.http}/matches/{created['match_id']}/odds",
            json={"action": action},
            headers={"authorization": f"Bearer {created['tokens']['a']}"},
        )


def lascannon_at(target: str) -> dict[str, Any]:
    return {"type": "shoot", "unit": "predator-1", "fire": [{"weapon": "lascannon", "target": target}]}


async def shown_line(page: Page, section: str, state: str) -> dict[str, Any]:
    await page.wait_for_selector(f"#odds-{section}[data-state='{state}']", timeout=20_000)
    line: dict[str, Any] = await page.evaluate(
        f"""() => {{
            const el = document.getElementById('odds-{section}');
            return {{
                summary: [...el.querySelectorAll('.odds-summary')].map((e) => e.textContent),
                asks: el.querySelector('.odds-asks')?.textContent || null,
                method: el.dataset.method || null, code: el.dataset.code || null,
                seq: el.dataset.seq || null, text: el.textContent,
            }};
        }}"""
    )
    return line


async def test_the_shoot_controls_show_the_odds_of_the_selection(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, three_rhinos())
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    await a.click("#end-phase")  # 40k7: to the Shooting phase
    await wait_seq(a, 2)
    await a.click(".unit-card[data-unit='predator-1'] .unit-title")
    await a.check("input.fire-weapon[data-weapon='lascannon']")
    note = await shown_line(a, "shoot", "note")
    assert note["text"] == "Odds: choose a target for Lascannon"

    # A weapon and a target: the line is the route's summary for the same action.
    await a.select_option("#fire-target-lascannon", "rhino-1")
    line = await shown_line(a, "shoot", "ok")
    answer = (await odds_of(server, created, lascannon_at("rhino-1"))).json()
    assert line["summary"] == answer["summary"]
    assert line["summary"][0].startswith("Lascannon -> Rhino, front AV11")
    assert line["method"] == answer["method"] == "exact" and line["seq"] == "2"
    assert f"exact ({answer['plays']} plays of the dice)" in line["text"]
    assert answer["decisions"] == [] and line["asks"] is None  # nothing is asked of anyone
    await shot(a, "odds-shoot-rhino-1")

    # Another target: the line follows (the second Rhino shows its rear, AV10).
    await a.select_option("#fire-target-lascannon", "rhino-2")
    await a.wait_for_function(
        "document.querySelector('#odds-shoot .odds-summary')?.textContent.includes('rear AV10')",
        timeout=20_000,
    )
    line = await shown_line(a, "shoot", "ok")
    answer = (await odds_of(server, created, lascannon_at("rhino-2"))).json()
    assert line["summary"] == answer["summary"] and line["summary"][0].startswith(
        "Lascannon -> Rhino, rear AV10"
    )

    # An illegal selection: the rejection the route gives, with its rule.
    await a.select_option("#fire-target-lascannon", "rhino-3")
    line = await shown_line(a, "shoot", "rejected")
    refused = await odds_of(server, created, lascannon_at("rhino-3"))
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert line["code"] == error["code"]
    assert line["text"].startswith(f"Not allowed: {error['message']} [{error['rule']}]")
    await shot(a, "odds-shoot-rejected")

    # Nothing was acted: asking never changes the match.
    assert await a.get_attribute("body", "data-seq") == "2"
    assert await a.evaluate("hulldownTable.errors") == []
    assert errors == []  # a rejection is told by POST /check (200): no 4xx in the console


async def test_a_slow_answer_to_an_older_selection_is_dropped(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, three_rhinos())
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    await a.click("#end-phase")
    await wait_seq(a, 2)
    slowed: list[str] = []

    async def slow_first(route: Route) -> None:
        response = await route.fetch()  # the real server's answer, held back
        if not slowed:
            slowed.append(route.request.post_data or "")
            await asyncio.sleep(SLOW_ANSWER_S)
        await route.fulfill(response=response)

    await a.route("**/odds", slow_first)
    await a.click(".unit-card[data-unit='predator-1'] .unit-title")
    await a.check("input.fire-weapon[data-weapon='lascannon']")
    await a.select_option("#fire-target-lascannon", "rhino-1")
    for _ in range(200):  # until rhino-1's odds request is sent (and held)
        if slowed:
            break
        await asyncio.sleep(0.02)
    await a.select_option("#fire-target-lascannon", "rhino-2")  # while rhino-1's answer is held
    line = await shown_line(a, "shoot", "ok")
    assert "rhino-1" in slowed[0]
    assert line["summary"][0].startswith("Lascannon -> Rhino, rear AV10")
    await a.wait_for_function("hulldownTable.odds.stats.dropped === 1", timeout=10_000)
    line = await shown_line(a, "shoot", "ok")  # the late answer for rhino-1 did not replace it
    assert line["summary"][0].startswith("Lascannon -> Rhino, rear AV10")
    assert await a.evaluate("hulldownTable.odds.stats") == {"asked": 2, "answered": 1, "dropped": 1}
    assert errors == []


def _slow_and_fast_targets() -> CreateMatch:
    """Three models with ten S4 shots each: at ``t`` (two-wound models, 4+ save) the answer is
    sampled and takes about a second; at ``u`` it is quicker."""
    gun = weapon("gun", "Storm gun", 24, 4, None, type="assault", shots=10)
    shooter = infantry("s", "a", [(10, 24), (10, 25.5), (10, 27)], weapons=[(0, gun), (1, gun), (2, gun)])
    slow = infantry("t", "b", [(20, 23), (20, 25), (23, 24), (21, 27)], w=2, sv=4)
    fast = infantry("u", "b", [(20, 33), (20, 35), (23, 34)], w=1, sv=5)
    return CreateMatch(
        edition="40k7", scenario=Scenario(units=(shooter, slow, fast)), options=Options(turn_limit=0)
    )


async def test_one_odds_request_in_flight_and_the_latest_selection_is_asked(
    server: ServerProcess, browser: Browser
) -> None:
    """The server answers 429 odds_busy while the side's previous odds request on the match is
    still being worked out (docs/odds.md, What an answer may cost): the table keeps one in flight,
    a selection changed meanwhile is asked when it returns, the stale answer is dropped, and the
    console shows no failed request."""
    created = await create_match(server.http, _slow_and_fast_targets())
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    in_flight: list[str] = []
    most = [0]
    statuses: list[int] = []

    def sent(request: Request) -> None:
        if request.url.endswith("/odds"):
            in_flight.append(request.url)
            most[0] = max(most[0], len(in_flight))

    def done(request: Request) -> None:
        if request.url.endswith("/odds"):
            in_flight.pop()

    def answered(response: Response) -> None:
        if response.url.endswith("/odds"):
            statuses.append(response.status)

    a.on("request", sent)
    a.on("requestfinished", done)
    a.on("requestfailed", done)
    a.on("response", answered)
    # The first answer (the real server's) is held until the selection has changed, so it is in
    # flight then however fast this machine works it out.
    release = asyncio.Event()
    held: list[str] = []

    async def hold_first(route: Route) -> None:
        first = not held
        if first:
            held.append(route.request.post_data or "")
        response = await route.fetch()
        if first:
            await release.wait()
        await route.fulfill(response=response)

    await a.route("**/odds", hold_first)
    async with Client(created["live_url"], token=created["tokens"]["a"]) as client:
        for _ in range(4):
            state = await state_of(server.http, created["match_id"], created["tokens"]["a"])
            if state["phase"] == "shooting":
                break
            assert isinstance(await client.act({"type": "end_phase"}), Ack)
    await wait_seq(a, state["seq"])
    await a.click(".unit-card[data-unit='s'] .unit-title")
    guns = ["gun", "gun-1", "gun-2"]
    for gun in guns:
        await a.check(f"input.fire-weapon[data-weapon='{gun}']")
        await a.select_option(f"#fire-target-{gun}", "t")
    for _ in range(300):  # until the slow answer (all at t) is asked
        if most[0]:
            break
        await asyncio.sleep(0.02)
    assert in_flight, "the odds of the first selection were not asked"
    # While it is in flight, another target: due (past the debounce) before the first returns.
    for gun in guns:
        await a.select_option(f"#fire-target-{gun}", "u")
    await asyncio.sleep(4 * ODDS_DEBOUNCE_MS / 1000)
    assert in_flight and len(held) == 1 and '"target":"t"' in held[0].replace(" ", "")
    release.set()
    latest = {"type": "shoot", "unit": "s", "fire": [{"weapon": gun, "target": "u"} for gun in guns]}
    await a.wait_for_function(
        "hulldownTable.odds.sections.shoot.status === 'ok'"
        " && JSON.parse(hulldownTable.odds.sections.shoot.key)[1].fire[0].target === 'u'",
        timeout=30_000,
    )
    line = await shown_line(a, "shoot", "ok")
    answer = (await odds_of(server, created, latest)).json()
    assert line["summary"] == answer["summary"] and line["seq"] == str(answer["seq"])
    assert most[0] == 1, f"{most[0]} odds requests were in flight at once"
    assert statuses and all(s == 200 for s in statuses), statuses
    stats = await a.evaluate("hulldownTable.odds.stats")
    assert stats["dropped"] >= 1 and stats["answered"] >= 1
    assert errors == []  # no 429 odds_busy in the console


async def test_the_charge_and_fight_controls_show_their_odds(server: ServerProcess, browser: Browser) -> None:
    """40k7 Assault phase: a squad 1.5 in from a Rhino (2D6 always reaches; a Rhino without
    weapons has no Overwatch) - the charge line says it reaches; after the charge, the fight
    line gives the Krak grenades' odds against the Rhino (40k7 Vehicles and Close Combat)."""
    from hulldown.match.state import Model, Point, Profile, Unit, Weapon

    request = duel()
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
    scenario = msgspec.structs.replace(request.scenario, units=(*request.scenario.units, squad))
    created = await create_match(server.http, msgspec.structs.replace(request, scenario=scenario))
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    for seq in (2, 3):  # end the Movement and Shooting phases
        await a.click("#end-phase")
        await wait_seq(a, seq)
    await a.click(".unit-card[data-unit='squad'] .unit-title")

    # Fighting before charging: not locked in combat - the rejection.
    await a.select_option("#fight-target", "rhino-1")
    line = await shown_line(a, "fight", "rejected")
    refused = await odds_of(server, created, {"type": "fight", "unit": "squad", "target": "rhino-1"})
    assert refused.status_code == 422 and line["code"] == refused.json()["error"]["code"]

    await a.select_option("#charge-target", "rhino-1")
    line = await shown_line(a, "charge", "ok")
    answer = (await odds_of(server, created, {"type": "charge", "unit": "squad", "target": "rhino-1"})).json()
    assert line["summary"] == answer["summary"]
    charger = next(u for u in answer["units"] if u["unit"] == "squad")
    assert charger["reaches"]["p"] == 1.0
    # 40k7 Charge, Move Chargers: the charger's side places its models once the charge reaches.
    assert [(d["kind"], d["side"], d["raised"]["p"]) for d in answer["decisions"]] == [
        ("place_chargers", "a", 1.0)
    ]
    assert line["asks"] == "Asks: place chargers (side a) 100%"
    await shot(a, "odds-charge")
    await a.click("#charge")
    await a.wait_for_selector(".message[data-section='charge'][data-code='ack']")
    await a.wait_for_selector("#odds-charge[data-state='none']", state="attached")  # acted: cleared
    await take_charge_proposal(a)  # 40k7 Charge, Move Chargers: the straight move (docs/decisions.md)

    # The fight line is asked again at the new seq and is now the odds of the blows.
    await a.select_option("#fight-weapon", "krak")
    line = await shown_line(a, "fight", "ok")
    fight = {"type": "fight", "unit": "squad", "target": "rhino-1", "weapon": "krak"}
    answer = (await odds_of(server, created, fight)).json()
    assert line["summary"] == answer["summary"] and line["seq"] == str(answer["seq"])
    assert any(s.startswith("Krak grenade -> Rhino") for s in line["summary"]), line["summary"]
    await shot(a, "odds-fight")
    assert await a.evaluate("hulldownTable.errors") == []
    assert errors == []  # a rejection is told by POST /check (200): no 4xx in the console
