"""The browser viewer in a real headless Chromium (docs/architecture.md section 18): load a live
match, play actions from a Python client, and check the page's SVG shows the moved unit and the new
Hull Points; scrub back in the replay; draw a fire arc; survive a lost patch. Saves
test-artifacts/viewer.png.

Needs Debian's ``chromium`` package (/usr/bin/chromium); Playwright drives it through
``executable_path`` (no downloaded browser).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from playwright.async_api import Browser, Page, async_playwright

from hulldown.client import Client, apply_patch, create_match, get_state
from hulldown.match.rules_version import RULES_VERSION, UNRECORDED
from hulldown.match.state import Model, Options, Point, Profile, Unit
from hulldown.store.redis_store import RedisEventStore
from hulldown.wire import protocol
from tests.scenarios import duel, rhino

from ..client.test_patch import _random_op, _random_value
from ..dice.forge import write
from ..dice.test_rules_version import MATCH, created_under
from ..dice.test_verify import finished
from ..server_process import ServerProcess

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
MOVE = {"type": "move", "unit": "predator-1", "path": [[14.0, 24.0]], "heading": 20.0}
END = {"type": "end_phase"}
SHOOT = {"type": "shoot", "unit": "predator-1", "fire": [{"weapon": "lascannon", "target": "rhino-1"}]}


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the viewer tests need Debian's chromium package "
            "(apt-get update && apt-get install -y chromium)"
        )
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            yield launched
        finally:
            await launched.close()


async def open_page(browser: Browser, url: str, errors: list[str]) -> Page:
    page = await browser.new_page(viewport={"width": 1400, "height": 900})
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    await page.goto(url)
    return page


async def model_attrs(page: Page, model_id: str) -> dict[str, Any]:
    attrs: dict[str, Any] = await page.eval_on_selector(
        f"#board g.model[data-model='{model_id}']",
        """g => {
            const r = g.getBoundingClientRect();
            return {x: Number(g.dataset.x), y: Number(g.dataset.y), heading: Number(g.dataset.heading),
                    transform: g.getAttribute('transform'), cx: r.x + r.width / 2, cy: r.y + r.height / 2};
        }""",
    )
    return attrs


async def unit_attrs(page: Page, unit_id: str) -> dict[str, Any]:
    attrs: dict[str, Any] = await page.eval_on_selector(
        f"#board g.unit[data-unit='{unit_id}']",
        """g => ({hp: Number(g.dataset.hp), vitals: g.dataset.vitals, statuses: g.dataset.statuses,
                 cls: g.getAttribute('class'),
                 label: document.querySelector(`#board text.unit-label[data-unit='${g.dataset.unit}']`).textContent})""",
    )
    return attrs


async def shoot_until_hull_points_lost(a: Client, b: Client, attempts: int = 12) -> int:
    """Side a's Predator shoots the Rhino each shooting phase until a shot takes Hull Points (the
    dice are the server's: a hit that penetrates is never certain). Between shots both sides
    end their phases (answering any pending decision with its first option). Returns the seq of
    the shot that did."""
    for _ in range(attempts):
        shot = await a.act(SHOOT)
        assert isinstance(shot, protocol.Ack)
        if a.view.unit("rhino-1")["hp"] < 3:
            return shot.seq
        assert isinstance(await a.act(END), protocol.Ack)
        for _ in range(20):
            view = a.view.data
            assert view is not None and not view["ended"]
            if view["active"] == "a" and view["phase"] == "shooting" and view["pending"] is None:
                break
            pending = view["pending"]
            side = pending["side"] if pending else view["active"]
            client = a if side == "a" else b
            action = (
                {"type": "decide", "decision": pending["id"], "choice": pending["options"][0]}
                if pending
                else END
            )
            assert isinstance(await client.act(action), protocol.Ack)
            await a.wait_seq(client.view.seq)
    pytest.fail(f"no shot took a Hull Point in {attempts} tries")


async def test_live_match_moves_and_hull_points_then_replay(server: ServerProcess, browser: Browser) -> None:
    created = await create_match(server.http, msgspec.structs.replace(duel(), options=Options(turn_limit=30)))
    match_id = created["match_id"]
    errors: list[str] = []
    page = await open_page(browser, created["spectator_url"], errors)
    await page.wait_for_selector("body[data-seq='1'] #board g.model[data-model='predator-1-m']")
    before = await model_attrs(page, "predator-1-m")
    assert (before["x"], before["y"], before["heading"]) == (10.0, 24.0, 0.0)
    assert (await unit_attrs(page, "rhino-1"))["label"] == "Rhino 3/3 HP"
    await page.wait_for_selector("#status.live")

    async with (
        Client(created["live_url"], token=created["tokens"]["a"]) as a,
        Client(created["live_url"], token=created["tokens"]["b"]) as b,
    ):
        for action in (MOVE, END):
            assert isinstance(await a.act(action), protocol.Ack)
        shot_seq = await shoot_until_hull_points_lost(a, b)

    # Destroying the Rhino may end the match: the server then appends the end and the seed
    # reveal after the shot. Wait until the page shows whatever the server's latest seq is.
    await page.wait_for_function(f"Number(document.body.dataset.seq) >= {shot_seq}")
    for _ in range(100):
        state = (await get_state(server.http, match_id))["view"]
        if await page.get_attribute("body", "data-seq") == str(state["seq"]):
            break
        await asyncio.sleep(0.05)
    final_seq = state["seq"]
    assert await page.get_attribute("body", "data-seq") == str(final_seq)
    after = await model_attrs(page, "predator-1-m")
    assert (after["x"], after["y"], after["heading"]) == (14.0, 24.0, 20.0)
    assert after["transform"] == "translate(14 24) rotate(20)"
    # Drawn where the table says: 4 inches to the right on screen, same height (y is flipped,
    # so an unchanged table y means an unchanged screen y).
    scale = await page.eval_on_selector("#board", "svg => svg.getBoundingClientRect().width / (72 + 2)")
    assert after["cx"] - before["cx"] == pytest.approx(4.0 * scale, abs=2.0)
    assert after["cy"] == pytest.approx(before["cy"], abs=2.0)
    ruin = await page.eval_on_selector(
        "#board polygon[data-terrain='ruin-1']",
        "p => { const r = p.getBoundingClientRect(); return r.y + r.height / 2; }",
    )
    assert ruin > after["cy"]  # the ruin (table y 5-9) is drawn below the Predator (table y 24)

    rhino = state["units"]["rhino-1"]
    assert rhino["hp"] < 3
    if rhino["destroyed"] and not rhino["wreck"]:
        # The server's dice may make the shot's damage roll Explodes! (40k7 Vehicle Damage table,
        # about one HP-taking shot in eight): removed as a casualty, the Rhino is no longer drawn
        # on the board, and its card says it was destroyed.
        assert await page.query_selector("#board g.unit[data-unit='rhino-1']") is None
        assert await page.query_selector(".unit-card[data-unit='rhino-1'] .flag.destroyed") is not None
    else:
        shown = await unit_attrs(page, "rhino-1")
        assert shown["hp"] == rhino["hp"]
        assert shown["label"].startswith(f"Rhino {rhino['hp']}/3 HP")
        assert shown["statuses"] == " ".join(rhino["statuses"])
    card = await page.text_content(".unit-card[data-unit='rhino-1'] .vitals")
    assert card == f"{rhino['hp']}/3 HP"

    # The log shows every roll of the shot with its purpose and the rule that applied.
    last = shot_seq
    shot_rolls = [r for entry in state["log"] if entry["seq"] == last for r in entry["rolls"]]
    assert shot_rolls and shot_rolls[0]["purpose"] == "to hit"
    assert any(r["purpose"] != "to hit" for r in shot_rolls)  # the hit's penetration roll too
    shown_rolls = await page.eval_on_selector_all(
        f"#log li.log-entry[data-seq='{last}'] li.roll",
        "rs => rs.map(r => [Number(r.dataset.value), r.dataset.purpose])",
    )
    assert shown_rolls == [[r["value"], r["purpose"]] for r in shot_rolls]
    rules = await page.eval_on_selector_all(
        f"#log li.log-entry[data-seq='{last}'] .rule", "rs => rs.map(r => r.textContent)"
    )
    assert rules == [e["rule"] for e in state["log"] if e["seq"] == last and e["rule"]]

    # The fire arc of the selected weapon (a turret: all round, out to 48").
    await page.click(".unit-card[data-unit='predator-1'] .unit-title")
    await page.click("input[data-weapon='lascannon']")
    await page.wait_for_selector("#board path.arc[data-weapon='lascannon']")
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / "viewer.png"), full_page=True)
    assert (ARTIFACTS / "viewer.png").stat().st_size > 10_000

    # Replay: jump to the start of the shooting phase (seq 3), then scrub to seq 1, then live.
    await page.wait_for_selector("#jump option[value='3'][data-phase='shooting']", state="attached")
    await page.select_option("#jump", "3")
    await page.wait_for_selector("body[data-seq='3'][data-mode='replay']")
    assert (await unit_attrs(page, "rhino-1"))["label"] == "Rhino 3/3 HP"
    await page.eval_on_selector("#scrub", "s => { s.value = '1'; s.dispatchEvent(new Event('input')); }")
    await page.wait_for_selector("body[data-seq='1'][data-mode='replay']")
    replayed = await model_attrs(page, "predator-1-m")
    assert (replayed["x"], replayed["y"], replayed["heading"]) == (10.0, 24.0, 0.0)
    await page.click("#go-live")
    await page.wait_for_selector(f"body[data-seq='{final_seq}'][data-mode='live']")
    assert (await model_attrs(page, "predator-1-m"))["x"] == 14.0
    assert errors == []


async def test_index_lists_live_matches_and_links_to_the_viewer(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, duel())
    errors: list[str] = []
    page = await open_page(browser, f"{server.http}/", errors)
    row = f"tr[data-match='{created['match_id']}']"
    await page.wait_for_selector(row)
    assert "40k7" in (await page.text_content(row) or "")
    await page.click(f"{row} a")
    await page.wait_for_selector("#board g.unit[data-unit='rhino-1']")
    assert page.url.endswith(f"/matches/{created['match_id']}/view")
    assert errors == []


async def test_viewer_resumes_after_a_lost_patch(server: ServerProcess, browser: Browser) -> None:
    created = await create_match(server.http, duel())
    errors: list[str] = []
    page = await open_page(browser, created["spectator_url"], errors)
    await page.wait_for_selector("#status.live")
    await page.evaluate("hulldownViewer.connection.dropPatches = 1")
    async with Client(created["live_url"], token=created["tokens"]["a"]) as player:
        for action in (MOVE, END, END):
            assert isinstance(await player.act(action), protocol.Ack)
    await page.wait_for_selector("body[data-seq='4']")
    stats = await page.evaluate("hulldownViewer.connection.stats")
    assert stats["gaps"] >= 1 and stats["welcomes"] == 1 and stats["patches"] == 3
    live_view = await page.evaluate("hulldownViewer.live")
    assert live_view == (await get_state(server.http, created["match_id"]))["view"]
    assert errors == []


async def test_browser_json_patch_agrees_with_the_python_client(
    server: ServerProcess, browser: Browser
) -> None:
    """The viewer's JSON Patch module and hulldown.client.patch give the same documents."""
    rng = random.Random(99)
    cases = []
    for _ in range(150):
        doc = {"root": _random_value(rng, 0), "list": [1, 2], "map": {"a": {"b": [0]}}}
        ops = []
        shadow = doc
        for _ in range(rng.randrange(1, 6)):
            op = _random_op(rng, shadow)
            ops.append(op)
            shadow = apply_patch(shadow, [op])
        cases.append({"doc": doc, "ops": ops, "expected": shadow})
    page = await browser.new_page()
    await page.goto(f"{server.http}/")
    results = await page.evaluate(
        """async cases => {
            const { applyPatch } = await import('/static/js/jsonpatch.js');
            return cases.map(c => applyPatch(structuredClone(c.doc), c.ops));
        }""",
        cases,
    )
    assert results == [json.loads(json.dumps(c["expected"])) for c in cases]
    failures = await page.evaluate(
        """async () => {
            const { applyPatch, PatchError } = await import('/static/js/jsonpatch.js');
            const bad = [[{op: 'remove', path: '/nope'}], [{op: 'add', path: '/l/5', value: 1}],
                         [{op: 'move', path: '/l/0', from: '/l/1'}], [{op: 'add', path: '/l/01', value: 1}]];
            return bad.map(ops => { try { applyPatch({l: [1, 2]}, ops); return 'applied'; }
                                    catch (e) { return e instanceof PatchError ? 'refused' : String(e); } });
        }"""
    )
    assert failures == ["refused"] * 4


