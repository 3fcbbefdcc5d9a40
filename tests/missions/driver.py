"""Helpers for the mission tests (docs/missions.md): a match with a mission, set-up candidates for
random play, a history-aware step (victory included) with fixed or seeded dice."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable

from shapely.geometry import Point as ShapelyPoint
from shapely.geometry import Polygon

from hulldown.match.actions import Action, Deploy, EndPhase, Reserve, RollOff
from hulldown.match.events import Event, MatchCreated, decode_event, encode_event
from hulldown.match.history import evolve_with_history
from hulldown.match.placing import zone_polygon
from hulldown.match.reducer import initial_state, state_hash
from hulldown.match.rejection import Rejection
from hulldown.match.state import Battlefield, Edition, MatchState, Options, Point, Side, Terrain, Unit
from hulldown.match.timeline import fold_history
from hulldown.match.validate import validate
from hulldown.missions.catalogue import mission
from hulldown.missions.model import Mission
from hulldown.rules.dice import FixedDice, SeededDice

MATCH = "mission-test"


def standard(edition: str, mission_id: str, deployment: str = "") -> Mission:
    found = mission(edition, mission_id, deployment, 72.0, 48.0)
    assert isinstance(found, Mission), found
    return found


def created(
    edition: Edition, units: Iterable[Unit], the_mission: Mission, terrain: Iterable[Terrain] = ()
) -> MatchCreated:
    return MatchCreated(
        edition=edition,
        battlefield=Battlefield(),
        terrain=tuple(terrain),
        units=tuple(units),
        options=Options(),
        commitment="test",
        mission=the_mission,
    )


class Game:
    """A match played event by event through the history-aware fold (victory checked)."""

    def __init__(self, body: MatchCreated, dice_seed: bytes = b"mission-seed") -> None:
        self.dice_seed = dice_seed
        first = Event(seq=1, at=0.0, by="system", action_id="create", body=body)
        self.log: list[Event] = [first]
        self.states: dict[int, MatchState] = {1: initial_state(MATCH, body)}
        self.state = self.states[1]

    def check(self, side: Side, action: Action) -> Rejection | None:
        return validate(self.state, side, action, self.states.__getitem__)

    def act(self, side: Side, action: Action, dice: Iterable[int] | None = None) -> MatchState:
        """Validate then apply; ``dice``: fixed faces (all of them must be used), else seeded."""
        refused = self.check(side, action)
        assert refused is None, refused
        seq = self.state.seq + 1
        event = decode_event(encode_event(Event(seq=seq, at=0.0, by=side, action_id=f"a{seq}", body=action)))
        if dice is None:
            source: SeededDice | FixedDice = SeededDice(self.dice_seed, MATCH, seq)
        else:
            source = FixedDice(dice)
        self.state = evolve_with_history(self.state, event, source, self.states.__getitem__)
        if isinstance(source, FixedDice):
            assert source.remaining == 0, f"{source.remaining} fixed dice left unused"
        self.states[seq] = self.state
        self.log.append(replace_rolls(event, tuple(r.value for r in source.rolls)))
        return self.state

    def folded(self) -> MatchState:
        """The whole log folded again from nothing, each event with the faces it revealed."""
        return fold_history(MATCH, self.log, lambda e: FixedDice(e.rolls))


def replace_rolls(event: Event, rolls: tuple[int, ...]) -> Event:
    from msgspec.structs import replace

    return replace(event, rolls=rolls)


def formation(unit: Unit, centre: tuple[float, float]) -> dict[str, Point]:
    """The unit's live models in a row around ``centre``, one base (or hull) apart."""
    alive = [m for m in unit.models.values() if m.alive]
    step = max((m.hull.length if m.hull else (m.base_mm or 25.0) / 25.4) for m in alive) + 0.3
    start = centre[0] - step * (len(alive) - 1) / 2
    return {m.id: Point(start + k * step, centre[1]) for k, m in enumerate(alive)}


def random_spot(zone: Polygon, rng: random.Random) -> tuple[float, float]:
    x0, y0, x1, y1 = zone.bounds
    for _ in range(50):
        p = (rng.uniform(x0, x1), rng.uniform(y0, y1))
        if zone.contains(ShapelyPoint(p)):
            return p
    c = zone.representative_point()
    return (c.x, c.y)


