"""``GET /matches/{id}/options?unit=<unit id>`` (a side token in ``Authorization: Bearer``): the
kinds of action the unit may take now, each decided by the same validation an ``act`` runs
(``match/options.py``; docs/table.md). Rate-limited with ``POST /check`` (one bucket per side).
A missing or empty ``unit`` is 400 ``bad_parameter`` naming it, as on /arcs.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..live.rules_pool import run_rules_for
from ..match.options import unit_options
from .check_limits import side_call
from .responses import MsgspecJSON, error, required_params


async def get_options(request: Request) -> Response:
    call = await side_call(request)  # the token, the match and the rate first, as on /check
    if isinstance(call, Response):
        return call
    params = required_params(request, ("unit", "a unit id of your side"))
    if isinstance(params, Response):
        return params
    match_id, runtime, side = call.match_id, call.runtime, call.side
    (unit_id,) = params
    state = runtime.state
    unit = state.units.get(unit_id)
    if unit is None:
        return error(404, "unknown_unit", f"no unit {unit_id!r} (unit)")
    if unit.side != side:
        return error(403, "not_your_unit", f"unit {unit_id!r} belongs to side {unit.side}")
    with runtime.in_use():
        options = await run_rules_for(match_id, unit_options, state, side, unit)
    return MsgspecJSON(options)


routes: list[BaseRoute] = [Route("/matches/{match_id}/options", get_options, methods=["GET"])]
