"""40k11 core, Charge phase [ext]: a charging model that can end in base contact with a model of
the target must. The player moves the chargers (``Move(kind="charge")`` after the charge roll);
a model left out of base contact is refused with a legal spot in contact it could have reached
(``contact_possible``, with the spot in ``values``)."""

from __future__ import annotations

from hulldown.match.actions import Charge, Move
from hulldown.match.state import Point
from hulldown.rules.geometry import distance
from hulldown.rules.wh40k11.constants import BASE_CONTACT
from hulldown.rules.wh40k11.space import footprint

from .builders import check, infantry, state, step

D = 32.0 / 25.4  # two 32 mm bases touch with their centres 1.26" apart


def _charged(dice: list[int]):  # type: ignore[no-untyped-def]
    squad = infantry("squad", "a", [(10, 24), (10, 25.5)])
    foe = infantry("foe", "b", [(16, 24)])
    return step(state(squad, foe, phase="charge"), Charge(unit="squad", target="foe"), dice)


def test_within_engagement_range_is_not_enough_when_base_contact_is_reachable() -> None:
    """Roll 2 + 3 = 5: squad-1 moved 4" to (14, 24) is 0.74" from the foe (within Engagement
    Range) but could have gone the 4.74" into base contact: refused, with such a spot."""
    s = _charged([2, 3])
    why = check(s, Move(unit="squad", kind="charge", path=(Point(14, 24),)))
    assert why is not None and why.code == "contact_possible" and why.values["model"] == "squad-1"
    spot = Point(float(why.values["x"]), float(why.values["y"]))
    foe = s.units["foe"]
    gap = distance(
        footprint(s.units["squad"], s.units["squad"].models["squad-1"], (spot.x, spot.y)),
        footprint(foe, foe.models["foe-1"]),
    )
    assert 0 <= gap <= BASE_CONTACT
    # squad-2 cannot reach contact as well (5" from (10, 25.5) ends short of a free spot)
    moved = step(
        s, Move(unit="squad", kind="charge", positions={"squad-1": spot, "squad-2": Point(14, 25.5)})
    )
    assert moved.units["squad"].flag("charged") and moved.units["squad"].models["squad-1"].pos == spot


def test_a_roll_too_short_for_contact_leaves_engagement_range_enough() -> None:
    """Roll 1 + 2 = 3: base contact needs 4.74"; 3" straight to (13, 24) ends 1.74" away, within
    Engagement Range (2"): accepted."""
    s = _charged([1, 2])
    assert check(s, Move(unit="squad", kind="charge", path=(Point(13, 24),))) is None
