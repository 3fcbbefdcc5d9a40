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


def test_17_02_a_charging_frame_model_is_in_base_contact_through_its_own_base() -> None:
    """40k11 17.02 ("measure to and from the closest point on that model (so not necessarily from
    its base, if it has one)") with core Charge, base contact where possible, the charger's side:
    a FRAME VEHICLE walker of side a, a 1" x 0.3" hull on a 60 mm base (radius 1.18") at (10, 24)
    facing +x - the base sticks out 0.68" past the front of the hull - charges squad-1 (32 mm,
    radius 0.63") at (16, 24). Charge roll 2 + 3 = 5. Moved 4.188" straight to (14.188, 24), its
    base edge (x = 15.369) is 0.001" from squad-1's base (x = 15.37) and the front of its hull
    (x = 14.688) 0.68" away: the walker is in base contact through its own base, so the charge
    move is accepted. It was refused (``contact_possible``) with a spot near (14.82, 24.06), where
    the hull touches squad-1 and the base lies over squad-1's."""
    walker = vehicle("walker", "a", 10, 24, length=1, width=0.3, base_mm=60, keywords=("vehicle", "frame"))
    squad = infantry("squad", "b", [(16, 24)])
    s = step(state(walker, squad, phase="charge"), Charge(unit="walker", target="squad"), [2, 3])
    end = Point(round(16 - D / 2 - 60 / 25.4 / 2 - 0.001, 3), 24)
    assert end == Point(14.188, 24)
    charger, foe = s.units["walker"], s.units["squad"]
    target = footprint(foe, foe.models["squad-1"])
    assert 0 < distance(extent(charger, charger.models["walker-m"], (end.x, end.y)), target) <= BASE_CONTACT
    assert distance(footprint(charger, charger.models["walker-m"], (end.x, end.y)), target) > 0.6
    assert check(s, Move(unit="walker", kind="charge", path=(end,))) is None
    moved = step(s, Move(unit="walker", kind="charge", path=(end,)))
    assert moved.units["walker"].flag("charged") and moved.units["walker"].models["walker-m"].pos == end
