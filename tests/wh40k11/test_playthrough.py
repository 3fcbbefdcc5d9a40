"""40k11 random playthrough (the replay check of docs/architecture.md section 1, machinery in
tests/playthrough.py): FRAME vehicles, a MONSTER and infantry move, Advance, Fall Back, shoot
(close-quarters too), charge and fight; the defender allocates wounds at random; folding the log
gives the live state."""

from __future__ import annotations

import random

import pytest

from hulldown.match.actions import Action, Charge, Decide, Fight, Fire, Move, Pivot, Shoot
from hulldown.match.events import Event
from hulldown.match.state import MatchState, Side, Unit
from hulldown.rules.wh40k11.units import flag_int, flag_value

from ..playthrough import (
    assert_fold_equals_live,
    creation,
    decisions,
    lead,
    nearest_model,
    play,
    random_step,
    shuffled_with_end_phase,
    toward,
)
from .builders import infantry, vehicle, weapon

MATCH = "playthrough-40k11"


# Centres of two 32 mm bases 0.01" apart.
CONTACT_STOP = 32.0 / 25.4 + 0.01


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
    return creation("40k11", armies())


def candidates(s: MatchState, rng: random.Random) -> list[tuple[Side, Action]]:
    answers = decisions(s)
    if answers is not None:
        # Answer at random (docs/decisions.md): e.g. any legal model for a wound's allocation.
        rng.shuffle(answers)
        return answers
    side = s.active
    mine = [u for u in s.units.values() if u.side == side and not u.destroyed]
    foes = [u.id for u in s.units.values() if u.side != side and not u.destroyed]
    out: list[Action] = []
    for u in mine:
        start = lead(u)
        if start is None:
            continue
        if s.phase == "movement":
            for kind in ("normal", "fall_back", "advance"):
                reach = u.profile.m + (flag_int(u, "advance_roll") or 0)
                end = random_step(rng, start, 0.5, reach)
                out.append(
                    Move(unit=u.id, kind=kind, path=(end,), heading=rng.choice([None, rng.uniform(0, 360)]))
                )
            if foes:
                goal = toward(start, nearest_model(s, u, rng.choice(foes)), 4.5)
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
            # CONTACT_STOP: the lead model's base touching the nearest target model (40k11 Charge:
            # base contact where possible), besides stops short of it.
            for stop in (0.4, 1.2, CONTACT_STOP, rng.uniform(0.3, 2.5)) if target is not None else ():
                goal = toward(start, nearest_model(s, u, target or ""), stop)
                if goal is not None:
                    out.append(Move(unit=u.id, kind="charge", path=(goal,)))
        elif s.phase == "fight":
            for f in foes:
                melee = [w.id for w in u.weapons.values() if w.type == "melee"]
                out.append(Fight(unit=u.id, target=f, weapon=rng.choice([None, *melee])))
    return shuffled_with_end_phase(side, out, rng, early=0.12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_playthrough_fold_equals_live_state(seed: int) -> None:
    """40k11 playthrough: fold(initial, log) == live state, by state_hash."""
    run = play(created(), "40k11", MATCH, candidates, seed=seed, dice_seed=f"seed-{seed}".encode(), steps=600)
    assert_fold_equals_live(run)
    # The run exercised the rules, not only EndPhase.
    applied = run.applied
    assert sum(run.refused.values()) > 0
    assert applied["EndPhase"] > 10 and applied["Shoot"] > 3 and applied["Move:normal"] > 3
    assert run.live.log_count > 100
    # 40k11 core, Allocate attack: the defender was asked, and answered, at least once.
    allocations = [
        e for e in run.log if isinstance(e.body, Decide) and e.body.decision.startswith("allocate-")
    ]
    assert allocations
