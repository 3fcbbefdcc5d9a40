"""Manifesting a psychic power at the player's table (docs/table.md, docs/psychic.md), in
Chromium. 40k7 The Psychic Phase: side a's Psy-tank (Psychic Pilot, Mastery Level 2, knows Smite)
faces a Marine squad. In the Psychic phase side a's table shows the Manifest control with the
Warp Charge pool; asking for more dice than the pool holds is refused with the server's reason
and numbers, shown under the control; one die is then expended on Smite at the Marines, and
GET /state agrees: one point less in the pool (or the phase over) and the Psychic test logged.
Side b answers its decisions (Deny the Witch, a wound's allocation) through the Python client
with the server's proposal or no attempt. The dice are the server's."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser

from hulldown.client import Client, create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Mount, Options
from hulldown.wire.protocol import Ack
from tests.wh40k7.builders import infantry, vehicle, weapon

from ..server_process import ServerProcess
from .browser import board_matches_state, open_table, state_of, wait_seq

PSYCHIC_TEST = "40k7 The Psychic Phase, Take Psychic Test"


def _request() -> CreateMatch:
    smite = weapon(
        "smite",
        "Smite",
        12,
        4,
        2,
        type="assault",
        shots=4,
        rules=("witchfire:1",),
        mount=Mount(kind="turret"),
    )
    psyker = vehicle(
        "pilot", "a", 10, 24, 0, name="Psy-tank", keywords=("tank", "psychic_pilot:2"), weapons=(smite,)
    )
    marines = infantry("m", "b", [(18, 23), (18, 24.2), (18, 25.4), (18, 26.6)], name="Marines")
    return CreateMatch(
        edition="40k7", scenario=Scenario(units=(psyker, marines)), options=Options(turn_limit=0)
    )


def _pool(state: dict[str, Any], side: str) -> int:
    found = [f for f in state["phase_flags"] if f.startswith(f"warp:{side}:")]
    return int(found[0].split(":")[2]) if found else 0


async def test_a_power_is_manifested_through_the_table(server: ServerProcess, browser: Browser) -> None:
    created = await create_match(server.http, _request())
    match_id, token = created["match_id"], created["tokens"]["a"]
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    async with Client(created["live_url"], token=token) as client_a:
        ended = await client_a.act({"type": "end_phase"})
        assert isinstance(ended, Ack), ended
    await wait_seq(a, ended.seq)
    state = await state_of(server.http, match_id, token)
    assert state["phase"] == "psychic"
    pool = _pool(state, "a")
    assert 3 <= pool <= 8  # D6 + Mastery Level 2

    await a.click(".unit-card[data-unit='pilot'] .unit-title")
    await a.wait_for_selector("section[data-action='manifest']")
    assert await a.get_attribute("#warp-pool", "data-points") == str(pool)
    await a.select_option("#manifest-power", "smite")
    await a.select_option("#manifest-target", "m")
    # More dice than the pool holds: the server refuses, the control shows why, nothing changes.
    await a.fill("#manifest-dice", str(pool + 1))
    await a.press("#manifest-dice", "Tab")
    await a.click("#manifest")
    refused = a.locator("section[data-action='manifest'] .message[data-code='not_enough_warp_charge']")
    await refused.wait_for()
    text = await refused.text_content()
    assert text is not None and f"{pool + 1}" in text and "40k7 The Psychic Phase" in text
    assert (await state_of(server.http, match_id, token))["seq"] == ended.seq

    await a.fill("#manifest-dice", "1")
    await a.press("#manifest-dice", "Tab")
    await a.click("#manifest")
    await wait_seq(a, ended.seq + 1)
    state = await state_of(server.http, match_id, token)
    async with Client(created["live_url"], token=created["tokens"]["b"]) as client_b:
        while state["pending"] is not None and state["pending"]["side"] == "b":
            pending = state["pending"]
            choice = pending["proposal"] or "0"  # an allocation's proposal; Deny: no attempt
            answer = await client_b.act({"type": "decide", "decision": pending["id"], "choice": choice})
            assert isinstance(answer, Ack), answer
            await wait_seq(a, answer.seq)
            state = await state_of(server.http, match_id, token)
    done = await board_matches_state(a, server.http, match_id, token)
    assert done["pending"] is None
    tests = [e for e in done["log"] if e["rule"] == PSYCHIC_TEST]
    assert len(tests) == 1 and tests[0]["text"].startswith("Psy-tank expends 1 Warp Charge point on Smite")
    assert done["phase"] != "psychic" or _pool(done, "a") == pool - 1
    assert errors == []
