"""JSON Patch diffs between states (docs/architecture.md section 4): applying the patch to the old
view with the third-party ``jsonpatch`` library gives the new view, for random sequences of
changes."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import jsonpatch
import msgspec
from msgspec.structs import replace

from hulldown.match.actions import PlaceMarker, RollOff, Undo
from hulldown.match.diff import diff
from hulldown.match.state import LOG_WINDOW, Answer, LogEntry, MatchState, Point, Unit
from hulldown.missions.catalogue import resolve
from hulldown.missions.model import Mission, MissionChoice
from tests.missions.driver import Game, created
from tests.scenarios import predator, rhino
from tests.wh40k7 import builders as k7


def as_json(value: Any) -> Any:
    return json.loads(msgspec.json.encode(value))


def base_state() -> MatchState:
    units = {
        u.id: u
        for u in (predator("p1", "a", 10.0, 10.0), rhino("r1", "b", 30.0, 30.0), rhino("r2", "b", 50.0, 30.0))
    }
    return MatchState(match_id="m", edition="40k7", units=units)


def mutate(state: MatchState, rng: random.Random, step: int) -> MatchState:
    choice = rng.randrange(7)
    uid = rng.choice(sorted(state.units))
    unit = state.units[uid]
    units = dict(state.units)
    if choice == 0:
        model_id, model = next(iter(unit.models.items()))
        moved = replace(model, pos=Point(rng.uniform(0, 72), rng.uniform(0, 48)), heading=rng.uniform(0, 360))
        units[uid] = replace(unit, models={**unit.models, model_id: moved})
    elif choice == 1:
        units[uid] = replace(unit, hp=max(0, unit.hp - 1))
    elif choice == 2:
        statuses = dict(unit.statuses)
        name = rng.choice(["crew_shaken", "crew_stunned", "immobilised"])
        if name in statuses:
            del statuses[name]
        else:
            statuses[name] = rng.randrange(0, 5)
        units[uid] = replace(unit, statuses=statuses)
    elif choice == 3:
        units.pop(uid) if len(units) > 1 else None
    elif choice == 4:
        new_id = f"r{step + 10}"
        units[new_id] = rhino(new_id, "b", rng.uniform(0, 72), rng.uniform(0, 48))
    elif choice == 5:
        flags = unit.turn_flags[1:] if unit.turn_flags else ("moved", "shot")
        units[uid] = replace(unit, turn_flags=flags)
    else:
        count = rng.randrange(1, 4)
        entries = tuple(
            LogEntry(n=state.log_count + i, seq=step, text=f"line {state.log_count + i}")
            for i in range(count)
        )
        log = (*state.log, *entries)[-LOG_WINDOW:]
        return replace(state, log=log, log_count=state.log_count + count, seq=step)
    return replace(state, units=units, seq=step, phase=rng.choice(["movement", "shooting", "assault"]))


def test_random_changes_patch_exactly() -> None:
    rng = random.Random(20261129)
    state = base_state()
    document = as_json(state)
    for step in range(1, 600):
        new = mutate(state, rng, step)
        ops = as_json(diff(state, new))
        document = jsonpatch.apply_patch(document, ops)
        assert document == as_json(new), f"step {step}: {ops}"
        state = new
    assert state.log_count > LOG_WINDOW  # the window really did slide


def test_unchanged_state_gives_no_operations() -> None:
    state = base_state()
    assert diff(state, state) == []
    assert diff(state, replace(state)) == []


def test_a_move_patches_only_the_moved_model() -> None:
    state = base_state()
    unit = state.units["r1"]
    model = unit.models["r1-m"]
    moved_unit = replace(unit, models={"r1-m": replace(model, pos=Point(31.5, 30.0))})
    new = replace(state, units={**state.units, "r1": moved_unit})
    assert diff(state, new) == [{"op": "replace", "path": "/units/r1/models/r1-m/pos/0", "value": 31.5}]


def test_log_window_slides_with_removes_and_appends() -> None:
    entries = tuple(LogEntry(n=i, seq=1, text=str(i)) for i in range(LOG_WINDOW))
    state = replace(base_state(), log=entries, log_count=LOG_WINDOW)
    extra = (LogEntry(n=LOG_WINDOW, seq=2, text="new"), LogEntry(n=LOG_WINDOW + 1, seq=2, text="newer"))
    new = replace(state, log=(*entries, *extra)[-LOG_WINDOW:], log_count=LOG_WINDOW + 2)
    ops = diff(state, new)
    assert [op["op"] for op in ops if op["path"].startswith("/log/")] == ["remove", "remove", "add", "add"]
    assert ops[0] == {"op": "remove", "path": "/log/0"}
    assert ops[2]["path"] == "/log/-" and ops[2]["value"]["text"] == "new"


def test_keys_with_slashes_and_tildes_are_escaped() -> None:
    state = base_state()
    odd = Unit(**{**{f: getattr(state.units["r1"], f) for f in Unit.__struct_fields__}, "id": "a/b~c"})
    new = replace(state, units={**state.units, "a/b~c": odd})
    ops = diff(state, new)
    assert ops[0]["path"] == "/units/a~1b~0c"
    patched = jsonpatch.apply_patch(as_json(state), as_json(ops))
    assert patched == as_json(new)


def test_structs_encoded_without_their_defaults_patch_exactly() -> None:
    """The mission's definition and a paused action's answers are encoded without the fields
    that hold their defaults (``omit_defaults``): a field that stops being its default joins the
    JSON object and one that becomes it leaves it. Placing the first objective marker of a
    Crusade (no marker yet) and undoing it."""
    crusade = resolve(MissionChoice(id="crusade", place_markers=True), "40k7", 72.0, 48.0)
    assert isinstance(crusade, Mission) and crusade.objectives == ()
    units = (k7.infantry("tac", "a", [(10, 40)]), k7.infantry("foe", "b", [(10, 6)]))
    game = Game(created("40k7", units, crusade))
    states = [game.act("a", RollOff(), dice=[3, 6, 1])]
    states.append(game.act("a", PlaceMarker(at=Point(36, 24))))
    states.append(game.act("a", Undo()))
    for before, after in itertools.pairwise(states):
        patched = jsonpatch.apply_patch(as_json(before), as_json(diff(before, after)))
        assert patched == as_json(after)

    aimed, chosen = Answer(choice="aim", aim=Point(1.0, 2.0)), Answer(choice="proposal")
    for old, new in ((chosen, aimed), (aimed, chosen)):
        patched = jsonpatch.apply_patch(as_json(old), as_json(diff(old, new)))
        assert patched == as_json(new)
