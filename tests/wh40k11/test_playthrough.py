"""40k11 random playthrough (DESIGN.md 10.8): random legal actions are validated, encoded and
decoded as events (match/events.py), evolved with SeededDice; folding the log from scratch gives
the same state hash as the live run."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from hulldown.match.actions import Action, Charge, Decide, EndPhase, Fight, Fire, Move, Pivot, Shoot
from hulldown.match.events import Event, MatchCreated, decode_event, encode_event
from hulldown.match.reducer import evolve, fold, state_hash
from hulldown.match.state import Battlefield, MatchState, Options, Point, Side, Unit
from hulldown.match.validate import validate
from hulldown.rules.dice import NoDice, SeededDice
from hulldown.rules.wh40k11.units import flag_int, flag_value

from .builders import infantry, vehicle, weapon

MATCH = "playthrough-40k11"


def armies() -> tuple[Unit, ...]:
    def tank(uid: str, side: Side, x: float, y: float, heading: float) -> Unit:
        m = f"{uid}-m"
        return vehicle(
            uid,
            side,
            x,
            y,
            heading,
            weapons=(
                weapon(f"{uid}-cannon", m, rng=36, s=9, ap=2, d=3),
                weapon(f"{uid}-flamer", m, rng=12, s=5, shots=3, rules=("close_quarters",)),
                weapon(f"{uid}-mortar", m, rng=36, s=5, shots=2, rules=("blast",)),
                weapon(f"{uid}-ram", m, s=8, ap=1, d=2, shots=3, kind="melee"),
            ),
        )

    def squad(uid: str, side: Side, x: float, y: float) -> Unit:
        pos = [(x, y + 1.5 * i) for i in range(5)]
        return infantry(
            uid,
            side,
            pos,
            weapons=(
                weapon(f"{uid}-rifle", f"{uid}-1", rng=24, shots=2),
                weapon(f"{uid}-pistol", f"{uid}-2", rng=12, rules=("close_quarters",)),
                weapon(f"{uid}-grenade", f"{uid}-3", rng=8, s=6, rules=("blast", "close_quarters")),
                weapon(f"{uid}-blade", f"{uid}-4", s=5, ap=1, shots=2, kind="melee"),
            ),
        )

    beast = vehicle(
        "beast",
        "b",
        44,
        12,
        180,
        keywords=("monster",),
        base_mm=100,
        t=9,
        w=10,
        m=9,
        weapons=(weapon("beast-claws", "beast-m", s=9, ap=2, d=2, shots=4, kind="melee"),),
    )
    return (
        tank("tank-a", "a", 28, 20, 0),
        squad("squad-a", "a", 30, 28),
        squad("guard-a", "a", 26, 10),
        tank("tank-b", "b", 44, 24, 180),
        squad("squad-b", "b", 40, 30),
        beast,
    )


def created() -> Event:
    body = MatchCreated(
        edition="40k11",
        battlefield=Battlefield(),
        terrain=(),
        units=armies(),
        options=Options(),
        commitment="test",
    )
    return Event(seq=1, at=0.0, by="system", action_id="create", body=body)


def _lead(unit: Unit) -> tuple[float, float] | None:
    for m in unit.models.values():
        if m.alive:
            return (m.pos.x, m.pos.y)
    return None


def _toward(s: MatchState, unit: Unit, target_id: str, stop: float) -> Point | None:
    """A point for the lead model, straight toward the target's nearest model, ``stop`` inches short."""
    lead = _lead(unit)
    target = s.units.get(target_id)
    if lead is None or target is None:
        return None
    best = min(
        ((m.pos.x, m.pos.y) for m in target.models.values() if m.alive),
        key=lambda p: math.hypot(p[0] - lead[0], p[1] - lead[1]),
        default=None,
    )
    if best is None:
        return None
    d = math.hypot(best[0] - lead[0], best[1] - lead[1])
    if d <= stop:
        return None
    k = (d - stop) / d
    return Point(lead[0] + (best[0] - lead[0]) * k, lead[1] + (best[1] - lead[1]) * k)


