"""The kinds of move the table offers a 40k7 unit (docs/table.md, Move), real Chromium against a
real server: only the kinds its type could ever make. The Kind menu offered every 40k7 kind to
every unit - Tank Shock and Ram to a Trukk, a Walker and a squad of Infantry, Flat Out to Infantry
and Run to a Tank - and the server refused each ("is not a Tank", "is a vehicle: vehicles move
Flat Out instead of Running"). 40k7 Vehicles: Run is not for vehicles other than Walkers; Moving
Flat Out is for vehicles other than Walkers; Tanks: Tank Shock and Ramming are for Tanks only.
"""

from __future__ import annotations

from playwright.async_api import Browser

from hulldown.client import create_match
from hulldown.match.scenario import CreateMatch, Scenario
from hulldown.match.state import Options, Profile
from tests.builders import based_models, multi_model_unit
from tests.scenarios import predator, rhino, vehicle

from ..server_process import ServerProcess
from .browser import drag, open_table, wait_seq


def _request() -> CreateMatch:
    marine = Profile(m=6, ws=4, bs=4, s=4, t=4, w=1, i=4, a=1, ld=8, sv=3)
    squad = multi_model_unit(
        "squad",
        "a",
        based_models("squad", [(20.0, 30.0), (21.5, 30.0)], base_mm=32.0),
        kind="infantry",
        profile=marine,
        weapons={},
        name="Tactical Squad",
    )
    trukk = vehicle("trukk", "a", 10, 10, name="Trukk", keywords=("fast", "open-topped", "transport"))
    walker = vehicle("dread", "a", 30, 10, name="Dreadnought", keywords=("walker",), length=2.5, width=2.5)
    units = (predator("predator-1", "a", 10, 24), trukk, walker, squad, rhino("rhino-1", "b", 60, 24, 180))
    return CreateMatch(edition="40k7", scenario=Scenario(units=units), options=Options())


async def test_the_kind_menu_offers_only_the_kinds_the_unit_may_make(
    server: ServerProcess, browser: Browser
) -> None:
    created = await create_match(server.http, _request())
    errors: list[str] = []
    _, a = await open_table(browser, created["play_urls"]["a"], errors)

    async def kinds(unit: str) -> list[str]:
        await a.click(f".unit-card[data-unit='{unit}'] .unit-title")
        await a.wait_for_selector("#move-kind")
        values: list[str] = await a.eval_on_selector_all("#move-kind option", "os => os.map(o => o.value)")
        return values

    assert await kinds("predator-1") == ["normal", "flat_out", "tank_shock", "ram"]
    assert await kinds("trukk") == ["normal", "flat_out"]
    assert await kinds("dread") == ["normal", "run"]
    assert await kinds("squad") == ["normal", "run"]

    # A kind chosen for one unit does not stay chosen, unseen, for a unit that cannot make it: the
    # Predator's Tank Shock is not what the Trukk's drag sends.
    await a.click(".unit-card[data-unit='predator-1'] .unit-title")
    await a.select_option("#move-kind", "tank_shock")
    await a.click(".unit-card[data-unit='trukk'] .unit-title")
    assert await a.input_value("#move-kind") == "normal"
    await drag(a, (10, 10), [], (14, 10))
    await wait_seq(a, 2)
    assert not errors, errors