async def test_private_match_viewer_uses_the_spectator_token(server: ServerProcess, browser: Browser) -> None:
    request = msgspec.structs.replace(duel(), options=Options(private_spectators=True))
    created = await create_match(server.http, request)
    errors: list[str] = []
    # The link POST /matches gives carries the token in its fragment (never sent to the server).
    assert created["spectator_url"].endswith(f"/view#spectator_token={created['spectator_token']}")
    bare = created["spectator_url"].split("#")[0]
    page = await open_page(browser, bare, errors)
    await page.wait_for_selector("#status.refused")  # no token: the websocket refuses
    assert await page.text_content("#status") == "refused: unauthorised"
    token = created["spectator_token"]
    # The token travels in the URL fragment (never sent to the server, so never logged); the
    # page's HTTP reads carry it in the Authorization header, never in a URL.
    for link in (f"#spectator_token={token}", f"?spectator_token={token}"):  # new links, old links
        page = await browser.new_page()
        requests: list[tuple[str, str | None]] = []
        page.on("request", lambda r, seen=requests: seen.append((r.url, r.headers.get("authorization"))))
        await page.goto(f"{bare}{link}")
        await page.wait_for_selector("#status.live")
        assert page.url.endswith(f"/view#spectator_token={token}")  # an old link is moved to the fragment
        await page.click(".unit-card[data-unit='predator-1'] .unit-title")
        await page.click("input[data-weapon='lascannon']")
        await page.wait_for_selector("#board path.arc[data-weapon='lascannon']")  # HTTP reads carry the token
        await page.wait_for_selector("#jump option[value='1']", state="attached")
        assert await page.evaluate("hulldownViewer.errors") == []
        reads = [(url, auth) for url, auth in requests if "/arcs" in url or "/index" in url]
        assert reads and all(auth == f"Bearer {token}" for _, auth in reads)
        sent = [url for url, _ in requests if token in url]
        assert sent == ([] if link.startswith("#") else [f"{bare}{link}"])
        await page.close()


