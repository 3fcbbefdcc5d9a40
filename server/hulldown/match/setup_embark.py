"""Set-up: a unit starts the game embarked (docs/missions.md, "Set-up, as actions").

During the deployment step the deploying side may send ``{"type": "embark", "unit": ...,
"transport": ...}`` for one of its units still to deploy: the unit then starts embarked in that
transport of its side, itself still to deploy, and is deployed (or held in reserve) with it. Where
the models stand does not matter; who may get in is the edition's own rule (``fits``: 40k7
Vehicles, Transports; hh3 Transport sub-type, Who can get in). Undone like a deployment.

Each edition that has transports routes its ``Embark`` through :func:`embark_handlers`: in set-up
these rules, in the battle its own.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec.structs import replace

from .actions import Embark
from .context import ApplyContext
from .dispatch import Applier, Validator
from .rejection import Rejection, reject
from .setup import check_turn, in_setup, rule
from .state import MatchState, Side, Unit

Fits = Callable[[MatchState, Unit, Unit], Rejection | None]
"""The edition's "who may get in": the unit, the transport; ``None`` when it may."""


def validate_start_embarked(state: MatchState, side: Side, action: Embark, fits: Fits) -> Rejection | None:
    """The deploying side's unit still to deploy, in a transport of its side also still to deploy
    (the unit is deployed with it) that is not itself embarked, if the edition lets it in."""
    refused = check_turn(state, side, action.unit)
    if refused is not None:
        return refused
    assert state.mission is not None
    unit = state.units[action.unit]
    transport = state.units.get(action.transport)
    if transport is None or transport.side != unit.side or transport.destroyed or transport.id == unit.id:
        return reject(
            "unknown_transport",
            rule(state),
            f"no other unit {action.transport!r} of side {unit.side} to start embarked in",
            transport=action.transport,
        )
    if transport.embarked_in is not None:
        return reject(
            "transport_embarked",
            rule(state),
            f"{transport.name} is itself embarked in {transport.embarked_in}",
        )
    if state.mission.off_table.get(transport.id) != "undeployed":
        return reject(
            "transport_deployed",
            rule(state),
            f"{transport.name} is already deployed or in reserve: a unit starts embarked in a "
            "transport still to deploy, and is deployed with it",
        )
    if unit.passengers:
        return reject(
            "carries_passengers",
            rule(state),
            f"{unit.name} carries {', '.join(unit.passengers)}: a transport does not embark",
        )
    return fits(state, unit, transport)


def apply_start_embarked(state: MatchState, side: Side, action: Embark, ctx: ApplyContext) -> MatchState:
    unit = state.units[action.unit]
    transport = state.units[action.transport]
    units = dict(state.units)
    units[unit.id] = replace(unit, embarked_in=transport.id)
    units[transport.id] = replace(transport, passengers=(*transport.passengers, unit.id))
    ctx.log(
        f"Side {side}: {unit.name} starts embarked in {transport.name} and is deployed with it.",
        rule(state),
    )
    return replace(state, units=units)


def embark_handlers(
    validate: Validator[Embark], apply: Applier[Embark], fits: Fits
) -> tuple[Validator[Embark], Applier[Embark]]:
    """``Embark`` in set-up (a unit starting embarked) and in the battle (``validate``, ``apply``)."""

    def validate_any(state: MatchState, side: Side, action: Embark) -> Rejection | None:
        if in_setup(state):
            return validate_start_embarked(state, side, action, fits)
        return validate(state, side, action)

    def apply_any(state: MatchState, side: Side, action: Embark, ctx: ApplyContext) -> MatchState:
        if in_setup(state):
            return apply_start_embarked(state, side, action, ctx)
        return apply(state, side, action, ctx)

    return validate_any, apply_any
