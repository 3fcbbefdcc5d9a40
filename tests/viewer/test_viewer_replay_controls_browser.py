"""The spectator viewer's replay controls in a real headless Chromium (docs/table.md, "The
viewer's fixes"): Play advances one event at a time through the same seek as the step buttons,
one seek in flight at a time, up to the latest event (then live), and pauses when the user
moves the position; the jump list shows the turn/phase the position is in."""

from __future__ import annotations

import asyncio

from playwright.async_api import Browser, Page

from hulldown.client import Client, create_match
from tests.scenarios import duel

from ..server_process import ServerProcess
from .test_viewer_browser import END, MOVE, browser
from .test_viewer_undo_browser import UNDO, open_live, play

__all__ = ["browser"]

# Counts the page's GET /state?at= requests and the most ever in flight at once.
COUNT_SEEKS = """() => {
    window.seekProbe = {sent: [], inFlight: 0, maxInFlight: 0};
    const fetchBefore = window.fetch;
    window.fetch = async (url, ...rest) => {
        const probe = window.seekProbe;
        const seek = String(url).includes('/state?at=');
        if (seek) {
            probe.sent.push(Number(new URL(String(url), location.href).searchParams.get('at')));
            probe.inFlight += 1;
            probe.maxInFlight = Math.max(probe.maxInFlight, probe.inFlight);
        }
        try {
            return await fetchBefore(url, ...rest);
        } finally {
            if (seek) probe.inFlight -= 1;
        }
    };
}"""

# Records every seq the page shows, in order (body[data-seq]).
RECORD_SEQS = """() => {
    window.shownSeqs = [];
    new MutationObserver(() => {
        const seq = Number(document.body.dataset.seq);
        if (window.shownSeqs[window.shownSeqs.length - 1] !== seq) window.shownSeqs.push(seq);
    }).observe(document.body, {attributes: true, attributeFilter: ['data-seq']});
}"""


async def scrub_to(page: Page, seq: int) -> None:
    await page.eval_on_selector(
        "#scrub", f"s => {{ s.value = '{seq}'; s.dispatchEvent(new Event('input')); }}"
    )


async def jump_shows(page: Page) -> str:
    value: str = await page.eval_on_selector("#jump", "s => s.value")
    return value


async def seven_events(server: ServerProcess, browser: Browser, errors: list[str]) -> Page:
    """A duel with a move, its phase ended, both undone, then played again: seq 1 to 7, the
    shooting phase started at seq 3 undone at seq 4, started again at seq 7."""
    created = await create_match(server.http, duel())
    page = await open_live(browser, created["spectator_url"], errors)
    async with Client(created["live_url"], token=created["tokens"]["a"]) as a:
        assert await play(a, MOVE, END, UNDO, UNDO, MOVE, END) == 7
    await page.wait_for_selector("body[data-seq='7'][data-mode='live']")
    await page.wait_for_selector("#jump option[value='7'][data-phase='shooting']", state="attached")
    return page


async def test_play_advances_one_event_at_a_time_to_live(server: ServerProcess, browser: Browser) -> None:
    """From seq 2, Play at 4x shows seq 3, 4, 5, 6 in the replay and then the live seq 7, each
    state fetched once and never two at once; it then stops (the button says Play again)."""
    errors: list[str] = []
    page = await seven_events(server, browser, errors)
    await page.evaluate(COUNT_SEEKS)
    await scrub_to(page, 2)
    await page.wait_for_selector("body[data-seq='2'][data-mode='replay']")
    assert await page.text_content("#play") == "Play"
    await page.evaluate("() => { window.seekProbe.sent = []; window.seekProbe.maxInFlight = 0; }")
    await page.evaluate(RECORD_SEQS)
    await page.select_option("#play-speed", "4")
    await page.click("#play")
    assert await page.text_content("#play") == "Pause"
    assert await page.get_attribute("#play", "aria-pressed") == "true"
    await page.wait_for_selector("body[data-seq='7'][data-mode='live']", timeout=20_000)
    await page.wait_for_selector("#play[aria-pressed='false']", timeout=5_000)
    assert await page.text_content("#play") == "Play"
    assert await page.evaluate("window.shownSeqs") == [3, 4, 5, 6, 7]
    probe = await page.evaluate("window.seekProbe")
    assert probe["sent"] == [3, 4, 5, 6]
    assert probe["maxInFlight"] == 1
    assert await page.is_disabled("#go-live")
    assert errors == []


