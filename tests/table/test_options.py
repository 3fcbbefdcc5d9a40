"""``match/options.py``: the kinds of action a unit may take now, decided by validation.

On random 40k7 play (the harness of tests/wh40k7/random_play.py) every legal action's kind is
listed open for its unit - the options never close what the rules allow - and every kind listed
closed carries the validation's own refusal (code and rule). The route is tested through the
browser in tests/table/test_play_options.py; its parameter and access errors over HTTP here.
"""

from __future__ import annotations

import random

import httpx

from hulldown.client import create_match
from hulldown.match.actions import Action, EndPhase, Move
from hulldown.match.dice_binding import event_dice
from hulldown.match.events import Event, decode_event, encode_event
from hulldown.match.options import CLOSED_CODES, unit_options
from hulldown.match.reducer import evolve
from hulldown.match.scenario import match_created
from hulldown.match.state import MatchState, Options
from tests.scenarios import duel
from tests.wh40k7.random_play import battle_scenario, legal_actions

from ..server_process import ServerProcess

SEED = b"options-seed-0123456789abcdefghij"
EVENTS = 40


def kind_of(action: Action) -> str | None:
    if isinstance(action, Move):
        return f"move:{action.kind}"
    tag = type(action).__struct_config__.tag
    return tag if isinstance(tag, str) else None


def test_every_legal_kind_is_open_and_closed_kinds_carry_the_refusal() -> None:
    rng = random.Random(3)
    match_id = "options-1"
    first = decode_event(
        encode_event(
            Event(
                seq=1,
                at=0.0,
                by="system",
                action_id="create",
                body=match_created("40k7", battle_scenario(), Options(), "c"),
            )
        )
    )
    state = evolve(
        MatchState(match_id=match_id, edition="40k7", seq=0), first, event_dice(SEED, match_id, first)
    )
    checked = closed_seen = 0
    phases: set[str] = set()
    while state.seq < EVENTS and not state.ended:
        side, legal = legal_actions(state, random.Random(state.seq))
        if state.pending is None:
            for unit in state.units.values():
                if unit.side != side or unit.destroyed:
                    continue
                options = {o.kind: o for o in unit_options(state, side, unit).options}
                for action in legal:
                    kind = kind_of(action)
                    if getattr(action, "unit", None) == unit.id and kind in options:
                        assert options[kind].open, (state.phase, action, options[kind])
                        checked += 1
                for option in options.values():
                    if not option.open:
                        assert option.code in CLOSED_CODES and option.rule and option.reason
                        closed_seen += 1
                phases.add(state.phase)
        ends = [a for a in legal if isinstance(a, EndPhase)]
        others = [a for a in legal if not isinstance(a, EndPhase)]
        action = rng.choice(others) if others and (not ends or rng.random() < 0.7) else (ends or legal)[0]
        event = decode_event(
            encode_event(
                Event(seq=state.seq + 1, at=0.0, by=side, action_id=f"a{state.seq + 1}", body=action)
            )
        )
        state = evolve(state, event, event_dice(SEED, match_id, event))
    assert checked > 20 and closed_seen > 20
    assert {"movement", "shooting"} <= phases


async def test_http_options_name_a_missing_unit_parameter(server: ServerProcess) -> None:
    """A missing or empty ``?unit=`` is 400 ``bad_parameter`` naming the parameter, as /arcs
    answers (client-protocol/SPEC.md section 4.2): it was a 404 ``unknown_unit`` for the unit ''."""
    created = await create_match(server.http, duel())
    url = f"{server.http}/matches/{created['match_id']}/options"
    headers = {"authorization": f"Bearer {created['tokens']['a']}"}
    async with httpx.AsyncClient(timeout=10, headers=headers) as http:
        for params in ({}, {"unit": ""}):
            missing = await http.get(url, params=params)
            assert missing.status_code == 400, (params, missing.text)
            error = missing.json()["error"]
            assert error["code"] == "bad_parameter" and error["message"].startswith("unit must name"), params
        unknown = await http.get(url, params={"unit": "ghost"})
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_unit"
        theirs = await http.get(url, params={"unit": "rhino-1"})
        assert theirs.status_code == 403 and theirs.json()["error"]["code"] == "not_your_unit"
        mine = await http.get(url, params={"unit": "predator-1"})
        assert mine.status_code == 200 and mine.json()["unit"] == "predator-1"