def setup_candidates(state: MatchState, rng: random.Random) -> list[tuple[Side, Action]]:
    """Roll off, then deploy each unit somewhere in its zone (sometimes in reserve)."""
    assert state.mission is not None
    ms = state.mission
    if ms.step == "roll_off":
        return [(state.active, RollOff())]
    side = ms.deploying or state.active
    waiting = [
        state.units[uid]
        for uid, where in ms.off_table.items()
        if where == "undeployed" and state.units[uid].side == side and state.units[uid].embarked_in is None
    ]
    zone = zone_polygon(state, side)
    out: list[tuple[Side, Action]] = []
    for unit in waiting:
        if rng.random() < 0.15 or unit.has("flyer"):
            out.append((side, Reserve(unit=unit.id)))
        for _ in range(12):
            heading = 90.0 if side == "a" else 270.0
            out.append(
                (
                    side,
                    Deploy(unit=unit.id, positions=formation(unit, random_spot(zone, rng)), heading=heading),
                )
            )
        out.append((side, Reserve(unit=unit.id)))
    return out


Candidates = Callable[[MatchState, random.Random], list[tuple[Side, Action]]]


def play_game(game: Game, battle: Candidates, seed: int, max_steps: int, end_early: float) -> dict[str, int]:
    """Random legal play from the roll-off until the match ends (or ``max_steps``)."""
    rng = random.Random(seed)
    applied: dict[str, int] = {}
    for _ in range(max_steps):
        if game.state.ended:
            break
        s = game.state
        if s.pending is not None:
            options = [(s.pending.side, a) for a in _answers(s)]
        elif s.mission is not None and s.mission.step not in ("battle",):
            options = setup_candidates(s, rng)
        else:
            options = [*_arrivals(s, rng), *_to_markers(s, rng), *battle(s, rng)]
            if rng.random() < end_early:
                options.insert(0, (s.active, EndPhase()))
        for side, action in options:
            if game.check(side, action) is None:
                game.act(side, action)
                applied[type(action).__name__] = applied.get(type(action).__name__, 0) + 1
                break
        else:
            game.act(s.active, EndPhase())
    return applied


def _arrivals(s: MatchState, rng: random.Random) -> list[tuple[Side, Action]]:
    """Units arriving from reserve come on from their own edge, 2" in."""
    from hulldown.match.arrivals import own_edges

    if s.phase != "movement" or s.mission is None:
        return []
    out: list[tuple[Side, Action]] = []
    for uid, where in s.mission.off_table.items():
        unit = s.units[uid]
        if where != "arriving" or unit.side != s.active:
            continue
        for _ in range(6):
            edge = rng.choice(own_edges(s, s.active))
            p = edge.interpolate(rng.uniform(0.1, 0.9), normalized=True)
            cx, cy = s.battlefield.width / 2, s.battlefield.height / 2
            d = distance((p.x, p.y), (cx, cy))
            inward = (p.x + (cx - p.x) * 3 / d, p.y + (cy - p.y) * 3 / d)
            out.append((s.active, Deploy(unit=uid, positions=formation(unit, inward), heading=0.0)))
    return out


def _to_markers(s: MatchState, rng: random.Random) -> list[tuple[Side, Action]]:
    """In the movement phase, moves toward the nearest objective marker (so markers are held)."""
    from hulldown.match.actions import Move

    if s.phase != "movement" or s.mission is None or not s.mission.mission.objectives:
        return []
    out: list[tuple[Side, Action]] = []
    for unit in s.units.values():
        if (
            unit.side != s.active
            or unit.destroyed
            or unit.embarked_in is not None
            or "reserves" in unit.statuses
        ):
            continue
        lead = next((m for m in unit.models.values() if m.alive), None)
        if lead is None:
            continue
        here = (lead.pos.x, lead.pos.y)
        goal = min((m.pos for m in s.mission.mission.objectives), key=lambda p: distance(here, p))
        d = distance(here, goal)
        reach = min(d - 1.0, max(unit.profile.m, 6.0) * rng.uniform(0.5, 1.0))
        if reach <= 0.2:
            continue
        k = reach / d
        end = Point(here[0] + (goal[0] - here[0]) * k, here[1] + (goal[1] - here[1]) * k)
        out.append((s.active, Move(unit=unit.id, path=(end,))))
    rng.shuffle(out)
    return out[:2]


def mission_moves(s: MatchState, rng: random.Random) -> list[tuple[Side, Action]]:
    """Arrivals from reserve and moves toward the markers (what a mission adds to random play)."""
    return [*_arrivals(s, rng), *_to_markers(s, rng)]


def _answers(s: MatchState) -> list[Action]:
    from hulldown.match.actions import Decide

    assert s.pending is not None
    options = list(s.pending.options)
    random.Random(s.seq).shuffle(options)
    return [Decide(decision=s.pending.id, choice=o) for o in options]


def same(a: MatchState, b: MatchState) -> bool:
    return state_hash(a) == state_hash(b) and a == b


def distance(p: tuple[float, float], q: tuple[float, float]) -> float:
    return math.hypot(p[0] - q[0], p[1] - q[1])