def candidates(s: MatchState, rng: random.Random) -> list[tuple[Side, Action]]:
    if s.pending is not None:
        return [(s.pending.side, Decide(decision=s.pending.id, choice=o)) for o in s.pending.options]
    side = s.active
    mine = [u for u in s.units.values() if u.side == side and not u.destroyed]
    foes = [u.id for u in s.units.values() if u.side != side and not u.destroyed]
    out: list[Action] = []
    for u in mine:
        lead = _lead(u)
        if lead is None:
            continue
        if s.phase == "movement":
            for kind in ("normal", "fall_back", "advance"):
                reach = u.profile.m + (flag_int(u, "advance_roll") or 0)
                a, r = rng.uniform(0, 2 * math.pi), rng.uniform(0.5, reach)
                end = Point(lead[0] + r * math.cos(a), lead[1] + r * math.sin(a))
                out.append(
                    Move(unit=u.id, kind=kind, path=(end,), heading=rng.choice([None, rng.uniform(0, 360)]))
                )  # type: ignore[arg-type]
            if foes:
                goal = _toward(s, u, rng.choice(foes), 4.5)
                if goal is not None:
                    out.append(Move(unit=u.id, path=(goal,)))
            out.append(Move(unit=u.id, kind="advance"))
            out.append(Pivot(unit=u.id, heading=rng.uniform(0, 360)))
        elif s.phase == "shooting" and foes:
            ranged = [w for w in u.weapons.values() if w.type != "melee"]
            if not ranged:
                continue
            picked = rng.sample(ranged, k=rng.randint(1, len(ranged)))
            out.append(
                Shoot(unit=u.id, fire=tuple(Fire(weapon=w.id, target=rng.choice(foes)) for w in picked))
            )
            out.append(Shoot(unit=u.id, fire=(Fire(weapon=rng.choice(ranged).id, target=rng.choice(foes)),)))
        elif s.phase == "charge" and foes:
            out.append(Charge(unit=u.id, target=rng.choice(foes)))
            target = flag_value(u, "charge_target")
            for stop in (0.4, 1.2, rng.uniform(0.3, 2.5)) if target is not None else ():
                goal = _toward(s, u, target or "", stop)
                if goal is not None:
                    out.append(Move(unit=u.id, kind="charge", path=(goal,)))
        elif s.phase == "fight":
            for f in foes:
                melee = [w.id for w in u.weapons.values() if w.type == "melee"]
                out.append(Fight(unit=u.id, target=f, weapon=rng.choice([None, *melee])))
    rng.shuffle(out)
    if rng.random() < 0.12:
        out.insert(0, EndPhase())
    else:
        out.append(EndPhase())
    return [(side, a) for a in out]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_playthrough_fold_equals_live_state(seed: int) -> None:
    """DESIGN.md 10.8 for 40k11: fold(initial, log) == live state, by state_hash."""
    rng = random.Random(seed)
    dice_seed = f"seed-{seed}".encode()
    first = created()
    live = evolve(MatchState(match_id=MATCH, edition="40k11", seq=0), first, NoDice())
    log: list[Event] = [first]
    applied: Counter[str] = Counter()
    refused = 0
    for _ in range(600):
        for side, action in candidates(live, rng):
            if validate(live, side, action) is not None:
                refused += 1
                continue
            event = Event(seq=live.seq + 1, at=0.0, by=side, action_id=f"act-{live.seq + 1}", body=action)
            decoded = decode_event(encode_event(event))
            assert decoded == event
            live = evolve(live, decoded, SeededDice(dice_seed, MATCH, decoded.seq))
            log.append(decoded)
            applied[type(action).__name__ if not isinstance(action, Move) else f"Move:{action.kind}"] += 1
            break
    folded = fold(MATCH, log, lambda e: SeededDice(dice_seed, MATCH, e.seq))
    assert state_hash(folded) == state_hash(live)
    assert folded == live
    # The run exercised the rules, not only EndPhase.
    assert refused > 0
    assert applied["EndPhase"] > 10 and applied["Shoot"] > 3 and applied["Move:normal"] > 3
    assert live.log_count > 100
    assert sum(applied.values()) == len(log) - 1
