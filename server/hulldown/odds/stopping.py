"""When a sampled answer has enough samples (docs/odds.md, "When the tree is too large").

Every probability the answer reports is the share of samples in which some event happened (a
unit changed, was destroyed, ended at a count, rolled a damage result, gained a status; a
charge reached; a decision was raised or answered a way; a decision was left pending) or its
complement. Each distinct play's events are listed once; the standard error of a share ``p`` of
``n`` samples is ``sqrt(p (1 - p) / n)``, the same for an event and its complement.
"""

from __future__ import annotations

import math

from ..match.actions import Action, Charge
from .observe import (
    affected_units_of,
    amount,
    charge_reached,
    measure_of,
    named_units,
    observe,
)
from .plays import Play

Event = tuple[object, ...]


def events_of(play: Play, action: Action) -> frozenset[Event]:
    """The events of one play whose shares the answer reports (the default of each left out:
    the complement has the same standard error)."""
    units = affected_units_of(play, named_units(action))
    out: set[Event] = set()
    for uid, o in observe(play, units).items():
        before = play.start.units[uid]
        start = amount(before, measure_of(before))
        if o.changed:
            out.add(("changed", uid))
        if o.destroyed:
            out.add(("destroyed", uid))
        if o.final != start:
            out.add(("final", uid, o.final))
            out.add(("final moved", uid))
        if o.glancing:
            out.add(("glancing", uid))
        if o.penetrating:
            out.add(("penetrating", uid))
        out.update(("result", uid, r) for r in o.results)
        out.update(("status", uid, s) for s in o.statuses)
    if isinstance(action, Charge) and charge_reached(play.end, action):
        out.add(("reaches",))
    for r in play.raised:
        out.add(("raised", r.kind, r.side, r.rule))
        out.add(("chosen", r.kind, r.side, r.rule, r.chosen))
    if play.pending is not None:
        out.add(("pending",))
    return frozenset(out)


def largest_se(counts: dict[Event, float], n: int) -> float:
    """The largest standard error of the shares ``counts / n``."""
    worst = 0.0
    for c in counts.values():
        p = c / n
        worst = max(worst, math.sqrt(p * (1.0 - p) / n))
    return worst
