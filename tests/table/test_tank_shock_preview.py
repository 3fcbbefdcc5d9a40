"""A 40k7 Tank Shock's drag says where the Tank will stop (docs/table.md, Move; the check's
``stops_*`` facts, client-protocol/SPEC.md 4.2), real Chromium against a real server.

40k7 Vehicles, Tanks: Tank Shock - the Tank stops 1" short of friendly models. A Predator dragged
12" straight at its own Tactical Squad (base edge 7.25" ahead of its centre, its front 2.25" ahead)
was drawn green, as if it would go the whole way: only the log said afterwards that it had
stopped after 4.0 in. The path is drawn amber ("warn") while dragging, with the halt and its
reason; a second ghost stands where the Tank halts; releasing acts, and the Tank ends there.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser

from hulldown.client import create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options, Profile
from tests.builders import based_models, multi_model_unit
from tests.scenarios import predator, rhino

from ..server_process import ServerProcess
from .browser import open_table, overlay_item, screen_point, state_of, wait_seq

R32 = 32.0 / 25.4 / 2


def _request() -> CreateMatch:
    marine = Profile(m=6, ws=4, bs=4, s=4, t=4, w=1, i=4, a=1, ld=8, sv=3)
    squad = multi_model_unit(
        "squad",
        "a",
        based_models("squad", [(17.25 + R32, 24.0)], base_mm=32.0),
        kind="infantry",
        profile=marine,
        weapons={},
        name="Tactical Squad",
    )
    units = (predator("predator-1", "a", 10, 24), squad, rhino("rhino-1", "b", 60, 24, 180))
    return CreateMatch(edition="40k7", scenario=Scenario(units=units), options=Options())


async def test_a_tank_shock_into_a_friendly_unit_is_drawn_stopping_short(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, _request())
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)
    await a.click(".unit-card[data-unit='predator-1'] .unit-title")
    await a.select_option("#move-kind", "tank_shock")
    sx, sy = await screen_point(a, 10.0, 24.0)
    ex, ey = await screen_point(a, 22.0, 24.0)
    await a.mouse.move(sx, sy)
    await a.mouse.down()
    await a.mouse.move(ex, ey, steps=10)
    await a.wait_for_selector("#board-overlay polyline.path.warn", state="attached")
    await a.wait_for_selector("#move-status.warn")
    status = await a.text_content("#move-status")
    assert status is not None and status.startswith("legal, stops short: stops at 4.0 in")
    assert '1" short of Tactical Squad, a friendly unit' in status
    assert "Death or Glory may stop it sooner [40k7 Vehicles, Tanks: Tank Shock]" in status
    assert float(await a.get_attribute("#move-status", "data-stops-after") or "nan") == pytest.approx(
        4.0, abs=0.1
    )
    label = await a.text_content("#board-overlay-labels .overlay-label.warn")
    assert label is not None and "stops at 4.0 in" in label
    # The Tank drawn where it halts, its centre 4 in along (as the server measured it).
    halt = await overlay_item(a, "g.ghost.halt")
    assert "warn" in halt["cls"].split()
    assert halt["x"] == pytest.approx(14.0, abs=0.1) and halt["y"] == pytest.approx(24.0, abs=0.1)
    await a.mouse.up()
    await wait_seq(a, 1)
    state = await state_of(server.http, created["match_id"], created["tokens"]["a"])
    pos = state["units"]["predator-1"]["models"]["predator-1-m"]["pos"]
    assert pos[0] == pytest.approx(14.0, abs=0.1) and pos[1] == pytest.approx(24.0, abs=0.1)
    assert not errors, errors
