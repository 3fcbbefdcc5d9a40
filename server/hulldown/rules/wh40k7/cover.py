"""Facing hit and cover for one target model (40k7 Vehicle Facing and Armour Values, Obscured
Targets; infantry cover [ext]).

- The facing hit is the zone of the hull the firer stands in (two diagonals). Exactly on a
  diagonal, the facing with the higher Armour Value is used (DIAGONAL_FAVOURS_DEFENDER
  [decided]: the rules give nobody a choice there, and a shot along the diagonal is the
  glancing-angle case).
- A firer that cannot see any of its own facing but sees another shoots that facing; the
  vehicle's cover save is one point better than the one given by the cover hiding the firer's
  own facing (seed 001, Obscured Targets: "one point better than that given by the cover
  obscuring the vehicle's other facing"). Among several visible facings it takes the lowest
  Armour Value (the firer's option).
- Obscured: at least 25% of the targeted facing hidden from the majority of the firing models
  able to damage it (geometry.obscured_for_unit); the cover save is the best one among the
  pieces (terrain, wrecks, models) that hide part of that facing.
- Infantry: a model inside terrain with the "cover" kind, or whose centre is hidden behind
  terrain or models from the firer (centre line test, a simplification of the 25% rule [decided]),
  has the best cover save among them. Gone to Ground (Pinned) improves cover by 1 (6+ in the open).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from shapely import MultiPoint, Polygon

from ...match.state import MatchState, Model, Unit
from .. import geometry as g
from ..memo import geometry_memo
from .attacks import ArmourFacing
from .geo import CoverPiece, cover_pieces, facing_hull, footprint, los_blockers

DIAGONAL_FAVOURS_DEFENDER = True
# Why a facing was used, as the log says it (40k7 Vehicles, Vehicle Facing and Armour Values).
CORNER_LINE_REASON = "corner line: higher Armour Value"
ANGLED_SHOT_REASON = "angled shot: own facing hidden"
ANGLED_SHOT_COVER_BONUS = 1
GONE_TO_GROUND_BONUS = 1
GONE_TO_GROUND_OPEN = 6
BEST_POSSIBLE_SAVE = 2


def armour_value(unit: Unit, facing: ArmourFacing) -> int:
    armour = unit.profile.armour
    if armour is None:
        return 10
    return {"front": armour.front, "side": armour.side, "rear": armour.rear}[facing]


def _pick(unit: Unit, facings: Sequence[g.Facing], highest: bool) -> g.Facing:
    key = [(armour_value(unit, g.armour_facing(f)), i, f) for i, f in enumerate(facings)]
    chosen = max(key) if highest else min(key)
    return chosen[2]


@dataclass(frozen=True)
class FacingHit:
    """The facing a shot is resolved against, and where its cover comes from.

    ``cover_facing`` is the facing whose obscuring cover counts: the facing hit, except for an
    angled shot, where it is the firer's own (wholly hidden) facing and ``bonus`` improves it.
    """

    facing: g.Facing
    cover_facing: g.Facing
    bonus: int = 0
    reason: str = "zone"
    zones: tuple[g.Facing, ...] = ()  # the zones the firer stands in (two on a corner line)


@geometry_memo
def facing_for(
    state: MatchState, unit: Unit, model: Model, origin: g.Point, exclude: Iterable[str]
) -> FacingHit:
    """The facing hit by a shot from ``origin`` at a vehicle model (40k7 Vehicle Facing; Obscured Targets)."""
    hull = facing_hull(model)
    own = g.facings_of_point(hull, origin)
    facing = _pick(unit, own, DIAGONAL_FAVOURS_DEFENDER) if len(own) > 1 else own[0]
    reason = CORNER_LINE_REASON if len(own) > 1 else "zone"
    blockers = los_blockers(state, (*exclude, unit.id))
    if not blockers:
        return FacingHit(facing, facing, 0, reason, own)
    visible = g.visible_facings(hull, origin, blockers)
    if not visible or any(f in visible for f in own):
        return FacingHit(facing, facing, 0, reason, own)
    # 40k7 Vehicles, Obscured Targets: the angled shot takes the facing it can see; the cover is
    # that of the firer's own facing, one point better.
    return FacingHit(
        _pick(unit, visible, highest=False), facing, ANGLED_SHOT_COVER_BONUS, ANGLED_SHOT_REASON, own
    )


def _relevant(pieces: list[CoverPiece], region: Polygon) -> list[CoverPiece]:
    return [p for p in pieces if p.shape.intersects(region)]


@dataclass(frozen=True)
class CoverFinding:
    """Whether a vehicle facing is obscured from a group of firers, and the numbers that decided
    it (for the log): each counted firer's hidden share of the facing and the best save."""

    facing: g.Facing
    shares: tuple[float, ...]  # hidden share of the facing edge from each counted firer
    hidden: int  # firers from which at least 25% is hidden
    obscured: bool
    save: int | None  # the best cover save among the hiding pieces (None: not obscured)
    pieces: tuple[str, ...] = ()
    origins: tuple[g.Point, ...] = ()  # where each counted firer stands (same order as shares)

    @property
    def counted(self) -> int:
        return len(self.shares)


