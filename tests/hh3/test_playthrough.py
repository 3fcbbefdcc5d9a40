"""hh3 random playthrough (the replay check of docs/architecture.md section 1, machinery in
tests/playthrough.py): two armies of tanks, transports with passengers and infantry move, Rush,
pivot, embark and disembark, split their fire, charge and fight among terrain, answer facing and
volley decisions, use Battlesmith; folding the log gives the live state."""

from __future__ import annotations

import math
import random

import pytest

from hulldown.match.actions import (
    Action,
    Challenge,
    Charge,
    Decide,
    Disembark,
    Embark,
    Fight,
    Fire,
    Join,
    Leave,
    Move,
    Pivot,
    Shoot,
)
from hulldown.match.events import Event
from hulldown.match.state import MatchState, Mount, Options, Point, Side, Unit
from hulldown.rules import geometry as g
from hulldown.rules.charging import DECISION_CHARGE
from hulldown.rules.hh3 import geom
from hulldown.rules.hh3.allocation import DECISION_ALLOCATE
from hulldown.rules.hh3.combat_lock import locked
from hulldown.rules.hh3.core import COHERENCY, CONTACT
from hulldown.rules.hh3.transports import access_distance
from hulldown.rules.hh3.transports import candidates as ring_positions

from ..decision_answers import random_answer
from ..playthrough import (
    assert_fold_equals_live,
    creation,
    decisions,
    lead,
    play,
    random_step,
    shuffled_with_end_phase,
    toward,
)
from .builders import squad, tank, transport, wall, weapon

MATCH = "playthrough-hh3"


def armies() -> tuple[Unit, ...]:
    def guns(uid: str) -> list[object]:
        return [
            weapon(f"{uid}-cannon", strength=8, ap=3, damage=2, rng=36, mount=Mount(kind="turret")),
            weapon(f"{uid}-hb", strength=5, ap=4, shots=3, rng=36, mount=Mount(kind="sponson", side="left")),
            weapon(f"{uid}-las", strength=9, ap=2, rng=48, mount=Mount(kind="hull", arc="front")),
            weapon(
                f"{uid}-coax",
                strength=4,
                ap=5,
                shots=2,
                rng=24,
                mount=Mount(kind="coaxial", linked=f"{uid}-cannon"),
            ),
        ]

    rifle = weapon("rifle", strength=4, ap=5, rng=24, shots=2, kind="rapid_fire")
    krak = weapon("krak", strength=8, ap=3, rng=8, kind="assault")
    fist = weapon("fist", strength=8, ap=2, kind="melee", rng=0)
    return (
        tank("pred-a", "a", 20, 16, 0, weapons=guns("pred-a"), keywords=("explodes:5",)),  # type: ignore[arg-type]
        transport("rhino-a", "a", 22, 30, 0, passengers=("tac-a",), keywords=("fast", "assault_vehicle")),
        squad("tac-a", "a", [(22, 30)] * 6, embarked_in="rhino-a", gun=rifle),
        squad(
            "ass-a",
            "a",
            [(26 + 1.4 * k, 38) for k in range(4)],
            melee=fist,
            gun=krak,
            a=2,
            keywords=("battlesmith:1",),
        ),
        tank("pred-b", "b", 50, 30, 180, weapons=guns("pred-b"), keywords=("stable",), inv=6),  # type: ignore[arg-type]
        transport(
            "rhino-b", "b", 48, 16, 180, passengers=("tac-b",), keywords=("explodes:6", "mitigation:6")
        ),
        squad("tac-b", "b", [(48, 16)] * 6, embarked_in="rhino-b", gun=rifle),
        squad(
            "ass-b", "b", [(44 + 1.4 * k, 40) for k in range(4)], melee=fist, gun=krak, a=2, kind="paragon"
        ),
        # hh3 Model Types, Paragon: a lone Paragon beside each side's assault squad, to join,
        # leave and challenge (rules/hh3/joining.py, challenge.py).
        squad("cap-a", "a", [(31.8, 38)], kind="paragon", melee=fist, a=3, w=3),
        squad("cap-b", "b", [(49.6, 40)], kind="paragon", melee=fist, a=3, w=3),
    )


def created() -> Event:
    terrain = (
        wall("ruin", 34, 20, 38, 24, "blocks_los", "cover", cover=4),
        wall("swamp", 30, 8, 36, 12, "dangerous", "difficult"),
        wall("low-wall", 36, 30, 37, 34, "cover", cover=5),
        wall("tower", 10, 40, 14, 44, "impassable", level=1),
    )
    return creation("hh3", armies(), terrain, Options(wrecks_remain=True))


def _to_segment(p: Point, a: tuple[float, float], b: tuple[float, float]) -> float:
    ux, uy = b[0] - a[0], b[1] - a[1]
    t = max(0.0, min(1.0, ((p.x - a[0]) * ux + (p.y - a[1]) * uy) / (ux * ux + uy * uy)))
    return math.hypot(p.x - a[0] - t * ux, p.y - a[1] - t * uy)


