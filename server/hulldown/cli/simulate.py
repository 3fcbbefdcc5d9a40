"""``hulldown simulate FILE``: run a scenario through the same validation and reducer as a live
match and print every event and the final state as JSON.

A what-if tool for players and a test bench for the rules: the file gives the units, their
positions, the terrain, a list of actions and optionally fixed dice (docs/simulate.md).
``run_scenario`` is pure (no I/O); ``add_simulate_command`` wires it into the CLI.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from ..match.actions import Action
from ..match.definition import DefinitionError, SimulationFile, checked, read_definition
from ..match.events import Event, MatchCreated
from ..match.problems import summary
from ..match.reducer import evolve, evolve_logged, state_hash
from ..match.scenario import check_scenario, match_created
from ..match.state import Edition, MatchState, Side
from ..match.validate import validate
from ..rules.dice import DiceExhausted, Roll, SeededDice, commitment

DEFAULT_SEED = "hulldown-simulate"
DEFAULT_MATCH_ID = "simulation"


class _FixedPool:
    """Fixed dice shared by every event of the simulation, consumed in order."""

    def __init__(self, faces: Sequence[int]) -> None:
        for face in faces:
            if not 1 <= face <= 6:
                raise ValueError(f"a D6 face must be 1-6, got {face}")
        self.faces = list(faces)
        self.used = 0

    def for_event(self) -> _PoolDice:
        return _PoolDice(self)


class _PoolDice:
    def __init__(self, pool: _FixedPool) -> None:
        self._pool = pool
        self._rolls: list[Roll] = []

    def d6(self) -> int:
        if self._pool.used >= len(self._pool.faces):
            raise DiceExhausted(f"the file's fixed dice ran out after {self._pool.used} dice")
        value = self._pool.faces[self._pool.used]
        self._pool.used += 1
        self._rolls.append(Roll(len(self._rolls), value))
        return value

    @property
    def rolls(self) -> Sequence[Roll]:
        return tuple(self._rolls)


def _action(entry: dict[str, Any], state: MatchState) -> tuple[Side, Action]:
    """An action entry: ``{"by": "a", "action": {...}}`` or ``{"by": "a", "type": ..., ...}``.
    A ``decide`` without ``decision`` answers the pending decision."""
    by = entry.get("by", state.pending.side if state.pending is not None else state.active)
    body = dict(entry["action"]) if "action" in entry else {k: v for k, v in entry.items() if k != "by"}
    if body.get("type") == "decide" and "decision" not in body and state.pending is not None:
        body["decision"] = state.pending.id
    side: Side = "a" if by == "a" else "b"
    return side, msgspec.convert(body, Action)


def _refused(problem: DefinitionError) -> dict[str, Any]:
    """The answer to a refused definition: the first problem as ``error``, all of them listed."""
    return {
        "error": f"invalid simulation file: {summary(list(problem.problems))}",
        "problems": [msgspec.to_builtins(p) for p in problem.problems],
    }


def run_scenario(file_data: dict[str, Any]) -> dict[str, Any]:
    """Run a simulation file (already parsed from JSON); returns the result as plain data.

    The file is a match definition (docs/match-definition.md) plus ``actions``, ``dice``,
    ``seed``, ``match_id`` and ``stop_on_rejection``; it is checked exactly as ``POST /matches``
    checks a definition."""
    data = {"edition": "40k7", "scenario": {}, **file_data}  # a simulation file may leave both out
    definition = read_definition(data, SimulationFile)
    if isinstance(definition, DefinitionError):
        return _refused(definition)
    assert isinstance(definition, SimulationFile)
    create = checked(definition)
    if isinstance(create, DefinitionError):
        return _refused(create)
    edition: Edition = create.edition
    seed = (definition.seed if definition.seed is not None else DEFAULT_SEED).encode()
    match_id = definition.match_id if definition.match_id is not None else DEFAULT_MATCH_ID
    stop = definition.stop_on_rejection
    with_states = definition.states
    scenario, options = create.scenario, create.options
    try:
        pool = _FixedPool(definition.dice) if definition.dice is not None else None
    except ValueError as exc:
        return {"error": f"invalid simulation file: {exc}"}
    problem = check_scenario(scenario)
    if problem is not None:
        return {"error": problem.message, "rejection": msgspec.to_builtins(problem)}
    created: MatchCreated = match_created(edition, scenario, options, commitment(seed), create.mission)
    first = Event(seq=1, at=0.0, by="system", action_id="sim-create", body=created)
    state = evolve(
        MatchState(match_id=match_id, edition=edition, seq=0), first, SeededDice(seed, match_id, 1)
    )
    events: list[dict[str, Any]] = []
    error: str | None = None
    for index, entry in enumerate(definition.actions):
        try:
            side, action = _action(entry, state)
        except (msgspec.ValidationError, KeyError, TypeError) as exc:
            error = f"action {index}: {exc}"
            break
        record: dict[str, Any] = {"index": index, "by": side, "action": msgspec.to_builtins(action)}
        rejection = validate(state, side, action)
        if rejection is not None:
            record["rejected"] = msgspec.to_builtins(rejection)
            events.append(record)
            if stop:
                break
            continue
        event = Event(seq=state.seq + 1, at=0.0, by=side, action_id=f"sim-{index}", body=action)
        dice = (
            pool.for_event()
            if pool is not None
            else SeededDice(seed, match_id, event.seq, getattr(action, "nonce", ""))
        )
        try:
            state, lines = evolve_logged(state, event, dice)
        except DiceExhausted as exc:
            record["error"] = str(exc)
            events.append(record)
            error = f"action {index}: {exc}"
            break
        record["seq"] = event.seq
        # Every line the event wrote, not only those the state's log window keeps.
        record["log"] = [msgspec.to_builtins(e) for e in lines]
        if with_states:
            record["state"] = msgspec.to_builtins(state)
        if state.pending is not None:
            record["pending"] = msgspec.to_builtins(state.pending)
        events.append(record)
    result: dict[str, Any] = {
        "edition": edition,
        "events": events,
        "final_state": msgspec.to_builtins(state),
        "state_hash": state_hash(state),
    }
    if pool is not None:
        result["dice_used"] = pool.used
        result["dice_left"] = len(pool.faces) - pool.used
    if error is not None:
        result["error"] = error
    return result


def add_simulate_command(subparsers: Any) -> None:
    """Register ``hulldown simulate FILE`` on the CLI's sub-command parsers."""
    parser = subparsers.add_parser(
        "simulate",
        help="run a scenario file (units, terrain, actions, optional dice) and print the events as JSON",
    )
    parser.add_argument("file", help="the simulation file (JSON; '-' reads standard input)")
    parser.add_argument("--seed", default=None, help="dice seed when the file gives no fixed dice")
    parser.add_argument("--dice", default=None, help="fixed dice, comma separated (overrides the file)")
    parser.add_argument("--compact", action="store_true", help="print compact JSON")
    parser.add_argument("--states", action="store_true", help="also print the state after each event")
    parser.set_defaults(handler=_simulate)


def _simulate(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        print(json.dumps({"error": f"not JSON: {exc}"}))
        return 1
    except RecursionError:
        print(json.dumps({"error": "not a simulation file: the JSON is nested too deeply"}))
        return 1
    if not isinstance(data, dict):
        print(json.dumps({"error": "not a simulation file: expected a JSON object"}))
        return 1
    if args.seed is not None:
        data["seed"] = args.seed
    if args.states:
        data["states"] = True
    if args.dice is not None:
        data["dice"] = [int(x) for x in args.dice.split(",") if x.strip()]
    result = run_scenario(data)
    print(json.dumps(result, indent=None if args.compact else 2))
    return 1 if "error" in result else 0