@geometry_memo
def vehicle_cover_finding(
    state: MatchState,
    unit: Unit,
    model: Model,
    facing: g.Facing,
    origins: Sequence[g.Point],
    exclude: Iterable[str],
) -> CoverFinding:
    """Is the facing obscured from the majority of ``origins`` (every firing model of the group
    in that facing able to damage the vehicle, hit or miss), and with which save (seed 001,
    Obscured Targets; 40k7 Vehicles, Obscured Targets)."""
    if not origins:
        return CoverFinding(facing, (), 0, False, None)
    hull = facing_hull(model)
    target_shape = footprint(model).polygon()
    pieces = cover_pieces(state, (*exclude, unit.id), target_shape)
    p, q = g.facing_edge(hull, facing)
    region = MultiPoint([*origins, p, q]).convex_hull
    pieces = _relevant(pieces, region) if isinstance(region, Polygon) else pieces
    shapes = [c.shape for c in pieces]
    shares = tuple(g.hidden_fraction(o, hull, facing, shapes) if shapes else 0.0 for o in origins)
    hidden = sum(1 for share in shares if share >= g.OBSCURED_THRESHOLD - g.FRACTION_EPS)
    obscured = g.obscured_for_unit(list(origins), hull, facing, shapes) if shapes else False
    if not obscured:
        return CoverFinding(facing, shares, hidden, False, None, (), tuple(origins))
    hiding = [c for c in pieces if any(g.hidden_length(o, (p, q), [c.shape]) > g.EPS for o in origins)]
    save = min(c.save for c in hiding) if hiding else None
    return CoverFinding(
        facing, shares, hidden, save is not None, save, tuple(c.id for c in hiding), tuple(origins)
    )


def vehicle_cover(
    state: MatchState,
    unit: Unit,
    model: Model,
    facing: g.Facing,
    origins: Sequence[g.Point],
    exclude: Iterable[str],
) -> int | None:
    """The cover save of an obscured vehicle facing, or None (40k7 Vehicles, Obscured Targets)."""
    return vehicle_cover_finding(state, unit, model, facing, origins, exclude).save


@geometry_memo
def infantry_cover(
    state: MatchState, unit: Unit, model: Model, origin: g.Point, exclude: Iterable[str]
) -> int | None:
    """Cover save of a non-vehicle model against a shot from ``origin`` (see module doc)."""
    best: int | None = None
    base = footprint(model)
    for t in state.terrain.values():
        if "cover" in t.kinds and g.overlaps(base, [(p.x, p.y) for p in t.points]):
            save = t.cover_save or 5
            best = save if best is None else min(best, save)
    skip = set(exclude) | {unit.id}
    pieces = [c for c in cover_pieces(state, skip, None) if not c.shape.covers(g.as_geometry(origin))]
    centre = (model.pos.x, model.pos.y)
    for c in pieces:
        if g.segment_blocked(origin, centre, [c.shape]):
            best = c.save if best is None else min(best, c.save)
    if "pinned" in unit.statuses:
        best = GONE_TO_GROUND_OPEN if best is None else max(BEST_POSSIBLE_SAVE, best - GONE_TO_GROUND_BONUS)
    return best
