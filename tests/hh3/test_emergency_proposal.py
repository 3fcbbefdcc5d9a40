"""hh3 Transport sub-type, Emergency Disembarkation: the server's proposal places the passengers
in model id order, each at the first free position going round the hull. Its search goes on,
for each base size, from where the last base of that size was put (the positions before it are
blocked for the next one too); it must give exactly the positions of trying every one from the
start, with enemies, other models, impassable terrain and the table edge in the way."""

from __future__ import annotations

import random

from msgspec.structs import replace

from hulldown.match.state import MatchState, Point, Unit
from hulldown.rules.hh3 import geom
from hulldown.rules.hh3.core import alive_models
from hulldown.rules.hh3.emergency import propose
from hulldown.rules.hh3.transports import blocked, candidates

from .builders import make, squad, tank, transport, wall


def _every_position(state: MatchState, rhino: Unit, troops: Unit) -> dict[str, Point]:
    """The proposal by its definition: each model, in id order, at the first free position."""
    placed = []
    spots: dict[str, Point] = {}
    for mid in sorted(m.id for m in alive_models(troops)):
        model = troops.models[mid]
        for spot in candidates(rhino, model):
            fp = geom.at(model, spot)
            if blocked(state, fp, troops.side, placed, {troops.id, rhino.id}) is None:
                spots[mid] = spot
                placed.append(fp)
                break
    return spots


def test_the_proposal_is_the_first_free_position_for_each_model_in_turn() -> None:
    rng = random.Random(41)
    placed_some = lost_some = 0
    for k in range(60):
        x, y = rng.uniform(6, 66), rng.uniform(4, 44)
        rhino = transport("rhino", "b", x, y, rng.uniform(0, 360), passengers=("s",))
        troops = squad("s", "b", [(x, y)] * rng.randint(1, 12), embarked_in="rhino")
        sizes = {mid: rng.choice([25.0, 32.0, 32.0, 40.0, 60.0]) for mid in troops.models}
        troops = replace(
            troops, models={mid: replace(m, base_mm=sizes[mid]) for mid, m in troops.models.items()}
        )
        others: list[Unit] = []
        for i in range(rng.randint(0, 3)):  # enemies and friends standing close by
            near = [(x + rng.uniform(-5, 5), y + rng.uniform(-5, 5)) for _ in range(rng.randint(1, 4))]
            others.append(squad(f"o{i}", rng.choice(["a", "b"]), near))
        if rng.random() < 0.4:
            others.append(tank("t", "a", x + rng.uniform(-7, 7), y + rng.uniform(-7, 7), rng.uniform(0, 360)))
        terrain = []
        if rng.random() < 0.5:
            x0, y0 = x + rng.uniform(-5, 2), y + rng.uniform(-5, 2)
            terrain.append(wall("w", x0, y0, x0 + rng.uniform(1, 4), y0 + rng.uniform(1, 4), "impassable"))
        state = make([rhino, troops, *others], terrain=terrain)
        expected = _every_position(state, state.units["rhino"], state.units["s"])
        assert propose(state, state.units["rhino"], state.units["s"]) == expected, k
        placed_some += bool(expected)
        lost_some += len(expected) < len(troops.models)
    assert placed_some > 40 and lost_some > 3  # both placed and lost models were compared