async def test_playback_pauses_when_the_user_moves_the_position(
    server: ServerProcess, browser: Browser
) -> None:
    """Stepping, scrubbing, jumping and Live each pause playback: the position then stays where
    the user put it."""
    errors: list[str] = []
    page = await seven_events(server, browser, errors)

    async def stays(seq: int, mode: str) -> None:
        await page.wait_for_selector(f"body[data-seq='{seq}'][data-mode='{mode}']")
        assert await page.get_attribute("#play", "aria-pressed") == "false"
        await asyncio.sleep(2.0)  # more than two events' time at 1x: playback would have moved on
        assert await page.get_attribute("body", "data-seq") == str(seq)
        assert await page.text_content("#play") == "Play"

    async def start_from(seq: int) -> None:
        await scrub_to(page, seq)
        await page.wait_for_selector(f"body[data-seq='{seq}'][data-mode='replay']")
        await page.click("#play")
        await page.wait_for_selector(f"body[data-seq='{seq + 1}'][data-mode='replay']", timeout=10_000)

    await start_from(1)
    await page.click("#step-back")
    await stays(1, "replay")

    await start_from(1)
    await scrub_to(page, 5)
    await stays(5, "replay")

    await start_from(1)
    await page.select_option("#jump", "3")
    await stays(3, "replay")

    await start_from(1)
    await page.click("#go-live")
    await stays(7, "live")

    # Started while live, playback replays from seq 1.
    await page.click("#play")
    await page.wait_for_selector("body[data-seq='1'][data-mode='replay']", timeout=10_000)
    await page.click("#play")  # Pause
    assert await page.text_content("#play") == "Play"
    assert errors == []


async def test_jump_list_shows_the_phase_of_the_position(server: ServerProcess, browser: Browser) -> None:
    """After a jump, stepping and scrubbing elsewhere leave the jump list on the phase the shown
    state is in (a phase start undone before the position is not on its line), and live on the
    placeholder; the undone-branch marks stay."""
    errors: list[str] = []
    page = await seven_events(server, browser, errors)
    assert await jump_shows(page) == ""
    await page.select_option("#jump", "7")
    await page.wait_for_selector("body[data-seq='7'][data-mode='live']")
    assert await jump_shows(page) == ""  # the latest seq is live

    await page.select_option("#jump", "3")
    await page.wait_for_selector("body[data-seq='3'][data-mode='replay']")
    assert await jump_shows(page) == "3"
    await page.click("#step-back")
    await page.wait_for_selector("body[data-seq='2'][data-mode='replay']")
    assert await jump_shows(page) == "1"
    await page.click("#step-forward")
    await page.wait_for_selector("body[data-seq='3'][data-mode='replay']")
    assert await jump_shows(page) == "3"  # the undone shooting phase, as the state at seq 3 is
    await page.click("#step-forward")
    await page.wait_for_selector("body[data-seq='4'][data-mode='replay']")
    assert await jump_shows(page) == "1"  # the undo at seq 4 took the shooting phase back

    await page.select_option("#jump", "3")
    await page.wait_for_selector("body[data-seq='3'][data-mode='replay']")
    await scrub_to(page, 6)
    await page.wait_for_selector("body[data-seq='6'][data-mode='replay']")
    assert await jump_shows(page) == "1"
    await page.click("#go-live")
    await page.wait_for_selector("body[data-seq='7'][data-mode='live']")
    assert await jump_shows(page) == ""

    texts = await page.eval_on_selector_all("#jump option", "os => os.map(o => o.textContent)")
    assert "Turn 1 · side A · shooting (seq 3) (undone at seq 4)" in texts
    assert errors == []
