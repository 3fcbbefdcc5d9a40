"""40k11 core, Charge phase [ext]: a charging model that can end in base contact with a model of
the target must. The player moves the chargers (``Move(kind="charge")`` after the charge roll);
a model left out of base contact is refused with a legal spot in contact it could have reached
(``contact_possible``, with the spot in ``values``)."""

from __future__ import annotations

from hulldown.match.actions import Charge, Move
from hulldown.match.state import MatchState, Point
from hulldown.rules.geometry import Base, distance, overlaps
from hulldown.rules.wh40k11.constants import BASE_CONTACT
from hulldown.rules.wh40k11.space import extent, footprint

from .builders import check, infantry, state, step, vehicle

D = 32.0 / 25.4  # two 32 mm bases touch with their centres 1.26" apart


def _charged(dice: list[int]) -> MatchState:
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


def _charged_walker() -> MatchState:
    """A FRAME VEHICLE walker of side b, a 10" x 2" hull on a 60 mm base (radius 1.18") at
    (10, 24) facing +x: the base sticks out 0.18" past each long side of the hull. squad-1 (32 mm)
    at (10, 29) charges it with a roll of 2 + 3 = 5."""
    walker = vehicle("walker", "b", 10, 24, length=10, width=2, base_mm=60, keywords=("vehicle", "frame"))
    squad = infantry("squad", "a", [(10, 29)])
    return step(state(walker, squad, phase="charge"), Charge(unit="squad", target="walker"), [2, 3])


def test_17_02_base_contact_with_a_frame_model_counts_its_base() -> None:
    """40k11 17.02 ("measure to and from the closest point on that model (so not necessarily from
    its base, if it has one)") with core Charge, base contact where possible: the walker's closest
    point below squad-1 is its base edge at y = 25.18, not its hull at y = 25. squad-1 moved 3.19"
    straight to (10, 25.812) touches that base (0.001" from it, 0.18" from the hull): it is in base
    contact, so the charge move is accepted. A move that stops short, to (10, 27), is refused with a
    spot in contact with the walker that is not on its base."""
    s = _charged_walker()
    touching = Point(10, 24 + 60 / 25.4 / 2 + D / 2 + 0.001)
    assert check(s, Move(unit="squad", kind="charge", path=(touching,))) is None
    why = check(s, Move(unit="squad", kind="charge", path=(Point(10, 27),)))
    assert why is not None and why.code == "contact_possible"
    spot = footprint(s.units["squad"], s.units["squad"].models["squad-1"], (why.values["x"], why.values["y"]))
    walker = s.units["walker"]
    assert not overlaps(spot, Base(10, 24, 60))
    assert 0 <= distance(spot, extent(walker, walker.models["walker-m"])) <= BASE_CONTACT
