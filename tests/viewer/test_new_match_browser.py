"""The new-match page in a real headless Chromium (Debian's /usr/bin/chromium via Playwright):
upload two rosters, set the options, create the match, open both side links and the spectator
link; then create one from an example. Saves test-artifacts/new-match.png."""

from __future__ import annotations

from pathlib import Path

import httpx
from playwright.async_api import Browser

from ..server_process import ServerProcess
from .test_viewer_browser import ARTIFACTS, browser, open_page

ROSTERS = Path(__file__).resolve().parents[1] / "fixtures" / "rosters"
__all__ = ["browser"]  # the fixture, shared with the viewer tests


async def test_new_match_from_two_rosters(server: ServerProcess, browser: Browser) -> None:
    errors: list[str] = []
    page = await open_page(browser, f"{server.http}/new", errors)
    await page.select_option("#edition", "hh3")
    await page.check("input[name=source][value=rosters]")
    await page.set_input_files("#roster-a", str(ROSTERS / "hh3-legiones-astartes.rosz"))
    await page.set_input_files("#roster-b", str(ROSTERS / "hh3-solar-auxilia.ros"))
    await page.fill("#delay-events", "2")
    await page.check("#private")
    await page.click("#create")
    await page.wait_for_selector("#result:not([hidden])", timeout=30_000)
    assert await page.is_hidden("#error"), await page.text_content("#error")
    report = await page.locator("#report li").count()
    assert report > 0  # the import report is shown
    match_id = (await page.text_content("#match-id")) or ""
    links = {k: await page.get_attribute(f"#link-{k}", "href") for k in ("a", "b", "spectator")}
    assert all(links.values()) and len(set(links.values())) == 3
    assert "spectator_token=" in (links["spectator"] or "")  # a private match
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / "new-match.png"), full_page=True)

    summary = httpx.get(
        f"{server.http}/matches/{match_id}/state",
        headers={"Authorization": f"Bearer {(links['a'] or '').split('#token=')[1]}"},
        timeout=10,
    )
    assert summary.status_code == 200
    view = summary.json()["view"]
    assert view["edition"] == "hh3" and view["options"]["private_spectators"] is True
    assert view["options"]["spectator_delay_events"] == 2 and view["options"]["wrecks_remain"] is True
    assert {u["side"] for u in view["units"].values()} == {"a", "b"}

    for key in ("a", "b", "spectator"):
        side_page = await open_page(browser, links[key] or "", errors)
        await side_page.wait_for_selector("#board g.unit", timeout=30_000)
        shown = await side_page.locator("#board g.unit").count()
        assert shown == sum(1 for u in view["units"].values() if u["embarked_in"] is None)
        await side_page.close()
    assert not [e for e in errors if "favicon" not in e], errors


async def test_new_match_from_an_example(server: ServerProcess, browser: Browser) -> None:
    errors: list[str] = []
    page = await open_page(browser, f"{server.http}/new", errors)
    await page.select_option("#edition", "40k11")
    await page.wait_for_function("document.querySelector('#example').value === '40k11-skirmish'")
    await page.click("#create")
    await page.wait_for_selector("#result:not([hidden])", timeout=30_000)
    link = await page.get_attribute("#link-spectator", "href")
    assert link is not None and "token" not in link  # a public match: the plain viewer link
    match_id = (await page.text_content("#match-id")) or ""
    state = httpx.get(f"{server.http}/matches/{match_id}/state", timeout=10).json()["view"]
    assert state["edition"] == "40k11" and "riptide-battlesuit" in state["units"]
    assert not errors, errors


async def test_new_match_from_two_rosters_with_a_mission(server: ServerProcess, browser: Browser) -> None:
    """The mission and its deployment map are chosen on the page (GET /missions): the match
    begins with the set-up (docs/missions.md), every imported unit waiting to be deployed."""
    errors: list[str] = []
    page = await open_page(browser, f"{server.http}/new", errors)
    await page.select_option("#edition", "40k7")
    await page.wait_for_selector(
        "#mission option[value='crusade/dawn_of_war']", state="attached", timeout=10_000
    )
    assert await page.locator("#mission").input_value() == ""  # no mission unless one is chosen
    await page.select_option("#mission", "crusade/dawn_of_war")
    await page.check("input[name=source][value=rosters]")
    await page.set_input_files("#roster-a", str(ROSTERS / "40k7-space-marines.rosz"))
    await page.set_input_files("#roster-b", str(ROSTERS / "40k7-orks.rosz"))
    await page.click("#create")
    await page.wait_for_selector("#result:not([hidden])", timeout=30_000)
    assert await page.is_hidden("#error"), await page.text_content("#error")
    link_a = await page.get_attribute("#link-a", "href") or ""
    match_id = (await page.text_content("#match-id")) or ""
    state = httpx.get(
        f"{server.http}/matches/{match_id}/state",
        headers={"Authorization": f"Bearer {link_a.split('#token=')[1]}"},
        timeout=10,
    ).json()["view"]
    mission = state["mission"]
    assert mission["mission"]["id"] == "crusade" and mission["mission"]["deployment"]["id"] == "dawn_of_war"
    assert state["phase"] == "setup" and mission["step"] == "roll_off"
    assert mission["off_table"] == {uid: "undeployed" for uid in state["units"]}

    # A player's table opens on the roll-off.
    table = await open_page(browser, link_a, errors)
    await table.wait_for_selector("#setup[data-step='roll_off'] #roll-off", timeout=30_000)
    assert not errors, errors
