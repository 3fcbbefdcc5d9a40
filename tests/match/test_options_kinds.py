"""docs/table.md, "What the unit may do": the unit card lists the kinds of action its edition
has - open, or closed with the refusal - and no kind the edition does not have (40k7 listed
advance, rush and battlesmith as "not in this edition"; hh3 listed run, flat out, advance and
tank shock as "wrong phase", as if they would open later)."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from hulldown.match.editions import rules_for
from hulldown.match.options import unit_options
from hulldown.match.reducer import initial_state
from hulldown.match.scenario import match_created
from hulldown.match.state import Edition, Options
from tests.scenarios import duel
from tests.wh40k7 import builders as wh40k7

MOVE_KINDS = {
    "40k7": {"normal", "run", "flat_out", "tank_shock", "ram"},
    "hh3": {"normal", "rush", "battlesmith"},
    "40k11": {"normal", "advance", "fall_back", "charge"},
}


@pytest.mark.parametrize("edition", ["40k7", "hh3", "40k11"])
def test_the_card_lists_only_the_editions_kinds(edition: Edition) -> None:
    request = duel(edition)
    start = initial_state("m", match_created(edition, request.scenario, Options(), "c"))
    for phase, unit in ((p, u) for p in rules_for(edition).phases for u in start.units.values()):
        state = replace(start, phase=phase)
        options = unit_options(state, unit.side, unit).options
        assert options, (edition, phase, unit.id)
        assert not [o for o in options if o.code in ("unsupported_action", "unsupported_move")]
        moves = {o.kind.removeprefix("move:") for o in options if o.kind.startswith("move:")}
        assert moves <= MOVE_KINDS[edition], (edition, phase, moves - MOVE_KINDS[edition])


def test_abandon_is_listed_for_a_squadron_member_only() -> None:
    """40k7 Vehicle Squadrons: an Immobilised member of a squadron (a unit of its own, one model)
    may be abandoned in the Movement phase - its card lists "abandon" open, a member that is not
    Immobilised closed with the refusal; a squad of infantry, no squadron, is not offered it."""
    stuck = replace(wh40k7.vehicle("a1", "a", 10, 24, squadron="s"), statuses={"immobilised": 0})
    mate = wh40k7.vehicle("a2", "a", 10, 28.5, squadron="s")
    squad = wh40k7.infantry("squad", "a", [(20, 30), (21.5, 30)])
    state = wh40k7.make_state(stuck, mate, squad)

    def abandon(unit: str) -> list[tuple[bool, str | None]]:
        options = unit_options(state, "a", state.units[unit]).options
        return [(o.open, o.code) for o in options if o.kind == "abandon"]

    assert abandon("a1") == [(True, None)]
    assert abandon("a2") == [(False, "not_immobilised")]
    assert abandon("squad") == []


def test_no_option_is_built_on_a_unit_off_the_table() -> None:
    """docs/table.md, "What the unit may do": a Trukk whose only fellow transport (a Battlewagon)
    waits in Reserve was told "embark: unit battlewagon is not on the table (reserve)" - a reason
    about another unit's whereabouts, not about the Trukk. A unit off the table (40k7 rulebook,
    Reserves) is not the nearest anything: with no transport on the table, embark is not listed."""
    from tests.missions.driver import MATCH, created, standard

    trukk = wh40k7.rhino("trukk", "b", 30, 39, 180)
    wagon = wh40k7.rhino("battlewagon", "b", 50, 16, 180)
    start = initial_state(MATCH, created("40k7", (trukk, wagon), standard("40k7", "crusade", "dawn_of_war")))
    assert start.mission is not None
    state = replace(
        start,
        phase="movement",
        active="b",
        mission=replace(start.mission, step="battle", off_table={"battlewagon": "reserve"}),
    )
    kinds = {o.kind: o for o in unit_options(state, "b", state.units["trukk"]).options}
    assert "embark" not in kinds, kinds.get("embark")
