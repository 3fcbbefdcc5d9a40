"""``hulldown simulate FILE``: run a scenario through the same validation and reducer as a live
match and print every event and the final state as JSON.

A what-if tool for players and a test bench for the rules: the file gives the units, their
positions, the terrain, a list of actions and optionally fixed dice (docs/simulate.md).
``run_scenario`` is pure (no I/O); ``add_simulate_command`` wires it into the CLI.

Exit status 0, or 1 with ``{"error": ...}`` on standard output when the file cannot be read or
is invalid, ``--dice`` is not a list of D6 faces, the fixed dice run out or an action cannot be
read.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

import msgspec

from ..match.actions import Action
from ..match.definition import DefinitionError, SimulationFile, checked, read_definition
from ..match.events import Event, MatchCreated
from ..match.problems import Problem, summary
from ..match.reducer import evolve, evolve_logged, state_hash
from ..match.scenario import check_scenario, match_created
from ..match.state import Edition, MatchState, Side
from ..match.validate import validate
from ..rules.dice import DiceExhausted, Roll, SeededDice, commitment
from .input_files import UnreadableInput, read_json_object

DEFAULT_SEED = "hulldown-simulate"
DEFAULT_MATCH_ID = "simulation"
D6_FACES = range(1, 7)
EXIT_OK = 0
EXIT_ERROR = 1  # the answer is {"error": ...}
# What reading an action entry into an Action raises for an entry that is not one.
ACTION_ERRORS = (msgspec.ValidationError, KeyError, TypeError, ValueError)


class _FixedPool:
    """Fixed dice shared by every event of the simulation, consumed in order (faces of 1-6:
    ``run_scenario`` refuses a file with any other)."""

    def __init__(self, faces: Sequence[int]) -> None:
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


def read_action(entry: dict[str, Any], state: MatchState) -> tuple[Side, Action]:
    """An action entry: ``{"by": "a", "action": {...}}`` or ``{"by": "a", "type": ..., ...}``.
    A ``decide`` without ``decision`` answers the pending decision. Raises one of
    :data:`ACTION_ERRORS` for an entry that is not an action."""
    by = entry.get("by", state.pending.side if state.pending is not None else state.active)
    if by not in ("a", "b"):  # docs/simulate.md: the side that acts (any other was taken as b)
        raise ValueError(f'"by" must be "a" or "b", got {json.dumps(by)}')
    nested = entry.get("action")
    if "action" in entry and not isinstance(nested, dict):
        raise TypeError(f'"action" must be an object, got {json.dumps(nested)}')
    body = dict(nested) if isinstance(nested, dict) else {k: v for k, v in entry.items() if k != "by"}
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


def read_simulation(file_data: dict[str, Any]) -> SimulationFile | dict[str, Any]:
    """The simulation file read strictly (every action included), or the refusal to print.

    The file is a match definition (docs/match-definition.md) plus ``actions``, ``dice``,
    ``seed``, ``match_id`` and ``stop_on_rejection``; it is checked exactly as ``POST /matches``
    checks a definition."""
    data = {"edition": "40k7", "scenario": {}, **file_data}  # a simulation file may leave both out
    definition = read_definition(data, SimulationFile)
    if isinstance(definition, DefinitionError):
        return _refused(definition)
    assert isinstance(definition, SimulationFile)
    return definition


def run_scenario(file_data: dict[str, Any]) -> dict[str, Any]:
    """Run a simulation file (already parsed from JSON, read by :func:`read_simulation`);
    returns the result as plain data."""
    definition = read_simulation(file_data)
    if isinstance(definition, dict):
        return definition
    # The fixed dice are checked with the rest of the file's shape: each one out of 1-6 is a
    # problem at its path (docs/simulate.md).
    bad_dice = [
        Problem(f"dice[{i}]", f"a D6 face must be 1-6, got {face}")
        for i, face in enumerate(definition.dice or ())
        if face not in D6_FACES
    ]
    if bad_dice:
        return _refused(DefinitionError("shape", tuple(bad_dice)))
    create = checked(definition)
    if isinstance(create, DefinitionError):
        return _refused(create)
    edition: Edition = create.edition
    seed = (definition.seed if definition.seed is not None else DEFAULT_SEED).encode()
    match_id = definition.match_id if definition.match_id is not None else DEFAULT_MATCH_ID
    stop = definition.stop_on_rejection
    with_states = definition.states
    scenario, options = create.scenario, create.options
    pool = _FixedPool(definition.dice) if definition.dice is not None else None
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
            side, action = read_action(entry, state)
        except ACTION_ERRORS as exc:
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


def parse_dice(text: str) -> list[int]:
    """``--dice``: D6 faces, comma separated (blanks between commas ignored)."""
    faces: list[int] = []
    for item in text.split(","):
        if not item.strip():
            continue
        try:
            face = int(item)
        except ValueError:
            face = 0
        if face not in D6_FACES:
            raise ValueError(f"--dice takes D6 faces 1-6, comma separated; got {text!r}")
        faces.append(face)
    return faces


def _error(message: str) -> int:
    print(json.dumps({"error": message}))
    return EXIT_ERROR


def _simulate(args: argparse.Namespace) -> int:
    try:
        data = read_json_object(args.file)
    except UnreadableInput as exc:
        return _error(str(exc))
    if args.seed is not None:
        data["seed"] = args.seed
    if args.states:
        data["states"] = True
    if args.dice is not None:
        try:
            data["dice"] = parse_dice(args.dice)
        except ValueError as exc:
            return _error(str(exc))
    result = run_scenario(data)
    print(json.dumps(result, indent=None if args.compact else 2))
    return EXIT_ERROR if "error" in result else EXIT_OK