async def test_bases_wrecks_terrain_and_statuses_are_drawn(server: ServerProcess, browser: Browser) -> None:
    """Infantry on round bases (radius from base_mm), a wreck, a status label, terrain kinds and
    the two facing diagonals of every hull."""
    request = duel()
    squad_models = {
        f"marine-{i}": Model(id=f"marine-{i}", pos=Point(20.0 + 1.5 * i, 40.0), base_mm=32.0)
        for i in range(3)
    }
    squad = Unit(
        id="squad-1",
        side="a",
        name="Tactical Squad",
        kind="infantry",
        profile=Profile(m=6, ws=4, bs=4, s=4, t=4, w=1, sv=3),
        models=squad_models,
        # Snap Shots only until the end of player turn 2: side b's next turn (side a plays turn 1).
        statuses={"pinned": 0, "snap_only": 2},
    )
    wreck = msgspec.structs.replace(rhino("wreck-1", "b", 60, 10, 90), destroyed=True, wreck=True)
    scenario = msgspec.structs.replace(request.scenario, units=(*request.scenario.units, squad, wreck))
    created = await create_match(server.http, msgspec.structs.replace(request, scenario=scenario))
    errors: list[str] = []
    page = await open_page(browser, created["spectator_url"], errors)
    await page.wait_for_selector("#board g.unit[data-unit='squad-1']")
    radii = await page.eval_on_selector_all(
        "#board g.unit[data-unit='squad-1'] circle.base", "cs => cs.map(c => Number(c.getAttribute('r')))"
    )
    assert radii == [pytest.approx(32.0 / 25.4 / 2, abs=1e-3)] * 3
    squad_shown = await unit_attrs(page, "squad-1")
    assert squad_shown["label"] == "Tactical Squad 3/3 W" and squad_shown["statuses"] == "pinned snap_only"
    assert (
        await page.text_content("#board text.status-label[data-unit='squad-1']")
        == "pinned, snap only until the end of side B's next turn"
    )
    wreck_shown = await unit_attrs(page, "wreck-1")
    assert "wreck" in wreck_shown["cls"].split() and wreck_shown["label"].endswith(" wreck")
    assert await page.eval_on_selector(
        "#board g.unit[data-unit='wreck-1'] rect.hull", "r => getComputedStyle(r).fill"
    ) == ("rgb(74, 74, 74)")
    for unit in ("predator-1", "rhino-1", "wreck-1"):
        diagonals = await page.eval_on_selector_all(
            f"#board g.unit[data-unit='{unit}'] line.diagonal", "ls => ls.length"
        )
        assert diagonals == 2
    terrain_class = await page.get_attribute("#board polygon[data-terrain='ruin-1']", "class")
    assert terrain_class == "terrain difficult blocks_los cover"
    assert errors == []


async def test_a_match_of_older_rules_says_its_replay_uses_todays(
    server: ServerProcess, browser: Browser, store: RedisEventStore
) -> None:
    """docs/architecture.md, 10. Replay: a match is replayed with the server's rules; one created
    under another rules version (here: before versions were recorded) says so on the viewer, a
    match of today's rules says nothing."""
    old = finished()
    old.events = created_under(old.events, UNRECORDED)
    await write(store, old)
    errors: list[str] = []
    page = await open_page(browser, f"{server.http}/matches/{MATCH}/view", errors)
    await page.wait_for_selector("#rules-note:not([hidden])")
    text = await page.text_content("#rules-note")
    assert text is not None and text.startswith(
        f"Played under rules version 0 (before versions were recorded); this server replays it with "
        f"rules version {RULES_VERSION}"
    )
    created = await create_match(server.http, duel())
    page = await open_page(browser, created["spectator_url"], errors)
    # The summary has been read (its version is on the note), and the note stays hidden.
    await page.wait_for_selector(f"#rules-note[data-played='{RULES_VERSION}']", state="attached")
    assert await page.is_hidden("#rules-note")
    assert errors == []