def _disembark_spots(s: MatchState, unit: Unit, rng: random.Random) -> dict[str, Point]:
    """The whole unit (hh3 Transport sub-type, Embarking / Disembarking), each model at the first
    spot going round the hull that touches a facing with an access point, clears the models
    placed and is within 2 in of one of them. The draws are the earlier generator's: the facing
    where the search starts, an offset along it, and a count of models: a count of 1 leaves the
    last model of a unit of several out, which the rules refuse while it could still be placed."""
    carrier = s.units[unit.embarked_in or ""]
    alive = [m for m in unit.models.values() if m.alive]
    facing = rng.choice(carrier.profile.access)
    count = rng.randint(1, len(alive))
    start = rng.uniform(0.0, 0.3)
    edge = g.facing_edge(geom.hull(next(iter(carrier.models.values()))), facing)
    ring = ring_positions(carrier, alive[0])
    reach = geom.radius(alive[0]) + 0.02
    along = [i for i, p in enumerate(ring) if _to_segment(p, *edge) < reach]
    k = along[int(start * len(along))] if along else 0
    ring = ring[k:] + ring[:k]
    spots: dict[str, Point] = {}
    placed: list[g.Footprint] = []
    for model in alive if count > 1 or len(alive) == 1 else alive[:-1]:
        for p in ring:
            fp = geom.at(model, p)
            if access_distance(carrier, fp) > CONTACT or any(g.overlaps(fp, o) for o in placed):
                continue
            if placed and not any(g.within(fp, o, COHERENCY) for o in placed):
                continue
            spots[model.id] = p
            placed.append(fp)
            break
    return spots


def candidates(s: MatchState, rng: random.Random) -> list[tuple[Side, Action]]:
    answers = decisions(s)
    if answers is not None:
        if s.pending is not None and s.pending.kind == DECISION_CHARGE:
            # hh3 Charge Move: the proposal or a random legal placement (docs/decisions.md)
            return [(s.pending.side, random_answer(s, rng))]
        if s.pending is not None and s.pending.kind == DECISION_ALLOCATE:
            # hh3 core, Wound Allocation: the owner gives the wound to any legal model, at random.
            rng.shuffle(answers)
        return answers
    side = s.active
    mine = [u for u in s.units.values() if u.side == side and not u.destroyed]
    foes = [u.id for u in s.units.values() if u.side != side and not u.destroyed and u.embarked_in is None]
    out: list[Action] = []
    for u in mine:
        if u.embarked_in is not None:
            if s.phase == "movement":
                out.extend(Disembark(unit=u.id, positions=_disembark_spots(s, u, rng)) for _ in range(3))
            continue
        start = lead(u)
        if start is None:
            continue
        if s.phase == "movement":
            for kind in ("normal", "rush"):
                end = random_step(rng, start, 0.5, u.profile.m * 1.5)
                out.append(Move(unit=u.id, kind=kind, path=(end,), heading=rng.uniform(0, 360)))
            if foes:
                goal = toward(start, lead(s.units[rng.choice(foes)]), rng.uniform(3.0, 9.0))
                if goal is not None:
                    out.append(Move(unit=u.id, path=(goal,)))
            out.append(Pivot(unit=u.id, heading=rng.uniform(0, 360)))
            for carrier in s.units.values():
                if carrier.side == side and carrier.has("transport") and not carrier.destroyed:
                    out.append(Embark(unit=u.id, transport=carrier.id))
            for friend in mine:
                if friend.id != u.id and u.kind == "paragon":
                    out.append(Join(unit=u.id, target=friend.id))
            for model in u.models.values():
                if model.alive and model.kind == "paragon":
                    out.append(Leave(unit=u.id, model=model.id))
            for mended in s.units.values():
                if mended.side == side and mended.kind == "vehicle" and not mended.destroyed:
                    out.append(Move(unit=u.id, kind="battlesmith", target=mended.id))
        elif s.phase == "shooting" and foes:
            ranged = [w for w in u.weapons.values() if w.type != "melee"]
            if not ranged:
                continue
            picked = rng.sample(ranged, k=rng.randint(1, len(ranged)))
            if u.kind == "vehicle":
                fire = tuple(Fire(weapon=w.id, target=rng.choice(foes)) for w in picked)
            else:
                target = rng.choice(foes)
                fire = tuple(Fire(weapon=w.id, target=target) for w in picked)
            out.append(Shoot(unit=u.id, fire=fire))
            target = rng.choice(foes)
            out.append(Shoot(unit=u.id, fire=tuple(Fire(weapon=w.id, target=target) for w in ranged)))
            # A target within range of every weapon fired and not locked in combat (hh3 core, Select
            # Target Unit), so that shooting happens often enough.
            near = [
                f
                for f in foes
                if all(geom.model_to_unit(u.models[w.model], s.units[f]) <= w.range for w in ranged)
                and not locked(s, s.units[f])
            ]
            if near:
                target = rng.choice(near)
                out.append(Shoot(unit=u.id, fire=tuple(Fire(weapon=w.id, target=target) for w in ranged)))
        elif s.phase == "assault" and foes:
            out.append(Charge(unit=u.id, target=rng.choice(foes)))
            for f in foes:
                out.append(Fight(unit=u.id, target=f))
                paragons = [m.id for m in u.models.values() if m.alive and (m.kind or u.kind) == "paragon"]
                out.extend(Challenge(unit=u.id, model=m, target=f) for m in paragons)
    return shuffled_with_end_phase(side, out, rng, early=0.1)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_playthrough_fold_equals_live_state(seed: int) -> None:
    """hh3 playthrough: fold(initial, log) == live state, by state_hash."""
    run = play(
        created(), "hh3", MATCH, candidates, seed=seed, dice_seed=f"hh3-seed-{seed}".encode(), steps=500
    )
    assert_fold_equals_live(run)
    # The run exercised the rules, not only EndPhase.
    applied = run.applied
    assert sum(run.refused.values()) > 0
    assert applied["EndPhase"] > 10 and applied["Shoot"] > 3 and applied["Move:normal"] > 3
    assert applied["Disembark"] >= 1
    assert applied["Join"] >= 1  # hh3 Model Types, Paragon: a Paragon joined a unit
    assert run.live.log_count > 100
    # hh3 core, Wound Allocation: the owner was asked, and answered at random, at least once.
    assert [e for e in run.log if isinstance(e.body, Decide) and e.body.decision.startswith("allocate-")]
