"""Every match definition in examples/ is accepted by POST /matches and by ``hulldown simulate``,
and plays a random legal playthrough to the end of the match (its turn limit); each edition's
skirmish has the armies of examples/rosters/ (docs/match-definition.md, "Examples")."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from hulldown.cli.simulate import run_scenario
from hulldown.match.actions import Action
from hulldown.match.definition import DefinitionError, parse_definition
from hulldown.match.events import Event
from hulldown.match.history import evolve_with_history
from hulldown.match.reducer import evolve, state_hash
from hulldown.match.scenario import CreateMatch, match_created
from hulldown.match.state import MatchState, Side
from hulldown.match.timeline import fold_history
from hulldown.match.validate import validate
from hulldown.roster.importer import import_roster
from hulldown.rules.dice import NoDice, SeededDice

from ..hh3.test_playthrough import candidates as hh3_candidates
from ..missions.driver import mission_moves, setup_candidates
from ..playthrough import action_name, roundtrip
from ..server_process import ServerProcess
from ..wh40k7.random_play import choose as choose_40k7
from ..wh40k11.test_playthrough import candidates as wh40k11_candidates

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEFINITIONS = sorted(p for p in EXAMPLES.glob("*.json") if "actions" not in json.loads(p.read_text()))
SKIRMISHES = {"40k7": "40k7-skirmish", "hh3": "hh3-skirmish", "40k11": "40k11-skirmish"}
ROSTERS = {
    "40k7": ("40k7-marines-small", "40k7-orks-small"),
    "hh3": ("hh3-legion-small", "hh3-auxilia-small"),
    "40k11": ("40k11-tau-small", "40k11-orks-small"),
}
MAX_STEPS = 3_000
WALKERS = {
    "40k7": ("dreadnoughts", "deff-dread"),
    "hh3": ("contemptor-dreadnought", "aethon-heavy-sentinel-squadron"),
    "40k11": ("riptide-battlesuit", "deff-dread"),
}


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _created(path: Path) -> CreateMatch:
    parsed = parse_definition(_load(path))
    assert not isinstance(parsed, DefinitionError), [p.text() for p in parsed.problems]
    return parsed


def test_there_is_a_skirmish_per_edition() -> None:
    names = {p.stem for p in DEFINITIONS}
    assert set(SKIRMISHES.values()) <= names
    for edition, name in SKIRMISHES.items():
        assert _load(EXAMPLES / f"{name}.json")["edition"] == edition


@pytest.mark.parametrize("path", DEFINITIONS, ids=lambda p: p.stem)
def test_example_is_accepted_by_simulate(path: Path) -> None:
    result = run_scenario(_load(path))
    assert "error" not in result, result.get("error")
    assert result["final_state"]["seq"] == 1


@pytest.mark.parametrize("edition", sorted(SKIRMISHES))
def test_skirmish_has_what_the_issue_asks_for(edition: str) -> None:
    """Two armed sides with tanks, a transport with passengers, infantry, a walker or monster,
    and terrain with cover."""
    create = _created(EXAMPLES / f"{SKIRMISHES[edition]}.json")
    units = create.scenario.units
    for side in ("a", "b"):
        mine = [u for u in units if u.side == side]
        assert all(u.weapons for u in mine), f"side {side} has an unarmed unit"
        assert any(u.kind == "vehicle" and not u.passengers for u in mine)  # a tank (not the carrier)
        assert any(u.kind == "infantry" for u in mine)
    for uid in WALKERS[edition]:  # the roster's Walker (40k11: a VEHICLE with the Walker keyword)
        walker = next(u for u in units if u.id == uid)
        assert walker.kind == ("vehicle" if edition == "40k11" else "walker") and walker.weapons
    transports = [u for u in units if u.profile.capacity > 0]
    assert {u.side for u in transports} == {"a", "b"}
    assert all(any(u.id in t.passengers for t in transports) for u in units if u.embarked_in)
    assert {u.side for u in units if u.embarked_in} == {"a", "b"}
    assert any("cover" in t.kinds and t.cover_save for t in create.scenario.terrain)


@pytest.mark.parametrize("edition", sorted(SKIRMISHES))
def test_skirmish_armies_are_the_rosters(edition: str) -> None:
    """The units of each side are those examples/rosters/ imports (profiles, weapons, keywords);
    only positions and who starts embarked were set by hand."""
    create = _created(EXAMPLES / f"{SKIRMISHES[edition]}.json")
    for side, roster in zip(("a", "b"), ROSTERS[edition], strict=True):
        imported = import_roster((EXAMPLES / "rosters" / f"{roster}.ros").read_bytes(), edition, side).units
        mine = [u for u in create.scenario.units if u.side == side]
        assert [u.name for u in mine] == [u["name"] for u in imported]
        for unit, doc in zip(mine, imported, strict=True):
            assert unit.kind == doc["kind"]
            assert sorted(unit.keywords) == sorted(doc.get("keywords", []))
            assert [w.name for w in unit.weapons.values()] == [w["name"] for w in doc.get("weapons", [])]
            assert len(unit.models) == len(doc["models"])
            for key, value in doc["profile"].items():
                got = getattr(unit.profile, key)
                got = {"front": got.front, "side": got.side, "rear": got.rear} if key == "armour" else got
                assert (list(got) if isinstance(got, tuple) else got) == value, (unit.id, key)


class Candidates40k7:
    """The 40k7 generator wants to know how many actions it already chose in this phase."""

    def __init__(self) -> None:
        self.in_phase: dict[tuple[str, str, int], int] = {}

    def __call__(self, state: MatchState, rng: random.Random) -> list[tuple[Side, Action]]:
        key = (state.active, state.phase, state.turn)
        self.in_phase[key] = self.in_phase.get(key, 0) + 1
        side, action = choose_40k7(state, rng, self.in_phase[key])
        return [(side, action)]


@pytest.mark.parametrize("path", DEFINITIONS, ids=lambda p: p.stem)
def test_example_plays_to_the_end(path: Path) -> None:
    """Random legal actions (the editions' playthrough generators, tests/playthrough.py) folded
    as the live server folds them (victory checks included) until the match is over."""
    create = _created(path)
    edition = create.edition
    body = match_created(create.edition, create.scenario, create.options, "example", create.mission)
    match_id, dice_seed = f"example-{edition}", b"examples-play-to-the-end"
    first = roundtrip(Event(seq=1, at=0.0, by="system", action_id="create", body=body))
    live = evolve(MatchState(match_id=match_id, edition=create.edition, seq=0), first, NoDice())
    log, applied = [first], Counter[str]()
    rng = random.Random(1)
    candidates = {"40k7": Candidates40k7(), "hh3": hh3_candidates, "40k11": wh40k11_candidates}
    for _ in range(MAX_STEPS):
        if live.ended:
            break
        in_setup = live.mission is not None and live.mission.step != "battle" and live.pending is None
        if in_setup:
            proposed = setup_candidates(live, rng)
        else:
            extra = mission_moves(live, rng) if live.mission is not None else []
            proposed = [*extra, *candidates[edition](live, rng)]
        for side, action in proposed:
            if validate(live, side, action) is not None:
                continue
            seq = live.seq + 1
            event = roundtrip(Event(seq=seq, at=0.0, by=side, action_id=f"act-{seq}", body=action))
            live = evolve_with_history(live, event, SeededDice(dice_seed, match_id, seq), _no_history)
            log.append(event)
            applied[action_name(action)] += 1
            break
    assert live.ended, f"not over after {MAX_STEPS} steps: turn {live.turn}, {applied}"
    assert live.end_reason in ("turn_limit", "annihilation", "victory_points"), live.end_reason
    assert (live.end_reason == "victory_points") == (
        create.mission is not None
    ) or live.end_reason == "annihilation"
    assert applied["Shoot"] > 0, applied
    hurt = [
        u
        for u in live.units.values()
        if u.destroyed or u.hp < u.profile.hp or not all(m.alive for m in u.models.values())
    ]
    assert hurt, "nobody was hurt: the armies never fought"
    folded = fold_history(match_id, log, lambda e: SeededDice(dice_seed, match_id, e.seq))
    assert state_hash(folded) == state_hash(live)


def _no_history(seq: int) -> MatchState:
    raise AssertionError(f"the generators never undo (asked for seq {seq})")


def test_every_example_is_accepted_by_post_matches(server: ServerProcess) -> None:
    for path in DEFINITIONS:
        response = httpx.post(f"{server.http}/matches", content=path.read_bytes(), timeout=20)
        assert response.status_code == 201, (path.name, response.text)
        created = response.json()
        state = httpx.get(f"{server.http}/matches/{created['match_id']}/state", timeout=10).json()
        assert state["seq"] == 1
        assert set(state["view"]["units"]) == {u.id for u in _created(path).scenario.units}
